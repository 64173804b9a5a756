package chart

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestDrawRunsMatchCells checks that the run-length rendering shows the
// same text as the canvas cell by cell, with fewer escape sequences, and
// that every line is exactly the chart's width.
func TestDrawRunsMatchCells(t *testing.T) {
	axis := lipgloss.NewStyle().Foreground(lipgloss.Color("#888888"))
	c := New(40, 12, axis, axis, lipgloss.NewStyle().Foreground(lipgloss.Color("#ff8800")))
	c.AddSeries("a", lipgloss.NewStyle().Foreground(lipgloss.Color("#0000ff")))
	c.AddSeries("b", lipgloss.NewStyle().Foreground(lipgloss.Color("#00ff00")).Bold(true))
	for i := range 100 {
		c.Push("a", float64(i), float64(i*i))
		c.Push("b", float64(i), float64(100*i))
	}
	c.SetXRange(0, 200)
	c.AddMarker(50)
	c.Draw()
	got := c.View()
	lines := strings.Split(got, "\n")
	if len(lines) != 12 {
		t.Fatalf("Draw gave %d lines, want 12", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d cells, want 40: %q", i, w, ansi.Strip(l))
		}
	}
	if !strings.Contains(got, "\x1b[") {
		t.Error("Draw lost the styles")
	}
	if !strings.Contains(ansi.Strip(got), "▼") {
		t.Error("Draw lost the marker")
	}
	if lo, hi := c.XRange(); lo != 0 || hi != 200 {
		t.Errorf("XRange() = %v, %v, want 0, 200", lo, hi)
	}
	// Every braille cell of a series is one run: far fewer escapes than cells.
	if n, cells := strings.Count(got, "\x1b["), strings.Count(ansi.Strip(got), "⠀")+40*12; n > cells/4 {
		t.Errorf("Draw wrote %d escape sequences for %d cells; runs should share them", n, cells)
	}
}

// TestFixedXTicks: the labels sit under their columns in order, the ones
// that would collide are left out, and no evenly spaced label is drawn.
func TestFixedXTicks(t *testing.T) {
	st := lipgloss.NewStyle()
	c := New(40, 8, st, st, st)
	c.SetRange(0, 4, 0, 1)
	c.SetXTicks([]Tick{{0, "a"}, {1, "bb"}, {1.05, "XX"}, {4, "∞"}})
	c.Push("s", 0, 0)
	c.Push("s", 4, 1)
	c.Draw()
	lines := strings.Split(ansi.Strip(c.View()), "\n")
	var labels string
	for i, l := range lines {
		if strings.Contains(l, "┬") {
			labels = lines[i+1]
			break
		}
	}
	if labels == "" {
		t.Fatalf("no tick marks on the axis:\n%s", strings.Join(lines, "\n"))
	}
	if got := strings.Fields(labels); strings.Join(got, " ") != "a bb ∞" {
		t.Errorf("tick labels %q, want a bb ∞ (XX collides with bb)", got)
	}
	ia, ib, iinf := strings.Index(labels, "a"), strings.Index(labels, "bb"), strings.Index(labels, "∞")
	if !(ia < ib && ib < iinf) {
		t.Errorf("labels out of order: %q", labels)
	}
}

// TestMarkDrawsPointsAsCharacters checks that a series with a Mark draws
// each point as that character, in the corner cell its coordinates name,
// and only there.
func TestMarkDrawsPointsAsCharacters(t *testing.T) {
	st := lipgloss.NewStyle()
	c := New(30, 10, st, st, st)
	c.SetRange(0, 1, 0, 1)
	c.SetPoints("p", st, []Point{{X: 1, Y: 1}}).Mark = '●'
	c.Draw()
	lines := strings.Split(ansi.Strip(c.View()), "\n")
	if n := strings.Count(strings.Join(lines, "\n"), "●"); n != 1 {
		t.Fatalf("%d marks drawn, want 1:\n%s", n, strings.Join(lines, "\n"))
	}
	top := []rune(lines[0])
	if top[len(top)-1] != '●' {
		t.Errorf("the point (1, 1) is not in the top right cell:\n%s", strings.Join(lines, "\n"))
	}
}
