package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/styles"
)

// TestScheduleTakesTheEngineReport checks that the run's schedule is the
// engine's latest budget report (its projection, its ledger and plan),
// never one the interface rebuilds.
func TestScheduleTakesTheEngineReport(t *testing.T) {
	s := newSchedule()
	if _, ok := s.projected(); ok || s.running() {
		t.Fatal("a schedule with no report projects an ε")
	}
	s.observe(core.StepEvent{Step: 4})
	b := core.BudgetEvent{Step: 5, Sigma: 1.7, Projected: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 3.5}},
		Ledger:  []core.Mechanism{{Component: "stage 1", SampleRate: 0.1, NoiseMultiplier: 1.2, Steps: 3}, {Component: "stage 1", SampleRate: 0.1, NoiseMultiplier: 1.7, Steps: 2}},
		Planned: []core.Mechanism{{SampleRate: 0.1, NoiseMultiplier: 1.7, Steps: 15}, {SampleRate: 1, NoiseMultiplier: 5.1, Steps: 10}}}
	s.observe(b)
	if e, ok := s.projected(); !ok || e != 3.5 || !s.running() || s.step != 5 {
		t.Errorf("projected %v (%v), running %v, step %d; want the engine's 3.5 at step 5", e, ok, s.running(), s.step)
	}
	all, planned := s.mechanisms()
	if len(all) != 4 || planned != 25 || all[3].NoiseMultiplier != 5.1 {
		t.Errorf("mechanisms %+v, %d planned; want the ledger's 2 and the plan's 2 (25 steps)", all, planned)
	}
	s.observe(core.DoneEvent{Outcome: core.OutcomeFinished})
	s.finished = true
	if s.running() || s.ended != "finished" {
		t.Errorf("after the end: running %v, ended %q", s.running(), s.ended)
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
