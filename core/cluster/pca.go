package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// PCA method choice and randomized-SVD parameters.
const (
	// PCAExactLimit: PCA uses an exact thin SVD when min(n, d) is at most
	// this, or when k + PCAOversample > min(n, d)/4; otherwise a randomized
	// SVD.
	PCAExactLimit = 512
	// PCAOversample is the oversampling p of the randomized SVD: it
	// computes a rank k+p range basis.
	PCAOversample = 10
	// PCASeed seeds the Gaussian test matrix of the randomized SVD
	// (rand.NewPCG(PCASeed, 0)), so PCA is deterministic.
	PCASeed = 0x9CA
)

// PCA methods, as reported in PCAResult.Method.
const (
	PCAMethodExact      = "exact thin SVD"
	PCAMethodRandomized = "randomized SVD"
)

// PCAResult holds the top-k principal components of n×d data.
type PCAResult struct {
	// Scores is the n×k row-major matrix of the centred rows projected on the
	// components: Scores = (X − 1·Meanᵀ) · Componentsᵀ.
	Scores []float64
	// Components is the k×d row-major matrix of orthonormal principal axes,
	// in decreasing order of explained variance. Each is signed so that its
	// entry of largest magnitude (the first, on ties) is positive.
	Components []float64
	// Mean is the column mean subtracted before the decomposition.
	Mean []float64
	// ExplainedVariance[c] = s_c²/(n−1), the variance of score column c.
	ExplainedVariance []float64
	// ExplainedVarianceRatio[c] is ExplainedVariance[c] over the total
	// variance Σ_t Var(x_·t) (0 for constant data).
	ExplainedVarianceRatio []float64
	// Method is PCAMethodExact or PCAMethodRandomized.
	Method string
}

// PCA returns the top-k principal components of the n×d row-major data x
// and the scores of its rows, from the SVD of the column-centred data
// X_c = U Σ Vᵀ: Components = V_kᵀ and Scores = U_k Σ_k.
//
// When min(n, d) ≤ PCAExactLimit, or k is not small against min(n, d), the
// SVD is an exact thin SVD (LAPACK dgesvd, gonum mat.SVD). Otherwise it is
// the randomized SVD of Halko, Martinsson & Tropp (2011,
// https://arxiv.org/abs/0909.4061, Algorithms 4.4 and 5.1): a Gaussian test
// matrix Ω (d × (k+PCAOversample)) from rand.NewPCG(PCASeed, 0), q power
// iterations with QR re-orthonormalisation (q = 7 if k < min(n, d)/10, else
// 4, as scikit-learn), and an exact SVD of the small projected matrix. Its
// error in the top components decays as (σ_{k+p+1}/σ_k)^{2q+1}, so it is
// near-exact when the spectrum has a gap after the k-th component and
// slightly rotates components of (nearly) equal variance, like any method.
// The sign convention makes the result deterministic.
//
// It returns an error wrapping ErrInvalidData if x is not n×d and finite or
// n < 2, one wrapping ErrInvalidConfig if k is not in [1, min(n, d)], and an
// error if the SVD fails to converge.
func PCA(x []float64, n, d, k int) (*PCAResult, error) {
	if err := checkMatrix("x", x, n, d); err != nil {
		return nil, err
	}
	if n < 2 {
		return nil, fmt.Errorf("cluster: n is %d, must be ≥ 2 for PCA: %w", n, ErrInvalidData)
	}
	m := min(n, d)
	if k < 1 || k > m {
		return nil, fmt.Errorf("cluster: k is %d, must be in [1, min(n, d)] = [1, %d]: %w", k, m, ErrInvalidConfig)
	}
	xc, mean := centerColumns(x, n, d)
	var (
		res *PCAResult
		err error
	)
	if pcaUsesExact(n, d, k) {
		res, err = pcaExact(xc, n, d, k)
	} else {
		q := 4
		if 10*k < m {
			q = 7
		}
		res, err = pcaRandomized(xc, n, d, k, PCAOversample, q, rand.New(rand.NewPCG(PCASeed, 0)))
	}
	if err != nil {
		return nil, err
	}
	res.Mean = mean
	res.finish(xc, n, d, k)
	return res, nil
}

