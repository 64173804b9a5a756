package chart

import (
	"math"
	"strconv"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
)

// DefaultCapacity is the number of points a series keeps before it halves
// its resolution.
const DefaultCapacity = 1024

// Point is one data point.
type Point struct{ X, Y float64 }

// Pattern is a line's dash pattern, so that lines differ without colour
// (NO_COLOR, colour-blind readers, a greyscale copy).
type Pattern int

// The patterns, by the braille dots along a line.
const (
	Solid  Pattern = iota
	Dashed         // 4 dots on, 3 off
	Dotted         // 1 dot on, 2 off
)

// PatternOf is the pattern of the i-th series of a theme, paired with its
// i-th colour: solid, dashed, dotted, then again.
func PatternOf(i int) Pattern { return Pattern(((i % 3) + 3) % 3) }

// Glyph is the pattern's sample for a legend.
func (p Pattern) Glyph() string {
	switch p {
	case Dashed:
		return "╍"
	case Dotted:
		return "┈"
	}
	return "━"
}

// on reports whether the k-th dot along a line is drawn.
func (p Pattern) on(k int) bool {
	switch p {
	case Dashed:
		return k%7 < 4
	case Dotted:
		return k%3 == 0
	}
	return true
}

// Series is a named line (or, with Dots, a set of points) of one style.
type Series struct {
	Name    string
	Style   lipgloss.Style
	Pattern Pattern
	Dots    bool // draw points only, no joining lines
	// Mark, when set, draws each point as this character in its cell
	// instead of a braille dot: a lone point (a figure at the right end
	// of an axis) is hard to see as one dot of eight, and a legend's ●
	// should look like what it names.
	Mark   rune
	points []Point
	stride int // every stride-th pushed point is kept, after decimation
	seen   int // points pushed since the last kept one
}

// Len returns the number of points kept.
func (s *Series) Len() int { return len(s.points) }

// Points returns the points kept (read-only).
func (s *Series) Points() []Point { return s.points }

// Last returns the last point and whether there is one.
func (s *Series) Last() (Point, bool) {
	if len(s.points) == 0 {
		return Point{}, false
	}
	return s.points[len(s.points)-1], true
}

// HLine is a horizontal reference line at Y.
type HLine struct {
	Y       float64
	Style   lipgloss.Style
	Pattern Pattern
}

// XY is a chart of series against a shared x axis. The zero value is not
// usable; use New. Not safe for concurrent use.
type XY struct {
	w, h     int
	capacity int
	series   []*Series
	hlines   []HLine
	markers  []float64
	segments []Segment
	fixed    *[4]float64 // minX, maxX, minY, maxY when fixed
	fixedX   *[2]float64 // minX, maxX when only x is fixed
	axis     lipgloss.Style
	label    lipgloss.Style
	marker   lipgloss.Style
	xFmt     func(float64) string
	yFmt     func(float64) string
	xTicks   []Tick // fixed x labels; nil: evenly spaced ones
	drawn    string
}

// Tick is a fixed label of the x axis at X.
type Tick struct {
	X     float64
	Label string
}

// Segment is a straight line drawn as-is (e.g. a reference diagonal).
type Segment struct {
	A, B  Point
	Style lipgloss.Style
}

// New returns an empty chart w cells wide and h high, axes drawn in axis,
// numbers in label and live-change markers in marker.
func New(w, h int, axis, label, marker lipgloss.Style) *XY {
	return &XY{w: max(w, 1), h: max(h, 1), capacity: DefaultCapacity, axis: axis, label: label, marker: marker, xFmt: FormatNumber, yFmt: FormatNumber}
}

// SetStyles changes the axis, label and marker styles (a theme change).
func (c *XY) SetStyles(axis, label, marker lipgloss.Style) {
	c.axis, c.label, c.marker = axis, label, marker
}

// SetXFormat sets how x-axis numbers are written (e.g. 10^v on a log axis).
func (c *XY) SetXFormat(f func(float64) string) { c.xFmt = f }

// SetXTicks labels the x axis at the given positions only (e.g. the round
// values of a log axis) instead of at evenly spaced steps. Labels that
// would overlap the one before are left out; nil restores the steps.
func (c *XY) SetXTicks(ticks []Tick) { c.xTicks = ticks }

// SetYFormat sets how y-axis numbers are written.
func (c *XY) SetYFormat(f func(float64) string) { c.yFmt = f }

// SetCapacity sets the number of points each series keeps; at capacity a
// series drops every other point and keeps one pushed point in two from
// then on, so the whole history stays visible in bounded memory.
func (c *XY) SetCapacity(n int) { c.capacity = max(n, 16) }

// Resize sets the chart's size in cells.
func (c *XY) Resize(w, h int) { c.w, c.h = max(w, 1), max(h, 1) }

// Size returns the chart's size in cells.
func (c *XY) Size() (w, h int) { return c.w, c.h }

// SetRange fixes the axes' ranges; without it they fit the data.
func (c *XY) SetRange(minX, maxX, minY, maxY float64) {
	c.fixed = &[4]float64{minX, maxX, minY, maxY}
}

