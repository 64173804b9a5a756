package dpmd

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
)

// Subspace iteration settings of topSubspace.
const (
	eigTol      = 1e-10 // bound on sin Θ(computed, exact) by Davis–Kahan
	eigMaxIter  = 60    // iterations before falling back to the full solver
	eigDirectMx = 16    // D up to which the full solver is used directly
)

var errEig = errors.New("dpmd: eigendecomposition did not converge")

// eigWork is one goroutine's scratch for topSubspace. Not safe for
// concurrent use.
type eigWork struct {
	bl          blas.Float64
	q, z, x, ax []float64 // D × b
	h, u, w     []float64 // b × b, b
	full, fw    []float64 // D × D, D
	work        []float64
}

func newEigWork(bl blas.Float64) *eigWork { return &eigWork{bl: bl} }

// blockSize is the width b = min(D, d + max(2, d)) of the iterated block.
func blockSize(D, d int) int { return min(D, d+max(2, d)) }

// topSubspace writes into v (D × d, row-major, orthonormal columns) a basis
// of the top-d invariant subspace of the symmetric D × D matrix c (c is not
// modified). For D ≤ eigDirectMx, or a block of a third of D or more, it
// calls LAPACK's Dsyev. Otherwise it runs
// block subspace iteration with Rayleigh–Ritz (Saad, Numerical Methods for
// Large Eigenvalue Problems, 2011, §5.2) on a block of b = blockSize(D, d)
// columns started from start (D × b; nil or a zero column: fixed unit
// vectors), stopping when the Ritz residual R of the top d satisfies
// ‖R‖_F ≤ eigTol·(θ_d − θ_{d+1}) — by the Davis–Kahan sin Θ theorem the
// subspace is then within angle eigTol of the exact one — and falling back
// to Dsyev when the residual's observed rate of decrease predicts more work
// than Dsyev, when it stops decreasing or the gap closes, or after
// eigMaxIter iterations. The final block (D × b) is left in
// w.q for the next call's start. Only the subspace is defined when
// λ_d = λ_(d+1); v is then one basis of one of them.
func (w *eigWork) topSubspace(v, c []float64, D, d int, start []float64) error {
	b := blockSize(D, d)
	if D <= eigDirectMx || 3*b > D {
		// A block of a third of D or more costs about as much per iteration
		// as the full solver costs once.
		return w.direct(v, c, D, d)
	}
	// Flop counts of one iteration (two D×D×b and two D×b×b products, the
	// b×b eigensolve, two Gram–Schmidt passes) and of the full solver
	// (about 9D³ for the tridiagonal QL with vectors), to give up early on
	// a slowly converging case instead of iterating eigMaxIter times.
	iterCost := float64(2*D*D*b + 4*D*b*b + 9*b*b*b)
	directCost := float64(9 * D * D * D)
	prevRes := math.Inf(1)
	w.q = grow(w.q, D*b)
	w.z = grow(w.z, D*b)
	w.x = grow(w.x, D*b)
	w.ax = grow(w.ax, D*b)
	w.h = grow(w.h, b*b)
	w.u = grow(w.u, b*b)
	w.w = grow(w.w, b)
	if start != nil {
		copy(w.q, start[:D*b])
	} else {
		clear(w.q)
	}
	for j := range b { // replace zero columns by unit vectors
		var s float64
		for i := range D {
			s += w.q[i*b+j] * w.q[i*b+j]
		}
		if s == 0 {
			w.q[(j*7919%D)*b+j] = 1
		}
	}
	orthonormalize(w.q, D, b)
	for range eigMaxIter {
		// Z = C Q, H = Qᵀ Z.
		w.bl.Dgemm(blas.NoTrans, blas.NoTrans, D, b, D, 1, c, D, w.q, b, 0, w.z, b)
		w.bl.Dgemm(blas.Trans, blas.NoTrans, b, b, D, 1, w.q, b, w.z, b, 0, w.h, b)
		for i := range b { // symmetrise against rounding
			for j := i + 1; j < b; j++ {
				m := (w.h[i*b+j] + w.h[j*b+i]) / 2
				w.h[i*b+j], w.h[j*b+i] = m, m
			}
		}
		if !w.syev(w.h, b, w.w) {
			break
		}
		// Ritz vectors X = Q U and C X = Z U, ordered by decreasing θ.
		reverseCols(w.h, b, w.w)
		w.bl.Dgemm(blas.NoTrans, blas.NoTrans, D, b, b, 1, w.q, b, w.h, b, 0, w.x, b)
		w.bl.Dgemm(blas.NoTrans, blas.NoTrans, D, b, b, 1, w.z, b, w.h, b, 0, w.ax, b)
		var res float64
		for j := range d {
			for i := range D {
				r := w.ax[i*b+j] - w.w[j]*w.x[i*b+j]
				res += r * r
			}
		}
		gap := w.w[d-1] - w.w[d]
		if b == d {
			gap = w.w[d-1]
		}
		res = math.Sqrt(res)
		if res <= eigTol*gap {
			for i := range D {
				copy(v[i*d:(i+1)*d], w.x[i*b:i*b+d])
			}
			copy(w.q, w.x)
			return nil
		}
		// The residual shrinks by about rate per iteration: if the
		// iterations still needed cost more than the full solver, use it.
		if !(gap > 0) {
			break
		}
		if rate := res / prevRes; rate < 1 {
			if need := math.Log(eigTol*gap/res) / math.Log(rate); need*iterCost > directCost {
				break
			}
		} else if !math.IsInf(prevRes, 1) {
			break
		}
		prevRes = res
		copy(w.q, w.ax)
		orthonormalize(w.q, D, b)
	}
	return w.direct(v, c, D, d)
}

