package dppca

import (
	"math"
	"math/rand/v2"
)

// Grid of the private seeding: the first seedDims private components, each
// cut into seedBins equal bins over ±seedSpan released standard deviations.
const (
	seedDims     = 3
	seedBins     = 10
	seedSpan     = 3.0
	seedRestarts = 10 // weighted k-means++ starts on the histogram
	seedLloyd    = 30 // weighted Lloyd iterations per start
)

// histogram returns the bin of every row of the n × p projection on the
// grid of its first q = min(seedDims, p) components, with the grid's bin
// centres (bins^q × q). Each row falls in exactly one bin, so adding or
// removing a cell changes one count by 1: Δ = 1.
func histogram(proj []float64, n, p int, eigen []float64, nt, r float64) (counts []float64, centres []float64, q int) {
	q = min(seedDims, p)
	width := make([]float64, q)
	for j := range q {
		s := math.Sqrt(max(eigen[j], 0) / max(nt, 1))
		if s == 0 {
			s = r / math.Sqrt(float64(p))
		}
		width[j] = 2 * seedSpan * s / seedBins
	}
	nb := 1
	for range q {
		nb *= seedBins
	}
	counts = make([]float64, nb)
	for i := range n {
		b := 0
		for j := range q {
			k := int(math.Floor(proj[i*p+j]/width[j] + seedBins/2))
			b = b*seedBins + max(0, min(seedBins-1, k))
		}
		counts[b]++
	}
	centres = make([]float64, nb*q)
	for b := range nb {
		rest := b
		for j := q - 1; j >= 0; j-- {
			k := rest % seedBins
			rest /= seedBins
			centres[b*q+j] = (float64(k) + 0.5 - seedBins/2) * width[j]
		}
	}
	return counts, centres, q
}

// seedFromHistogram returns k centres in p dimensions from the released
// (noisy) counts of the grid bins: bins below two noise standard deviations
// are dropped, the rest weighted by their count above it, and the best of
// seedRestarts weighted k-means++ + Lloyd runs on them is kept (its
// coordinates beyond the grid's q are 0). Post-processing of the release.
// Missing centres (fewer usable bins than k) come from fill.
func seedFromHistogram(counts, centres []float64, q, p, k int, sigma float64, rng *rand.Rand, fill []float64) []float64 {
	var pts, w []float64
	for b, c := range counts {
		if v := c - 2*sigma; v > 0 {
			pts = append(pts, centres[b*q:(b+1)*q]...)
			w = append(w, v)
		}
	}
	m := len(w)
	out := append([]float64(nil), fill...)
	if m == 0 {
		return out
	}
	kk := min(k, m)
	best, bestCost := []float64(nil), math.Inf(1)
	for range seedRestarts {
		c := weightedPlusPlus(pts, w, q, kk, rng)
		cost := weightedLloyd(pts, w, q, c, seedLloyd)
		if cost < bestCost {
			best, bestCost = c, cost
		}
	}
	for i := range kk {
		clear(out[i*p : (i+1)*p])
		copy(out[i*p:i*p+q], best[i*q:(i+1)*q])
	}
	return out
}

// weightedPlusPlus draws k seeds among the m weighted points by k-means++
// (probability ∝ weight × squared distance to the nearest seed).
func weightedPlusPlus(pts, w []float64, q, k int, rng *rand.Rand) []float64 {
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
			if d := sq(pts[i*q:(i+1)*q], s); first || d < d2[i] {
				d2[i] = d
			}
		}
	}
	return c
}

// weightedLloyd runs iters weighted Lloyd iterations from the centres c (in
// place) and returns the weighted inertia.
func weightedLloyd(pts, w []float64, q int, c []float64, iters int) float64 {
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
				if d := sq(pts[i*q:(i+1)*q], c[j*q:(j+1)*q]); d < bd {
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

func sq(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}
