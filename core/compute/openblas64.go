//go:build linux

package compute

import (
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// Dgemm performs C = alpha * op(A) * op(B) + beta * C with op(A) m×k and
// op(B) k×n, like gonum's Dgemm, on OpenBLAS's dgemm_ when m·n·k is at
// least DgemmThreshold. It panics with gonum's messages on bad arguments.
// Like Sgemm, it computes the row-major product as the column-major
// Cᵀ = op(B)ᵀ·op(A)ᵀ and does not allocate.
func (o *openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	ca, aTrans := transChar(tA)
	cb, bTrans := transChar(tB)
	if m < 0 || n < 0 || k < 0 || m > math.MaxInt32 || n > math.MaxInt32 || k > math.MaxInt32 ||
		lda > math.MaxInt32 || ldb > math.MaxInt32 || ldc > math.MaxInt32 ||
		m == 0 || n == 0 || k == 0 || alpha == 0 || m*n*k < o.minDgemm {
		// gonum checks, handles degenerate sizes and small products.
		o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ar, ac := m, k // stored shape of A
	if aTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if bTrans {
		br, bc = n, k
	}
	if lda < ac {
		panic("blas: bad leading dimension of A")
	}
	if ldb < bc {
		panic("blas: bad leading dimension of B")
	}
	if ldc < n {
		panic("blas: bad leading dimension of C")
	}
	if len(a) < (ar-1)*lda+ac {
		panic("blas: insufficient length of a")
	}
	if len(b) < (br-1)*ldb+bc {
		panic("blas: insufficient length of b")
	}
	if len(c) < (m-1)*ldc+n {
		panic("blas: insufficient length of c")
	}
	raceReadRows(a, ar, ac, lda)
	raceReadRows(b, br, bc, ldb)
	raceWriteRows(c, m, n, ldc)

	p := argPool.Get().(*fortranArgs)
	// Column-major Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m).
	*p = fortranArgs{
		transA: cb, transB: ca,
		m: int32(n), n: int32(m), k: int32(k),
		lda: int32(ldb), ldb: int32(lda), ldc: int32(ldc),
		alpha64: alpha, beta64: beta,
	}
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)), p.addr(unsafe.Pointer(&p.transB)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.n)), p.addr(unsafe.Pointer(&p.k)),
		p.addr(unsafe.Pointer(&p.alpha64)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.ldb)),
		p.addr(unsafe.Pointer(&p.beta64)),
		p.addr(p.keep[2]), p.addr(unsafe.Pointer(&p.ldc)),
		1, 1, // hidden lengths of the two character arguments
	}
	p.call(o.dgemm, 15)
}

// Dgemv performs y = alpha * op(A) * x + beta * y with A m×n, like gonum's
// Dgemv, on OpenBLAS's dgemv_ when m·n is at least DgemvThreshold. It panics
// with gonum's messages on bad arguments.
func (o *openBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	_, trans := transChar(tA)
	if m < 0 || n < 0 || m > math.MaxInt32 || n > math.MaxInt32 || lda > math.MaxInt32 ||
		incX == 0 || incY == 0 || incX > math.MaxInt32 || incY > math.MaxInt32 ||
		incX < -math.MaxInt32 || incY < -math.MaxInt32 ||
		m == 0 || n == 0 || alpha == 0 || m*n < o.minDgemv {
		o.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	if lda < n {
		panic("blas: bad leading dimension of A")
	}
	lenX, lenY := n, m
	if trans {
		lenX, lenY = m, n
	}
	if (lenX-1)*abs(incX) >= len(x) {
		panic("blas: insufficient length of x")
	}
	if (lenY-1)*abs(incY) >= len(y) {
		panic("blas: insufficient length of y")
	}
	if len(a) < (m-1)*lda+n {
		panic("blas: insufficient length of a")
	}
	raceReadRows(a, m, n, lda)
	raceReadRows(x, 1, (lenX-1)*abs(incX)+1, 1)
	raceWriteRows(y, 1, (lenY-1)*abs(incY)+1, 1)

	// Row-major A (m×n) is column-major Aᵀ (n×m): flip the transpose.
	fc := byte('T')
	if trans {
		fc = 'N'
	}
	p := argPool.Get().(*fortranArgs)
	*p = fortranArgs{
		transA: fc,
		m:      int32(n), n: int32(m),
		lda: int32(lda), ldb: int32(incX), ldc: int32(incY),
		alpha64: alpha, beta64: beta,
	}
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.n)),
		p.addr(unsafe.Pointer(&p.alpha64)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.ldb)),
		p.addr(unsafe.Pointer(&p.beta64)),
		p.addr(p.keep[2]), p.addr(unsafe.Pointer(&p.ldc)),
		1, // hidden length of the character argument
	}
	p.call(o.dgemv, 12)
}

// Dsyrk performs the symmetric rank-k update C = alpha·A·Aᵀ + beta·C (tA
// NoTrans, A n×k) or C = alpha·Aᵀ·A + beta·C (tA Trans, A k×n) on the ul
// triangle of the n×n matrix C, like gonum's Dsyrk, on OpenBLAS's dsyrk_
// when n·n·k is at least DgemmThreshold; it does about half the work of
// Dgemm for a Gram matrix. Seen column-major, the row-major C is the same
// symmetric matrix with the other triangle stored, and A is transposed, so
// both the triangle and the transpose flip. Bad arguments and small sizes
// go to gonum, which panics with its messages.
func (o *openBLAS) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	row, col := k, n
	if tA == blas.NoTrans {
		row, col = n, k
	}
	if (ul != blas.Upper && ul != blas.Lower) || (tA != blas.NoTrans && tA != blas.Trans && tA != blas.ConjTrans) ||
		n <= 0 || k <= 0 || n > math.MaxInt32 || k > math.MaxInt32 || lda > math.MaxInt32 || ldc > math.MaxInt32 ||
		lda < col || ldc < n || len(a) < lda*(row-1)+col || len(c) < ldc*(n-1)+n ||
		alpha == 0 || n*n*k < o.minDgemm {
		o.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
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
		alpha64: alpha, beta64: beta,
	}
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&c[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)), p.addr(unsafe.Pointer(&p.transB)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.k)),
		p.addr(unsafe.Pointer(&p.alpha64)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(unsafe.Pointer(&p.beta64)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.ldc)),
		1, 1, // hidden lengths of the two character arguments
	}
	p.call(o.dsyrk, 12)
}
