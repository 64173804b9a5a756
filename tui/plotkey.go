package tui

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	gplot "gonum.org/v1/plot"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/internal/plot"
)

// The Trade-off screen's figure key (F) writes the curve on screen as the
// paper figures of `dpscope plot`: PNG, SVG and PDF at column width, into
// the session's export folder (Config.ExportDir, where Compare's CSV files
// go).

// figureStem is the file name of the figure, before the metric and the
// extension.
const figureStem = "dpscope-tradeoff"

// tradeOffFigure maps the sweep on screen to the figure: one curve per
// method and mode over ε (the swept method and the baseline), the
// non-private runs at ∞, and B1 and the null as reference lines.
func (p *curvePane) tradeOffFigure() (plot.TradeOff, error) {
	t := plot.TradeOff{Title: p.params.Data, Metric: p.metricName()}
	if p.sw == nil {
		return t, fmt.Errorf("no sweep yet: press %s to sweep ε first", p.c.Keys.Sweep.Help().Key)
	}
	groups, _ := sweep.Summarise(p.sw.points, p.sw.outcomes)
	for _, g := range groups {
		m, sd := g.ARIMean, g.ARISD
		if p.nmi {
			m, sd = g.NMIMean, g.NMISD
		}
		if g.N == 0 || m == nil {
			continue
		}
		s := 0.0
		if sd != nil {
			s = *sd
		}
		label := g.Method + " " + string(g.Mode)
		if p.sw.isNull(g) {
			label = g.Method + " null (no learning)" // its own curve: it follows ε
		}
		t.Add(label, g.Method, g.Mode == core.ModeNonPrivate,
			plot.Point{Epsilon: g.Epsilon, Mean: *m, SD: s, N: g.N})
	}
	if p.ref != nil {
		t.References = append(t.References, plot.Level{Label: "B1 PCA + k-means", Mean: p.metricOf(p.ref.ARI, p.ref.NMI)})
	}
	if p.null != nil {
		t.References = append(t.References, plot.Level{Label: "null (no learning)", Mean: p.metricOf(p.null.ARI, p.null.NMI)})
	}
	if len(t.Curves) == 0 && len(t.NonPrivate) == 0 {
		return t, fmt.Errorf("no run of the sweep has finished yet")
	}
	return t, nil
}

// figureCmd writes the figure files in a command, so the screen does not
// wait on the disk.
func (p *curvePane) figureCmd() tea.Cmd {
	t, err := p.tradeOffFigure()
	if err != nil {
		return statusCmd("figure: " + err.Error())
	}
	pl, err := t.Plot()
	if err != nil {
		return ErrorCmd(err)
	}
	dir := p.c.Config.ExportDir
	name := figureStem + "-" + strings.ToLower(t.Metric)
	return func() tea.Msg {
		size, _ := plot.SizeFor("column", 0.75)
		paths, err := writeFigure(plot.Figure{Panels: [][]*gplot.Plot{{pl}}, Size: size}, dir, name)
		if err != nil {
			return ErrorMsg{fmt.Errorf("figure: %w", err)}
		}
		return StatusMsg{Text: "figure written: " + strings.Join(paths, ", ")}
	}
}

// writeFigure writes fig into dir as name.png, name.svg and name.pdf.
func writeFigure(fig plot.Figure, dir, name string) ([]string, error) {
	var paths []string
	for _, f := range plot.Formats {
		var buf bytes.Buffer
		if err := fig.Write(&buf, f); err != nil {
			return paths, err
		}
		path := filepath.Join(dir, name+"."+f)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs // the status line says where, wherever the program started
		}
		if err := writeAtomic(path, buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
