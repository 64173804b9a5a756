package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/internal/plot"
)

// figureOptions say which figures to make of a folder.
type figureOptions struct {
	metrics    []string // trade-off metrics: ari, nmi
	references bool     // compute B1 and the nulls for a sweep
	labels     bool     // read the data set for a run's true labels
}

// folderData is a run or sweep folder read for figures and reports.
type folderData struct {
	dir     string
	run     *runFolder   // a run folder, or nil
	sweep   *sweepFolder // a sweep folder, or nil
	refs    *references
	groups  []sweepGroup // a sweep folder's groups, judged against their nulls with references
	figs    []namedFigure
	skipped []string // figures not made, with the reason
}

// loadFolder reads dir as a sweep folder (manifest.json) or a run folder
// (summary.json) and builds its figures.
func loadFolder(ctx context.Context, dir string, fo figureOptions) (*folderData, error) {
	fd := &folderData{dir: dir}
	switch {
	case isSweepFolder(dir):
		sf, err := readSweepFolder(dir)
		if err != nil {
			return nil, err
		}
		fd.sweep, fd.groups = sf, groupsOf(sf.groups)
		if fo.references {
			fd.refs, fd.groups = sweepRefs(ctx, sf)
		}
		fd.figs, fd.skipped = sweepFigures(sf, fd.groups, fo.metrics, fd.refs)
	case isRunFolder(dir):
		rf, err := readRunFolder(dir)
		if err != nil {
			return nil, err
		}
		fd.run, fd.refs = rf, rf.summary.Reference
		var labels []string
		if fo.labels {
			if labels, err = runLabels(rf); err != nil {
				fd.skipped = append(fd.skipped, "embedding coloured by true label: "+err.Error())
			}
		}
		figs, skipped := runFigures(rf, labels)
		fd.figs, fd.skipped = figs, append(fd.skipped, skipped...)
	default:
		if st, err := os.Stat(dir); err != nil {
			return nil, usagef("%s: %v", dir, err)
		} else if !st.IsDir() {
			return nil, usagef("%s is a file: want a run folder (run --out) or a sweep folder (sweep --out)", dir)
		}
		return nil, usagef("%s holds neither summary.json (a run folder, run --out) nor manifest.json (a sweep folder, sweep --out)", dir)
	}
	return fd, nil
}

// renderFigure draws one figure in format at width (column or double).
func renderFigure(f namedFigure, format, width string) ([]byte, error) {
	size, ok := plot.SizeFor(width, f.ratio)
	if !ok {
		return nil, usagef("--width is %q, want column (3.5 in) or double (7 in)", width)
	}
	var buf bytes.Buffer
	if err := (plot.Figure{Panels: f.panels, Size: size, SideLegends: f.sideLegends}).Write(&buf, format); err != nil {
		return nil, fmt.Errorf("figure %s: %w", f.name, err)
	}
	return buf.Bytes(), nil
}

// writeFigures writes every figure in every format into dir (created if
// need be; files of the same name are replaced: figures are remade from
// the folder at will) and returns the paths written.
func writeFigures(figs []namedFigure, dir string, formats []string, width string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		for _, format := range formats {
			b, err := renderFigure(f, format, width)
			if err != nil {
				return paths, err
			}
			p := filepath.Join(dir, f.name+"."+format)
			if err := writeFileAtomic(p, b); err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// parseChoices reads a comma-separated flag whose items must be in allowed.
func parseChoices(flag, s string, allowed []string) ([]string, error) {
	parts, err := parseCSV(flag, strings.ToLower(s))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parts {
		if !slices.Contains(allowed, p) {
			return nil, usagef("--%s has %q, want %s", flag, p, strings.Join(allowed, ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// figureFlags are the flags plot and report share.
type figureFlags struct {
	width, metrics  string
	noRef, noLabels bool
}

func (ff *figureFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&ff.width, "width", "column", "figure width: column (3.5 in) or double (7 in)")
	f.StringVar(&ff.metrics, "metric", "ari,nmi", "trade-off metrics of a sweep: ari, nmi or both")
	f.BoolVar(&ff.noRef, "no-reference", false, "sweeps: leave out the B1 and null lines (they load the data and may take seconds)")
	f.BoolVar(&ff.noLabels, "no-labels", false, "runs: colour the embedding by cluster only, without reading the data set for its labels")
}

func (ff *figureFlags) options() (figureOptions, error) {
	if _, ok := plot.SizeFor(ff.width, 1); !ok {
		return figureOptions{}, usagef("--width is %q, want column (3.5 in) or double (7 in)", ff.width)
	}
	metrics, err := parseChoices("metric", ff.metrics, []string{"ari", "nmi"})
	return figureOptions{metrics: metrics, references: !ff.noRef, labels: !ff.noLabels}, err
}

func newPlotCmd(env Env) *cobra.Command {
	var ff figureFlags
	var formats, out string
	cmd := &cobra.Command{
		Use:   "plot DIR",
		Short: "Draw publication figures (PNG, SVG, PDF) of a run or sweep folder",
		Long: `plot draws the figures of a folder written by 'run --out' or 'sweep --out':

  a sweep folder  tradeoff_ari, tradeoff_nmi: the metric against ε on a log
                  axis, mean ± sd over seeds per method and mode, non-private
                  runs at ∞, and the B1 (PCA + k-means) and null reference lines
  a run folder    training: loss and ε spent against steps;
                  embedding: the 2-D view (first two principal components) of
                  the embedding, coloured by true label and by cluster

Figures are sized for a paper column (3.5 in) or, with --width double, the
text width (7 in); PNG at 300 dpi. Colours are the Okabe–Ito palette, and
series also differ by marker and dash, so greyscale prints stay readable.
They go to DIR/figures unless --out says otherwise; files of the same name are
replaced. The true labels of a run's cells come from its data set (config.toml),
read through the cache; the reference lines of a sweep likewise.`,
		Example: "  dpscope plot sweeps/pbmc\n  dpscope plot results/run1 --format pdf --width double\n  dpscope plot sweeps/pbmc --metric ari --format svg,png --out paper/fig2",
		Args:    exactArgs(1, "a run or sweep folder"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			fo, err := ff.options()
			if err != nil {
				return err
			}
			fmts, err := parseChoices("format", formats, plot.Formats)
			if err != nil {
				return err
			}
			fd, err := loadFolder(cmd.Context(), args[0], fo)
			if err != nil {
				return err
			}
			for _, s := range fd.skipped {
				fmt.Fprintln(env.Stderr, "dpscope: not drawn: "+s)
			}
			if len(fd.figs) == 0 {
				return fmt.Errorf("%s: no figure to draw", args[0])
			}
			dir := out
			if dir == "" {
				dir = filepath.Join(args[0], "figures")
			}
			paths, err := writeFigures(fd.figs, dir, fmts, ff.width)
			for _, p := range paths {
				fmt.Fprintln(env.Stdout, p)
			}
			return err
		}),
	}
	ff.register(cmd)
	cmd.Flags().StringVar(&formats, "format", "png,svg,pdf", "file formats, comma-separated: png, svg, pdf")
	cmd.Flags().StringVar(&out, "out", "", "folder for the figures (default DIR/figures)")
	return cmd
}
