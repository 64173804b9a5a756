package chart

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
)

// styleKey identifies the look of a chart cell: the colours and the
// attributes chart styles use. Cells drawn by a chart carry only these.
type styleKey struct {
	fg, bg            [4]uint32
	hasFG, hasBG      bool
	bold, faint, ital bool
}

func rgba(c color.Color) (v [4]uint32, ok bool) {
	if c == nil {
		return v, false
	}
	if _, none := c.(lipgloss.NoColor); none {
		return v, false
	}
	v[0], v[1], v[2], v[3] = c.RGBA()
	return v, true
}

func keyOf(s lipgloss.Style) styleKey {
	k := styleKey{bold: s.GetBold(), faint: s.GetFaint(), ital: s.GetItalic()}
	k.fg, k.hasFG = rgba(s.GetForeground())
	k.bg, k.hasBG = rgba(s.GetBackground())
	return k
}

// render writes the canvas as text, styling each run of same-looking
// cells once. ntcharts' canvas View styles every cell on its own: at
// 160×48 that is thousands of Render calls a frame and an escape sequence
// per cell, which every later width measurement has to walk.
func render(c *canvas.Model) string {
	w, h := c.Width(), c.Height()
	var b, run strings.Builder
	b.Grow(w * h * 4)
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		var cur lipgloss.Style
		var curKey styleKey
		flush := func() {
			if run.Len() == 0 {
				return
			}
			if curKey == (styleKey{}) {
				b.WriteString(run.String())
			} else {
				b.WriteString(cur.Render(run.String()))
			}
			run.Reset()
		}
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			r := cell.Rune
			if r == 0 {
				r = ' '
			}
			k := keyOf(cell.Style)
			if r == ' ' && !k.hasBG {
				k = styleKey{} // a blank needs no colour
			}
			if x == 0 || k != curKey {
				flush()
				cur, curKey = cell.Style, k
			}
			run.WriteRune(r)
		}
		flush()
	}
	return b.String()
}
