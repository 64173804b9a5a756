package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is a named sequence of (x, y) values.
type Series struct {
	Label string
	X, Y  []float64
}

// xys returns s as plotter points, or an error when its lengths differ or
// a value is not finite.
func (s Series) xys() (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("plot: %s: %d x values, %d y values", s.Label, len(s.X), len(s.Y))
	}
	out := make(plotter.XYs, len(s.X))
	for i := range s.X {
		if !finite(s.X[i], s.Y[i]) {
			return nil, fmt.Errorf("plot: %s: point %d (%v, %v) is not finite", s.Label, i+1, s.X[i], s.Y[i])
		}
		out[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
	}
	return out, nil
}

// Training is a run's trace: the loss and the ε spent (one series per
// accountant) against steps, with the target ε when there is one.
type Training struct {
	Title   string
	Loss    Series
	Epsilon []Series
	Target  float64 // 0: none
}

// Panels builds the figure's panels: the loss above the ε spent, each only
// when the run reported it.
func (t Training) Panels() ([][]*plot.Plot, error) {
	var rows [][]*plot.Plot
	if len(t.Loss.X) > 0 {
		p := newPlot(t.Title, "step", "loss")
		xy, err := t.Loss.xys()
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		styleLine(&l.LineStyle, 0)
		p.Add(plotter.NewGrid(), l)
		rows = append(rows, []*plot.Plot{p})
	}
	var eps []Series
	for _, s := range t.Epsilon {
		if len(s.X) > 0 {
			eps = append(eps, s)
		}
	}
	if len(eps) > 0 {
		title := ""
		if len(rows) == 0 {
			title = t.Title
		}
		p := newPlot(title, "step", "ε spent")
		p.Add(plotter.NewGrid())
		for i, s := range eps {
			xy, err := s.xys()
			if err != nil {
				return nil, err
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			styleLine(&l.LineStyle, i)
			p.Add(l)
			p.Legend.Add(s.Label, l)
		}
		if t.Target > 0 && finite(t.Target) {
			target := plotter.NewFunction(func(float64) float64 { return t.Target })
			target.LineStyle = draw.LineStyle{Color: referenceGrey, Width: vg.Points(0.9), Dashes: Dash(1)}
			p.Add(target)
			p.Legend.Add(fmt.Sprintf("target ε = %g", t.Target), target)
		}
		p.Y.Min = 0
		p.Legend.Top, p.Legend.Left = false, false // ε grows: the lower right is free
		rows = append(rows, []*plot.Plot{p})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("plot: the run reported neither a loss nor an ε by step: no training figure")
	}
	return rows, nil
}
