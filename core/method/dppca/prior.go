package dppca

import (
	"math"
	"math/rand/v2"
)

// Prior names the option prior: whether the K-centre rounds after
// over-clustering's merge assign each cell to its nearest centre
// (PriorOff, the default) or by classification EM with mixing
// proportions (PriorCounts).
type Prior string

const (
	// PriorOff assigns each cell to its nearest centre (the default).
	PriorOff Prior = "off"
	// PriorCounts assigns each cell, in the K-centre rounds after the
	// first one and in the final labels, to argmin_j ‖x − c_j‖² −
	// 2s²·log π_j: π_j the previous round's released counts (each at
	// least 1) over their sum, s² the within-cluster variance per
	// dimension read from released statistics (priorVariance). Only in
	// overRound's K-centre rounds (the over=1 path, cluster.DPKMeans, is
	// untouched). Post-processing: the assignment is any function of the
	// cell and of released values, so one cell still moves one sum by at
	// most R and one count by 1; the plan and the ledger are the
	// default's.
	//
	// Why (issue 16.2, pbmc_4k at ε 8, docs/RESULTS.md twenty-third
	// attempt): pbmc's populations are very unequal in size, while
	// nearest-centre assignment is classification EM with equal
	// proportions and equal variances, which favours cuts into pieces of
	// similar size; a prior for unequal sizes moves the boundary of a
	// large population outward, into a small neighbour.
	PriorCounts Prior = "counts"
)

// priorVariance returns the within-cluster variance per dimension that
// prior=counts uses, from released statistics and public σ only: the
// projected rows' second moment, Σ_{t<p} max(λ_t − edge, 0)/ñ (the noisy
// covariance's top p eigenvalues less the public noise edge, over the
// released cell count), less the released centres' weighted second
// moment Σ_j π_j‖c_j‖², over p. Zero when that is not positive (then no
// prior is applied). The edge is taken off because the noise lifts every
// eigenvalue: without it s² was 2.0–2.4 times the private W/p on the
// development draws (docs/RESULTS.md, twenty-third attempt).
func priorVariance(eigen []float64, edge, noisyN float64, c, pi []float64, p int) float64 {
	if p == 0 || noisyN < 1 {
		return 0
	}
	var tot float64
	for _, l := range eigen[:p] {
		tot += max(l-edge, 0)
	}
	tot /= noisyN
	var between float64
	for j, w := range pi {
		var s float64
		for _, v := range c[j*p : (j+1)*p] {
			s += v * v
		}
		between += w * s
	}
	return max(0, (tot-between)/float64(p))
}

// priorWeights returns the mixing proportions of released counts: each
// count at least 1, over their sum.
func priorWeights(counts []float64) []float64 {
	pi := make([]float64, len(counts))
	var s float64
	for j, v := range counts {
		pi[j] = max(v, 1)
		s += pi[j]
	}
	for j := range pi {
		pi[j] /= s
	}
	return pi
}

// priorBias returns the per-centre penalties −2s²·log π_j that
// prior=counts adds to the squared distances, or nil when no prior
// applies (off, counts not one per centre, or s² zero).
func (r *release) priorBias(c []float64) []float64 {
	p := len(r.out.Eigen)
	if r.o.Prior != PriorCounts || r.over < 2 || p == 0 || len(c) != r.k*p || len(r.counts) != r.k {
		return nil
	}
	pi := priorWeights(r.counts)
	s2 := priorVariance(r.out.Eigen, r.pl.Edge(), r.out.Matrix.NoisyN, c, pi, p)
	if s2 <= 0 {
		return nil
	}
	b := make([]float64, r.k)
	for j, w := range pi {
		b[j] = -2 * s2 * math.Log(w)
	}
	return b
}

// assignBias is assign with a penalty bias[j] added to the squared
// distance to centre j (nil: assign). The cost returned is the plain
// squared distance to the chosen centre.
func assignBias(x []float64, n, p int, c, bias []float64) ([]int, float64) {
	if bias == nil {
		return assign(x, n, p, c)
	}
	k := len(c) / p
	labels := make([]int, n)
	var cost float64
	for i := range n {
		row := x[i*p : (i+1)*p]
		best, bd, bsq := 0, math.Inf(1), 0.0
		for j := range k {
			var d2 float64
			for t, v := range row {
				d := v - c[j*p+t]
				d2 += d * d
			}
			if s := d2 + bias[j]; s < bd {
				best, bd, bsq = j, s, d2
			}
		}
		labels[i] = best
		cost += bsq
	}
	return labels, cost
}

// lloydRoundBias is lloydRound with assignBias's assignment (nil bias:
// the nearest centre): the same two Gaussian releases (sums Δ = r,
// counts Δ = 1) whatever the bias.
func lloydRoundBias(x []float64, n, p int, c, bias []float64, r, sigmaSum, sigmaCount float64, rng *rand.Rand) ([]int, []float64, float64) {
	k := len(c) / p
	xc := append([]float64(nil), x[:n*p]...)
	clipRows(xc, n, p, r)
	sums := make([]float64, k*p)
	counts := make([]float64, k)
	labels, cost := assignBias(xc, n, p, c, bias)
	for i, j := range labels {
		for t, v := range xc[i*p : (i+1)*p] {
			sums[j*p+t] += v
		}
		counts[j]++
	}
	for j := range k {
		cj := sums[j*p : (j+1)*p]
		addNoise(cj, sigmaSum, rng)
		if sigmaCount > 0 {
			counts[j] += sigmaCount * rng.NormFloat64()
		}
		inv := 1 / max(counts[j], 1)
		for t := range cj {
			cj[t] *= inv
		}
		ClipTo(cj, r)
	}
	copy(c, sums)
	return labels, counts, cost
}
