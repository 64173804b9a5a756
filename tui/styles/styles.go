// Package styles holds every Lip Gloss style dpscope draws with, so that
// panes share one look and the light and dark themes switch in one place.
package styles

import "charm.land/lipgloss/v2"

// Styles is the set of styles of one theme.
type Styles struct {
	Title   lipgloss.Style // the application title in the header
	Header  lipgloss.Style // the header line
	Pane    lipgloss.Style // a bordered pane
	Label   lipgloss.Style // a field name
	Value   lipgloss.Style // a field value
	Muted   lipgloss.Style // secondary text
	Bar     lipgloss.Style // the filled part of a bar
	Skipped lipgloss.Style // a skipped preprocessing step
}

// DefaultStyles returns the theme for a dark or a light terminal background.
// Colours degrade by themselves on terminals with fewer colours, and vanish
// when NO_COLOR is set (Bubble Tea detects the colour profile).
func DefaultStyles(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	accent := ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#B4A2FF"))
	muted := ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	text := ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E6E6E6"))
	warn := ld(lipgloss.Color("#A15C00"), lipgloss.Color("#E0A040"))
	return Styles{
		Title:   lipgloss.NewStyle().Bold(true).Foreground(accent),
		Header:  lipgloss.NewStyle().Foreground(muted).PaddingLeft(1),
		Pane:    lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(muted).Padding(0, 1),
		Label:   lipgloss.NewStyle().Foreground(muted),
		Value:   lipgloss.NewStyle().Foreground(text),
		Muted:   lipgloss.NewStyle().Foreground(muted),
		Bar:     lipgloss.NewStyle().Foreground(accent),
		Skipped: lipgloss.NewStyle().Foreground(warn),
	}
}
