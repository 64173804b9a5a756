package plot

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// sweepFixture is a trade-off with two curves, a non-private point for
// the first method and the two reference lines.
func sweepFixture() TradeOff {
	return TradeOff{
		Title: "builtin:default", Metric: "ARI",
		Curves: []Curve{
			{Label: "dppca sound", Method: "dppca", Points: []Point{{8, 0.6, 0.05, 3}, {1, 0.1, 0.02, 3}, {2, 0.3, 0.1, 3}}},
			{Label: "dcan paper", Method: "dcan", Points: []Point{{1, 0.2, 0.01, 3}, {8, 0.5, 0.03, 3}}},
		},
		NonPrivate: []Level{{Label: "dppca non-private", Method: "dppca", Mean: 0.7, SD: 0.04}},
		References: []Level{{Label: "B1 PCA + k-means", Mean: 0.69, SD: 0.05}, {Label: "null (no learning)", Mean: 0.02}},
	}
}

func TestCurveXYsSortsAndBands(t *testing.T) {
	line, band := curveXYs(sweepFixture().Curves[0])
	want := plotter.XYs{{X: 1, Y: 0.1}, {X: 2, Y: 0.3}, {X: 8, Y: 0.6}}
	if !slices.Equal(line, want) {
		t.Errorf("line %v, want %v", line, want)
	}
	wantBand := plotter.XYs{{X: 1, Y: 0.12}, {X: 2, Y: 0.4}, {X: 8, Y: 0.65}, {X: 8, Y: 0.55}, {X: 2, Y: 0.2}, {X: 1, Y: 0.08}}
	if len(band) != len(wantBand) {
		t.Fatalf("band %v, want %v", band, wantBand)
	}
	for i := range band {
		if band[i].X != wantBand[i].X || math.Abs(band[i].Y-wantBand[i].Y) > 1e-12 {
			t.Errorf("band[%d] = %v, want %v", i, band[i], wantBand[i])
		}
	}
}

// plotData returns the points of every plotter of p of type T.
func xysOf(p *built) (lines, scatters []plotter.XYs) {
	for _, pl := range p.items {
		switch v := pl.(type) {
		case *plotter.Line:
			lines = append(lines, v.XYs)
		case *plotter.Scatter:
			scatters = append(scatters, v.XYs)
		}
	}
	return lines, scatters
}

