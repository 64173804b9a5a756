package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/datasets"
)

func testModel() Model {
	return New(Config{
		Summary: datasets.Summary{
			Name: "toy", Source: "builtin:toy", Cells: 30, Genes: 12, ValueType: "counts",
			Classes:   []datasets.ClassCount{{Name: "alpha", Cells: 20}, {Name: "beta", Cells: 10}},
			KeptCells: 30, SelectedGenes: 12,
			Preprocessing: []datasets.Step{{Name: "log1p", Detail: "x ← ln(1 + x)"},
				{Name: "gene selection", Skipped: true, Detail: strings.Repeat("a long reason ", 12)}},
		},
		Backend: "gonum, 2 threads",
	})
}

func resize(m Model, w, h int) Model {
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return next.(Model)
}

func TestViewShowsSummaryWithinSize(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}, {40, 12}} {
		m := resize(testModel(), size[0], size[1])
		view := m.View().Content
		for _, want := range []string{"dpscope", "builtin:toy", "30 × 12", "alpha", "gene selection", "gonum"} {
			if size[1] >= 24 && !strings.Contains(view, want) {
				t.Errorf("%dx%d view lacks %q", size[0], size[1], want)
			}
		}
		lines := strings.Split(view, "\n")
		if len(lines) > size[1] {
			t.Errorf("%dx%d view has %d lines, more than the terminal", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w > size[0] {
				t.Errorf("%dx%d view line %d is %d cells wide: %q", size[0], size[1], i, w, l)
			}
		}
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{{Code: 'q', Text: "q"}, {Code: 'c', Mod: tea.ModCtrl}} {
		_, cmd := resize(testModel(), 80, 24).Update(k)
		if cmd == nil {
			t.Fatalf("key %q: no command, want tea.Quit", k.String())
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("key %q: command gives %T, want tea.QuitMsg", k.String(), cmd())
		}
	}
}

func TestHelpToggles(t *testing.T) {
	m := resize(testModel(), 80, 24)
	next, _ := m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	if view := next.(Model).View().Content; !strings.Contains(view, "down") {
		t.Errorf("after ?: full help not shown:\n%s", view)
	}
}
