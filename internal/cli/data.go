package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// Loaded is a data set as read and preprocessed for a command or the TUI.
type Loaded struct {
	Data   *datasets.Dataset
	Prep   *datasets.Preprocessed
	Labels *datasets.LabelReport // nil when no labels file was joined
	// Config holds the data settings every run started from here uses:
	// Data, Labels, LabelsColumn, UseRaw, Orientation and Preprocess
	// (core.Config's fields).
	Config core.Config
	// Session is the session file the interface reopens and saves to
	// (--session); "" for none.
	Session string
}

// Summary describes the loaded set, for printing.
func (l *Loaded) Summary() datasets.Summary { return datasets.Summarize(l.Data, l.Prep, l.Labels) }

// loadFlags are the flags every command that reads a data set shares.
type loadFlags struct {
	data string
	// dataArg is set when data came from an argument (data inspect), not
	// from --data: errors then name it alone.
	dataArg      bool
	labels       string
	labelsColumn string
	useRaw       bool
	orientation  string
	pre          datasets.PreprocessConfig
	selection    string
}

// dataFlagUsage is --data's help on every command that takes it, so that
// run and sweep list the same formats as the interface.
const dataFlagUsage = "data set: builtin:NAME, a 10x MatrixMarket folder, an AnnData .h5ad or Cell Ranger .h5 file, or a dense CSV/TSV file"

func (lf *loadFlags) register(cmd *cobra.Command, defaultData string) {
	lf.pre = datasets.DefaultPreprocessConfig()
	f := cmd.Flags()
	if defaultData != "" {
		f.StringVar(&lf.data, "data", defaultData, dataFlagUsage)
	}
	lf.registerPrep(f)
	// --clip was the value cap's first name; the run command's --clip is
	// the clipping bound C, so the cap is --max-value everywhere now.
	f.Float64Var(&lf.pre.MaxValue, "clip", lf.pre.MaxValue, "deprecated: use --max-value")
	_ = f.MarkHidden("clip")
}

// registerPrep adds the labels, orientation and preprocessing flags.
func (lf *loadFlags) registerPrep(f *pflag.FlagSet) {
	lf.pre = datasets.DefaultPreprocessConfig()
	lf.selection = string(lf.pre.Selection)
	f.StringVar(&lf.labels, "labels", "", "labels TSV (barcode<TAB>label) joined by barcode; default labels.tsv in an MTX folder")
	f.StringVar(&lf.labelsColumn, "labels-column", "", ".h5ad files: the obs column whose values are the cells' labels, e.g. cell_type")
	f.BoolVar(&lf.useRaw, "use-raw", false, ".h5ad files: read raw.X (the counts AnnData keeps after normalising X) instead of X")
	f.StringVar(&lf.orientation, "orientation", "auto", "dense files only: auto, genes-by-cells or cells-by-genes")
	f.IntVar(&lf.pre.MinGenes, "min-genes", lf.pre.MinGenes, "drop cells with fewer detected genes (0: off)")
	f.IntVar(&lf.pre.MinCells, "min-cells", lf.pre.MinCells, "drop genes detected in fewer cells (0: off)")
	f.IntVar(&lf.pre.NTopGenes, "genes", lf.pre.NTopGenes, "number of genes to select")
	f.StringVar(&lf.selection, "selection", lf.selection, "gene selection: hvg, zero-rate or all")
	f.Float64Var(&lf.pre.TargetSum, "target-sum", 0, "normalise every cell to this total (0: the median total)")
	f.Float64Var(&lf.pre.MaxValue, "max-value", lf.pre.MaxValue, "clip scaled values to ±this (0: off)")
}

// applyTo sets the data settings of cfg that the flags set (set reports
// whether a flag was given) over what cfg already holds, and validates them.
func (lf *loadFlags) applyTo(cfg *core.Config, set func(string) bool) error {
	pre := datasets.DefaultPreprocessConfig()
	if cfg.Preprocess != nil {
		pre = *cfg.Preprocess
	}
	flagged := lf.pre
	flagged.Selection = datasets.GeneSelection(lf.selection)
	for name, apply := range map[string]func(){
		"min-genes": func() { pre.MinGenes = flagged.MinGenes }, "min-cells": func() { pre.MinCells = flagged.MinCells },
		"genes": func() { pre.NTopGenes = flagged.NTopGenes }, "selection": func() { pre.Selection = flagged.Selection },
		"target-sum": func() { pre.TargetSum = flagged.TargetSum }, "max-value": func() { pre.MaxValue = flagged.MaxValue },
		"labels": func() { cfg.Labels = lf.labels }, "orientation": func() { cfg.Orientation = lf.orientation },
		"labels-column": func() { cfg.LabelsColumn = lf.labelsColumn }, "use-raw": func() { cfg.UseRaw = lf.useRaw },
	} {
		if set(name) {
			apply()
		}
	}
	// A bad flag is named: each flag's value is checked alone against the
	// defaults first (datasets' message names the field, not the flag,
	// and its package, which the flag makes needless).
	for _, f := range []struct {
		name string
		put  func(*datasets.PreprocessConfig)
	}{
		{"min-genes", func(c *datasets.PreprocessConfig) { c.MinGenes = flagged.MinGenes }},
		{"min-cells", func(c *datasets.PreprocessConfig) { c.MinCells = flagged.MinCells }},
		{"genes", func(c *datasets.PreprocessConfig) { c.NTopGenes = flagged.NTopGenes }},
		{"selection", func(c *datasets.PreprocessConfig) { c.Selection = flagged.Selection }},
		{"target-sum", func(c *datasets.PreprocessConfig) { c.TargetSum = flagged.TargetSum }},
		{"max-value", func(c *datasets.PreprocessConfig) { c.MaxValue = flagged.MaxValue }},
	} {
		if !set(f.name) {
			continue
		}
		alone := datasets.DefaultPreprocessConfig()
		f.put(&alone)
		if err := alone.Validate(); err != nil {
			return usagef("--%s: %s", f.name, strings.TrimPrefix(err.Error(), "datasets: "))
		}
	}
	if err := pre.Validate(); err != nil {
		return usageError{err}
	}
	if _, err := datasets.ParseOrientation(cfg.Orientation); err != nil {
		return usageError{err}
	}
	cfg.Preprocess = &pre
	return nil
}

