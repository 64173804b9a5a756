package fed

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/nn"
)

// auditDoc is core.Method.Audit of the federated methods (docs/AUDIT.md).
const auditDoc = "Dirac canaries in a client update the server sees: in client 1's clipped upload before its local noise (FL-DP, PPML-Omics, unit one client, weight 2C: replace-one), or in the sum of clipped deltas before the aggregator's noise, each canary joining a round with the client rate q (FedSC + client DP, weight C: add/remove); the attacker knows everything else. With the record unit (--opt unit=record): Dirac gradient canaries of norm C (one cell, add/remove) in client 1's clipped gradient sum, every DP-SGD step, the attacker seeing every noisy step"

// auditSeed separates the canaries' randomness from the run's streams, so
// the run's sampling and noise draws stay those of the run without audit.
const auditSeed = 0xa0d17fed

// fedCanaries are m Dirac canaries, each one client (the unit of the
// federated guarantees): canary j, in with probability ½, adds weight to
// coordinate coord[j] of every release it joins. The attacker is the DP
// adversary: it knows the release without noise and canaries (known), sees
// the release, and scores Σ (released − known)/weight over the releases.
// Not safe for concurrent use: the local hooks touch it for client 0
// only, which one goroutine trains.
type fedCanaries struct {
	in, join []bool
	coord    []int
	weight   float64
	rate     float64 // the probability a canary joins a release
	central  bool    // canaries in the aggregate, not client 0's upload
	record   bool    // canaries in client 0's DP-SGD steps (UnitRecord)
	known    []float64
	score    []float64
	rng      *rand.Rand
	uses     int
}

// startAudit sets the run's canaries from cfg.Audit (nil: none, and every
// hook is a no-op). Client 0's upload carries them where the noise is
// local (or absent), the aggregate where it is central.
func (s *sim) startAudit() error {
	spec := s.e.cfg.Audit
	if spec == nil {
		return nil
	}
	m, err := spec.CanariesFor(len(s.sum))
	if err != nil {
		return err
	}
	a := &fedCanaries{in: make([]bool, m), join: make([]bool, m), known: make([]float64, m), score: make([]float64, m),
		rate: 1, rng: rand.New(rand.NewPCG(s.e.cfg.Seed^auditSeed, 11))}
	for j := range a.in {
		a.in[j] = a.rng.IntN(2) == 1
	}
	a.coord = a.rng.Perm(len(s.sum))[:m]
	switch {
	case s.rp != nil:
		// the record unit: a canary is one cell's clipped gradient (norm
		// C, add/remove) in client 0's DP-SGD sum, every step (q = 1);
		// recordOpt wraps that client's optimizer
		a.weight, a.record = s.rp.clip, true
		s.l.(*aeLearner).aud = a
	case s.pr == nil: // no noise, no clip: any weight is seen exactly
		a.weight = 1
	case s.pr.centralStd() > 0:
		a.weight, a.central, a.rate = s.pr.clip, true, s.pr.p.ClientRate
		if a.rate <= 0 || a.rate > 1 {
			a.rate = 1
		}
	default:
		a.weight = 2 * s.pr.clip
	}
	s.aud = a
	return nil
}

// before records what the attacker knows of a release: u before the noise.
func (a *fedCanaries) before(u []float32) {
	for j, c := range a.coord {
		a.known[j] = float64(u[c])
		a.join[j] = a.rate >= 1 || a.rng.Float64() < a.rate
	}
}

// after adds the joining included canaries to the noised u and scores
// what the attacker sees.
func (a *fedCanaries) after(u []float32) {
	for j, c := range a.coord {
		if a.in[j] && a.join[j] {
			u[c] += float32(a.weight)
		}
		a.score[j] += (float64(u[c]) - a.known[j]) / a.weight
	}
	a.uses++
}

// localBefore and localAfter wrap client c's local noise: the canaries
// ride on client 0's upload unless they are central.
func (s *sim) localBefore(c int, u []float32) {
	if s.aud != nil && !s.aud.central && !s.aud.record && c == 0 {
		s.aud.before(u)
	}
}