// SetXRange fixes the x axis only; y still fits the data. Charts that share
// an x quantity (the step of a run) use it so that the same x falls in the
// same column on each of them.
func (c *XY) SetXRange(minX, maxX float64) { c.fixedX = &[2]float64{minX, maxX} }

// XRange returns the x range the next Draw uses.
func (c *XY) XRange() (minX, maxX float64) {
	minX, maxX, _, _ = c.bounds()
	return minX, maxX
}

// AddSeries adds (or restyles) the series called name and returns it.
func (c *XY) AddSeries(name string, style lipgloss.Style) *Series {
	for _, s := range c.series {
		if s.Name == name {
			s.Style = style
			return s
		}
	}
	s := &Series{Name: name, Style: style, stride: 1}
	c.series = append(c.series, s)
	return s
}

// Series returns the series called name, or nil.
func (c *XY) Series(name string) *Series {
	for _, s := range c.series {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// AllSeries returns the series in drawing order.
func (c *XY) AllSeries() []*Series { return c.series }

// Push appends a point to the series called name (created unstyled when
// missing). Non-finite values are ignored.
func (c *XY) Push(name string, x, y float64) {
	if !finite(x) || !finite(y) {
		return
	}
	s := c.Series(name)
	if s == nil {
		s = c.AddSeries(name, lipgloss.Style{})
	}
	s.seen++
	if s.seen < s.stride {
		return
	}
	s.seen = 0
	s.points = append(s.points, Point{x, y})
	if len(s.points) > c.capacity {
		kept := s.points[:0]
		for i := 0; i < len(s.points); i += 2 {
			kept = append(kept, s.points[i])
		}
		s.points = kept
		s.stride *= 2
	}
}

// SetPoints replaces the points of the series called name and returns it.
func (c *XY) SetPoints(name string, style lipgloss.Style, pts []Point) *Series {
	s := c.AddSeries(name, style)
	s.points = append(s.points[:0], pts...)
	s.stride, s.seen = 1, 0
	return s
}

// SetHLines replaces the horizontal reference lines.
func (c *XY) SetHLines(lines ...HLine) { c.hlines = append(c.hlines[:0], lines...) }

// SetSegments replaces the straight reference segments.
func (c *XY) SetSegments(segs ...Segment) { c.segments = append(c.segments[:0], segs...) }

// AddMarker adds a vertical marker at x (a live change took effect there).
func (c *XY) AddMarker(x float64) { c.markers = append(c.markers, x) }

// Markers returns the marker positions.
func (c *XY) Markers() []float64 { return c.markers }

// Reset removes every series, line and marker.
func (c *XY) Reset() {
	c.series, c.hlines, c.markers, c.segments = nil, nil, nil, nil
	c.drawn = ""
}

// Empty reports whether no series has a point.
func (c *XY) Empty() bool {
	for _, s := range c.series {
		if len(s.points) > 0 {
			return false
		}
	}
	return true
}

// bounds returns the data ranges, padded so that flat data still shows.
func (c *XY) bounds() (minX, maxX, minY, maxY float64) {
	if c.fixed != nil {
		return c.fixed[0], c.fixed[1], c.fixed[2], c.fixed[3]
	}
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	grow := func(p Point) {
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	for _, s := range c.series {
		for _, p := range s.points {
			grow(p)
		}
	}
	for _, l := range c.hlines {
		minY, maxY = math.Min(minY, l.Y), math.Max(maxY, l.Y)
	}
	for _, sg := range c.segments {
		grow(sg.A)
		grow(sg.B)
	}
	if math.IsInf(minY, 1) {
		minY, maxY = 0, 1
	}
	if c.fixedX != nil {
		minX, maxX = c.fixedX[0], c.fixedX[1]
	}
	if math.IsInf(minX, 1) {
		return 0, 1, 0, 1
	}
	if maxX-minX < 1e-12 {
		maxX = minX + 1
	}
	if maxY-minY < 1e-12 {
		pad := math.Max(math.Abs(minY)*0.1, 0.5)
		minY, maxY = minY-pad, maxY+pad
	}
	return minX, maxX, minY, maxY
}

// Draw renders the chart into its cached drawing. Call it at the frame
// rate, never from View.
func (c *XY) Draw() {
	minX, maxX, minY, maxY := c.bounds()
	xFmt, yFmt := c.xFmt, c.yFmt
	if c.xTicks != nil {
		xFmt = func(float64) string { return "" } // drawTicks writes them
	}
	lc := linechart.New(c.w, c.h, minX, maxX, minY, maxY,
		linechart.WithXYSteps(max(c.w/5, 2), max(c.h/3, 1)),
		linechart.WithStyles(c.axis, c.label, lipgloss.Style{}),
		linechart.WithXLabelFormatter(func(_ int, v float64) string { return xFmt(v) }),
		linechart.WithYLabelFormatter(func(_ int, v float64) string { return yFmt(v) }))
	lc.DrawXYAxisAndLabel()
	gw, gh := lc.GraphWidth(), lc.GraphHeight()
	if gw < 1 || gh < 1 {
		c.drawn = render(&lc.Canvas)
		return
	}
	origin := lc.Origin()
	c.drawTicks(&lc.Canvas, origin, gw, minX, maxX)
	start := canvas.Point{X: origin.X + 1, Y: 0}
	plot := func(style lipgloss.Style, draw func(g *graph.BrailleGrid)) {
		g := graph.NewBrailleGrid(gw, gh, minX, maxX, minY, maxY)
		draw(g)
		graph.DrawBraillePatterns(&lc.Canvas, start, g.BraillePatterns(), style)
	}
	// line draws a→b in pattern pat; k counts the dots along a series so
	// its dashes run on across the joints.
	line := func(g *graph.BrailleGrid, a, b Point, pat Pattern, k *int) {
		pa := g.GridPoint(canvas.Float64Point{X: a.X, Y: a.Y})
		pb := g.GridPoint(canvas.Float64Point{X: b.X, Y: b.Y})
		for i, p := range graph.GetLinePoints(pa, pb) {
			if i == 0 && *k > 0 {
				continue // the joint, drawn as the last dot of the segment before
			}
			if pat.on(*k) {
				g.Set(p)
			}
			*k++
		}
	}
	for _, l := range c.hlines {
		plot(l.Style, func(g *graph.BrailleGrid) { k := 0; line(g, Point{minX, l.Y}, Point{maxX, l.Y}, l.Pattern, &k) })
	}
	for _, sg := range c.segments {
		plot(sg.Style, func(g *graph.BrailleGrid) { k := 0; line(g, sg.A, sg.B, Solid, &k) })
	}
	for _, s := range c.series {
		if len(s.points) == 0 {
			continue
		}
		plot(s.Style, func(g *graph.BrailleGrid) {
			if s.Dots || len(s.points) == 1 {
				for _, p := range s.points {
					g.Set(g.GridPoint(canvas.Float64Point{X: p.X, Y: p.Y}))
				}
				return
			}
			k := 0
			for i := 1; i < len(s.points); i++ {
				line(g, s.points[i-1], s.points[i], s.Pattern, &k)
			}
		})
	}
	for _, s := range c.series {
		if s.Mark == 0 {
			continue
		}
		for _, p := range s.points {
			if p.X < minX || p.X > maxX || p.Y < minY || p.Y > maxY {
				continue
			}
			col := origin.X + 1 + int(math.Round((p.X-minX)/(maxX-minX)*float64(gw-1)))
			row := int(math.Round((maxY - p.Y) / (maxY - minY) * float64(gh-1)))
			lc.Canvas.SetCell(canvas.Point{X: col, Y: row}, canvas.NewCellWithStyle(s.Mark, s.Style))
		}
	}
	// Markers are drawn last as a column of '┊' so they read as "here".
	for _, x := range c.markers {
		if x < minX || x > maxX {
			continue
		}
		col := origin.X + 1 + int(math.Round((x-minX)/(maxX-minX)*float64(gw-1)))
		for y := 0; y < origin.Y; y++ {
			p := canvas.Point{X: col, Y: y}
			if lc.Canvas.Cell(p).Rune == 0 || lc.Canvas.Cell(p).Rune == ' ' {
				lc.Canvas.SetCell(p, canvas.NewCellWithStyle('┊', c.marker))
			}
		}
		lc.Canvas.SetCell(canvas.Point{X: col, Y: 0}, canvas.NewCellWithStyle('▼', c.marker))
	}
	c.drawn = render(&lc.Canvas)
}

// drawTicks writes the fixed x labels on the row under the axis, each
// centred on its column and marked on the axis with '┬'.
func (c *XY) drawTicks(cv *canvas.Model, origin canvas.Point, gw int, minX, maxX float64) {
	free := 0 // first column a label may use
	for _, t := range c.xTicks {
		if t.X < minX || t.X > maxX || maxX <= minX {
			continue
		}
		col := origin.X + 1 + int(math.Round((t.X-minX)/(maxX-minX)*float64(gw-1)))
		label := []rune(t.Label)
		left := col - (len(label)-1)/2
		if left < free || left+len(label) > cv.Width() {
			continue
		}
		cv.SetCell(canvas.Point{X: col, Y: origin.Y}, canvas.NewCellWithStyle('┬', c.axis))
		for i, r := range label {
			cv.SetCell(canvas.Point{X: left + i, Y: origin.Y + 1}, canvas.NewCellWithStyle(r, c.label))
		}
		free = left + len(label) + 1
	}
}

// View returns the last drawing (empty before the first Draw).
func (c *XY) View() string { return c.drawn }

// FormatNumber writes v compactly for an axis: 3 significant digits,
// k/M suffixes for large values.
func FormatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a == 0:
		return "0"
	case a < 0.01:
		return strconv.FormatFloat(v, 'e', 0, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
