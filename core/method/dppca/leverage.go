package dppca

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// leverageKeep is SelectLeverage's choice of h of the pool candidates
// (their raw per-cell values y, n × pool row-major, in ranking order, with
// their released means and floored spreads): it scales the candidates as
// the kept genes will be, clips each row to pl.R1, releases their
// covariance with GOE noise of diagonal σ pl.PCA1 (MechSelectPCA), and
// keeps the h of largest leverage on the released top directions above
// the noise edge (noiseEdge for the pool, as Plan.Edge; leverage). It
// also returns the released top eigenvalues over that edge (decreasing,
// released: the diagnostic of TestSimDesign); when none exceeds 1 the
// first h candidates are kept.
func leverageKeep(y []float64, n, pool int, mean, spread []float64, pl Plan, h int, rng *rand.Rand) ([]int, []float64) {
	z := make([]float64, n*pool)
	for i := range n {
		row, src := z[i*pool:(i+1)*pool], y[i*pool:(i+1)*pool]
		for j, v := range src {
			row[j] = max(-maxValue, min(maxValue, (v-mean[j])/spread[j]))
		}
	}
	clipRows(z, n, pool, pl.R1)
	c := make([]float64, pool*pool)
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: pool, Stride: pool, Data: z}, 0,
		blas64.Symmetric{N: pool, Stride: pool, Uplo: blas.Upper, Data: c})
	addGOE(c, pool, pl.PCA1, rng)
	qmax := pl.SelectQ
	if qmax <= 0 {
		qmax = DefaultP
	}
	vals, vecs := topEigenSym(c, pool, min(qmax, pool), rng)
	edge := noiseEdge(pl.PCA1, pool)
	score, q := leverage(vals, vecs, pool, edge, pl.PCA1*math.Sqrt(float64(pool)/2))
	ratios := make([]float64, len(vals))
	for k, v := range vals {
		ratios[k] = v / edge // +Inf without noise
	}
	if q == 0 {
		keep := make([]int, h)
		for k := range keep {
			keep[k] = k
		}
		return keep, ratios
	}
	return topByScore(score, h), ratios
}

// leverage returns each of the m genes' leverage on the directions of
// vecs (m × b row-major, eigenvalues vals decreasing) whose eigenvalue
// exceeds edge, Σ_k w_k·v_jk², and how many directions passed. The weight
// w_k = 1 − s²/θ_k² is the squared overlap of a noisy eigenvector with the
// true one for a rank-one spike θ_k under Wigner noise whose semicircle
// has radius 2s, θ_k solving λ_k = θ_k + s²/θ_k (the BBP transition; s =
// 0, no noise: w = 1).
func leverage(vals, vecs []float64, m int, edge, s float64) ([]float64, int) {
	b := len(vals)
	score := make([]float64, m)
	q := 0
	for k, l := range vals {
		if l <= edge || l <= 2*s {
			break
		}
		q++
		theta := (l + math.Sqrt(l*l-4*s*s)) / 2
		w := 1 - s*s/(theta*theta)
		for j := range m {
			v := vecs[j*b+k]
			score[j] += w * v * v
		}
	}
	return score, q
}

// Subspace iteration of topEigenSym, fixed in advance: a block of b + 10
// vectors, 15 multiplications. Directions far above the noise edge
// converge in a few; those near it converge slowly but carry a small
// weight in leverage.
const (
	subspaceExtra = 10
	subspaceIters = 15
)

// topEigenSym returns the b largest eigenvalues (decreasing) and their
// eigenvectors (m × b row-major) of the symmetric m × m matrix whose upper
// triangle is c: by subspace iteration with a Rayleigh–Ritz step from a
// random start drawn from rng (post-processing), or exactly when the
// block would be most of the matrix.
func topEigenSym(c []float64, m, b int, rng *rand.Rand) ([]float64, []float64) {
	l := min(m, b+subspaceExtra)
	if 2*l >= m {
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(m, c), true) {
			return nil, nil
		}
		all := es.Values(nil)
		var vec mat.Dense
		es.VectorsTo(&vec)
		vals, vecs := make([]float64, b), make([]float64, m*b)
		for k := range b {
			vals[k] = all[m-1-k]
			for i := range m {
				vecs[i*b+k] = vec.At(i, m-1-k)
			}
		}
		return vals, vecs
	}
	a := blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: c}
	q := blas64.General{Rows: m, Cols: l, Stride: l, Data: make([]float64, m*l)}
	w := blas64.General{Rows: m, Cols: l, Stride: l, Data: make([]float64, m*l)}
	for k := range q.Data {
		q.Data[k] = rng.NormFloat64()
	}
	orthonormalize(q)
	for range subspaceIters {
		blas64.Symm(blas.Left, 1, a, q, 0, w)
		q, w = w, q
		orthonormalize(q)
	}
	blas64.Symm(blas.Left, 1, a, q, 0, w)
	t := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, q, w, 0, t)
	sym := mat.NewSymDense(l, nil)
	for i := range l {
		for j := i; j < l; j++ {
			sym.SetSym(i, j, (t.Data[i*l+j]+t.Data[j*l+i])/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, nil
	}
	all := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	top := blas64.General{Rows: l, Cols: b, Stride: b, Data: make([]float64, l*b)}
	vals := make([]float64, b)
	for k := range b {
		vals[k] = all[l-1-k]
		for i := range l {
			top.Data[i*b+k] = u.At(i, l-1-k)
		}
	}
	vecs := blas64.General{Rows: m, Cols: b, Stride: b, Data: make([]float64, m*b)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, top, 0, vecs)
	return vals, vecs.Data
}

// orthonormalize replaces the columns of g by an orthonormal basis of
// their span (modified Gram–Schmidt, twice for accuracy); a column that
// vanishes is left at zero.
func orthonormalize(g blas64.General) {
	m, l := g.Rows, g.Cols
	for range 2 {
		for k := range l {
			for j := range k {
				var d float64
				for i := range m {
					d += g.Data[i*l+j] * g.Data[i*l+k]
				}
				for i := range m {
					g.Data[i*l+k] -= d * g.Data[i*l+j]
				}
			}
			var s float64
			for i := range m {
				s += g.Data[i*l+k] * g.Data[i*l+k]
			}
			if s == 0 {
				continue
			}
			f := 1 / math.Sqrt(s)
			for i := range m {
				g.Data[i*l+k] *= f
			}
		}
	}
}
