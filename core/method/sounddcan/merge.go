package sounddcan

import (
	"math"
	"math/rand/v2"
)

// Merge rules, fixed in advance: the dppca stage over-clusters into
// OverCluster·K centres (a private coreset of its projection: k-means'
// local optima then split a population or merge two far less often than
// with K centres), and the first head round's noisy centres, weighted by
// their noisy counts, are merged into K by the best of mergeRestarts
// weighted k-means++ + mergeLloyd Lloyd iterations (least weighted
// inertia): post-processing of released values only.
const (
	OverCluster   = 3
	mergeRestarts = 20
	mergeLloyd    = 50
)

// mergeCentres returns k centres (k × p) from the m weighted points pts
// (m × p, weights w ≥ 0), and the summed weight of each. Points of zero
// weight are left out; when fewer than k points have weight, the rest of
// the centres are the heaviest of the left-out points, in order.
func mergeCentres(pts, w []float64, p, k int, rng *rand.Rand) (centres, weight []float64) {
	var use, wu []float64
	var rest []int
	for j, v := range w {
		if v > 0 {
			use = append(use, pts[j*p:(j+1)*p]...)
			wu = append(wu, v)
		} else {
			rest = append(rest, j)
		}
	}
	m := len(wu)
	kk := min(k, m)
	centres = make([]float64, k*p)
	weight = make([]float64, k)
	if kk > 0 {
		best, bestCost := []float64(nil), math.Inf(1)
		for range mergeRestarts {
			c := plusPlus(use, wu, p, kk, rng)
			if cost := lloyd(use, wu, p, c, mergeLloyd); cost < bestCost {
				best, bestCost = c, cost
			}
		}
		copy(centres, best)
		for i := range m {
			weight[nearest(use[i*p:(i+1)*p], best, p)] += wu[i]
		}
	}
	for i := kk; i < k && i-kk < len(rest); i++ {
		j := rest[i-kk]
		copy(centres[i*p:(i+1)*p], pts[j*p:(j+1)*p])
	}
	return centres, weight
}

// plusPlus draws k seeds among the weighted points by k-means++
// (probability ∝ weight × squared distance to the nearest seed).
func plusPlus(pts, w []float64, p, k int, rng *rand.Rand) []float64 {
	m := len(w)
	c := make([]float64, 0, k*p)
	d2 := make([]float64, m)
	for i := range d2 {
		d2[i] = 1
	}
	for len(c) < k*p {
		var tot float64
		for i := range m {
			tot += w[i] * d2[i]
		}
		pick := rng.IntN(m)
		if tot > 0 {
			u := rng.Float64() * tot
			for i := range m {
				u -= w[i] * d2[i]
				if u <= 0 {
					pick = i
					break
				}
			}
		}
		c = append(c, pts[pick*p:(pick+1)*p]...)
		s, first := c[len(c)-p:], len(c) == p
		for i := range m {
			if d := sqDist(pts[i*p:(i+1)*p], s); first || d < d2[i] {
				d2[i] = d
			}
		}
	}
	return c
}

// lloyd runs iters weighted Lloyd iterations from the centres c (in place)
// and returns the weighted inertia.
func lloyd(pts, w []float64, p int, c []float64, iters int) float64 {
	m, k := len(w), len(c)/p
	lab := make([]int, m)
	sum := make([]float64, k*p)
	wt := make([]float64, k)
	for it := 0; ; it++ {
		var cost float64
		for i := range m {
			j := nearest(pts[i*p:(i+1)*p], c, p)
			lab[i] = j
			cost += w[i] * sqDist(pts[i*p:(i+1)*p], c[j*p:(j+1)*p])
		}
		if it == iters {
			return cost
		}
		clear(sum)
		clear(wt)
		for i, j := range lab {
			wt[j] += w[i]
			for t := range p {
				sum[j*p+t] += w[i] * pts[i*p+t]
			}
		}
		for j := range k {
			if wt[j] > 0 {
				for t := range p {
					c[j*p+t] = sum[j*p+t] / wt[j]
				}
			}
		}
	}
}

// nearest returns the index of the centre of c (rows of p) nearest to x.
func nearest(x, c []float64, p int) int {
	best, bd := 0, math.Inf(1)
	for j := range len(c) / p {
		if d := sqDist(x, c[j*p:(j+1)*p]); d < bd {
			best, bd = j, d
		}
	}
	return best
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}
