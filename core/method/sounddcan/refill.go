package sounddcan

import (
	"math"
	"math/rand/v2"
)

// DefaultRefillScale is the distance, in units of the mixture's within-cluster
// spread √(h·v), by which option refill=split sets the two halves of a
// split component apart: small against the distance between the start's
// populated components (≈ 0.2–0.35 of √(h·v) on builtin:default-like
// draws, sdcan20), so the steps, not the split, decide where they go.
const DefaultRefillScale = 0.05

// refillSeed keys the public generator of the split directions (they are
// public randomness: no cell's data enters them).
const refillSeed = 0x5d20

// refill is option refill=split (sdcan20): every component the head
// released no weight for (w_j = 0: fewer than K of the over-clustered
// centres cleared the head's bar, so the merge put it at a light centre
// where no cell is nearest and the gate holds it there for every step) is
// re-seeded by splitting the heaviest component i in two: μ_j = μ_i + d,
// μ_i −= d, with d of length scale·√(h·v) along a random direction
// of the start's released basis (h × p; the populations' differences lie
// mostly in its span), and π_i halved between them. The steps then pull
// the halves apart where the heavy component holds two populations (EM's
// split move), a component the start merged. Post-processing of the
// released means, weights and basis; the steps' releases are unchanged.
func (m *mixture) refill(w, basis []float64, p int, scale float64) int {
	k, h := m.k, m.h
	split := 0
	lp := make([]float64, k)
	dir := make([]float64, h)
	sd := math.Sqrt(float64(h) * math.Exp(-2*m.b))
	live := make([]bool, k)
	for j := range k {
		live[j] = j < len(w) && w[j] > 0
	}
	for j := range k {
		if live[j] {
			continue
		}
		m.logWeights(lp)
		i := -1
		for l := range k {
			if live[l] && (i < 0 || lp[l] > lp[i]) {
				i = l
			}
		}
		if i < 0 {
			return split // no component holds weight: nothing to split
		}
		rng := rand.New(rand.NewPCG(refillSeed, uint64(j)))
		g := make([]float64, p)
		for d := range g {
			g[d] = rng.NormFloat64()
		}
		var nrm float64
		for t := range h {
			var s float64
			for d := range p {
				s += basis[t*p+d] * g[d]
			}
			dir[t] = s
			nrm += s * s
		}
		if nrm == 0 {
			continue
		}
		f := scale * sd / math.Sqrt(nrm)
		for t := range h {
			m.mu[j*h+t] = m.mu[i*h+t] + f*dir[t]
			m.mu[i*h+t] -= f * dir[t]
		}
		half := m.a[i] - math.Ln2
		m.a[i], m.a[j] = half, half
		live[j] = true
		split++
	}
	return split
}
