package compute

import (
	"fmt"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
)

func transpose(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// opDims returns the dimensions of op(m): m, or mᵀ when t is true.
func opDims(m Matrix, t bool) (r, c int) {
	if t {
		return m.Cols, m.Rows
	}
	return m.Rows, m.Cols
}

// ld returns the leading dimension BLAS needs for m: its stride, at least 1.
// A stride below the column count is left for BLAS to reject.
func ld(m Matrix) int { return max(m.Stride, 1) }

// vec returns x as a 1×len(x) matrix, for overlap checks.
func vec(x []float32) Matrix { return Matrix{Rows: 1, Cols: len(x), Stride: len(x), Data: x} }

// MulTo computes
//
//	dst = alpha * op(a) * op(b) + beta * dst
//
// where op(a) is a, or aᵀ when transA is true (likewise for b), op(a) is m×k,
// op(b) is k×n and dst is m×n. When beta is 0, dst is overwritten and its
// previous contents (even NaN) are ignored. It panics, wrapping ErrShape, if
// the dimensions do not fit, and wrapping ErrOverlap if dst shares an element
// with a or b. It does not allocate.
func MulTo(dst, a Matrix, transA bool, b Matrix, transB bool, alpha, beta float32) {
	mulTo(Impl(), dst, a, transA, b, transB, alpha, beta)
}

func mulTo(impl blas.Float32, dst, a Matrix, transA bool, b Matrix, transB bool, alpha, beta float32) {
	m, k := opDims(a, transA)
	kb, n := opDims(b, transB)
	if k != kb || dst.Rows != m || dst.Cols != n {
		panic(fmt.Errorf("compute: MulTo: op(a) is %d×%d, op(b) is %d×%d and dst is %d×%d, must be m×k, k×n and m×n: %w",
			m, k, kb, n, dst.Rows, dst.Cols, ErrShape))
	}
	if overlaps(dst, a) || overlaps(dst, b) {
		panic(fmt.Errorf("compute: MulTo: %w", ErrOverlap))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		Scale(beta, dst)
		return
	}
	impl.Sgemm(transpose(transA), transpose(transB), m, n, k,
		alpha, a.Data, ld(a), b.Data, ld(b), beta, dst.Data, ld(dst))
}

// MulBiasTo computes
//
//	dst = op(a) * op(b) + 1 * biasᵀ
//
// (bias added to every row of the product: a dense layer's forward pass),
// with op(a) m×k, op(b) k×n, dst m×n and len(bias) = n; dst's previous
// contents are ignored. The bits are those of filling every row of dst with
// bias and then MulSparseTo(dst, a, transA, b, transB, 1). When the product
// runs on dpscope's dense kernel (and BiasFold is on), each goroutine
// writes the bias into the rows of its own panels just before their first
// sums, where the tiles then find it in cache, instead of one goroutine
// filling dst in a pass of its own (the peers' 2000-wide output layer: 3.4
// MB and 0.2 ms of a 14 ms DP-SGD step). It panics, wrapping ErrShape, if
// the dimensions do not fit, and wrapping ErrOverlap if dst shares an
// element with a, b or bias. It does not allocate.
func MulBiasTo(dst, a Matrix, transA bool, b Matrix, transB bool, bias []float32) {
	m, k := opDims(a, transA)
	kb, n := opDims(b, transB)
	if k != kb || dst.Rows != m || dst.Cols != n || len(bias) != n {
		panic(fmt.Errorf("compute: MulBiasTo: op(a) is %d×%d, op(b) is %d×%d, dst is %d×%d and the bias has %d entries, must be m×k, k×n, m×n and n: %w",
			m, k, kb, n, dst.Rows, dst.Cols, len(bias), ErrShape))
	}
	if overlaps(dst, a) || overlaps(dst, b) || overlaps(dst, vec(bias)) {
		panic(fmt.Errorf("compute: MulBiasTo: %w", ErrOverlap))
	}
	if m == 0 || n == 0 {
		return
	}
	// Only when MulSparseTo would be MulTo on the kernel: the sparse path
	// off, and the product one the kernel takes (asmGemm's conditions).
	if o, ok := Impl().(*openBLAS); ok && o.kern != nil && k > 0 && BiasFold.Load() && sparseKernel() == nil &&
		asmGemmBias(o.kern, transpose(transA), transpose(transB), m, n, k, 1, a.Data, ld(a), b.Data, ld(b), 0, dst.Data, ld(dst), bias) {
		return
	}
	for i := range m {
		copy(dst.RawRowView(i), bias)
	}
	MulSparseTo(dst, a, transA, b, transB, 1)
}

// BiasFold says whether MulBiasTo writes the bias into the kernel's panels
// as it forms them (else it fills dst in a pass of its own first); a knob
// for the benchmark that compares the two. The bits do not depend on it.
var BiasFold = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(true)
	return &on
}()

