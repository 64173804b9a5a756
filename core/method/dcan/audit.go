package dcan

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/nn"
)

// auditDoc is DP-DCAN's Method.Audit: what its audit inserts and shows.
const auditDoc = "Dirac gradient canaries (no cells needed) in every DP-SGD step, sampled at q like a cell; " +
	"sound mode: the attacker sees every step's noisy gradient over the whole network; " +
	"paper and nonprivate modes: the attacker sees what the paper releases, the final encoder (layers 1-3)"

// auditSeedMix separates the canaries' streams from the run's: a run
// with an audit samples, masks and noises exactly as the run without.
const auditSeedMix = 0xA0D17C4A5E5EED01

// encoderLast is the last layer number of the released encoder (G→256,
// 256→64, 64→32).
const encoderLast = 3

// setupAudit builds the run's gradient canaries when cfg.Audit is set:
// in sound mode on every (noised) parameter, observed at every step; in
// the other modes on the released encoder, observed in its final weights.
func (r *runState) setupAudit() error {
	spec := r.s.cfg.Audit
	if spec == nil || spec.Input() {
		return nil
	}
	c := audit.CanaryConfig{SampleRate: r.q, ClipNorm: r.clip, Seed: r.s.cfg.Seed ^ auditSeedMix}
	if r.private {
		c.Scale = 1 / (r.q * float64(r.m.n))
	} else {
		c.Scale = 1 / float64(r.batch)
		if c.ClipNorm <= 0 {
			c.ClipNorm = 1
		}
	}
	if r.s.cfg.Mode == core.ModeSound {
		c.Lo, c.Hi = r.m.ae.ParamRange(1, numLayers)
		c.Observe = audit.EveryGradient
	} else {
		c.Lo, c.Hi = r.m.ae.ParamRange(1, encoderLast)
		c.Observe = audit.FinalWeights
	}
	m, err := spec.CanariesFor(c.Hi - c.Lo)
	if err != nil {
		return fmt.Errorf("dcan: audit: %w", err)
	}
	c.Canaries = m
	g, err := audit.NewGradientCanaries(c)
	if err != nil {
		return fmt.Errorf("dcan: audit: %w", err)
	}
	r.canaries = g
	return nil
}

// auditWrap returns opt with the canaries inserted, or opt itself when the
// run has no audit.
func (r *runState) auditWrap(opt nn.Optimizer) nn.Optimizer {
	if r.canaries == nil {
		return opt
	}
	return r.canaries.Wrap(opt)
}

// emitAudit scores the canaries and reports the bound (AuditEvent).
func (r *runState) emitAudit() error {
	if r.input != nil {
		return r.emitInputAudit()
	}
	if r.canaries == nil {
		return nil
	}
	spec := r.s.cfg.Audit.Resolved()
	delta := r.s.cfg.Delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	res, err := r.canaries.Audit(delta, 1-spec.Confidence)
	if err != nil {
		return fmt.Errorf("dcan: audit: %w", err)
	}
	r.ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditGradient, View: map[bool]string{true: "every step's noisy gradient", false: "final encoder"}[r.s.cfg.Mode == core.ModeSound],
		Setting: fmt.Sprintf("%s over %d steps, %s mode; best of %d guessing rules (Bonferroni)", res.Setting, r.canaries.Steps(), r.s.cfg.Mode, res.Rules)})
	return nil
}
