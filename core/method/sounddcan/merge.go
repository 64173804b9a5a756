package sounddcan

import (
	"math"
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
			c := cluster.WeightedPlusPlus(use, wu, p, kk, rng)
			if cost := cluster.WeightedLloyd(use, wu, p, c, mergeLloyd); cost < bestCost {
				best, bestCost = c, cost
			}
		}
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
