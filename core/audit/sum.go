package audit

import (
	"fmt"
	"math/rand/v2"
)

// SumCanaries are m Dirac canaries in a Gaussian mechanism's released sum
// (a noisy second-moment matrix, a noisy gradient sum): canary j, included
// with probability ½, adds its weight w_j — the most one record may move
// that coordinate (the mechanism's sensitivity, in the coordinate's own
// units) — to coordinate coord[j] of every release it takes part in.
//
// The attacker is the adversary of the DP definition: it knows every other
// record, so it knows the sum without noise and canaries, and it sees the
// release; its score of canary j is Σ (released − known)/w_j over the
// releases, the canary's inclusion plus noise. For a Gaussian mechanism
// with isotropic noise (in the coordinates where the sensitivity is a
// Euclidean norm) a Dirac of norm Δ is a worst-case neighbour, so this
// audit is as strong as one-run auditing of the mechanism gets. Not safe
// for concurrent use.
type SumCanaries struct {
	in     []bool
	coord  []int
	weight []float64
	known  []float64
	score  []float64
	uses   int
}

// NewSumCanaries places m canaries on m distinct coordinates drawn from
// candidates, canary j weighing weights[k] when it sits on candidates[k].
// It returns an error wrapping ErrInput if m < 1, m > len(candidates), the
// lengths of candidates and weights differ, or a weight is not > 0.
func NewSumCanaries(m int, candidates []int, weights []float64, seed uint64) (*SumCanaries, error) {
	switch {
	case len(candidates) != len(weights):
		return nil, bad("len(weights)", len(weights), fmt.Sprintf("len(candidates) = %d", len(candidates)))
	case m < 1 || m > len(candidates):
		return nil, bad("canaries", m, fmt.Sprintf("in [1, %d] (the coordinates they may sit on)", len(candidates)))
	}
	for k, w := range weights {
		if !(w > 0) || w > 1e300 {
			return nil, bad(fmt.Sprintf("weight %d", k), w, "finite and > 0")
		}
	}
	s := &SumCanaries{in: make([]bool, m), coord: make([]int, m), weight: make([]float64, m),
		known: make([]float64, m), score: make([]float64, m)}
	rng := rand.New(rand.NewPCG(seed, 3))
	for j := range s.in {
		s.in[j] = rng.IntN(2) == 1
	}
	for j, k := range rng.Perm(len(candidates))[:m] {
		s.coord[j], s.weight[j] = candidates[k], weights[k]
	}
	return s, nil
}

// Before records the sum without noise (what the attacker knows); call it
// on every release, before the noise is added.
func (s *SumCanaries) Before(sum []float64) {
	for j, c := range s.coord {
		s.known[j] = sum[c]
	}
}

// After adds the included canaries to the noisy sum and scores what the
// attacker sees; call it after the noise, before the release is used.
func (s *SumCanaries) After(sum []float64) {
	for j, c := range s.coord {
		if s.in[j] {
			sum[c] += s.weight[j]
		}
		s.score[j] += (sum[c] - s.known[j]) / s.weight[j]
	}
	s.uses++
}

// Releases returns the number of releases the canaries took part in.
func (s *SumCanaries) Releases() int { return s.uses }

// Audit scores the canaries into a Result (Score) at confidence 1 − β for
// δ. Errors as Score.
func (s *SumCanaries) Audit(delta, beta float64) (Result, error) {
	res, err := Score(s.score, s.in, delta, beta)
	res.Setting = "Dirac canaries in the released noisy sums; the attacker knows every other record (the DP adversary) and sees the release"
	return res, err
}

// Placement returns copies of the canaries' inclusion and coordinates, for
// a mechanism that adds and scores them itself (dpmd's releases are made
// by concurrent workers, one query each, and must not share one
// SumCanaries).
func (s *SumCanaries) Placement() (in []bool, coord []int) {
	return append([]bool(nil), s.in...), append([]int(nil), s.coord...)
}