// pcaUsesExact reports whether PCA takes the exact thin SVD for an n×d
// matrix and k components.
func pcaUsesExact(n, d, k int) bool {
	m := min(n, d)
	return m <= PCAExactLimit || 4*(k+PCAOversample) > m
}

// errSVD is returned when LAPACK's SVD does not converge.
var errSVD = errors.New("cluster: SVD did not converge")

// pcaExact fills Components and ExplainedVariance from the thin SVD of the
// centred n×d matrix xc.
func pcaExact(xc []float64, n, d, k int) (*PCAResult, error) {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(n, d, xc), mat.SVDThinV) {
		return nil, errSVD
	}
	var v mat.Dense
	svd.VTo(&v) // d × min(n, d)
	return componentsFrom(&v, svd.Values(nil), n, d, k, PCAMethodExact), nil
}

// pcaRandomized fills Components and ExplainedVariance from a randomized SVD
// of the centred n×d matrix xc with oversampling p and q power iterations.
func pcaRandomized(xc []float64, n, d, k, p, q int, rng *rand.Rand) (*PCAResult, error) {
	l := min(k+p, min(n, d))
	X := blas64.General{Rows: n, Cols: d, Stride: d, Data: xc}
	omega := blas64.General{Rows: d, Cols: l, Stride: l, Data: make([]float64, d*l)}
	for i := range omega.Data {
		omega.Data[i] = rng.NormFloat64()
	}
	Y := blas64.General{Rows: n, Cols: l, Stride: l, Data: make([]float64, n*l)}
	Z := omega // d×l, reused for Xᵀ Q
	tau := make([]float64, l)
	work := make([]float64, 64*l)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, X, omega, 0, Y)
	orthonormalize(Y, tau, work)
	for range q {
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, X, Y, 0, Z)
		orthonormalize(Z, tau, work)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, X, Z, 0, Y)
		orthonormalize(Y, tau, work)
	}
	// B = Qᵀ X (l×d); its right singular vectors are those of X's range.
	B := blas64.General{Rows: l, Cols: d, Stride: d, Data: make([]float64, l*d)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, Y, X, 0, B)
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(l, d, B.Data), mat.SVDThinV) {
		return nil, errSVD
	}
	var v mat.Dense
	svd.VTo(&v) // d × l
	return componentsFrom(&v, svd.Values(nil), n, d, k, PCAMethodRandomized), nil
}

// orthonormalize replaces the columns of a (rows ≥ cols) by an orthonormal
// basis of their span (Householder QR, thin Q).
func orthonormalize(a blas64.General, tau, work []float64) {
	lapack64.Geqrf(a, tau, work, len(work))
	lapack64.Orgqr(a, tau, work, len(work))
}

// componentsFrom takes the first k columns of v (d×r) and the singular
// values s as components and explained variances s²/(n−1).
func componentsFrom(v *mat.Dense, s []float64, n, d, k int, method string) *PCAResult {
	res := &PCAResult{
		Components:        make([]float64, k*d),
		ExplainedVariance: make([]float64, k),
		Method:            method,
	}
	for c := range k {
		for t := range d {
			res.Components[c*d+t] = v.At(t, c)
		}
		res.ExplainedVariance[c] = s[c] * s[c] / float64(n-1)
	}
	return res
}

// finish applies the sign convention, computes the scores and the variance
// ratios.
func (r *PCAResult) finish(xc []float64, n, d, k int) {
	for c := range k {
		comp := r.Components[c*d : c*d+d]
		big := 0
		for t, v := range comp {
			if math.Abs(v) > math.Abs(comp[big]) {
				big = t
			}
		}
		if comp[big] < 0 {
			for t := range comp {
				comp[t] = -comp[t]
			}
		}
	}
	r.Scores = make([]float64, n*k)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: n, Cols: d, Stride: d, Data: xc},
		blas64.General{Rows: k, Cols: d, Stride: d, Data: r.Components},
		0, blas64.General{Rows: n, Cols: k, Stride: k, Data: r.Scores})
	total := dot(xc, xc) / float64(n-1)
	r.ExplainedVarianceRatio = make([]float64, k)
	if total > 0 {
		for c, v := range r.ExplainedVariance {
			r.ExplainedVarianceRatio[c] = v / total
		}
	}
}
