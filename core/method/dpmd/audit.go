package dpmd

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
)

// auditDoc is dpmd's Method.Audit.
const auditDoc = "Dirac canaries in the released queries (sound mode: each query's joint Gaussian release of numerator and scaled mass, sensitivity s·h), " +
	"one per (query, coordinate), moving it by s·h in every iteration; the attacker knows every other reference and sees the releases " +
	"(one canary reaches one query, so the bound covers one query's share, 1/K of the joint release's budget)"

// auditSeedMix separates the canaries' stream from the run's noise.
const auditSeedMix = 0xA0D17C4A5E5EED03

// queryCanaries are a run's audit canaries: canary j sits on coordinate
// coord[j] of query query[j]'s release (coordinates 0..D−1 the numerator,
// D the mass) in every iteration, included with probability ½. A Dirac of
// s·h on one coordinate of the joint release (N, λS) is a worst-case
// neighbour for one query (sensitivity s·h); real references reach up to
// K queries, so one canary sees only its query's share of the budget. Each
// query's canaries are written only by the goroutine stepping that query
// (Iterate), so the scores need no lock. The canary is added to the
// release before the step uses it, as an included record would be.
type queryCanaries struct {
	in     []bool
	coord  []int
	score  []float64
	known  []float64
	byQ    [][]int // canaries of each query
	wN, wS float64 // weights of the current iteration (setWeights)
	spec   core.AuditSpec
	delta  float64
}

// newQueryCanaries places the canaries of spec on m queries of D
// coordinates (nil without an audit). Canaries are those of
// audit.NewSumCanaries (inclusion and placement from seed).
func newQueryCanaries(cfg core.Config, m, D int) (*queryCanaries, error) {
	if cfg.Audit == nil {
		return nil, nil
	}
	spec := cfg.Audit.Resolved()
	spec.Canaries = cfg.Audit.Canaries
	slots := m * (D + 1)
	n, err := spec.CanariesFor(slots)
	if err != nil {
		return nil, fmt.Errorf("dpmd: audit: %d queries × %d coordinates: %w", m, D+1, err)
	}
	cand := make([]int, slots)
	w := make([]float64, slots)
	for k := range cand {
		cand[k], w[k] = k, 1
	}
	// NewSumCanaries draws the inclusion and the distinct slots; the
	// scoring is done here, per query, so that Iterate's goroutines
	// never share a canary.
	sc, err := audit.NewSumCanaries(n, cand, w, cfg.Seed^auditSeedMix)
	if err != nil {
		return nil, fmt.Errorf("dpmd: audit: %w", err)
	}
	a := &queryCanaries{in: make([]bool, n), coord: make([]int, n), score: make([]float64, n),
		known: make([]float64, n), byQ: make([][]int, m), spec: spec, delta: cfg.Delta}
	in, slot := sc.Placement()
	for j := range n {
		a.in[j] = in[j]
		a.coord[j] = slot[j] % (D + 1)
		q := slot[j] / (D + 1)
		a.byQ[q] = append(a.byQ[q], j)
	}
	return a, nil
}

// before records query q's sums without noise (what the attacker knows):
// numerator b (length D) and mass S.
func (a *queryCanaries) before(q int, b []float64, S float64) {
	for _, j := range a.byQ[q] {
		if c := a.coord[j]; c < len(b) {
			a.known[j] = b[c]
		} else {
			a.known[j] = S
		}
	}
}

// setWeights sets a canary's weight on a numerator coordinate, s·h, and
// on the mass, s·h/λ = s/μ (SoundSensitivity): the sensitivity of the
// joint release (N, λS) of D and d at bandwidth h, in each coordinate's
// own units. Called before each Iterate (h, d may be patched).
func (a *queryCanaries) setWeights(D, d int, h float64) {
	mu, s := SoundSensitivity(D, d)
	a.wN, a.wS = s*h, s/mu
}

// after adds query q's included canaries to its noisy release (b, *S) —
// wN on a numerator coordinate, wS on the mass — and scores what the
// attacker sees, (released − known)/weight: the inclusion plus noise.
func (a *queryCanaries) after(q int, b []float64, S *float64) {
	for _, j := range a.byQ[q] {
		c := a.coord[j]
		v, w := S, a.wS
		if c < len(b) {
			v, w = &b[c], a.wN
		}
		if a.in[j] {
			*v += w
		}
		a.score[j] += (*v - a.known[j]) / w
	}
}

// emit reports the audit (nothing without one).
func (a *queryCanaries) emit(ctl *core.Control, mode core.Mode, T int) error {
	if a == nil {
		return nil
	}
	delta := a.delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	res, err := audit.Score(a.score, a.in, delta, 1-a.spec.Confidence)
	if err != nil {
		return fmt.Errorf("dpmd: audit: %w", err)
	}
	ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Setting: fmt.Sprintf("Dirac canaries in the released queries (numerator and mass of one query each, %d iterations), %s mode; the attacker knows every other reference and sees the releases; best of %d guessing rules (Bonferroni)", T, mode, res.Rules)})
	return nil
}
