package sounddcan

import (
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/cluster"
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
	return mergeCentresStarts(pts, w, p, k, rng, 0)
}

// Bounds of option mergestarts (Options.MergeStarts).
const (
	// MinMergeStarts is the smallest mergestarts: the head's merge's own
	// mergeRestarts starts (the default).
	MinMergeStarts = mergeRestarts
	// MaxMergeStarts is the largest mergestarts.
	MaxMergeStarts = 100000
	// MinSeedStarts is the smallest seedstarts: dppca's histogram
	// seeding's own ten starts, the default.
	MinSeedStarts = 10
	// MaxSeedStarts is the largest seedstarts.
	MaxSeedStarts = 100000
)

// mergeCentresStarts is mergeCentres with extra further weighted
// k-means++ + Lloyd starts after the mergeRestarts drawn from rng. The
// extra starts draw from mergeRng(pts, w), a stream seeded by the
// released centres and weights, so rng is read exactly as mergeCentres
// reads it and every later noise draw is the default's; a further start
// replaces the best only when its weighted inertia is strictly lower, so
// the merge's objective is never worse than mergeCentres'. With extra ≤ 0
// it is mergeCentres bit for bit. Why (docs/RESULTS.md, "sdcan28"): dppca's
// merge of the same kind left pbmc_4k's low seed at ε 8 with a weighted
// inertia 5 % above the best of 1,000 starts (dppca31, rule G23).
func mergeCentresStarts(pts, w []float64, p, k int, rng *rand.Rand, extra int) (centres, weight []float64) {
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
		var xr *rand.Rand
		if extra > 0 {
			xr = mergeRng(pts, w)
		}
		best, _ := cluster.BestOfStarts(use, wu, p, kk, mergeLloyd, cluster.Starts{Rng: rng, N: mergeRestarts, More: xr, Extra: extra})
		copy(centres, best)
		for i := range m {
			weight[cluster.Nearest(use[i*p:(i+1)*p], best, p)] += wu[i]
		}
	}
	for i := kk; i < k && i-kk < len(rest); i++ {
		j := rest[i-kk]
		copy(centres[i*p:(i+1)*p], pts[j*p:(j+1)*p])
	}
	return centres, weight
}

// mergeRng is a stream seeded by the bits of the released centres pts and
// weights w (a deterministic function of releases, so post-processing);
// mergestarts' further starts draw from it (as dppca's piecesRng).
func mergeRng(pts, w []float64) *rand.Rand {
	return cluster.ValuesRng(0x68656164, pts, w) // "head"
}

// mergeCost is the weighted inertia of the points pts (weights w, zero
// weights left out) at their nearest of the k centres c: the merge's
// objective, for the tests and the diagnosis.
func mergeCost(pts, w, c []float64, p int) float64 {
	cost := 0.0
	for i, v := range w {
		if v <= 0 {
			continue
		}
		x := pts[i*p : (i+1)*p]
		j := cluster.Nearest(x, c, p)
		d := 0.0
		for t := range p {
			e := x[t] - c[j*p+t]
			d += e * e
		}
		cost += v * d
	}
	return cost
}
