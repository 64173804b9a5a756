package sounddcan

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
)

// auditDoc is dcan-sound's Method.Audit.
const auditDoc = "Dirac gradient canaries in every full-batch DP-SGD step of the mixture network, each moving one coordinate of the " +
	"released noisy gradient sum by the clip bound 1; the attacker knows every other cell and sees every step's release " +
	"(the DP-SGD steps are one share of the run's budget, so the bound covers that share)"

// inputAuditDoc is dcan-sound's Method.InputAudit.
const inputAuditDoc = "input canaries as dppca's: synthetic cells (at most 10 % of the cells) on the rarest genes, in the raw matrix before the " +
	"private preprocessing of the dppca stage; the attacker knows every real cell and scores a canary by the released noisy ranking sum of its gene " +
	"(the ranking is one share of the budget, so the bound covers that share)"

// auditSeedMix separates the canaries' stream from the run's noise.
const auditSeedMix = 0xA0D17C4A5E5EED03

// auditCanaries returns the Hooks.Canaries factory of a run with an audit
// (nil without one); the canaries it makes are kept for emitAudit.
func (r *runner) auditCanaries() func(size int) *audit.SumCanaries {
	spec := r.e.cfg.Audit
	if spec == nil || spec.Input() {
		return nil
	}
	return func(size int) *audit.SumCanaries {
		m, err := spec.CanariesFor(size)
		if err != nil {
			r.auditErr = fmt.Errorf("dcan-sound: audit: the mixture's gradient has %d coordinates: %w", size, err)
			return nil
		}
		cand, w := make([]int, size), make([]float64, size)
		for i := range cand {
			cand[i], w[i] = i, 1 // each cell's whole gradient is clipped to norm 1
		}
		s, err := audit.NewSumCanaries(m, cand, w, r.e.cfg.Seed^auditSeedMix)
		if err != nil {
			r.auditErr = fmt.Errorf("dcan-sound: audit: %w", err)
			return nil
		}
		r.canaries = s
		return s
	}
}

// emitAudit reports the run's audit (nothing without one).
func (r *runner) emitAudit() error {
	if r.e.cfg.Audit == nil {
		return nil
	}
	if r.auditErr != nil {
		return r.auditErr
	}
	if r.input != nil {
		if r.inputStart == nil {
			return nil // no release was made
		}
		ev, err := r.input.Event(r.inputStart, r.e.cfg.Delta, r.e.cfg.Audit.Resolved().Confidence, fmt.Sprintf("dcan-sound's dppca stage, %s mode", r.e.cfg.Mode))
		if err != nil {
			return fmt.Errorf("dcan-sound: %w", err)
		}
		r.ctl.Emit(ev)
		return nil
	}
	delta := r.e.cfg.Delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	if r.canaries == nil {
		if r.pl.Steps == 0 {
			// no DP-SGD step ran: no gradient was released, so the
			// attacker sees nothing of the canaries (bound 0)
			r.ctl.Emit(core.AuditEvent{Confidence: r.e.cfg.Audit.Resolved().Confidence, Delta: delta, Kind: core.AuditGradient,
				View: "no DP-SGD step ran: no gradient was released", Setting: fmt.Sprintf("gradient canaries, %s mode: the plan ran no DP-SGD step (the network left out), so there was no release to plant them in", r.e.cfg.Mode)})
		}
		return nil
	}
	res, err := r.canaries.Audit(delta, 1-r.e.cfg.Audit.Resolved().Confidence)
	if err != nil {
		return fmt.Errorf("dcan-sound: audit: %w", err)
	}
	r.ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditGradient, View: "every DP-SGD step's noisy gradient sum, other cells known",
		Setting: fmt.Sprintf("%s (the mixture's %d DP-SGD steps), %s mode; best of %d guessing rules (Bonferroni)", res.Setting, r.canaries.Releases(), r.e.cfg.Mode, res.Rules)})
	return nil
}
