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

// ErrPCANotConverged is wrapped by the error of PCA when the block Krylov
// iteration reaches PCAMaxCycles before every top-k Ritz residual is within
// PCATol. PCA then also returns its last (approximate) result, with
// PCAResult.Residual saying how far it is.
var ErrPCANotConverged = errors.New("cluster: PCA: block Krylov iteration did not converge")

// krylov holds the state of the restarted block Krylov (block Lanczos)
// iteration for the top eigenpairs of the Gram matrix C = X_cᵀX_c (d×d) or
// X_cX_cᵀ (n×n), whichever is smaller.
type krylov struct {
	xc   blas64.General // n×d centred data
	side bool           // true: C = xc·xcᵀ (n×n); false: C = xcᵀ·xc (d×d)
	m    int            // size of C: min(n, d)
	l, s int            // block size, blocks per cycle
	c    blas64.General // m×m Gram matrix

	q, w  blas64.General // m×(s·l): orthonormal basis Q and W = C·Q
	v, cv blas64.General // m×l: Ritz vectors and C·(Ritz vectors)
	tau   []float64
	work  []float64
	ritz  []float64 // Ritz values of the last cycle, decreasing, length l
	// active lists the columns of v that the next cycle expands.
	active []int

	// Scratch of orthogonalize and normalize.
	coef, gram, tmp []float64
	chol            mat.Cholesky
	r, rInv         mat.TriDense
}

// newKrylov forms the Gram matrix of the centred n×d matrix xc on its
// smaller side and sizes the buffers for block size l and s blocks per
// cycle (s·l ≤ min(n, d)).
func newKrylov(xc []float64, n, d, l, s int) *krylov {
	kr := &krylov{xc: blas64.General{Rows: n, Cols: d, Stride: d, Data: xc}, side: n < d, m: min(n, d), l: l, s: s}
	sl := s * l
	kr.q = blas64.General{Rows: kr.m, Cols: sl, Stride: sl, Data: make([]float64, kr.m*sl)}
	kr.w = blas64.General{Rows: kr.m, Cols: sl, Stride: sl, Data: make([]float64, kr.m*sl)}
	kr.c = blas64.General{Rows: kr.m, Cols: kr.m, Stride: kr.m, Data: make([]float64, kr.m*kr.m)}
	// The upper triangle by SYRK (half a GEMM's work), mirrored below so
	// that products with C are plain GEMMs.
	tr := blas.Trans
	if kr.side {
		tr = blas.NoTrans
	}
	blas64.Syrk(tr, 1, kr.xc, 0, blas64.Symmetric{Uplo: blas.Upper, N: kr.m, Stride: kr.m, Data: kr.c.Data})
	for i := 1; i < kr.m; i++ {
		for j := range i {
			kr.c.Data[i*kr.m+j] = kr.c.Data[j*kr.m+i]
		}
	}
	kr.v = blas64.General{Rows: kr.m, Cols: l, Stride: l, Data: make([]float64, kr.m*l)}
	kr.cv = blas64.General{Rows: kr.m, Cols: l, Stride: l, Data: make([]float64, kr.m*l)}
	kr.tau = make([]float64, l)
	kr.work = make([]float64, 64*l)
	kr.coef = make([]float64, sl*l)
	kr.gram = make([]float64, l*l)
	kr.tmp = make([]float64, kr.m*l)
	kr.ritz = make([]float64, l)
	kr.active = make([]int, 0, l)
	return kr
}

// cols returns columns [off, off+width) of g.
func (kr *krylov) cols(g blas64.General, off, width int) blas64.General {
	return blas64.General{Rows: g.Rows, Cols: width, Stride: g.Stride, Data: g.Data[off:]}
}

// apply sets dst = C·src for m×l blocks.
func (kr *krylov) apply(dst, src blas64.General) {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kr.c, src, 0, dst)
}

// orthogonalize makes columns [off, off+width) of Q orthonormal and
// orthogonal to columns [0, off): block classical Gram–Schmidt,
// normalisation, and both once more ("twice is enough", Giraud et al. 2005,
// https://doi.org/10.1007/s00211-005-0615-4). A block that was (nearly) in
// the span of the previous ones comes out of the first normalisation as
// rounding noise, not orthogonal to them; the second pass fixes that.
func (kr *krylov) orthogonalize(off, width int) {
	b := kr.cols(kr.q, off, width)
	prev := kr.cols(kr.q, 0, off)
	coef := blas64.General{Rows: off, Cols: width, Stride: width, Data: kr.coef[:off*width]}
	for range 2 {
		if off > 0 {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, prev, b, 0, coef)
			blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, prev, coef, 1, b)
		}
		kr.normalize(b)
	}
}

