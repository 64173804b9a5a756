package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/internal/plot"
)

// namedFigure is one figure of a folder: its file stem, its panels, its
// height-to-width ratio at column width and a caption for the report.
type namedFigure struct {
	name, caption string
	panels        [][]*gplot.Plot
	ratio         float64
	sideLegends   bool // legends beside the panels (scatter plots)
}

// runFigures builds the figures of a run folder: the training trace and
// the embedding by label and cluster. labels are the cells' true labels
// (nil when unknown). A figure the folder has no data for is left out,
// with the reason in skipped.
func runFigures(rf *runFolder, labels []string) (figs []namedFigure, skipped []string) {
	title := fmt.Sprintf("%s (%s), %s", rf.summary.Method, rf.summary.Mode, rf.summary.Data.Spec)
	if t := rf.trace; t != nil {
		tr := plot.Training{Title: title, Loss: plot.Series{Label: "loss", X: t.lossSteps, Y: t.loss}, Target: t.target}
		for _, a := range t.accountants {
			tr.Epsilon = append(tr.Epsilon, plot.Series{Label: a, X: t.epsSteps[a], Y: t.eps[a]})
		}
		if p, err := tr.Panels(); err == nil {
			figs = append(figs, namedFigure{name: "training", panels: p, ratio: 0.6 * float64(len(p)),
				caption: "Loss and ε spent against steps (" + title + ")."})
		} else {
			skipped = append(skipped, "training: "+err.Error())
		}
	} else {
		skipped = append(skipped, "training: no events.jsonl")
	}
	if e := rf.emb; e != nil {
		x, y, err := plot.Project2D(e.data, len(e.barcodes), len(e.columns))
		xl, yl := "PC 1 of the embedding", "PC 2"
		if len(e.columns) <= 2 {
			xl, yl = e.columns[0], ""
			if len(e.columns) == 2 {
				yl = e.columns[1]
			}
		}
		emb := plot.Embedding{XLabel: xl, YLabel: yl, X: x, Y: y, Truth: labels, Cluster: rf.clusters}
		if err == nil {
			var p [][]*gplot.Plot
			if p, err = emb.Panels(); err == nil {
				figs = append(figs, namedFigure{name: "embedding", panels: p, ratio: 0.5, sideLegends: true,
					caption: "The 2-D view of the embedding coloured by true label and by cluster (" + title + ")."})
			}
		}
		if err != nil {
			skipped = append(skipped, "embedding: "+err.Error())
		}
	} else {
		skipped = append(skipped, "embedding: no embedding.tsv")
	}
	return figs, skipped
}

// runLabels returns the true label of each cell of the run's embedding
// from its data set (config.toml's data and preprocessing, through the
// cache): matched by barcode, or by order when the method did not report
// barcodes. nil, with the reason, when there are none.
func runLabels(rf *runFolder) ([]string, error) {
	if rf.emb == nil {
		return nil, nil
	}
	p, err := rf.config.LoadData()
	if err != nil {
		return nil, fmt.Errorf("true labels: %w", err)
	}
	d := p.Data
	if d.Labels == nil {
		return nil, fmt.Errorf("true labels: %s has none", rf.config.Data)
	}
	name := func(i int) string {
		if l := d.Labels[i]; l >= 0 && l < len(d.Classes) {
			return d.Classes[l]
		}
		return ""
	}
	by := make(map[string]int, len(d.Barcodes))
	for i, b := range d.Barcodes {
		by[b] = i
	}
	out := make([]string, len(rf.emb.barcodes))
	matched := 0
	for i, b := range rf.emb.barcodes {
		if j, ok := by[b]; ok {
			out[i] = name(j)
			matched++
		}
	}
	if matched == 0 && len(out) == len(d.Barcodes) {
		for i := range out {
			out[i] = name(i)
		}
		matched = len(out)
	}
	if matched == 0 {
		return nil, fmt.Errorf("true labels: no cell of the embedding is a cell of %s", rf.config.Data)
	}
	return out, nil
}

// curveKey names a curve of a sweep: method, mode and options.
func curveKey(method string, mode core.Mode, opts map[string]string) string {
	s := method + " " + string(mode)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		s += " " + k + "=" + opts[k]
	}
	return s
}

