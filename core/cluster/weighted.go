package cluster

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Weighted k-means on a few points with weights, for private pipelines
// that cluster released summaries (dppca's noisy histogram bins,
// dcan-sound's over-clustered centres with their noisy counts) rather
// than cells: post-processing, no privacy spent.

// WeightedPlusPlus draws k seeds among the m weighted points (rows of q
// values) by k-means++
// (probability ∝ weight × squared distance to the nearest seed).
func WeightedPlusPlus(pts, w []float64, q, k int, rng *rand.Rand) []float64 {
	m := len(w)
	c := make([]float64, 0, k*q)
	d2 := make([]float64, m)
	for i := range d2 {
		d2[i] = 1
	}
	for len(c) < k*q {
		var tot float64
		for i := range m {
			tot += w[i] * d2[i]
		}
		pick := m - 1
		if tot > 0 {
			u := rng.Float64() * tot
			for i := range m {
				u -= w[i] * d2[i]
				if u <= 0 {
					pick = i
					break
				}
			}
		} else {
			pick = rng.IntN(m)
		}
		c = append(c, pts[pick*q:(pick+1)*q]...)
		s, first := c[len(c)-q:], len(c) == q
		for i := range m {
			if d := SqDist(pts[i*q:(i+1)*q], s); first || d < d2[i] {
				d2[i] = d
			}
		}
	}
	return c
}

// WeightedLloyd runs iters weighted Lloyd iterations from the centres c (in
// place) and returns the weighted inertia.
func WeightedLloyd(pts, w []float64, q int, c []float64, iters int) float64 {
	m, k := len(w), len(c)/q
	lab := make([]int, m)
	sum := make([]float64, k*q)
	wt := make([]float64, k)
	var cost float64
	for it := 0; ; it++ {
		cost = 0
		for i := range m {
			bj, bd := 0, math.Inf(1)
			for j := range k {
				if d := SqDist(pts[i*q:(i+1)*q], c[j*q:(j+1)*q]); d < bd {
					bj, bd = j, d
				}
			}
			lab[i] = bj
			cost += w[i] * bd
		}
		if it == iters {
			return cost
		}
		clear(sum)
		clear(wt)
		for i, j := range lab {
			wt[j] += w[i]
			for t := range q {
				sum[j*q+t] += w[i] * pts[i*q+t]
			}
		}
		for j := range k {
			if wt[j] > 0 {
				for t := range q {
					c[j*q+t] = sum[j*q+t] / wt[j]
				}
			}
		}
	}
}

// Starts says where the runs of BestOfStarts draw from: the first N from
// Rng, then Extra more from More (unused, and may be nil, when Extra ≤ 0).
// More is meant to be a stream seeded by released values (ValuesRng), so
// that Rng is read exactly as with N runs alone and a private pipeline's
// later noise draws do not move when Extra does.
type Starts struct {
	Rng   *rand.Rand
	N     int
	More  *rand.Rand
	Extra int
}

// BestOfStarts returns the centres (k rows of q values) of the lowest
// weighted inertia among the runs of WeightedPlusPlus + iters rounds of
// WeightedLloyd on the weighted points, and that inertia. A later run
// replaces the best only at a strictly lower inertia, so extra runs never
// give a worse objective than the first N.
func BestOfStarts(pts, w []float64, q, k, iters int, s Starts) ([]float64, float64) {
	best, bestCost := []float64(nil), math.Inf(1)
	for i := range s.N + max(s.Extra, 0) {
		src := s.Rng
		if i >= s.N {
			src = s.More
		}
		c := WeightedPlusPlus(pts, w, q, k, src)
		if cost := WeightedLloyd(pts, w, q, c, iters); cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best, bestCost
}

// Nearest returns the index of the row of c (rows of q values) nearest to x.
func Nearest(x, c []float64, q int) int {
	best, bd := 0, math.Inf(1)
	for j := range len(c) / q {
		if d := SqDist(x, c[j*q:(j+1)*q]); d < bd {
			best, bd = j, d
		}
	}
	return best
}

// ValuesRng is a stream seeded by the bits of the values xs (FNV-1a over
// each float64's little-endian bytes, in order) and the PCG stream number
// stream. Seeded by released values, it is a deterministic function of
// releases: a private pipeline can draw extra k-means starts from it
// (post-processing) without touching its own noise stream, so every later
// noise draw stays what it would have been.
func ValuesRng(stream uint64, xs ...[]float64) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range xs {
		for _, v := range x {
			u := math.Float64bits(v)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			h.Write(b[:])
		}
	}
	return rand.New(rand.NewPCG(h.Sum64(), stream))
}