// normalize replaces the m×l block b by an orthonormal basis of its span:
// CholeskyQR2 (b ← b·R⁻¹ with RᵀR = bᵀb, twice; Yamamoto et al. 2015,
// https://doi.org/10.1553/etna_vol44s306), whose work is two GEMMs per
// pass, or Householder QR when bᵀb is too ill-conditioned for it
// (κ(b) above about u^(−1/2), detected as a failed Cholesky factorisation or
// a ratio of R's diagonal entries below 1e-6).
func (kr *krylov) normalize(b blas64.General) {
	l := b.Cols
	g := blas64.General{Rows: l, Cols: l, Stride: l, Data: kr.gram[:l*l]}
	for range 2 {
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, b, b, 0, g)
		if !kr.chol.Factorize(mat.NewSymDense(l, g.Data)) || !kr.cholOK(l) {
			kr.householder(b)
			return
		}
		kr.rInv.Reset()
		if err := kr.rInv.InverseTri(&kr.r); err != nil {
			kr.householder(b)
			return
		}
		// R⁻¹ as a general matrix (zeros below the diagonal) for GEMM.
		for i := range l {
			for c := range l {
				g.Data[i*l+c] = 0
				if c >= i {
					g.Data[i*l+c] = kr.rInv.At(i, c)
				}
			}
		}
		t := blas64.General{Rows: b.Rows, Cols: l, Stride: l, Data: kr.tmp}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, b, g, 0, t)
		copyCols(b, t)
	}
}

// householder replaces the block b by the thin Q of its Householder QR.
func (kr *krylov) householder(b blas64.General) {
	tau := kr.tau[:b.Cols]
	lapack64.Geqrf(b, tau, kr.work, len(kr.work))
	lapack64.Orgqr(b, tau, kr.work, len(kr.work))
}

