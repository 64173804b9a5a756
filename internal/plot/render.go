package plot

import (
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Formats are the file formats figures are written in.
var Formats = []string{"png", "svg", "pdf"}

// DPI is the resolution of PNG figures: what journals ask of line art
// printed at size is 300 to 600; 300 keeps files small.
const DPI = 300

// Figure is a grid of panels (rows of plots) drawn on one page.
type Figure struct {
	Panels [][]*plot.Plot
	Size   Size
	// SideLegends draws each panel's legend beside it, to its right,
	// instead of over its data (for scatter plots, whose points fill the
	// panel); only for a single row of panels.
	SideLegends bool
}

// canvas is a vector or raster canvas that writes itself out.
type canvas interface {
	vg.CanvasSizer
	io.WriterTo
}

// newCanvas returns a canvas of size s for format.
func newCanvas(format string, s Size) (canvas, error) {
	switch strings.ToLower(format) {
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(s.W, s.H), vgimg.UseDPI(DPI))}, nil
	case "svg":
		return vgsvg.New(s.W, s.H), nil
	case "pdf":
		return vgpdf.New(s.W, s.H), nil
	}
	return nil, fmt.Errorf("plot: format %q: want png, svg or pdf", format)
}

// Write draws fig in format (png, svg or pdf) to w. A panic inside the
// plotting library (it panics on some degenerate axes) is returned as an
// error: figures are made from files users give.
func (fig Figure) Write(w io.Writer, format string) (err error) {
	if fig.Size.W <= 0 || fig.Size.H <= 0 {
		return fmt.Errorf("plot: size %v × %v: want a positive width and height", fig.Size.W, fig.Size.H)
	}
	rows := len(fig.Panels)
	if rows == 0 || len(fig.Panels[0]) == 0 {
		return fmt.Errorf("plot: a figure without panels")
	}
	cols := len(fig.Panels[0])
	for _, r := range fig.Panels {
		if len(r) != cols {
			return fmt.Errorf("plot: panel rows of %d and %d plots", cols, len(r))
		}
	}
	c, err := newCanvas(format, fig.Size)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: drawing failed: %v", r)
		}
	}()
	dc := draw.New(c)
	if fig.SideLegends && rows == 1 {
		drawWithSideLegends(fig.Panels[0], dc)
		_, err = c.WriteTo(w)
		return err
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6),
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(4)}
	canvases := plot.Align(fig.Panels, tiles, dc)
	for i, r := range fig.Panels {
		for j, p := range r {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err = c.WriteTo(w)
	return err
}

// newPlot returns a plot with dpscope's font sizes and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = tickSize
		a.Width = vg.Points(0.6)
		a.Tick.LineStyle.Width = vg.Points(0.6)
		a.Tick.Marker = preciseTicks{}
	}
	p.Legend.TextStyle.Font.Size = legendSize
	p.Legend.ThumbnailWidth = vg.Points(16)
	return p
}

// built is a plot with the plotters added to it, which gonum's Plot does
// not expose: tests read the values each figure draws from them.
type built struct {
	*plot.Plot
	items []plot.Plotter
}

func (b *built) add(ps ...plot.Plotter) {
	b.Plot.Add(ps...)
	b.items = append(b.items, ps...)
}

// drawWithSideLegends lays a row of panels out left to right, each
// followed by its legend in a slot as wide as the legend needs.
func drawWithSideLegends(row []*plot.Plot, dc draw.Canvas) {
	gap := vg.Points(6)
	legends := make([]plot.Legend, len(row))
	widths := make([]vg.Length, len(row))
	total := dc.Max.X - dc.Min.X - gap*vg.Length(len(row))
	for i, p := range row {
		legends[i] = p.Legend
		r := legends[i].Rectangle(dc)
		widths[i] = r.Max.X - r.Min.X
		if widths[i] > 0 {
			widths[i] += vg.Points(2)
		}
		total -= widths[i]
		p.Legend = plot.NewLegend() // drawn beside, not over the data
	}
	panelW := total / vg.Length(len(row))
	x := dc.Min.X
	for i, p := range row {
		pc := dc
		pc.Min.X, pc.Max.X = x, x+panelW
		p.Draw(pc)
		x += panelW
		if widths[i] > 0 {
			lc := dc
			lc.Min.X, lc.Max.X = x+vg.Points(2), x+widths[i]
			lc.Max.Y -= vg.Points(titleSize + 4) // level with the data, under the title
			legends[i].Top, legends[i].Left = true, true
			legends[i].Draw(lc)
		}
		x += widths[i] + gap
	}
}
