package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/plot"
)

// runTrace keeps what the Run screen's figure key (F) draws: the whole
// loss and ε trace of the run (the charts keep a thinned window) and its
// latest embedding, as `dpscope plot` draws a run folder.
type runTrace struct {
	id     int
	title  string
	loss   plot.Series
	eps    []plot.Series // one per accountant, in the order first seen
	target float64
	emb    *core.EmbeddingEvent
}

// reset starts the trace of run id of cfg.
func (t *runTrace) reset(id int, cfg core.Config) {
	*t = runTrace{id: id, title: fmt.Sprintf("%s %s on %s", cfg.Method, cfg.Mode, cfg.Data), loss: plot.Series{Label: "loss"}}
}

// observe takes one engine event into the trace.
func (t *runTrace) observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.StepEvent:
		t.loss.X = append(t.loss.X, float64(ev.Step))
		t.loss.Y = append(t.loss.Y, ev.Loss)
	case core.BudgetEvent:
		t.target = ev.Target
	spent:
		for _, e := range ev.Spent {
			name := e.Short()
			for i := range t.eps {
				if t.eps[i].Label == name {
					t.eps[i].X = append(t.eps[i].X, float64(ev.Step))
					t.eps[i].Y = append(t.eps[i].Y, e.Epsilon)
					continue spent
				}
			}
			t.eps = append(t.eps, plot.Series{Label: name, X: []float64{float64(ev.Step)}, Y: []float64{e.Epsilon}})
		}
	case core.EmbeddingEvent:
		e := ev
		t.emb = &e
	}
}

// figures builds the run's figures by file name stem, at column width as
// `dpscope plot` draws them: the training trace and, when the run
// reported one, the embedding by truth and by cluster.
func (t *runTrace) figures() (map[string]plot.Figure, error) {
	if len(t.loss.X) == 0 && len(t.eps) == 0 && t.emb == nil {
		return nil, fmt.Errorf("no run has reported a step yet: press s to start one")
	}
	stem := "dpscope-run" + strconv.Itoa(t.id)
	out := map[string]plot.Figure{}
	tr := plot.Training{Title: t.title, Loss: t.loss, Epsilon: t.eps, Target: t.target}
	panels, err := tr.Panels()
	if err != nil {
		return nil, err
	}
	if len(panels) > 0 {
		size, _ := plot.SizeFor("column", 0.6*float64(len(panels)))
		out[stem+"-training"] = plot.Figure{Panels: panels, Size: size}
	}
	if e := t.emb; e != nil && len(e.X) > 0 {
		// No run title above the panels: at column width it would run
		// past the first panel (the file name names the run).
		emb := plot.Embedding{XLabel: "embedding 1", YLabel: "embedding 2", X: e.X, Y: e.Y,
			Cluster: labelStrings(e.Cluster)}
		if hasTruth(e.Truth) {
			emb.Truth = labelStrings(e.Truth)
		}
		panels, err := emb.Panels()
		if err != nil {
			return nil, err
		}
		size, _ := plot.SizeFor("column", 0.5)
		out[stem+"-embedding"] = plot.Figure{Panels: panels, Size: size, SideLegends: true}
	}
	return out, nil
}

// figureCmd writes the run's figures as PNG, SVG and PDF into dir, in a
// command, and says where.
func (t *runTrace) figureCmd(dir string) tea.Cmd {
	figs, err := t.figures()
	if err != nil {
		return statusCmd("figure: " + err.Error())
	}
	return func() tea.Msg {
		var paths []string
		for name, fig := range figs {
			ps, err := writeFigure(fig, dir, name)
			paths = append(paths, ps...)
			if err != nil {
				return ErrorMsg{fmt.Errorf("figure: %w", err)}
			}
		}
		return StatusMsg{Text: "figures written: " + strings.Join(paths, ", ")}
	}
}

// labelStrings names integer labels as the figure's categories; −1 (not
// known) becomes "", which the figure leaves out.
func labelStrings(ls []int) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		if l >= 0 {
			out[i] = strconv.Itoa(l)
		}
	}
	return out
}

// hasTruth reports whether any cell has a known label.
func hasTruth(ls []int) bool {
	for _, l := range ls {
		if l >= 0 {
			return true
		}
	}
	return false
}
