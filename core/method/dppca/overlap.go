package dppca

import "math"

// MergeOverlap merges over-clustering's released centres by their
// overlap instead of by distance (overlapMerge, stated for issue 16.2's
// seed spread on pbmc_4k at ε 8, docs/RESULTS.md, nineteenth attempt):
// the weighted k-means merge chooses between near-equal k-means optima,
// one of which re-cuts the largest population into two clusters of like
// size and merges small ones; two centres that cut one large population
// overlap heavily as Gaussian components, so they merge first, while
// small separated populations stay apart. Post-processing of the
// released centres, counts and eigenvalues; deterministic.
const MergeOverlap Merge = "overlap"

// overlapFloor is the least share of the rows' second moment that
// overlapVariance leaves to the within-component variance: the released
// centres' own noise inflates their spread, and a variance near zero
// would make every pair of components look separated.
const overlapFloor = 0.05

// overlapVariance is overlapMerge's common per-dimension variance s² of
// the components, from releases only: the rows' second moment about the
// origin, Σλ/ñ from the released eigenvalues (the rows are centred by the
// released gene means and projected, not centred again), less the
// centres' share of it, Σπ_i‖m_i‖² with π_i the released counts (a centre
// of count below one weighs nothing, as in mergeCentres) over their sum;
// that is the total variance less the between-centre variance about the
// weighted mean of the centres. At least overlapFloor of the second
// moment, divided by p.
func overlapVariance(c, counts []float64, p int, eigen []float64, nt float64) float64 {
	var tot float64
	for _, l := range eigen {
		tot += max(l, 0)
	}
	tot /= max(nt, 1)
	var wsum, between float64
	for j, v := range counts {
		if v < 1 {
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
// variance s2 (overlapVariance), weighted by their released counts (a
// count below one weighs nothing, as in mergeCentres; with fewer than k
// weighted centres it returns mergeCentres' fallback, the first k).
// Hierarchical, after Hennig (2010)'s DEMP: from singleton groups, while
// more than k groups remain, the pair of groups I, J of the largest
// max(q(I→J), q(J→I)) becomes one, where q(I→J) =
// Σ_{i∈I} (π_i/π_I)·min(1, Σ_{j∈J} pairMiss(i, j)), the chance that a
// point of I is put by some component of J's pairwise rule into J,
// averaged over I's components by their weights (the sum over J is the
// union bound, capped at 1). The merged centres are the groups' weighted
// means. Deterministic (ties: the first pair); post-processing of releases.
func overlapMerge(c, counts []float64, p, k int, s2 float64) []float64 {
	var idx []int
	for j, v := range counts {
		if v >= 1 {
			idx = append(idx, j)
		}
	}
	if len(idx) < k {
		return append([]float64(nil), c[:k*p]...)
	}
	m := len(idx)
	s := math.Sqrt(s2)
	w := make([]float64, m)
	for a, j := range idx {
		w[a] = counts[j]
	}
	q := make([][]float64, m)
	for a := range m {
		q[a] = make([]float64, m)
		for b := range m {
			if a == b {
				continue
			}
			var d float64
			for t := range p {
				x := c[idx[a]*p+t] - c[idx[b]*p+t]
				d += x * x
			}
			q[a][b] = pairMiss(math.Sqrt(d), s, w[a], w[b])
		}
	}
	groups := make([][]int, m)
	for a := range groups {
		groups[a] = []int{a}
	}
	// miss is q(I→J) of the groups' component lists.
	miss := func(gi, gj []int) float64 {
		var num, den float64
		for _, a := range gi {
			var u float64
			for _, b := range gj {
				u += q[a][b]
			}
			num += w[a] * min(1, u)
			den += w[a]
		}
		return num / den
	}
	for len(groups) > k {
		ba, bb, best := 0, 1, -1.0
		for a := range groups {
			for b := a + 1; b < len(groups); b++ {
				if l := max(miss(groups[a], groups[b]), miss(groups[b], groups[a])); l > best {
					ba, bb, best = a, b, l
				}
			}
		}
		groups[ba] = append(groups[ba], groups[bb]...)
		groups = append(groups[:bb], groups[bb+1:]...)
	}
	out := make([]float64, k*p)
	for g, gr := range groups {
		var ws float64
		for _, a := range gr {
			ws += w[a]
		}
		for _, a := range gr {
			for t := range p {
				out[g*p+t] += w[a] / ws * c[idx[a]*p+t]
			}
		}
	}
	return out
}