// MulVecTo computes
//
//	dst = alpha * op(a) * x + beta * dst
//
// where op(a) is a, or aᵀ when transA is true, and op(a) is m×n, so len(x)
// is n and len(dst) is m. When beta is 0, dst is overwritten. It panics,
// wrapping ErrShape, if the lengths do not fit, and wrapping ErrOverlap if
// dst shares memory with a or x. It does not allocate.
func MulVecTo(dst []float32, a Matrix, transA bool, x []float32, alpha, beta float32) {
	mulVecTo(Impl(), dst, a, transA, x, alpha, beta)
}

func mulVecTo(impl blas.Float32, dst []float32, a Matrix, transA bool, x []float32, alpha, beta float32) {
	m, n := opDims(a, transA)
	if len(x) != n || len(dst) != m {
		panic(fmt.Errorf("compute: MulVecTo: op(a) is %d×%d, len(x) is %d and len(dst) is %d, must be m×n, n and m: %w",
			m, n, len(x), len(dst), ErrShape))
	}
	if overlaps(vec(dst), a) || overlaps(vec(dst), vec(x)) {
		panic(fmt.Errorf("compute: MulVecTo: %w", ErrOverlap))
	}
	if m == 0 {
		return
	}
	if n == 0 {
		Scal(beta, dst)
		return
	}
	impl.Sgemv(transpose(transA), a.Rows, a.Cols, alpha, a.Data, ld(a), x, 1, beta, dst, 1)
}

// AddOuter computes the rank-one update
//
//	a = a + alpha * x * yᵀ
//
// where a is m×n, len(x) is m and len(y) is n. It panics, wrapping ErrShape,
// if the lengths do not fit.
func AddOuter(a Matrix, alpha float32, x, y []float32) {
	if len(x) != a.Rows || len(y) != a.Cols {
		panic(fmt.Errorf("compute: AddOuter: a is %d×%d, len(x) is %d and len(y) is %d, must be m×n, m and n: %w",
			a.Rows, a.Cols, len(x), len(y), ErrShape))
	}
	if a.Rows == 0 || a.Cols == 0 {
		return
	}
	Impl().Sger(a.Rows, a.Cols, alpha, x, 1, y, 1, a.Data, ld(a))
}

// AddScaled computes dst = dst + alpha * a element-wise. It panics, wrapping
// ErrShape, if the dimensions differ.
func AddScaled(dst Matrix, alpha float32, a Matrix) {
	checkSameDims("AddScaled", dst, a)
	if dst.IsContiguous() && a.IsContiguous() && dst.Rows > 0 {
		n := dst.Rows * dst.Cols
		Axpy(alpha, a.Data[:n], dst.Data[:n])
		return
	}
	for i := range dst.Rows {
		Axpy(alpha, a.RawRowView(i), dst.RawRowView(i))
	}
}

// Scale computes m = alpha * m element-wise; alpha = 0 sets m to zero, even
// where it held NaN.
func Scale(alpha float32, m Matrix) {
	if alpha == 0 {
		m.Zero()
		return
	}
	if m.IsContiguous() && m.Rows > 0 {
		Scal(alpha, m.Data[:m.Rows*m.Cols])
		return
	}
	for i := range m.Rows {
		Scal(alpha, m.RawRowView(i))
	}
}

// Axpy computes y = y + alpha * x. It panics, wrapping ErrShape, if the
// lengths differ.
func Axpy(alpha float32, x, y []float32) {
	checkLen("Axpy", x, y)
	if len(x) == 0 {
		return
	}
	Impl().Saxpy(len(x), alpha, x, 1, y, 1)
}

// Scal computes x = alpha * x; alpha = 0 sets x to zero, even where it held
// NaN.
func Scal(alpha float32, x []float32) {
	if alpha == 0 {
		clear(x)
		return
	}
	if len(x) == 0 {
		return
	}
	Impl().Sscal(len(x), alpha, x, 1)
}

// Dot returns Σ x[i]*y[i], accumulated in float32. It panics, wrapping
// ErrShape, if the lengths differ.
func Dot(x, y []float32) float32 {
	checkLen("Dot", x, y)
	if len(x) == 0 {
		return 0
	}
	return Impl().Sdot(len(x), x, 1, y, 1)
}

// Dot64 returns Σ x[i]*y[i] with products and sum in float64, for
// reductions that feed the accountant or metrics. It panics, wrapping
// ErrShape, if the lengths differ.
func Dot64(x, y []float32) float64 {
	checkLen("Dot64", x, y)
	if len(x) == 0 {
		return 0
	}
	return Impl().Dsdot(len(x), x, 1, y, 1)
}

// Nrm2 returns the Euclidean norm sqrt(Σ x[i]²) of x, computed without
// overflow or underflow.
func Nrm2(x []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	return Impl().Snrm2(len(x), x, 1)
}

func checkLen(fn string, x, y []float32) {
	if len(x) != len(y) {
		panic(fmt.Errorf("compute: %s: lengths are %d and %d, must be equal: %w", fn, len(x), len(y), ErrShape))
	}
}
