package dppca

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
)

// auditDoc is dppca's Method.Audit.
const auditDoc = "Dirac canaries in the released noisy covariance (Analyze Gauss), one per upper-triangle entry, " +
	"each moving it by the sensitivity R² in the isometric coordinates; the attacker knows every other cell and sees the release " +
	"(the covariance is one of the run's releases, so the bound covers its share of the budget)"

// auditSeedMix separates the canaries' stream from the run's noise.
const auditSeedMix = 0xA0D17C4A5E5EED02

// auditState is a run's audit: the spec and the canaries of the current
// release's covariance (each release, e.g. after a patch, gets its own;
// the last one is reported). A nil *auditState is a run without an audit.
type auditState struct {
	spec     core.AuditSpec // resolved but for Canaries (CanariesFor)
	seed     uint64
	delta    float64
	canaries *audit.SumCanaries
	input    *InputAudit // input canaries (spec.Kind input) instead
	err      error
}

func newAuditState(cfg core.Config) *auditState {
	if cfg.Audit == nil {
		return nil
	}
	spec := cfg.Audit.Resolved()
	spec.Canaries = cfg.Audit.Canaries
	return &auditState{spec: spec, seed: cfg.Seed ^ auditSeedMix, delta: cfg.Delta}
}

// canariesFor returns fresh canaries on the upper triangle of an h × h
// covariance of rows of norm ≤ r (nil without an audit): R² on a diagonal
// entry, R²/√2 above it, where GOE noise is σ and σ/√2 (analyzeGauss).
func (a *auditState) canariesFor(h int, r float64) *audit.SumCanaries {
	if a == nil || a.spec.Input() {
		return nil
	}
	if !(r > 0) {
		r = 1
	}
	var cand []int
	var w []float64
	for i := range h {
		for j := i; j < h; j++ {
			cand = append(cand, i*h+j)
			if i == j {
				w = append(w, r*r)
			} else {
				w = append(w, r*r/math.Sqrt2)
			}
		}
	}
	m, err := a.spec.CanariesFor(len(cand))
	if err != nil {
		a.err = fmt.Errorf("dppca: audit: the %d×%d covariance has %d entries: %w", h, h, len(cand), err)
		return nil
	}
	a.canaries, a.err = audit.NewSumCanaries(m, cand, w, a.seed)
	return a.canaries
}

// before and after run the canaries around the noise (nil-safe).
func auditBefore(cs []*audit.SumCanaries, sum []float64) {
	for _, s := range cs {
		if s != nil {
			s.Before(sum)
		}
	}
}

func auditAfter(cs []*audit.SumCanaries, sum []float64) {
	for _, s := range cs {
		if s != nil {
			s.After(sum)
		}
	}
}

// emit reports the audit of the last release (nothing without an audit).
func (a *auditState) emit(ctl *core.Control, mode core.Mode, out *Outcome) error {
	if a == nil {
		return nil
	}
	if a.err != nil {
		return a.err
	}
	if a.input != nil {
		if out == nil {
			return nil
		}
		ev, err := a.input.Event(out.Matrix, a.delta, a.spec.Confidence, fmt.Sprintf("dppca, %s mode", mode))
		if err != nil {
			return err
		}
		ctl.Emit(ev)
		return nil
	}
	if a.canaries == nil {
		return nil // no covariance was released
	}
	delta := a.delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	res, err := a.canaries.Audit(delta, 1-a.spec.Confidence)
	if err != nil {
		return fmt.Errorf("dppca: audit: %w", err)
	}
	ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditGradient, View: "released noisy covariance, other cells known",
		Setting: fmt.Sprintf("%s (the Analyze-Gauss covariance), %s mode; best of %d guessing rules (Bonferroni)", res.Setting, mode, res.Rules)})
	return nil
}

// inputCells returns the number of real cells of a run with input
// canaries, -1 without them.
func (a *auditState) inputCells() int {
	if a == nil {
		return -1
	}
	return a.input.Cells()
}
