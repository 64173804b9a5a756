package dpmd

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
)

// auditDoc is dpmd's Method.Audit.
const auditDoc = "Dirac canaries in the released queries (sound mode: each query's joint Gaussian release of numerator and scaled mass, sensitivity s·h): " +
	"canary j moves one coordinate of each of g queries by s·h in every iteration (g = the query–coordinate slots over the canaries, at most K, the most queries one reference reaches); " +
	"the attacker knows every other reference and sees the releases (fewer canaries: each covers more of the budget); " +
	"paper mode: canaries are real extra references within h of the queries, and the attacker sees iteration 1's released noisy means b̃"

// auditSeedMix separates the canaries' stream from the run's noise.
const auditSeedMix = 0xA0D17C4A5E5EED03

// queryCanaries are a run's audit canaries. The m queries' releases have
// D + 1 coordinates each (numerator 0..D−1, mass D), m(D + 1) slots in
// all; canary j owns g of them on distinct queries and, when included
// (probability ½), adds the sensitivity to each of the first L of them in
// every iteration, L = min(g, K_t), K_t the iteration's overlap (the most
// queries one reference reaches, whose √K_t·s·h the noise is calibrated
// to): a shift of ℓ2 norm √L·s·h ≤ √K_t·s·h per iteration, within the
// joint release's sensitivity, so a worst-case neighbour of the Gaussian
// mechanism the accountant certifies. The canary is added to the release
// before the step uses it, as an included record would be. Each slot's
// known value and score belong to one query, written only by the goroutine
// stepping it (Iterate), so no lock is needed; emit sums them per canary.
type queryCanaries struct {
	in     []bool
	owner  []int     // canary of each used slot
	rank   []int     // the slot's place among its canary's g slots
	coord  []int     // the slot's coordinate
	known  []float64 // per slot
	score  []float64 // per slot
	byQ    [][]int   // slots of each query
	g      int
	limit  int     // L of the current iteration (setIteration)
	wN, wS float64 // weights of the current iteration (setIteration)
	spec   core.AuditSpec
	delta  float64
}

// newQueryCanaries places the canaries of cfg.Audit on m queries of D
// coordinates (nil without an audit): inclusion drawn as
// audit.NewSumCanaries does, slots grouped by coordinate over one random
// order of the queries, so a canary's g slots are g distinct queries.
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
	g := max(1, min(m, slots/n))
	ones := make([]float64, n)
	cand := make([]int, n)
	for k := range cand {
		cand[k], ones[k] = k, 1
	}
	sc, err := audit.NewSumCanaries(n, cand, ones, cfg.Seed^auditSeedMix)
	if err != nil {
		return nil, fmt.Errorf("dpmd: audit: %w", err)
	}
	in, _ := sc.Placement()
	a := &queryCanaries{in: in, byQ: make([][]int, m), g: g, limit: g, spec: spec, delta: cfg.Delta}
	// Slot order: coordinate-major, the queries in one random order for
	// every coordinate; canary j takes slots jg..jg+g−1. With g ≤ m a
	// canary's slots fall on distinct queries, also when it straddles two
	// coordinates (the end of one pass and the start of the next).
	perm := rand.New(rand.NewPCG(cfg.Seed^auditSeedMix, 4)).Perm(m)
	used := n * g
	for c := 0; c <= D && len(a.owner) < used; c++ {
		for _, q := range perm {
			if len(a.owner) == used {
				break
			}
			k := len(a.owner)
			a.owner = append(a.owner, k/g)
			a.rank = append(a.rank, k%g)
			a.coord = append(a.coord, c)
			a.byQ[q] = append(a.byQ[q], k)
		}
	}
	a.known, a.score = make([]float64, used), make([]float64, used)
	return a, nil
}

// setIteration sets, before an Iterate, the slots used per canary,
// min(g, K) (K ≤ 0: all g, for a release without noise), and a canary's
// weight on a numerator coordinate, s·h, and on the mass, s·h/λ = s/μ
// (SoundSensitivity): the sensitivity of the joint release (N, λS) of D
// and d at bandwidth h in each coordinate's own units (h and d may be
// patched between iterations).
func (a *queryCanaries) setIteration(K, D, d int, h float64) {
	a.limit = a.g
	if K > 0 {
		a.limit = min(a.g, K)
	}
	mu, s := SoundSensitivity(D, d)
	a.wN, a.wS = s*h, s/mu
}

// before records query q's sums without noise (what the attacker knows):
// numerator b (length D) and mass S.
func (a *queryCanaries) before(q int, b []float64, S float64) {
	for _, k := range a.byQ[q] {
		if c := a.coord[k]; c < len(b) {
			a.known[k] = b[c]
		} else {
			a.known[k] = S
		}
	}
}

// after adds query q's included canaries to its noisy release (b, *S) —
// wN on a numerator coordinate, wS on the mass — and scores what the
// attacker sees, (released − known)/weight: the inclusion plus noise.
func (a *queryCanaries) after(q int, b []float64, S *float64) {
	for _, k := range a.byQ[q] {
		if a.rank[k] >= a.limit {
			continue
		}
		c := a.coord[k]
		v, w := S, a.wS
		if c < len(b) {
			v, w = &b[c], a.wN
		}
		if a.in[a.owner[k]] {
			*v += w
		}
		a.score[k] += (*v - a.known[k]) / w
	}
}

// emit reports the audit (nothing without one): each canary's score is
// the sum over its slots and iterations.
func (a *queryCanaries) emit(ctl *core.Control, mode core.Mode, T int) error {
	if a == nil {
		return nil
	}
	scores := make([]float64, len(a.in))
	for k, s := range a.score {
		scores[a.owner[k]] += s
	}
	delta := a.delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	res, err := audit.Score(scores, a.in, delta, 1-a.spec.Confidence)
	if err != nil {
		return fmt.Errorf("dpmd: audit: %w", err)
	}
	ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditGradient, View: "every query's release, other references known",
		Setting: fmt.Sprintf("Dirac canaries in the released queries (numerator and mass; each canary on up to %d queries, at most K per iteration, over %d iterations), %s mode; the attacker knows every other reference and sees the releases; best of %d guessing rules (Bonferroni)", a.g, T, mode, res.Rules)})
	return nil
}
