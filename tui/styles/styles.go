// Package styles holds every Lip Gloss style dpscope draws with, so that
// panes share one look and the light and dark themes switch in one place.
// Chart colours live here too.
package styles

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles is the set of styles of one theme. Values are immutable once built;
// a new theme is a new Styles.
type Styles struct {
	Title     lipgloss.Style // the application title in the header
	Header    lipgloss.Style // the header line
	Pane      lipgloss.Style // a bordered pane
	Box       lipgloss.Style // a bordered box inside a pane (a chart, a table)
	BoxTitle  lipgloss.Style // the title line of a box
	Label     lipgloss.Style // a field name
	Value     lipgloss.Style // a field value
	Muted     lipgloss.Style // secondary text
	Bar       lipgloss.Style // the filled part of a bar
	Skipped   lipgloss.Style // a skipped preprocessing step
	TabActive lipgloss.Style // the selected tab
	Tab       lipgloss.Style // an unselected tab
	Cursor    lipgloss.Style // the selected row of a list or form
	Locked    lipgloss.Style // a field that cannot change now
	Editing   lipgloss.Style // a field being typed into
	Status    lipgloss.Style // the status line
	Error     lipgloss.Style // an error in the status line
	Warn      lipgloss.Style // a warning
	Good      lipgloss.Style // a formal guarantee, a lit layer
	Bad       lipgloss.Style // no guarantee
	LayerOn   lipgloss.Style // a noised layer in the layer strip
	LayerOff  lipgloss.Style // an un-noised layer in the layer strip
	Dialog    lipgloss.Style // a confirmation dialog
	H1        lipgloss.Style // a lesson heading
	H2        lipgloss.Style // a lesson sub-heading
	Code      lipgloss.Style // inline code and formulas in a lesson
	Emph      lipgloss.Style // bold text in a lesson

	// Series are the colours of chart series, in order.
	Series []lipgloss.Style
	// Axis and AxisLabel style chart axes and their numbers.
	Axis, AxisLabel lipgloss.Style
	// Target is a target line (ε target), Marker a live-change marker,
	// Reference a reference line (perfect / no privacy).
	Target, Marker, Reference lipgloss.Style
}

// DefaultStyles returns the theme for a dark or a light terminal background.
// Colours degrade by themselves on terminals with fewer colours, and vanish
// when NO_COLOR is set (Bubble Tea detects the colour profile); the
// layout never depends on colour alone (lit layers are also drawn with a
// different glyph).
func DefaultStyles(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	accent := ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#B4A2FF"))
	muted := ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	text := ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E6E6E6"))
	warn := ld(lipgloss.Color("#A15C00"), lipgloss.Color("#E0A040"))
	good := ld(lipgloss.Color("#1E7A3C"), lipgloss.Color("#6BD48A"))
	bad := ld(lipgloss.Color("#B3261E"), lipgloss.Color("#FF7A70"))
	bg := ld(lipgloss.Color("#E8E4FA"), lipgloss.Color("#2E2650"))
	series := []color.Color{
		ld(lipgloss.Color("#1F5FBF"), lipgloss.Color("#6CA8FF")),
		ld(lipgloss.Color("#B35900"), lipgloss.Color("#FFA552")),
		ld(lipgloss.Color("#1E7A3C"), lipgloss.Color("#6BD48A")),
		ld(lipgloss.Color("#8E24AA"), lipgloss.Color("#E08CFF")),
		ld(lipgloss.Color("#00796B"), lipgloss.Color("#4DD8C8")),
		ld(lipgloss.Color("#B3261E"), lipgloss.Color("#FF7A70")),
		ld(lipgloss.Color("#6D5D00"), lipgloss.Color("#E6D45C")),
		ld(lipgloss.Color("#37474F"), lipgloss.Color("#B0BEC5")),
	}
	s := Styles{
		Title:     lipgloss.NewStyle().Bold(true).Foreground(accent),
		Header:    lipgloss.NewStyle().Foreground(muted).PaddingLeft(1),
		Pane:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(muted).Padding(0, 1),
		Box:       lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(muted),
		BoxTitle:  lipgloss.NewStyle().Bold(true).Foreground(accent),
		Label:     lipgloss.NewStyle().Foreground(muted),
		Value:     lipgloss.NewStyle().Foreground(text),
		Muted:     lipgloss.NewStyle().Foreground(muted),
		Bar:       lipgloss.NewStyle().Foreground(accent),
		Skipped:   lipgloss.NewStyle().Foreground(warn),
		TabActive: lipgloss.NewStyle().Bold(true).Foreground(accent).Underline(true).Padding(0, 1),
		Tab:       lipgloss.NewStyle().Foreground(muted).Padding(0, 1),
		Cursor:    lipgloss.NewStyle().Bold(true).Foreground(accent).Background(bg),
		Locked:    lipgloss.NewStyle().Foreground(muted).Faint(true),
		Editing:   lipgloss.NewStyle().Foreground(text).Underline(true),
		Status:    lipgloss.NewStyle().Foreground(muted).PaddingLeft(1),
		Error:     lipgloss.NewStyle().Foreground(bad).Bold(true).PaddingLeft(1),
		Warn:      lipgloss.NewStyle().Foreground(warn),
		Good:      lipgloss.NewStyle().Foreground(good).Bold(true),
		Bad:       lipgloss.NewStyle().Foreground(bad).Bold(true),
		LayerOn:   lipgloss.NewStyle().Foreground(warn).Bold(true),
		LayerOff:  lipgloss.NewStyle().Foreground(muted),
		Dialog:    lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(warn).Padding(0, 2),
		H1:        lipgloss.NewStyle().Bold(true).Foreground(accent),
		H2:        lipgloss.NewStyle().Bold(true).Foreground(text),
		Code:      lipgloss.NewStyle().Foreground(warn),
		Emph:      lipgloss.NewStyle().Bold(true),
		Axis:      lipgloss.NewStyle().Foreground(muted),
		AxisLabel: lipgloss.NewStyle().Foreground(muted),
		Target:    lipgloss.NewStyle().Foreground(bad),
		Marker:    lipgloss.NewStyle().Foreground(warn),
		Reference: lipgloss.NewStyle().Foreground(muted),
	}
	for _, c := range series {
		s.Series = append(s.Series, lipgloss.NewStyle().Foreground(c))
	}
	return s
}

// SeriesStyle returns the style of the i-th chart series, cycling.
func (s Styles) SeriesStyle(i int) lipgloss.Style {
	if len(s.Series) == 0 {
		return lipgloss.NewStyle()
	}
	return s.Series[((i%len(s.Series))+len(s.Series))%len(s.Series)]
}
