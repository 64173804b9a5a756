package cli

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/internal/report"
)

// shellQuote quotes an argument for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLine joins a command's arguments for a shell.
func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// baseConfigName is the file the reproduce command of a sweep reads its
// base settings from: the grid's base config, written out in full.
const baseConfigName = "sweep-base.toml"

// sweepCommand returns the arguments of the `dpscope sweep` that runs the
// grid of m again into out, with the base settings from baseConfigName
// (every setting the axes do not set, preprocessing included).
func sweepCommand(g sweep.Grid, out string) []string {
	args := []string{"dpscope", "sweep", "--config", baseConfigName, "--method", strings.Join(g.Methods, ",")}
	var modes, eps, seeds []string
	for _, m := range g.Modes {
		modes = append(modes, string(m))
	}
	for _, e := range g.Epsilons {
		eps = append(eps, strconv.FormatFloat(e, 'g', -1, 64))
	}
	for _, s := range g.Seeds {
		seeds = append(seeds, strconv.FormatUint(s, 10))
	}
	args = append(args, "--mode", strings.Join(modes, ","), "--epsilon", strings.Join(eps, ","), "--seeds", strings.Join(seeds, ","))
	for _, k := range slices.Sorted(maps.Keys(g.Options)) {
		args = append(args, "--opt", k+"="+strings.Join(g.Options[k], ","))
	}
	return append(args, "--out", out)
}

// tomlOf encodes v as TOML.
func tomlOf(v any) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return "# not encodable: " + err.Error() + "\n"
	}
	return b.String()
}

// preprocessText describes the preprocessing settings of cfg.
func preprocessText(cfg core.Config) string {
	if cfg.Preprocess == nil {
		return "the defaults"
	}
	p := cfg.Preprocess
	s := fmt.Sprintf("min genes %d, min cells %d, %d genes by %s, target sum %s, max value %g",
		p.MinGenes, p.MinCells, p.NTopGenes, p.Selection, targetText(p.TargetSum), p.MaxValue)
	if cfg.Labels != "" {
		s += ", labels " + cfg.Labels
	}
	if cfg.LabelsColumn != "" {
		s += ", labels column " + cfg.LabelsColumn
	}
	if cfg.UseRaw {
		s += ", raw.X"
	}
	return s
}

