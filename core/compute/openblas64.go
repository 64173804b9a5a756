//go:build linux

package compute

import (
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// Dsyrk performs the symmetric rank-k update C = alpha·A·Aᵀ + beta·C (tA
// NoTrans, A n×k) or C = alpha·Aᵀ·A + beta·C (tA Trans, A k×n) on the ul
// triangle of the n×n matrix C, like gonum's Dsyrk, on OpenBLAS's dsyrk_
// when n·n·k is at least DgemmThreshold; it does about half the work of
// Dgemm for a Gram matrix. Bad arguments and small sizes go to gonum, which
// panics with its messages.
func (o *openBLAS) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if !syrk(o.dsyrk, o.minDgemm, ul, tA, n, k, alpha, a, lda, beta, c, ldc) {
		o.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
	}
}

// Ssyrk is Dsyrk in float32, on OpenBLAS's ssyrk_ when n·n·k is at least
// GemmThreshold.
func (o *openBLAS) Ssyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	if !syrk(o.ssyrk, o.minGemm, ul, tA, n, k, alpha, a, lda, beta, c, ldc) {
		o.Implementation.Ssyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
	}
}

// syrk calls the Fortran xSYRK at fn and reports true, or reports false
// without doing anything when gonum should take the call (sizes below
// threshold, bad or degenerate arguments). Seen column-major, the row-major
// C is the same symmetric matrix with the other triangle stored, and A is
// transposed, so both the triangle and the transpose flip. It does not
// allocate.
func syrk[T float32 | float64](fn uintptr, threshold int, ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, beta T, c []T, ldc int) bool {
	row, col := k, n
	if tA == blas.NoTrans {
		row, col = n, k
	}
	if (ul != blas.Upper && ul != blas.Lower) || (tA != blas.NoTrans && tA != blas.Trans && tA != blas.ConjTrans) ||
		n <= 0 || k <= 0 || n > math.MaxInt32 || k > math.MaxInt32 || lda > math.MaxInt32 || ldc > math.MaxInt32 ||
		lda < col || ldc < n || len(a) < lda*(row-1)+col || len(c) < ldc*(n-1)+n ||
		alpha == 0 || n*n*k < threshold {
		return false
	}
	raceReadRows(a, row, col, lda)
	for i := range n { // the ul triangle of C, row by row
		if ul == blas.Upper {
			raceWriteRows(c[i*ldc+i:], 1, n-i, ldc)
		} else {
			raceWriteRows(c[i*ldc:], 1, i+1, ldc)
		}
	}
	fu, ft := byte('L'), byte('T')
	if ul == blas.Lower {
		fu = 'U'
	}
	if tA != blas.NoTrans {
		ft = 'N'
	}
	p := argPool.Get().(*fortranArgs)
	*p = fortranArgs{
		transA: fu, transB: ft,
		m: int32(n), k: int32(k),
		lda: int32(lda), ldc: int32(ldc),
	}
	setScalars(p, alpha, beta)
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&c[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)), p.addr(unsafe.Pointer(&p.transB)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.k)),
		p.addr(unsafe.Pointer(&p.alpha)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(unsafe.Pointer(&p.beta)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.ldc)),
		1, 1, // hidden lengths of the two character arguments
	}
	p.call(fn, 12)
	return true
}