// load reads and preprocesses the data set the flags of cmd name, through
// the same path every engine uses (datasets.LoadPreprocessed).
func (lf *loadFlags) load(cmd *cobra.Command) (*Loaded, error) {
	if strings.TrimSpace(lf.data) == "" {
		return nil, usagef("--data is empty: name a data set (builtin:NAME or a path)")
	}
	return lf.loadFrom(cmd, core.Config{Data: lf.data})
}

// loadFrom loads the data set of cfg with the flags set applied over its
// data settings.
func (lf *loadFlags) loadFrom(cmd *cobra.Command, cfg core.Config) (*Loaded, error) {
	set := cmd.Flags().Changed
	if set("clip") {
		// pflag's own deprecation notice goes to cobra's swallowed flag
		// buffer, so say it here.
		fmt.Fprintln(cmd.ErrOrStderr(), "dpscope: warning: --clip is deprecated, use --max-value (the cap on scaled values); --clip goes in the next release")
	}
	// The deprecated --clip sets the same value as --max-value.
	withAlias := func(name string) bool { return set(name) || (name == "max-value" && set("clip")) }
	if err := lf.applyTo(&cfg, withAlias); err != nil {
		return nil, err
	}
	if _, err := cfg.LoadOptions(); err != nil {
		return nil, usageError{err}
	}
	label := "--data " + cfg.Data
	if lf.dataArg {
		label = cfg.Data
	}
	if err := dataMissing(label, cfg.Data); err != nil {
		return nil, err
	}
	p, err := cfg.LoadData() // the runs' own path, cache included
	if err != nil {
		return nil, err
	}
	return &Loaded{Data: p.Raw, Prep: p.Data, Labels: p.Labels, Config: cfg}, nil
}

func newDataCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Inspect data sets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("data needs a subcommand: inspect or export")
		},
	}
	cmd.AddCommand(newInspectCmd(env), newExportCmd(env))
	return cmd
}

func newInspectCmd(env Env) *cobra.Command {
	var lf loadFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect PATH|builtin:NAME",
		Short: "Print a data set's shape, classes, sparsity, value type and preprocessing",
		Long: `inspect reads a data set — a 10x MatrixMarket folder (matrix.mtx[.gz],
features.tsv[.gz] or genes.tsv[.gz], barcodes.tsv[.gz], optional labels.tsv),
an AnnData .h5ad file (labels from an obs column with --labels-column, raw.X
with --use-raw), a Cell Ranger filtered_feature_bc_matrix.h5 (both need the
system's libhdf5), a dense CSV/TSV file, or a built-in set such as
builtin:default — runs the
preprocessing and prints what it found, as a table or with --json as one
JSON object.`,
		Example: "  dpscope data inspect builtin:default\n  dpscope data inspect ../shared/data/pbmc_4k --json\n  dpscope data inspect pbmc.h5ad --labels-column cell_type --use-raw",
		Args:    exactArgs(1, "a data set: a path or builtin:NAME"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			lf.data, lf.dataArg = args[0], true
			data, err := lf.load(cmd)
			if err != nil {
				return err
			}
			s := data.Summary()
			if asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			return writeSummary(env.Stdout, s)
		}),
	}
	lf.register(cmd, "")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of a table")
	return cmd
}

// exactArgs is cobra.ExactArgs with a message that says what is expected.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("want %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

// writeSummary prints s as aligned tables.
func writeSummary(w io.Writer, s datasets.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "data set\t%s\t(%s)\n", s.Name, s.Source)
	fmt.Fprintf(tw, "cells\t%d\n", s.Cells)
	fmt.Fprintf(tw, "genes\t%d\n", s.Genes)
	fmt.Fprintf(tw, "non-zero\t%d\t(sparsity %.1f%%)\n", s.NonZero, 100*s.Sparsity)
	fmt.Fprintf(tw, "values\t%s\n", s.ValueType)
	fmt.Fprintf(tw, "classes\t%d", len(s.Classes))
	if s.Unlabelled > 0 {
		fmt.Fprintf(tw, "\t(%d cells unlabelled)", s.Unlabelled)
	}
	fmt.Fprintln(tw)
	if j := s.LabelJoin; j != nil {
		fmt.Fprintf(tw, "labels\t%s: %d cells labelled, %d without a label, %d for unknown barcodes\n", j.File, j.Labelled, j.Missing, j.Unknown)
	}
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Name, c.Cells)
	}
	fmt.Fprintf(tw, "after preprocessing\t%d cells × %d genes\n", s.KeptCells, s.SelectedGenes)
	for _, st := range s.Preprocessing {
		mark := "✓"
		if st.Skipped {
			mark = "–"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\n", mark, st.Name, st.Detail)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(tw, "warning\t%s\n", w)
	}
	return tw.Flush()
}