func targetText(v float64) string {
	if v == 0 {
		return "the median total"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// methodTitle is a method's display name, or its name when unknown.
func methodTitle(name string) string {
	if m, err := core.LookupMethod(name); err == nil && m.Title != "" {
		return m.Title
	}
	return name
}

// addGuarantee folds one run's guarantee into a method's list: statuses
// in order of first appearance, reasons without repeats.
func addGuarantee(m *report.Method, status string, reasons []string) {
	m.Runs++
	for i := range m.Guarantees {
		g := &m.Guarantees[i]
		if g.Status == status {
			g.Runs++
			for _, r := range reasons {
				if !slices.Contains(g.Reasons, r) {
					g.Reasons = append(g.Reasons, r)
				}
			}
			return
		}
	}
	m.Guarantees = append(m.Guarantees, report.Guarantee{Status: status, Runs: 1, Reasons: slices.Clone(reasons)})
}

// pm formats a mean ± sd, or "—".
func pm(m, s *float64) string {
	if m == nil {
		return "—"
	}
	sd := 0.0
	if s != nil {
		sd = *s
	}
	return fmt.Sprintf("%.3f ± %.3f", *m, sd)
}

// sweepDoc builds the report of a sweep folder.
func sweepDoc(fd *folderData) report.Doc {
	sf := fd.sweep
	g := sf.manifest.Grid
	d := report.Doc{Title: "dpscope sweep on " + g.Base.Data, Version: version(), Kind: "sweep"}
	d.Data = append(d.Data, report.Item{Label: "data set", Value: g.Base.Data}, report.Item{Label: "preprocessing", Value: preprocessText(g.Base)})
	shapes := map[string]string{}
	methods := map[string]*report.Method{}
	var order []string
	for i, r := range sf.records {
		if r == nil {
			continue
		}
		p := sf.points[i].Config
		if r.Data.Cells > 0 {
			shapes[p.Method+" ("+string(p.Mode)+")"] = fmt.Sprintf("%d cells × %d genes, %d classes", r.Data.Cells, r.Data.Genes, r.Data.Classes)
		}
		key := p.Method + "\x00" + string(p.Mode)
		m, ok := methods[key]
		if !ok {
			m = &report.Method{Name: p.Method, Title: methodTitle(p.Method), Mode: string(p.Mode)}
			methods[key] = m
			order = append(order, key)
		}
		addGuarantee(m, r.Guarantee, r.GuaranteeReasons)
	}
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		d.Data = append(d.Data, report.Item{Label: "matrix trained on by " + name, Value: shapes[name]})
	}
	grid := sweepCommand(g, "")
	d.Data = append(d.Data, report.Item{Label: "grid", Value: fmt.Sprintf("methods %s; modes %s; ε %s; seeds %s; %d runs, %d finished",
		grid[5], grid[7], grid[9], grid[11], len(sf.points), sf.done)})
	for _, k := range order {
		d.Methods = append(d.Methods, *methods[k])
	}
	d.Table = sweepTable(sf, fd.groups, fd.refs)
	if sf.done < len(sf.points) {
		d.Notes = append(d.Notes, fmt.Sprintf("%d of %d runs of the grid are not in the folder (not run yet, failed or stopped): the table and figures show the %d that finished", len(sf.points)-sf.done, len(sf.points), sf.done))
	}
	d.Commands = []report.Command{
		{What: "Run the sweep again into a new folder (the base settings are the manifest's, in " + baseConfigName + "):",
			Line: shellLine(sweepCommand(g, "NEW_DIR")), Files: []report.File{{Name: baseConfigName, Content: tomlOf(g.Base)}}},
		{What: "Redraw the figures and this report from the folder:", Line: shellLine([]string{"dpscope", "plot", fd.dir}) + "\n" + shellLine([]string{"dpscope", "report", fd.dir})},
	}
	return d
}

// sweepTable is the sweep's table, as `sweep` prints it, with the
// guarantees and the reference lines.
func sweepTable(sf *sweepFolder, groups []sweepGroup, refs *references) *report.Table {
	t := &report.Table{Header: []string{"method", "mode", "ε target", "options", "runs", "ARI mean ± sd", "NMI mean ± sd", "max ε spent", "guarantee", "null ARI"}}
	flagged := false
	for _, g := range groups {
		eps, spent := strconv.FormatFloat(g.Epsilon, 'g', -1, 64), fmt.Sprintf("%.3g", g.SpentMax)
		if g.Mode == core.ModeNonPrivate {
			eps, spent = "∞", "—"
		}
		if g.Unbounded > 0 {
			spent = "∞"
		}
		opts := "—"
		if len(g.Options) > 0 {
			opts = fmt.Sprint(g.Options)
		}
		var gs []string
		for _, s := range g.Guarantees {
			gs = append(gs, string(s))
		}
		null, ari := "—", pm(g.ARIMean, g.ARISD)
		if g.Null != nil {
			null = fmt.Sprintf("%.3f", g.Null.ARI)
		}
		if g.Verdict != "" {
			ari, flagged = "*"+ari, true
		}
		t.Rows = append(t.Rows, []string{g.Method, string(g.Mode), eps, opts, strconv.Itoa(g.N), ari, pm(g.NMIMean, g.NMISD), spent, strings.Join(slices.Compact(gs), ", "), null})
	}
	if flagged {
		t.Notes = append(t.Notes, verdictNote(groups)+".")
	}
	if refs != nil && refs.PCAKMeans != nil {
		l := refs.PCAKMeans
		t.Notes = append(t.Notes, fmt.Sprintf("Reference B1 (PCA(50) + k-means on the same preprocessed matrix, non-private, not a release): ARI %.3f ± %.3f, NMI %.3f ± %.3f over %d seeds.", l.ARI, l.ARISD, l.NMI, l.NMISD, l.Seeds))
	}
	if refs != nil {
		for _, m := range refs.Missing {
			t.Notes = append(t.Notes, "No reference line: "+m)
		}
	}
	if e := sf.cost; e.Unbounded > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Privacy of the whole sweep: %d private runs on the same data, %d of them with no finite ε: together they have no privacy bound.", e.PrivateRuns, e.Unbounded))
	} else if e.PrivateRuns > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Privacy of the whole sweep: %d private runs on the same data, ε ≤ %.4g, δ ≤ %.3g by basic composition; an ε picked from this table is covered only by that total.", e.PrivateRuns, e.EpsilonTotal, e.DeltaTotal))
	}
	return t
}

