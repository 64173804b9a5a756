package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/styles"
)

// TestScheduleTakesTheEngineSigma checks that the σ schedule follows the σ
// an engine reports for a new ε target (PatchEvent.Effective), not a guess.
func TestScheduleTakesTheEngineSigma(t *testing.T) {
	s := newSchedule(1)
	eps, solved, typed := 3.0, 1.7, 2.5
	s.observe(core.StepEvent{Step: 4})
	s.observe(core.PatchEvent{Patch: core.Patch{Epsilon: &eps}, Step: 5, Applied: true,
		Effective: &core.Patch{Epsilon: &eps, Sigma: &solved}})
	s.observe(core.PatchEvent{Patch: core.Patch{Epsilon: &eps}, Step: 6}) // rejected: no change
	s.observe(core.PatchEvent{Patch: core.Patch{Sigma: &typed}, Step: 8, Applied: true})
	for _, c := range []struct {
		step int
		want float64
	}{{4, 1}, {5, solved}, {7, solved}, {8, typed}} {
		if got := s.sigmaAt(c.step); got != c.want {
			t.Errorf("σ at step %d = %v, want %v", c.step, got, c.want)
		}
	}
}

// TestDistanceTableFromFields lays grouped values out by their Group and
// Measure fields, whatever their Name says.
func TestDistanceTableFromFields(t *testing.T) {
	vals := []core.NamedValue{
		{Name: "x", Value: 0.5, Group: "before", Measure: "mean distance to M"},
		{Name: "y", Value: 0.25, Group: "paper", Measure: "mean distance to M"},
		{Name: "z", Value: 0.125, Group: "paper", Measure: "max distance to M"},
	}
	lines := strings.Split(stripANSI(distanceTable(styles.DefaultStyles(true), vals, 80)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "before") || !strings.Contains(lines[0], "paper") {
		t.Fatalf("table %q, want a header of two tracks and two rows", lines)
	}
	if f := strings.Fields(lines[1]); f[len(f)-2] != "0.5" || f[len(f)-1] != "0.25" {
		t.Errorf("mean row %q, want 0.5 then 0.25", lines[1])
	}
	if f := strings.Fields(lines[2]); f[len(f)-2] != "—" || f[len(f)-1] != "0.125" {
		t.Errorf("max row %q, want — then 0.125", lines[2])
	}
}

// TestEpsilonLegendUsesLabel checks that the ε chart names an accountant
// by the engine's short label.
func TestEpsilonLegendUsesLabel(t *testing.T) {
	m := sized(t, testModel(t, ""), 160, 48)
	evs := []core.Event{
		core.StageEvent{Stage: 1, Name: "s", Steps: 2},
		core.StepEvent{Stage: 1, Step: 1, Loss: 1},
		core.BudgetEvent{Step: 1, Delta: 1e-5, Spent: []core.EpsilonValue{
			{Accountant: "audited: a long description of what was accounted (RDP)", Label: "tiny RDP", Epsilon: 0.5}}},
		core.DoneEvent{},
	}
	m = feed(t, m, 1, evs)
	rc := runPaneOf(m).charts
	if view := stripANSI(rc.view(120, 40)); !strings.Contains(view, "tiny RDP") || strings.Contains(view, "a long description") {
		t.Errorf("ε chart legend does not use the label:\n%s", view)
	}
}
