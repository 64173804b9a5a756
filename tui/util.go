package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// errorf returns a tui error.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// truncate cuts s (which may hold ANSI styles) to w cells, with an ellipsis.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fit cuts every line of s to w cells and keeps at most h lines.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if h >= 0 && len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return strings.Join(lines, "\n")
}

// fmtEps writes an ε compactly.
func fmtEps(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default: // three significant digits, no trailing zeros: 16, 12.5, 0.25
		return fmt.Sprintf("%.3g", v)
	}
}

// block cuts s to w cells wide and exactly h lines, padding with empty lines.
func block(s string, w, h int) string {
	lines := strings.Split(fit(s, w, h), "\n")
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// padBlock pads every line of s with spaces to w cells.
func padBlock(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if d := w - lipgloss.Width(l); d > 0 {
			lines[i] = l + strings.Repeat(" ", d)
		}
	}
	return strings.Join(lines, "\n")
}

// wrap breaks s (which may hold ANSI styles) into lines of at most w cells.
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, " "), "\n")
}

// hang wraps plain text s under a bullet: the first line starts with
// bullet, the others with as many spaces, so continuation lines sit under
// the text rather than at the left edge. Each line is rendered in style.
func hang(bullet, s string, w int, style lipgloss.Style) []string {
	in := lipgloss.Width(bullet)
	if w-in < 8 {
		return wrap(style.Render(bullet+s), w)
	}
	lines := wrap(s, w-in)
	for i, l := range lines {
		lead := bullet
		if i > 0 {
			lead = strings.Repeat(" ", in)
		}
		lines[i] = style.Render(lead + l)
	}
	return lines
}