// runDoc builds the report of a run folder.
func runDoc(fd *folderData) report.Doc {
	rf := fd.run
	s := rf.summary
	d := report.Doc{Title: fmt.Sprintf("dpscope run: %s (%s) on %s", s.Method, s.Mode, s.Data.Spec), Version: version(), Kind: "run"}
	d.Data = append(d.Data, report.Item{Label: "data set", Value: s.Data.Spec}, report.Item{Label: "preprocessing", Value: preprocessText(rf.config)})
	if s.Data.Cells > 0 {
		d.Data = append(d.Data, report.Item{Label: "matrix trained on", Value: fmt.Sprintf("%d cells × %d genes, %d classes", s.Data.Cells, s.Data.Genes, s.Data.Classes)})
	}
	m := report.Method{Name: s.Method, Title: methodTitle(s.Method), Mode: s.Mode}
	addGuarantee(&m, s.Guarantee, s.GuaranteeReasons)
	m.Guarantees[0].Runs = 0 // one run: the count says nothing
	d.Methods = []report.Method{m}
	t := &report.Table{Header: []string{"quantity", "value"}}
	row := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	row("status", s.Status+reasonText(s.Reason))
	row("steps", strconv.Itoa(s.Steps))
	for _, a := range sortedKeys(s.Epsilon) {
		label := "ε audited (" + a + ")"
		if s.Guarantee == string(core.GuaranteeNone) || s.Guarantee == string(core.GuaranteePaperOnly) {
			label = "ε by the ledger, not a guarantee (" + a + ")"
		}
		row(label, fmt.Sprintf("%.4g", s.Epsilon[a]))
	}
	for _, a := range sortedKeys(s.EpsilonPublished) {
		row("ε as published ("+a+")", fmt.Sprintf("%.4g", s.EpsilonPublished[a]))
	}
	row("δ", strconv.FormatFloat(s.Delta, 'g', -1, 64))
	for _, k := range sortedKeys(s.Metrics) {
		row(k, fmt.Sprintf("%.4f", s.Metrics[k]))
	}
	if r := s.Reference; r != nil {
		for _, l := range []struct {
			name string
			line *reference.Line
		}{{"B1 PCA + k-means (reference)", r.PCAKMeans}, {"null, no learning (reference)", r.Null}} {
			if l.line != nil {
				row(l.name, fmt.Sprintf("ARI %.3f ± %.3f, NMI %.3f ± %.3f over %d seeds", l.line.ARI, l.line.ARISD, l.line.NMI, l.line.NMISD, l.line.Seeds))
			}
		}
	}
	if s.Verdict != "" {
		t.Notes = append(t.Notes, "ARI: "+s.Verdict+".")
	}
	if s.Learning != nil {
		t.Notes = append(t.Notes, "ARI of these settings: "+s.Learning.String()+".")
	}
	d.Table = t
	d.Notes = append(d.Notes, s.Notes...)
	d.Notes = append(d.Notes, s.Warnings...)
	d.Commands = []report.Command{
		{What: "Run it again into a new folder (config.toml is the run's own, written by run --out):",
			Line: shellLine([]string{"dpscope", "run", "--config", "config.toml", "--out", "NEW_DIR"}), Files: []report.File{{Name: "config.toml", Content: tomlOf(rf.config)}}},
		{What: "Redraw the figures and this report from the folder:", Line: shellLine([]string{"dpscope", "plot", fd.dir}) + "\n" + shellLine([]string{"dpscope", "report", fd.dir})},
	}
	return d
}

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}