// cholOK reports whether the diagonal of the last Cholesky factor spans
// less than a factor 1e6, that is κ(b) ≲ 1e6.
func (kr *krylov) cholOK(l int) bool {
	lo, hi := math.Inf(1), 0.0
	kr.r.Reset()
	kr.chol.UTo(&kr.r)
	for i := range l {
		v := kr.r.At(i, i)
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo > 1e-6*hi
}

// cycle runs one restart cycle from the Ritz vectors in kr.v (orthonormal)
// and C·v in kr.cv. With A the columns of v listed in kr.active and
// a = len(A), it builds Q = [v, K_1, …, K_(s−1)] with K_1 = orth(C·A) and
// K_j = orth(C·K_(j−1)) (a columns each, orthogonal to all before), and
// W = C·Q, and replaces v and cv by the top l Ritz vectors of C in span(Q)
// and their images, and kr.ritz by their Ritz values. Converged Ritz
// vectors are left out of A ("soft locking", Knyazev 2001,
// https://doi.org/10.1137/S1064827500366124): they stay in the
// Rayleigh–Ritz space but spawn no new directions, which only the
// unconverged need. It reports false if the eigendecomposition fails.
func (kr *krylov) cycle() bool {
	l, a := kr.l, len(kr.active)
	sl := l + (kr.s-1)*a
	copyCols(kr.cols(kr.q, 0, l), kr.v)
	copyCols(kr.cols(kr.w, 0, l), kr.cv)
	for j := 1; j < kr.s; j++ {
		off := l + (j-1)*a
		dst := kr.cols(kr.q, off, a)
		if j == 1 {
			for i := range kr.m {
				row := kr.cv.Data[i*l : i*l+l]
				out := dst.Data[i*dst.Stride : i*dst.Stride+a]
				for t, c := range kr.active {
					out[t] = row[c]
				}
			}
		} else {
			copyCols(dst, kr.cols(kr.w, off-a, a))
		}
		kr.orthogonalize(off, a)
		kr.apply(kr.cols(kr.w, off, a), dst)
	}
	q, w := kr.cols(kr.q, 0, sl), kr.cols(kr.w, 0, sl)
	// Rayleigh–Ritz: T = Qᵀ·C·Q = Qᵀ·W, symmetrised against rounding.
	t := mat.NewSymDense(sl, nil)
	tg := blas64.General{Rows: sl, Cols: sl, Stride: sl, Data: make([]float64, sl*sl)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, q, w, 0, tg)
	for i := range sl {
		for j := i; j < sl; j++ {
			t.SetSym(i, j, (tg.Data[i*sl+j]+tg.Data[j*sl+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, true) {
		return false
	}
	vals := eig.Values(nil) // ascending
	var z mat.Dense
	eig.VectorsTo(&z)
	// The top l eigenvectors, in decreasing order of eigenvalue.
	top := blas64.General{Rows: sl, Cols: l, Stride: l, Data: make([]float64, sl*l)}
	for c := range l {
		src := sl - 1 - c
		kr.ritz[c] = vals[src]
		for i := range sl {
			top.Data[i*l+c] = z.At(i, src)
		}
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, top, 0, kr.v)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, w, top, 0, kr.cv)
	return true
}

// residual returns max_{c<k} ‖C·v_c − θ_c·v_c‖ / θ_0 from kr.cv (0 when
// θ_0 ≤ 0, that is for constant data), and sets kr.active to the columns
// of v the next cycle expands: those c < k whose relative residual exceeds
// tol, and all of the oversampling columns c ≥ k.
func (kr *krylov) residual(k int, tol float64) float64 {
	l := kr.l
	sums := kr.gram[:k] // free between cycles
	clear(sums)
	for i := range kr.m {
		cv, v := kr.cv.Data[i*l:i*l+k], kr.v.Data[i*l:i*l+k]
		for c := range k {
			r := cv[c] - kr.ritz[c]*v[c]
			sums[c] += r * r
		}
	}
	kr.active = kr.active[:0]
	var worst float64
	for c := range k {
		rel := 0.0
		if kr.ritz[0] > 0 {
			rel = math.Sqrt(sums[c]) / kr.ritz[0]
		}
		worst = max(worst, rel)
		if rel > tol {
			kr.active = append(kr.active, c)
		}
	}
	for c := k; c < l; c++ {
		kr.active = append(kr.active, c)
	}
	return worst
}

// copyCols copies the r×c block src into dst.
func copyCols(dst, src blas64.General) {
	for i := range src.Rows {
		copy(dst.Data[i*dst.Stride:i*dst.Stride+src.Cols], src.Data[i*src.Stride:i*src.Stride+src.Cols])
	}
}

// pcaKrylov computes the top k principal components of the centred n×d
// matrix xc by restarted block Krylov iteration on C = X_cᵀX_c (or X_cX_cᵀ,
// whichever is smaller), block size l and s blocks per cycle, from a
// Gaussian start drawn from rng, until every top-k Ritz pair has relative
// residual ‖Cv − θv‖/θ_max ≤ tol or maxCycles cycles have run; then it
// extracts singular values and vectors from an SVD of X_c projected on the
// l Ritz vectors. See PCA for the method and its error bounds.
func pcaKrylov(xc []float64, n, d, k, l, s, maxCycles int, tol float64, rng *rand.Rand) (*PCAResult, error) {
	kr := newKrylov(xc, n, d, l, s)
	for i := range kr.v.Data {
		kr.v.Data[i] = rng.NormFloat64()
	}
	// Start from C·Ω, orthonormalised, so the first block is already filtered.
	q0 := kr.cols(kr.q, 0, l)
	copyCols(q0, kr.v)
	kr.apply(kr.v, q0)
	copyCols(q0, kr.v)
	kr.orthogonalize(0, l)
	copyCols(kr.v, q0)
	for c := range l {
		kr.active = append(kr.active, c)
	}
	kr.apply(kr.cv, kr.v)

	res := math.Inf(1)
	cycles := 0
	for cycles < maxCycles {
		if !kr.cycle() {
			return nil, errSVD
		}
		cycles++
		if res = kr.residual(k, tol); res <= tol {
			// Confirm with a fresh product: cv = W·Z carries the rounding
			// of every earlier cycle.
			kr.apply(kr.cv, kr.v)
			if res = kr.residual(k, tol); res <= tol {
				break
			}
		}
	}
	out, err := kr.extract(k)
	if err != nil {
		return nil, err
	}
	out.Iterations, out.Residual = cycles, res
	if res > tol {
		return out, fmt.Errorf("%w: relative residual %.3g after %d cycles, want ≤ %.3g", ErrPCANotConverged, res, cycles, tol)
	}
	return out, nil
}

// extract returns the components and variances from the thin SVD of X_c
// projected on the Ritz vectors V: the right singular vectors of X_c·V
// (d side) rotate V into the components; the left singular vectors of
// X_cᵀ·V (n side) are the components.
func (kr *krylov) extract(k int) (*PCAResult, error) {
	n, d, l := kr.xc.Rows, kr.xc.Cols, kr.l
	var svd mat.SVD
	if kr.side {
		y := blas64.General{Rows: d, Cols: l, Stride: l, Data: make([]float64, d*l)}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, kr.xc, kr.v, 0, y)
		if !svd.Factorize(mat.NewDense(d, l, y.Data), mat.SVDThinU) {
			return nil, errSVD
		}
		var u mat.Dense
		svd.UTo(&u) // d×l
		return componentsFrom(&u, svd.Values(nil), n, d, k, PCAMethodKrylov), nil
	}
	y := blas64.General{Rows: n, Cols: l, Stride: l, Data: make([]float64, n*l)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kr.xc, kr.v, 0, y)
	if !svd.Factorize(mat.NewDense(n, l, y.Data), mat.SVDThinV) {
		return nil, errSVD
	}
	var w, comps mat.Dense
	svd.VTo(&w) // l×l
	comps.Mul(mat.NewDense(d, l, kr.v.Data), &w)
	return componentsFrom(&comps, svd.Values(nil), n, d, k, PCAMethodKrylov), nil
}
