package sounddcan

import (
	"math"

	"github.com/dpscope/dpscope/core/cluster"
)

// joinRows returns the n × (h+p) rows [√w1·x_i | √w2·c_i]: a cell's h
// network rows x_i (the rows the mixture is trained on) joined to its p
// codes c_i (the start's private projection, start.Proj), each block
// scaled so that its squared distances are weighted by w1 and w2.
func joinRows(x []float64, n, h int, codes []float64, p int, w1, w2 float64) []float64 {
	s1, s2 := math.Sqrt(w1), math.Sqrt(w2)
	out := make([]float64, n*(h+p))
	for i := range n {
		o := out[i*(h+p) : (i+1)*(h+p)]
		for g, v := range x[i*h : (i+1)*h] {
			o[g] = s1 * v
		}
		for d, v := range codes[i*p : (i+1)*p] {
			o[h+d] = s2 * v
		}
	}
	return out
}

// joinCentres returns the k × (h+p) centres [√w1·μ_j | √w2·Bᵀμ_j]: each
// trained mean joined to its own coordinates on the start's basis B (h ×
// p, orthonormal columns), the centre a code row is compared with.
// Post-processing of the released means and basis.
func (m *mixture) joinCentres(basis []float64, p int, w1, w2 float64) []float64 {
	h := m.h
	s1, s2 := math.Sqrt(w1), math.Sqrt(w2)
	out := make([]float64, m.k*(h+p))
	for j := range m.k {
		mj, o := m.mu[j*h:(j+1)*h], out[j*(h+p):(j+1)*(h+p)]
		for g, v := range mj {
			o[g] = s1 * v
			for d := range p {
				o[h+d] += s2 * basis[g*p+d] * v
			}
		}
	}
	return out
}

// joinScales returns the public weights of option join=codes' two
// blocks, fixed before any run: each block scaled to unit total variance
// under the released mixture (π, μ, v), w_b = 1/TV_b with
//
//	TV1 = Σ π_j‖μ_j − μ̄‖² + h·v,   TV2 = Σ π_j‖Bᵀ(μ_j − μ̄)‖² + p·v,
//
// μ̄ = Σ π_j μ_j (the mixture's between- plus within-component variance
// in gene space and on the basis's p directions). It reads the released
// weights, means and variance only, so it is post-processing; v > 0
// keeps both positive.
func (m *mixture) joinScales(basis []float64, p int) (w1, w2 float64) {
	h := m.h
	lp := make([]float64, m.k)
	m.logWeights(lp)
	bar := make([]float64, h)
	for j := range m.k {
		pj := math.Exp(lp[j])
		for g, v := range m.mu[j*h : (j+1)*h] {
			bar[g] += pj * v
		}
	}
	v := math.Exp(-2 * m.b)
	tv1, tv2 := float64(h)*v, float64(p)*v
	e, pe := make([]float64, h), make([]float64, p)
	for j := range m.k {
		pj := math.Exp(lp[j])
		clear(pe)
		for g, u := range m.mu[j*h : (j+1)*h] {
			e[g] = u - bar[g]
			tv1 += pj * e[g] * e[g]
			for d := range p {
				pe[d] += basis[g*p+d] * e[g]
			}
		}
		for _, u := range pe {
			tv2 += pj * u * u
		}
	}
	return 1 / tv1, 1 / tv2
}

// joinLabels returns option join=codes' labels: every cell's nearest
// joined centre on its joined row (joinRows, joinCentres, joinScales),
// without the weights π, as dppca labels a cell by its nearest centre on
// its codes; a component keep= left out labels no cell. Post-processing
// of released quantities and the cell's own rows, as every label is.
func (m *mixture) joinLabels(x []float64, n int, codes, basis []float64, p int) []int {
	w1, w2 := m.joinScales(basis, p)
	rows, cen := joinRows(x, n, m.h, codes, p, w1, w2), m.joinCentres(basis, p, w1, w2)
	q := m.h + p
	out := make([]int, n)
	for i := range n {
		ri := rows[i*q : (i+1)*q]
		best, bd := 0, math.Inf(1)
		for j := range m.k {
			if m.drop != nil && m.drop[j] {
				continue
			}
			if d := cluster.SqDist(ri, cen[j*q:(j+1)*q]); d < bd {
				best, bd = j, d
			}
		}
		out[i] = best
	}
	return out
}