func TestTradeOffMapsValues(t *testing.T) {
	tr := sweepFixture()
	p, err := tr.build()
	if err != nil {
		t.Fatal(err)
	}
	lines, scatters := xysOf(p)
	// Two curves, the non-private error bar, two reference lines.
	if len(lines) != 5 || len(scatters) != 3 {
		t.Fatalf("%d lines and %d scatters, want 5 and 3", len(lines), len(scatters))
	}
	inf := 32.0 // 4 × the largest ε
	if np := scatters[2]; len(np) != 1 || np[0] != (plotter.XY{X: inf, Y: 0.7}) {
		t.Errorf("non-private point %v, want (%v, 0.7)", np, inf)
	}
	mean, sd := 0.7, 0.04
	if bar := lines[2]; bar[0].Y != mean-sd || bar[1].Y != mean+sd || bar[0].X != inf {
		t.Errorf("non-private bar %v, want 0.66 to 0.74 at ε = %v", bar, inf)
	}
	if b1 := lines[3]; b1[0].Y != 0.69 || b1[1].Y != 0.69 || b1[0].X != p.X.Min || b1[1].X != p.X.Max {
		t.Errorf("B1 line %v, want 0.69 across [%v, %v]", b1, p.X.Min, p.X.Max)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Error("the ε axis is not logarithmic")
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	if !slices.Equal(labels, []string{"1", "2", "8", "∞"}) {
		t.Errorf("ε ticks %q, want 1 2 8 ∞", labels)
	}
	if c := tr.styleOf(tr.NonPrivate[0], 0); c != 0 {
		t.Errorf("the non-private dppca point has style %d, want its curve's 0", c)
	}
	if c := tr.styleOf(Level{Method: "other"}, 1); c != 3 {
		t.Errorf("a point without a curve has style %d, want 3", c)
	}
}

func TestTradeOffRefusesBadValues(t *testing.T) {
	for name, mod := range map[string]func(*TradeOff){
		"ε = 0":    func(t *TradeOff) { t.Curves[0].Points[0].Epsilon = 0 },
		"NaN mean": func(t *TradeOff) { t.Curves[1].Points[0].Mean = math.NaN() },
		"∞ level":  func(t *TradeOff) { t.References[0].Mean = math.Inf(1) },
		"nothing":  func(t *TradeOff) { t.Curves, t.NonPrivate = nil, nil },
	} {
		tr := sweepFixture()
		mod(&tr)
		if _, err := tr.Plot(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestFigureFormats(t *testing.T) {
	p, err := sweepFixture().Plot()
	if err != nil {
		t.Fatal(err)
	}
	size, _ := SizeFor("column", 0.75)
	fig := Figure{Panels: [][]*plot.Plot{{p}}, Size: size}
	var pngBuf, svgBuf, pdfBuf bytes.Buffer
	for f, w := range map[string]*bytes.Buffer{"png": &pngBuf, "svg": &svgBuf, "pdf": &pdfBuf} {
		if err := fig.Write(w, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	img, err := png.Decode(&pngBuf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1050 || b.Dy() != 788 {
		t.Errorf("PNG is %d × %d px, want 1050 × 788 (3.5 × 2.625 in at 300 dpi)", b.Dx(), b.Dy())
	}
	texts := fixture.SVGTexts(t, svgBuf.Bytes())
	series := 0
	for _, s := range []string{"dppca sound", "dcan paper", "dppca non-private", "B1 PCA + k-means", "null (no learning)"} {
		if n := strings.Count(strings.Join(texts, "\n"), s); n != 1 {
			t.Errorf("SVG names %q %d times, want once (in the legend)", s, n)
		}
		series++
	}
	if !bytes.HasPrefix(pdfBuf.Bytes(), []byte("%PDF-")) {
		t.Errorf("PDF starts %q", pdfBuf.Bytes()[:8])
	}
	if err := fig.Write(io.Discard, "gif"); err == nil {
		t.Error("format gif accepted")
	}
	if err := (Figure{Size: size}).Write(io.Discard, "png"); err == nil {
		t.Error("a figure without panels was drawn")
	}
}

func TestDoubleWidth(t *testing.T) {
	s, ok := SizeFor("double", 0.75)
	if !ok || s.W != 7*vg.Inch || math.Abs(float64(s.H-3.5*vg.Inch)) > 1e-9 {
		t.Errorf("double: %v %v %v", s.W, s.H, ok)
	}
	if _, ok := SizeFor("poster", 1); ok {
		t.Error("width poster accepted")
	}
}

func TestPaletteDistinctInGreyscale(t *testing.T) {
	if c := Colour(0); c.R != 0x00 || c.G != 0x72 || c.B != 0xB2 {
		t.Errorf("first colour %v, want Okabe–Ito blue #0072B2", c)
	}
	type style struct {
		c     [3]uint8
		glyph string
	}
	seen := map[style]bool{}
	for i := range 64 {
		c := Colour(i)
		s := style{[3]uint8{c.R, c.G, c.B}, strings.TrimPrefix(typeName(Glyph(i)), "draw.")}
		if seen[s] {
			t.Fatalf("series %d repeats colour and marker %v", i, s)
		}
		seen[s] = true
	}
	// In greyscale only the marker and the dash tell series apart: the
	// first six must differ in both.
	for i := range 6 {
		for j := range i {
			if typeName(Glyph(i)) == typeName(Glyph(j)) || slices.Equal(Dash(i), Dash(j)) {
				t.Errorf("series %d and %d share a marker or a dash pattern", i, j)
			}
		}
	}
}

func typeName(v any) string { return strings.TrimPrefix(strings.TrimPrefix(fmtType(v), "*"), "draw.") }

func fmtType(v any) string { return fmt.Sprintf("%T", v) }
