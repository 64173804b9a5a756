package dppca

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/cluster"
)

// assign labels every row of the n × p x by its nearest centre and returns
// the labels with the sum of squared distances.
func assign(x []float64, n, p int, c []float64) ([]int, float64) {
	labels := make([]int, n)
	var cost float64
	for i := range n {
		row := x[i*p : (i+1)*p]
		j := cluster.Nearest(row, c, p)
		labels[i] = j
		for t, v := range row {
			d := v - c[j*p+t]
			cost += d * d
		}
	}
	return labels, cost
}

// lloydRound is one DP Lloyd round on the rows of x clipped to norm r
// (the projection's rows are within r already: rows of norm ≤ R projected
// on orthonormal directions): each row assigned to its nearest centre of c (updated in place), the
// cluster sums (Δ = r) and counts (Δ = 1) released with Gaussian noise of
// standard deviations σs and σc, each centre set to its noisy sum over
// max(noisy count, 1) and clipped to the ball of radius r — the update of
// cluster.DPKMeans. It returns the labels of the assignment, the released
// counts and the assignment's squared distances.
func lloydRound(x []float64, n, p int, c []float64, r, sigmaSum, sigmaCount float64, rng *rand.Rand) ([]int, []float64, float64) {
	return lloydRoundBias(x, n, p, c, nil, r, sigmaSum, sigmaCount, rng)
}

// mergeCentres merges the released centres c (rows of p) into k, weighted
// by their released counts (a count below one weighs nothing): the best,
// by weighted inertia, of seedRestarts weighted k-means++ + Lloyd runs.
// Post-processing of releases. With fewer than k weighted centres the
// first k centres of c are kept, weighted or not (mergeCentresFloor; the
// doc said "the heaviest" until the nineteenth session, which the code
// never did; Options.HeldFill, for dcan-sound's start=merge, fills by
// weight instead).
func mergeCentres(c, counts []float64, p, k int, rng *rand.Rand) []float64 {
	return mergeCentresFloor(c, counts, p, k, 0, "", rng)
}

// wardMerge merges the released centres c (rows of p) into k by
// agglomerative Ward linkage, weighted by their released counts (a count
// below one weighs nothing, as in mergeCentres): while more than k
// clusters remain, the pair a, b of least merge cost
// n_a·n_b/(n_a+n_b)·‖c_a − c_b‖² (the rise of the weighted inertia) becomes
// one cluster at its weighted mean with the summed weight. Unlike the
// k-means merge it does not pull a large group's pieces towards smaller
// neighbours to even out cluster sizes: pieces of one wide type, close to
// one another, merge first. Deterministic; post-processing of releases.
// With fewer than k weighted centres the first k centres of c are kept.
func wardMerge(c, counts []float64, p, k int) []float64 {
	var nodes []weighted
	for j, v := range counts {
		if v >= 1 {
			nodes = append(nodes, weighted{append([]float64(nil), c[j*p:(j+1)*p]...), v})
		}
	}
	if len(nodes) < k {
		return append([]float64(nil), c[:k*p]...)
	}
	return agglomerate(nodes, p, k, func(d2, wa, wb float64) float64 { return wa * wb / (wa + wb) * d2 })
}

// weighted is a centre and its weight, a node of agglomerate.
type weighted struct {
	c []float64
	w float64
}

// agglomerate merges nodes, p-dimensional, pairwise until k remain: each
// time the pair of least cost(d², w_a, w_b) (d² their squared distance;
// ties: the first pair) becomes one node at their weighted mean with the
// summed weight. It returns the k centres, row-major, and writes into the
// nodes' centres.
func agglomerate(nodes []weighted, p, k int, cost func(d2, wa, wb float64) float64) []float64 {
	for len(nodes) > k {
		ba, bb, best := 0, 1, math.Inf(1)
		for a := range nodes {
			for b := a + 1; b < len(nodes); b++ {
				var d2 float64
				for t := range p {
					x := nodes[a].c[t] - nodes[b].c[t]
					d2 += x * x
				}
				if v := cost(d2, nodes[a].w, nodes[b].w); v < best {
					ba, bb, best = a, b, v
				}
			}
		}
		na, nb := nodes[ba], nodes[bb]
		w := na.w + nb.w
		for t := range p {
			na.c[t] = (na.w*na.c[t] + nb.w*nb.c[t]) / w
		}
		nodes[ba] = weighted{na.c, w}
		nodes = append(nodes[:bb], nodes[bb+1:]...)
	}
	out := make([]float64, 0, k*p)
	for _, nd := range nodes {
		out = append(out, nd.c...)
	}
	return out
}

// ballPoint writes a point drawn uniformly from the p-ball of radius r.
func ballPoint(dst []float64, r float64, rng *rand.Rand) {
	var s float64
	for s == 0 {
		for t := range dst {
			dst[t] = rng.NormFloat64()
		}
		for _, v := range dst {
			s += v * v
		}
	}
	f := r * math.Pow(rng.Float64(), 1/float64(len(dst))) / math.Sqrt(s)
	for t := range dst {
		dst[t] *= f
	}
}

// centreNoise returns the relative noise of a released centre when the
// cells are spread over m clusters: the noise of a centre of a cluster of
// the average size ñ/m, R·σ_count·m/ñ (the sums' noise √p·σ_sum equals
// R·σ_count under the plan's split, and the count's noise moves a centre
// of norm up to R as much), over the rms norm of the projected rows,
// √(Σλ/ñ) from the released eigenvalues. Released quantities only.
func centreNoise(pl Plan, nt float64, m int, eigen []float64) float64 {
	if !pl.Private() {
		return 0
	}
	var s float64
	for _, l := range eigen {
		s += max(l, 0)
	}
	nt = max(nt, 1)
	rms := math.Sqrt(s / nt)
	if rms == 0 {
		return math.Inf(1)
	}
	return pl.R * pl.Counts * float64(m) / nt / rms
}

// overNoiseMax is the largest relative centre noise (centreNoise) at which
// overRule over-clusters: a quarter of the rows' rms norm, fixed in advance
// of the shared sets (on fresh simulations, over-clustering by 2 helped
// where this noise at 2K clusters was below about 0.2 and hurt above about
// 0.25).
const overNoiseMax = 0.25

// overRule returns 2 when the centres of 2K clusters would be released with
// a relative noise of at most tau (Options.OverMax, overNoiseMax by
// default), else 1: over-clustering then
// merging escapes the poor local optima of Lloyd from a coarse private
// seeding (the merge picks the best of several weighted k-means++ runs on
// the released centres), but halves every cluster, so it pays only when
// the budget leaves the smaller clusters' centres precise. Nonprivate: 2.
func overRule(pl Plan, nt float64, k int, eigen []float64, tau float64) int {
	if centreNoise(pl, nt, 2*k, eigen) <= tau {
		return 2
	}
	return 1
}