func (s *sim) localAfter(c int, u []float32) {
	if s.aud != nil && !s.aud.central && !s.aud.record && c == 0 {
		s.aud.after(u)
	}
}

// recordOpt wraps client 0's SGD in UnitRecord's DP-SGD: dpsgd hands it
// (Σ clipped per-cell gradients + N(0, σ²C²))/n each step, n the client's
// cells. Each included canary adds C/n at its coordinate (one more cell
// whose clipped gradient is C on that coordinate: within the add/remove
// sensitivity whatever n), and the attacker, seeing every step's release,
// scores Σ_steps n·(released value)/C. It does not subtract the real cells'
// gradient at the coordinate (the attacker of dcan's gradient audit): that
// only adds variance to the score, so the bound stays valid and is weaker.
type recordOpt struct {
	a *fedCanaries
	n int
	nn.Optimizer
}

func (o *recordOpt) Step(params, grads []float32) {
	a := o.a
	w := a.weight / float64(o.n)
	for j, c := range a.coord {
		if a.in[j] {
			grads[c] += float32(w)
		}
		a.score[j] += float64(grads[c]) / w
	}
	a.uses++
	o.Optimizer.Step(params, grads)
}

// centralBefore and centralAfter wrap the aggregator's noise.
func (s *sim) centralBefore(sum []float32) {
	if s.aud != nil && s.aud.central {
		s.aud.before(sum)
	}
}

func (s *sim) centralAfter(sum []float32) {
	if s.aud != nil && s.aud.central {
		s.aud.after(sum)
	}
}

// emitAudit scores the canaries and reports the bound (core.AuditEvent).
func (s *sim) emitAudit() error {
	a := s.aud
	if a == nil {
		return nil
	}
	spec := s.e.cfg.Audit.Resolved()
	delta := s.e.cfg.Delta
	if delta <= 0 {
		delta = 1e-5
	}
	r, err := audit.Score(a.score, a.in, delta, 1-spec.Confidence)
	if err != nil {
		return fmt.Errorf("fed: audit: %w", err)
	}
	where := "client 1's upload, the attacker seeing it before aggregation (no shuffle or aggregation credit)"
	view := "client 1's upload, everything else known"
	// The upload's attacker is outside the aggregate's and the shuffle's
	// threat models: their ε cannot be refuted by it.
	outside := []string{LabelCentralGDP, LabelCentralRDP, LabelCentralPLD, LabelShuffleFMT21}
	if a.record {
		outside = nil
		view = "every noisy DP-SGD step of client 1, white-box"
		s.ctl.Emit(core.AuditEvent{EpsilonLower: r.EpsilonLower, Ceiling: r.Ceiling, Confidence: r.Confidence, Delta: r.Delta,
			Canaries: r.Canaries, Guesses: r.Guesses, Correct: r.Correct, Kind: core.AuditGradient, View: view,
			Setting: fmt.Sprintf("Dirac gradient canaries of norm C = %.3g, one cell each, in client 1's clipped gradient sums over %d DP-SGD steps, %s mode (the front end's share of the budget is not attacked); best of %d guessing rules (Bonferroni)",
				a.weight, a.uses, s.e.cfg.Mode, r.Rules)})
		return nil
	}
	if a.central {
		outside = nil
		where = fmt.Sprintf("the noisy aggregate, each canary joining a round with probability %g", a.rate)
		view = "the noisy aggregate, everything else known"
	}
	s.ctl.Emit(core.AuditEvent{EpsilonLower: r.EpsilonLower, Ceiling: r.Ceiling, Confidence: r.Confidence, Delta: r.Delta,
		Canaries: r.Canaries, Guesses: r.Guesses, Correct: r.Correct, Kind: core.AuditGradient, View: view,
		Setting: fmt.Sprintf("Dirac canaries of weight %.3g, one client each, in %s over %d releases, %s mode; best of %d guessing rules (Bonferroni)",
			a.weight, where, a.uses, s.e.cfg.Mode, r.Rules), Outside: outside})
	return nil
}
