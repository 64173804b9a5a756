package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/session"
	"github.com/dpscope/dpscope/tui/styles"
)

// runReferences are the reference lines of a run's metrics chart: B1
// (PCA + k-means on the same matrix) and the method's null run, both
// non-private, and for a sound run the private baseline (dppca) at the
// run's ε with its own defaults; each computed once per data set and
// settings (the reference cache). Only their ARI and NMI are shown.
type runReferences struct {
	b1, null, baseline *reference.Line
	baselineOf         string // the baseline's method name
	// self is the run's settings at the null's seeds, for a private run of
	// a method whose runs are cheap (core.Method.SeedCheck): the verdict
	// compares it with the null seed by seed (reference.Verdict).
	self *reference.Line
}

// session are r as a session file keeps them.
func (r runReferences) session() session.References {
	return session.References{B1: r.b1, Null: r.null, Baseline: r.baseline, BaselineMethod: r.baselineOf, Self: r.self}
}

// refsOf are the reference lines a session file kept.
func refsOf(s session.References) runReferences {
	return runReferences{b1: s.B1, null: s.Null, baseline: s.Baseline, baselineOf: s.BaselineMethod, self: s.Self}
}

// runReferencesMsg carries the reference lines of run id.
type runReferencesMsg struct {
	id   int
	refs runReferences
}

// loadRunReferences computes the reference lines of a run in a command.
// A line that cannot be had (no labels, no null run, a null run the
// server's queue refused) is left out. start starts the null runs (nil:
// core.Start) and admit waits for a worker before a B1 is computed (nil: no
// wait): under dpscope serve, both the server's queue.
func loadRunReferences(ctx context.Context, start sweep.StartFunc, admit func(context.Context) (func(), error), id int, cfg core.Config) tea.Cmd {
	return func() tea.Msg {
		var refs runReferences
		cache := reference.DefaultCache()
		cache.Start, cache.Admit = start, admit
		if prep, err := cfg.LoadData(); err == nil {
			if l, err := cache.B1(ctx, prep.Data); err == nil {
				refs.b1 = &l
			}
		}
		if m, err := core.LookupMethod(cfg.Method); err == nil && m.Null != nil {
			if l, err := cache.Null(ctx, m, cfg); err == nil {
				refs.null = &l
			}
			if refs.null != nil && m.SeedCheck && cfg.Mode != core.ModeNonPrivate {
				if l, err := cache.Self(ctx, cfg); err == nil {
					refs.self = &l
				}
			}
		}
		if b, ok := reference.BaselineOf(cfg, core.Baselines()); ok {
			if l, err := cache.Baseline(ctx, b, cfg); err == nil {
				refs.baseline, refs.baselineOf = &l, b.Name
			}
		}
		return runReferencesMsg{id: id, refs: refs}
	}
}

// verdict is a private run's verdict on its ARI against the null
// (reference.Verdict: paired over the null's seeds when self is known) and
// the paired comparison it rests on, if any.
func (r runReferences) verdict(private bool, ari float64) (string, *reference.Learning) {
	return reference.Verdict(private, ari, r.null, r.self)
}

// lines are the horizontal lines at the references' ARI.
func (r runReferences) lines(st styles.Styles) []chart.HLine {
	var out []chart.HLine
	if r.b1 != nil {
		out = append(out, chart.HLine{Y: r.b1.ARI, Style: st.Reference})
	}
	if r.null != nil {
		out = append(out, chart.HLine{Y: r.null.ARI, Style: st.Muted, Pattern: chart.Dotted})
	}
	if r.baseline != nil {
		out = append(out, chart.HLine{Y: r.baseline.ARI, Style: st.SeriesStyle(2), Pattern: chart.Dashed})
	}
	return out
}

// legend names the lines, on the metrics chart's second header line: their
// ARI (the chart's metric; "ARI" is in the title above).
func (r runReferences) legend(st styles.Styles) string {
	var t string
	if r.b1 != nil {
		t += " " + st.Reference.Render(fmt.Sprintf("━B1 %.2f", r.b1.ARI))
	}
	if r.null != nil {
		t += " " + st.Muted.Render(fmt.Sprintf("%snull %.2f", chart.Dotted.Glyph(), r.null.ARI))
	}
	if r.baseline != nil {
		t += " " + st.SeriesStyle(2).Render(fmt.Sprintf("%s%s %.2f", chart.Dashed.Glyph(), r.baselineOf, r.baseline.ARI))
	}
	return t
}