// direct computes the top-d eigenvectors of c with Dsyev.
func (w *eigWork) direct(v, c []float64, D, d int) error {
	w.full = grow(w.full, D*D)
	w.fw = grow(w.fw, D)
	copy(w.full, c[:D*D])
	if !w.syev(w.full, D, w.fw) {
		return errEig
	}
	for i := range D {
		for j := range d {
			v[i*d+j] = w.full[i*D+D-1-j]
		}
	}
	return nil
}

// syev overwrites the symmetric n × n a with its eigenvectors (columns)
// and vals with its eigenvalues in ascending order.
func (w *eigWork) syev(a []float64, n int, vals []float64) bool {
	impl := lapackgo.Implementation{}
	var q [1]float64
	impl.Dsyev(lapack.EVCompute, blas.Upper, n, a, n, vals, q[:], -1)
	w.work = grow(w.work, int(q[0]))
	return impl.Dsyev(lapack.EVCompute, blas.Upper, n, a, n, vals, w.work, len(w.work))
}

// reverseCols reverses the column order of the n × n a and of vals, so the
// largest eigenvalue comes first.
func reverseCols(a []float64, n int, vals []float64) {
	for i := range n {
		row := a[i*n : (i+1)*n]
		for l, r := 0, n-1; l < r; l, r = l+1, r-1 {
			row[l], row[r] = row[r], row[l]
		}
	}
	for l, r := 0, n-1; l < r; l, r = l+1, r-1 {
		vals[l], vals[r] = vals[r], vals[l]
	}
}

// orthonormalize makes the b columns of the D × b a orthonormal by modified
// Gram–Schmidt applied twice ("twice is enough", Giraud et al. 2005); a
// column that vanishes is replaced by a unit vector and re-orthogonalised.
func orthonormalize(a []float64, D, b int) {
	for j := range b {
		for pass := 0; pass < 3; pass++ {
			for range 2 {
				for k := range j {
					var dot float64
					for i := range D {
						dot += a[i*b+k] * a[i*b+j]
					}
					for i := range D {
						a[i*b+j] -= dot * a[i*b+k]
					}
				}
			}
			var s float64
			for i := range D {
				s += a[i*b+j] * a[i*b+j]
			}
			if s > 1e-300 {
				s = 1 / math.Sqrt(s)
				for i := range D {
					a[i*b+j] *= s
				}
				break
			}
			for i := range D {
				a[i*b+j] = 0
			}
			a[((j+pass*31)%D)*b+j] = 1
		}
	}
}

// grow returns s with length n, reallocating only when it is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