// tradeOff maps a sweep's groups to the trade-off figure of metric (ari
// or nmi): one curve per method, mode and options over ε, the
// non-private groups at ε = ∞, and the reference lines: B1, and each
// method's null, as one line when it is the same at every ε, as a curve
// of its own ("… null (no learning)", as the interface's figure draws
// it) when it is a private run at each ε.
func tradeOff(title string, groups []sweepGroup, metric string, refs *references) plot.TradeOff {
	t := plot.TradeOff{Title: title, Metric: strings.ToUpper(metric)}
	pick := func(l *reference.Line) (mean, sd float64) {
		if metric == "nmi" {
			return l.NMI, l.NMISD
		}
		return l.ARI, l.ARISD
	}
	var levels []sweepGroup // one null line per method, first seen
	var nulls []sweepGroup  // nulls that follow ε, drawn after the curves
	for _, g := range groups {
		mean, sd := g.ARIMean, g.ARISD
		if metric == "nmi" {
			mean, sd = g.NMIMean, g.NMISD
		}
		if g.N == 0 || mean == nil {
			continue
		}
		s := 0.0
		if sd != nil {
			s = *sd
		}
		t.Add(curveKey(g.Method, g.Mode, g.Options), g.Method, g.Mode == core.ModeNonPrivate,
			plot.Point{Epsilon: g.Epsilon, Mean: *mean, SD: s, N: g.N})
		switch {
		case g.Null == nil:
		case g.nullFollows && g.Mode != core.ModeNonPrivate:
			nulls = append(nulls, g)
		case !g.nullFollows && !slices.ContainsFunc(levels, func(o sweepGroup) bool { return o.Method == g.Method }):
			levels = append(levels, g)
		}
	}
	for _, g := range nulls {
		mean, sd := pick(g.Null)
		t.Add(curveKey(g.Method, g.Mode, g.Options)+" null (no learning)", "", false,
			plot.Point{Epsilon: g.Epsilon, Mean: mean, SD: sd, N: g.Null.Seeds})
	}
	if refs != nil && refs.PCAKMeans != nil {
		mean, sd := pick(refs.PCAKMeans)
		t.References = append(t.References, plot.Level{Label: "B1 PCA + k-means", Mean: mean, SD: sd})
	}
	slices.SortStableFunc(levels, func(a, b sweepGroup) int { return strings.Compare(a.Method, b.Method) })
	for _, g := range levels {
		mean, sd := pick(g.Null)
		t.References = append(t.References, plot.Level{Label: "null " + g.Method + " (no learning)", Mean: mean, SD: sd})
	}
	return t
}

// sweepRefs computes the sweep's reference lines as `sweep` gives them:
// B1 on the grid's data, and each group judged against its method's null
// (judge). Lines that cannot be computed are listed in Missing.
func sweepRefs(ctx context.Context, sf *sweepFolder) (*references, []sweepGroup) {
	refs := &references{}
	if l, err := b1Line(ctx, sf.manifest.Grid.Base); err != nil {
		refs.Missing = append(refs.Missing, "B1: "+err.Error())
	} else {
		refs.PCAKMeans = l
	}
	groups, missing := judge(ctx, sf.points, sf.groups)
	refs.Missing = append(refs.Missing, missing...)
	return refs, groups
}

// sweepFigures builds the trade-off figure of each metric.
func sweepFigures(sf *sweepFolder, groups []sweepGroup, metrics []string, refs *references) (figs []namedFigure, skipped []string) {
	for _, m := range metrics {
		p, err := tradeOff(sf.manifest.Grid.Base.Data, groups, m, refs).Plot()
		if err != nil {
			skipped = append(skipped, "tradeoff_"+m+": "+err.Error())
			continue
		}
		figs = append(figs, namedFigure{name: "tradeoff_" + m, panels: [][]*gplot.Plot{{p}}, ratio: 0.75,
			caption: fmt.Sprintf("%s against ε (log scale): mean ± sd over seeds per method and mode; non-private runs at ∞; grey lines: references (non-private, not releases); a null that is a private run at each ε (no learning) is a curve of its own.", strings.ToUpper(m))})
	}
	return figs, skipped
}
