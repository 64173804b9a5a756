package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one point of a trade-off curve: a metric's mean and standard
// deviation over N seeds at one ε.
type Point struct {
	Epsilon, Mean, SD float64
	N                 int
}

// Curve is one method's (and mode's, and options') trade-off curve.
// Method ties it to its non-private point, which gets the same style.
type Curve struct {
	Label, Method string
	Points        []Point
}

// Level is a value that does not depend on ε: a non-private result (drawn
// as a point at ε = ∞) or a reference line (drawn across the plot).
type Level struct {
	Label, Method string
	Mean, SD      float64
}

// TradeOff is the privacy–utility figure of a sweep.
type TradeOff struct {
	Title      string
	Metric     string // the y axis: "ARI" or "NMI"
	Curves     []Curve
	NonPrivate []Level // at ε = ∞, styled like the curve of the same Method
	References []Level // horizontal lines: B1, null
}

// Add puts one sweep group's figure in t: a non-private result as a level
// at ε = ∞, a private one as a point of the curve named label (a new curve
// the first time the label is seen, in the order groups come).
func (t *TradeOff) Add(label, method string, nonPrivate bool, p Point) {
	if nonPrivate {
		t.NonPrivate = append(t.NonPrivate, Level{Label: label, Method: method, Mean: p.Mean, SD: p.SD})
		return
	}
	for i := range t.Curves {
		if t.Curves[i].Label == label {
			t.Curves[i].Points = append(t.Curves[i].Points, p)
			return
		}
	}
	t.Curves = append(t.Curves, Curve{Label: label, Method: method, Points: []Point{p}})
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// validate refuses what the figure cannot show: ε ≤ 0 on a log axis and
// values that are not finite numbers.
func (t TradeOff) validate() error {
	if len(t.Curves) == 0 && len(t.NonPrivate) == 0 {
		return fmt.Errorf("plot: trade-off: no private curve and no non-private point to draw")
	}
	for _, c := range t.Curves {
		for _, p := range c.Points {
			if !finite(p.Epsilon, p.Mean, p.SD) || p.Epsilon <= 0 || p.SD < 0 {
				return fmt.Errorf("plot: trade-off %s: point ε = %v, %s = %v ± %v: want ε > 0 and finite values", c.Label, p.Epsilon, t.Metric, p.Mean, p.SD)
			}
		}
	}
	for _, l := range slices.Concat(t.NonPrivate, t.References) {
		if !finite(l.Mean, l.SD) || l.SD < 0 {
			return fmt.Errorf("plot: trade-off %s: %v ± %v is not a finite value", l.Label, l.Mean, l.SD)
		}
	}
	return nil
}

// curveXYs returns a curve's line (means sorted by ε) and its band: the
// polygon of mean + sd left to right, then mean − sd back.
func curveXYs(c Curve) (line, bandXYs plotter.XYs) {
	pts := slices.Clone(c.Points)
	slices.SortFunc(pts, func(a, b Point) int { return cmpFloat(a.Epsilon, b.Epsilon) })
	for _, p := range pts {
		line = append(line, plotter.XY{X: p.Epsilon, Y: p.Mean})
		bandXYs = append(bandXYs, plotter.XY{X: p.Epsilon, Y: p.Mean + p.SD})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		bandXYs = append(bandXYs, plotter.XY{X: pts[i].Epsilon, Y: pts[i].Mean - pts[i].SD})
	}
	return line, bandXYs
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// epsilons returns the distinct ε of the curves, sorted.
func (t TradeOff) epsilons() []float64 {
	var eps []float64
	for _, c := range t.Curves {
		for _, p := range c.Points {
			eps = append(eps, p.Epsilon)
		}
	}
	slices.Sort(eps)
	return slices.Compact(eps)
}

// styleOf returns the style index of a non-private point: its method's
// curve's, else the next after the curves.
func (t TradeOff) styleOf(l Level, k int) int {
	for i, c := range t.Curves {
		if c.Method != "" && c.Method == l.Method {
			return i
		}
	}
	return len(t.Curves) + k
}

// referenceGrey is the colour of the reference lines: they are context,
// not results, and must not take a series colour.
var referenceGrey = color.NRGBA{0x55, 0x55, 0x55, 0xff}

// Plot builds the trade-off plot.
func (t TradeOff) Plot() (*plot.Plot, error) {
	b, err := t.build()
	if err != nil {
		return nil, err
	}
	return b.Plot, nil
}

func (t TradeOff) build() (*built, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	p := &built{Plot: newPlot(t.Title, "ε (log scale)", t.Metric)}
	eps := t.epsilons()
	inf := 0.0
	if len(t.NonPrivate) > 0 {
		inf = infPosition(eps)
	}
	lo, hi := 1.0, 1.0
	if len(eps) > 0 {
		lo, hi = eps[0], eps[len(eps)-1]
	}
	if inf > 0 {
		hi = inf
		if len(eps) == 0 {
			lo = inf
		}
	}
	p.X.Min, p.X.Max = logRange(lo, hi)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = epsTicks{at: eps, inf: inf}
	p.add(plotter.NewGrid()) // first, so that it lies under the data
	ylo, yhi := 0.0, 1.0     // ARI and NMI read against their scale
	for i, c := range t.Curves {
		line, poly := curveXYs(c)
		for _, xy := range poly {
			ylo, yhi = min(ylo, xy.Y), max(yhi, xy.Y)
		}
		if len(line) == 0 {
			continue
		}
		b, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", c.Label, err)
		}
		b.Color, b.LineStyle.Width = band(i), 0
		l, s, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", c.Label, err)
		}
		styleLine(&l.LineStyle, i)
		styleGlyph(&s.GlyphStyle, i)
		p.add(b, l, s)
		p.Legend.Add(c.Label, l, s)
	}
	for k, np := range t.NonPrivate {
		i := t.styleOf(np, k)
		s, err := plotter.NewScatter(plotter.XYs{{X: inf, Y: np.Mean}})
		if err != nil {
			return nil, err
		}
		styleGlyph(&s.GlyphStyle, i)
		s.GlyphStyle.Radius = vg.Points(markerSize * 1.3)
		bar, err := plotter.NewLine(plotter.XYs{{X: inf, Y: np.Mean - np.SD}, {X: inf, Y: np.Mean + np.SD}})
		if err != nil {
			return nil, err
		}
		bar.LineStyle.Color, bar.LineStyle.Width = Colour(i), vg.Points(lineWidth)
		p.add(bar, s)
		p.Legend.Add(np.Label, s)
		ylo, yhi = min(ylo, np.Mean-np.SD), max(yhi, np.Mean+np.SD)
	}
	for k, r := range t.References {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: r.Mean}, {X: p.X.Max, Y: r.Mean}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: referenceGrey, Width: vg.Points(0.9), Dashes: Dash(k + 1)}
		p.add(l)
		p.Legend.Add(r.Label, l)
		ylo, yhi = min(ylo, r.Mean), max(yhi, r.Mean)
	}
	p.Y.Min, p.Y.Max = linRange(ylo, yhi)
	p.Legend.Top, p.Legend.Left = false, false // curves rise with ε: the lower right is free
	return p, nil
}

func styleLine(ls *draw.LineStyle, i int) {
	ls.Color, ls.Width, ls.Dashes = Colour(i), vg.Points(lineWidth), Dash(i)
}

func styleGlyph(gs *draw.GlyphStyle, i int) {
	gs.Color, gs.Shape, gs.Radius = Colour(i), Glyph(i), vg.Points(markerSize)
}
