package dppca

import (
	"math"
	"sort"
)

// MergeOverlap merges over-clustering's released centres by their
// overlap instead of by distance (overlapMerge, stated for issue 16.2's
// seed spread on pbmc_4k at ε 8, docs/RESULTS.md, nineteenth attempt):
// the weighted k-means merge chooses between near-equal k-means optima,
// one of which re-cuts the largest population into two clusters of like
// size and merges small ones; two centres that cut one large population
// overlap heavily as Gaussian components, so they merge first, while
// small separated populations stay apart. Post-processing of the
// released centres, counts and eigenvalues; deterministic. An option:
// it failed rule G16 on fresh draws (FRESH=17: −0.0045 ± 0.0016 ARI per
// cell; docs/RESULTS.md, nineteenth attempt).
const MergeOverlap Merge = "overlap"

// overlapFloor is the least share of the rows' second moment that
// overlapVariance leaves to the within-component variance: the released
// centres' own noise inflates their spread, and a variance near zero
// would make every pair of components look separated.
const overlapFloor = 0.05

// overlapNoise is how many count-noise sds a released count must reach
// for its centre to be a component of overlapMerge: a count below
// 2·σ_count cannot be told from an empty cluster's (at about 95 %), and
// such a centre sits wherever its noise put it. The amendment after the
// base-draw screen (docs/RESULTS.md, nineteenth attempt): with every
// centre of count ≥ 1 a component, far near-empty centres overlapped
// nothing, survived as groups of one or two cells and forced real
// populations together.
const overlapNoise = 2

// overlapVariance is overlapMerge's common per-dimension variance s² of
// the components, from releases only: the rows' second moment about the
// origin, Σλ/ñ from the released eigenvalues (the rows are centred by the
// released gene means and projected, not centred again), less the
// centres' share of it, Σπ_i‖m_i‖² with π_i the released counts of the
// components (counts of at least nmin) over their sum; that is the total
// variance less the between-centre variance about the weighted mean of
// the centres. At least overlapFloor of the second moment, divided by p.
func overlapVariance(c, counts []float64, p int, eigen []float64, nt, nmin float64) float64 {
	var tot float64
	for _, l := range eigen {
		tot += max(l, 0)
	}
	tot /= max(nt, 1)
	var wsum, between float64
	for j, v := range counts {
		if v < nmin {
			continue
		}
		var q float64
		for _, x := range c[j*p : (j+1)*p] {
			q += x * x
		}
		wsum += v
		between += v * q
	}
	if wsum > 0 {
		between /= wsum
	}
	return max(tot-between, overlapFloor*tot, 1e-12) / float64(p)
}

// pairMiss is the probability that a point of the isotropic Gaussian
// component i (centre distance d from j's, common sd s, weights pi and
// pj) is put in j by the pairwise Bayes rule of the two:
// Φ(−d/(2s) − (s/d)·ln(πi/πj)). Coincident centres overlap fully (1).
func pairMiss(d, s, pi, pj float64) float64 {
	if d == 0 {
		return 1
	}
	z := -d/(2*s) - s/d*math.Log(pi/pj)
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// overlapMerge merges the released centres c (rows of p) into k by their
// overlap as a mixture of isotropic Gaussians of common per-dimension
// variance s2 (overlapVariance), weighted by their released counts. Only
// centres of count at least nmin (overlapNoise·σ_count, at least 1) are
// components. Hierarchical, after Hennig (2010)'s DEMP: from singleton
// groups, while more than k groups remain, the pair of groups I, J of
// the largest min(q(I→J), q(J→I)) becomes one, where a group is one
// component at its members' weighted mean with their summed weight and
// q(I→J) = pairMiss(‖m_I − m_J‖, s, π_I, π_J). The minimum asks both
// groups to overlap the other: two pieces of one population of like
// weight do, while a small population next to a large one does not (the
// large one's points rarely fall on its side), so weight alone does not
// pull small populations into large ones. The merged centres are the
// groups' weighted means. With fewer than k components the components are
// kept and the heaviest other centres fill the rest. Deterministic (ties:
// the first pair); post-processing of releases.
func overlapMerge(c, counts []float64, p, k int, s2, nmin float64) []float64 {
	nmin = max(nmin, 1)
	var idx, rest []int
	for j, v := range counts {
		if v >= nmin {
			idx = append(idx, j)
		} else {
			rest = append(rest, j)
		}
	}
	if len(idx) <= k {
		sort.SliceStable(rest, func(a, b int) bool { return counts[rest[a]] > counts[rest[b]] })
		out := make([]float64, 0, k*p)
		for _, j := range append(idx, rest...)[:k] {
			out = append(out, c[j*p:(j+1)*p]...)
		}
		return out
	}
	s := math.Sqrt(s2)
	groups := make([]weighted, len(idx))
	for a, j := range idx {
		groups[a] = weighted{append([]float64(nil), c[j*p:(j+1)*p]...), counts[j]}
	}
	// The most overlapping pair first: least cost is largest
	// misclassification, the smaller of its two directions.
	return agglomerate(groups, p, k, func(d2, wa, wb float64) float64 {
		d := math.Sqrt(d2)
		return -min(pairMiss(d, s, wa, wb), pairMiss(d, s, wb, wa))
	})
}
