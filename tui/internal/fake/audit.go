package fake

import (
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
)

// auditDoc is the fake's core.Method.Audit: it plays a real one-run game
// on a stand-in release, so the interface's audit path runs end to end.
const auditDoc = "fake: Dirac canaries in one Gaussian release of noise σ (no training)"

// audit plays the one-run game of Steinke et al. on one Gaussian release
// at the run's final σ (σ 0.1 without noise): each canary is in with
// probability ½ and adds 1 to its coordinate, the attacker scores the
// released coordinate, and core/audit turns the guesses into the bound.
// The figure is a real bound for that release, not for the fake's run.
func (e *Engine) audit(ctl *core.Control, rng *rand.Rand, private bool, sigma float64) error {
	spec := e.cfg.Audit.Resolved()
	if !private {
		sigma = 0.1
	}
	scores, in := make([]float64, spec.Canaries), make([]bool, spec.Canaries)
	for i := range scores {
		in[i] = rng.IntN(2) == 1
		scores[i] = sigma * rng.NormFloat64()
		if in[i] {
			scores[i]++
		}
	}
	delta := e.cfg.Delta
	if delta <= 0 {
		delta = 1e-5
	}
	r, err := audit.Score(scores, in, delta, 1-spec.Confidence)
	if err != nil {
		return err
	}
	ctl.Emit(core.AuditEvent{EpsilonLower: r.EpsilonLower, Ceiling: r.Ceiling, Confidence: r.Confidence, Delta: r.Delta,
		Canaries: r.Canaries, Guesses: r.Guesses, Correct: r.Correct, Setting: auditDoc})
	return nil
}
