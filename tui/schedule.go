package tui

import "github.com/dpscope/dpscope/core"

// schedule follows a run's progress: the last step reported, whether it
// ended and how, and the engine's latest budget report. The noise in force
// and what it costs come from the engine's events (BudgetEvent.Sigma,
// .Ledger, .Planned and .Projected, PatchEvent.Effective): the interface
// never rebuilds them.
type schedule struct {
	step     int // the last step reported
	active   bool
	finished bool
	ended    string // how the run ended (core.DoneEvent.Status, or "failed: …"); "" while it runs
	budget   *core.BudgetEvent
}

func newSchedule() schedule { return schedule{active: true} }

// observe follows one engine event.
func (s *schedule) observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.StepEvent:
		s.step = max(s.step, ev.Step)
	case core.BudgetEvent:
		s.step = max(s.step, ev.Step)
		b := ev
		s.budget = &b
	case core.DoneEvent:
		s.ended = ev.Status()
	case core.ErrorEvent:
		s.ended = "failed: " + ev.Err.Error()
	}
}

// running reports whether a run is under way and has reported its budget.
func (s schedule) running() bool { return s.active && !s.finished && s.budget != nil }

// projected returns the engine's latest projection of ε at the end of its
// plan (its first accountant, the one it enforces), and whether it has
// reported one.
func (s schedule) projected() (float64, bool) {
	if s.budget == nil || len(s.budget.Projected) == 0 {
		return 0, false
	}
	return s.budget.Projected[0].Epsilon, true
}

// mechanisms returns the releases of the run's ledger and of its plan as
// the latest budget report lists them, and the number of steps planned.
func (s schedule) mechanisms() (all []core.Mechanism, planned int) {
	if s.budget == nil {
		return nil, 0
	}
	all = append(append(all, s.budget.Ledger...), s.budget.Planned...)
	for _, m := range s.budget.Planned {
		planned += m.Steps
	}
	return all, planned
}
