package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/styles"
)

// runReferences are the reference lines of a run's metrics chart: B1
// (PCA + k-means on the same matrix) and the method's null run, both
// non-private and computed once per data set (the reference cache).
type runReferences struct {
	b1, null *reference.Line
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
		}
		return runReferencesMsg{id: id, refs: refs}
	}
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
	return out
}

// legend names the lines in the chart's title.
func (r runReferences) legend(st styles.Styles) string {
	var t string
	if r.b1 != nil {
		t += " " + st.Reference.Render(fmt.Sprintf("━B1 ARI %.2f", r.b1.ARI))
	}
	if r.null != nil {
		t += " " + st.Muted.Render(fmt.Sprintf("%snull ARI %.2f", chart.Dotted.Glyph(), r.null.ARI))
	}
	return t
}
