package plot

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Embedding is a 2-D view of the cells, with each cell's true label and
// cluster ("" when unknown); Truth is nil when the data have no labels.
type Embedding struct {
	Title          string
	XLabel, YLabel string
	X, Y           []float64
	Truth, Cluster []string
}

// maxLegend is the most categories a panel lists in its legend; more
// would cover the points, and the colours then only show structure.
const maxLegend = 12

// groups returns the cells of each category, categories in natural order
// (numbers by value, then names), skipping cells without one.
func groups(cats []string) (names []string, members map[string][]int) {
	members = map[string][]int{}
	for i, c := range cats {
		if c == "" {
			continue
		}
		if _, ok := members[c]; !ok {
			names = append(names, c)
		}
		members[c] = append(members[c], i)
	}
	slices.SortFunc(names, func(a, b string) int {
		x, errA := strconv.ParseFloat(a, 64)
		y, errB := strconv.ParseFloat(b, 64)
		switch {
		case errA == nil && errB == nil:
			return cmp.Compare(x, y)
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		}
		return cmp.Compare(a, b)
	})
	return names, members
}

// validate checks the lengths and values.
func (e Embedding) validate() error {
	n := len(e.X)
	switch {
	case n == 0:
		return fmt.Errorf("plot: embedding: no cells")
	case len(e.Y) != n:
		return fmt.Errorf("plot: embedding: %d x and %d y values", n, len(e.Y))
	case e.Truth != nil && len(e.Truth) != n:
		return fmt.Errorf("plot: embedding: %d labels for %d cells", len(e.Truth), n)
	case e.Cluster != nil && len(e.Cluster) != n:
		return fmt.Errorf("plot: embedding: %d clusters for %d cells", len(e.Cluster), n)
	}
	for i := range n {
		if !finite(e.X[i], e.Y[i]) {
			return fmt.Errorf("plot: embedding: cell %d at (%v, %v) is not finite", i+1, e.X[i], e.Y[i])
		}
	}
	return nil
}

// panel draws the cells coloured by cats.
func (e Embedding) panel(title string, cats []string) (*plot.Plot, error) {
	p := newPlot(title, e.XLabel, e.YLabel)
	names, members := groups(cats)
	radius := vg.Points(1.2)
	if len(e.X) > 5000 {
		radius = vg.Points(0.7)
	}
	for i, name := range names {
		xy := make(plotter.XYs, len(members[name]))
		for k, c := range members[name] {
			xy[k] = plotter.XY{X: e.X[c], Y: e.Y[c]}
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		styleGlyph(&s.GlyphStyle, i)
		s.GlyphStyle.Radius = radius
		p.Add(s)
		if len(names) <= maxLegend {
			p.Legend.Add(name, s)
		}
	}
	if len(names) > maxLegend {
		p.Title.Text += fmt.Sprintf(" (%d groups)", len(names))
	}
	p.X.Min, p.X.Max = linRange(slices.Min(e.X), slices.Max(e.X))
	p.Y.Min, p.Y.Max = linRange(slices.Min(e.Y), slices.Max(e.Y))
	return p, nil
}

// Panels builds the figure's panels side by side: the cells coloured by
// their true labels (when known) and by their clusters.
func (e Embedding) Panels() ([][]*plot.Plot, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	var row []*plot.Plot
	if e.Truth != nil {
		p, err := e.panel("true labels", e.Truth)
		if err != nil {
			return nil, err
		}
		row = append(row, p)
	}
	if e.Cluster != nil {
		p, err := e.panel("clusters", e.Cluster)
		if err != nil {
			return nil, err
		}
		row = append(row, p)
	}
	if len(row) == 0 {
		return nil, fmt.Errorf("plot: embedding: neither labels nor clusters to colour by")
	}
	if e.Title != "" {
		row[0].Title.Text = e.Title + ": " + row[0].Title.Text
	}
	return [][]*plot.Plot{row}, nil
}
