package tui

import (
	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// segment is a stretch of a run's steps at one noise multiplier.
type segment struct {
	sigma float64
	from  int // first step, 1-based
}

// schedule follows the σ a run used step by step, from its live changes,
// so ε can be re-projected over what was spent and what remains.
type schedule struct {
	segs     []segment
	step     int // the last step reported
	active   bool
	finished bool
	ended    string // how the run ended (core.DoneEvent.Status, or "failed: …"); "" while it runs
}

func newSchedule(sigma float64) schedule {
	return schedule{segs: []segment{{sigma: sigma, from: 1}}, active: true}
}

// observe follows one engine event: σ changes as the engine applied them
// (a new ε target comes with the σ it solved, PatchEvent.Effective).
func (s *schedule) observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.StepEvent:
		s.step = max(s.step, ev.Step)
	case core.BudgetEvent:
		s.step = max(s.step, ev.Step)
		// The engine's σ is the one that counts: it calibrates σ for every
		// mechanism it runs (sound DP-DCAN's DP k-means too), which the
		// interface's own solve leaves out.
		if ev.Sigma > 0 && ev.Sigma != s.sigmaAt(ev.Step+1) {
			from := ev.Step + 1
			if len(s.segs) == 1 && ev.Step <= 1 {
				from = 1
			}
			s.add(ev.Sigma, from)
		}
	case core.DoneEvent:
		s.ended = ev.Status()
	case core.ErrorEvent:
		s.ended = "failed: " + ev.Err.Error()
	case core.PatchEvent:
		if !ev.Applied {
			return
		}
		p := ev.Patch
		if ev.Effective != nil {
			p = *ev.Effective
		}
		if p.Sigma != nil {
			s.add(*p.Sigma, ev.Step)
		}
	}
}

func (s *schedule) add(sigma float64, from int) {
	if n := len(s.segs); n > 0 && s.segs[n-1].from >= from {
		s.segs[n-1] = segment{sigma: sigma, from: max(from, 1)}
		return
	}
	s.segs = append(s.segs, segment{sigma: sigma, from: max(from, 1)})
}

// split returns the accountant events of the steps taken and the number of
// steps left in pr's plan. Before a run nothing is spent.
func (s schedule) split(pr runParams) (spent []accountant.Event, remaining int) {
	total := pr.Steps()
	if !s.active || !pr.dpsgd() {
		return nil, total
	}
	for i, sg := range s.segs {
		end := s.step
		if i+1 < len(s.segs) {
			end = min(s.segs[i+1].from-1, s.step)
		}
		n := end - sg.from + 1
		if n <= 0 {
			continue
		}
		if ev, err := accountant.SampledGaussianEvent(pr.SampleRate, sg.sigma, n); err == nil {
			spent = append(spent, ev)
		}
	}
	if s.finished {
		return spent, 0
	}
	return spent, max(total-s.step, 0)
}

// sigmaAt returns the σ in force at step.
func (s schedule) sigmaAt(step int) float64 {
	sigma := 0.0
	for _, sg := range s.segs {
		if sg.from <= step {
			sigma = sg.sigma
		}
	}
	return sigma
}
