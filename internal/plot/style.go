package plot

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto is the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal
// Design"), ordered so that neighbouring series differ most in lightness
// too; black comes first and yellow, faint on white, last.
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// glyphs are the marker shapes, one per series, so that series differ in
// greyscale too.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{},
}

// dashes are the line patterns, one per series (solid first).
var dashes = [][]vg.Length{
	nil,
	{vg.Points(4), vg.Points(2)},
	{vg.Points(1), vg.Points(1.5)},
	{vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(3)},
}

// Colour returns the colour of series i; Glyph its marker; Dash its line
// pattern. Beyond 8 series the marker moves on faster than the colour, so
// the pair stays distinct up to 64 series.
func Colour(i int) color.NRGBA { return okabeIto[i%len(okabeIto)] }

// Glyph returns the marker shape of series i (see Colour).
func Glyph(i int) draw.GlyphDrawer { return glyphs[(i+i/len(okabeIto))%len(glyphs)] }

// Dash returns the dash pattern of series i (nil: solid).
func Dash(i int) []vg.Length { return dashes[i%len(dashes)] }

// band returns the colour of series i made translucent, for a ± sd band.
func band(i int) color.NRGBA {
	c := Colour(i)
	c.A = 0x40
	return c
}

// Size is a figure's size.
type Size struct{ W, H vg.Length }

// Widths for a paper: one column and the full text width.
const (
	ColumnWidth = 3.5 * vg.Inch
	DoubleWidth = 7 * vg.Inch
)

// SizeFor returns the size of a figure for width "column" or "double"
// with the given height-to-width ratio at column width; the double width
// keeps the column's height plus a third, so the panels do not become
// flat strips. ok is false for another width.
func SizeFor(width string, ratio float64) (s Size, ok bool) {
	h := ColumnWidth * vg.Length(ratio)
	switch width {
	case "column":
		return Size{ColumnWidth, h}, true
	case "double":
		return Size{DoubleWidth, h * 4 / 3}, true
	}
	return Size{}, false
}

// Font sizes for a figure printed at its size: captions in a paper are
// 8–9 pt, so titles are 9, labels 8 and ticks and legends 7.
const (
	titleSize  = 9
	labelSize  = 8
	tickSize   = 7
	legendSize = 7
	lineWidth  = 1.2
	markerSize = 2.5
)
