// Package compute provides float32 dense matrices and the products a neural
// network engine needs, computed through gonum's blas32 interface
// (gonum.org/v1/gonum/blas.Float32).
//
// A [Matrix] is row-major with a stride, so [Matrix.View] returns a
// sub-matrix that shares memory with its parent; products write into a
// destination the caller owns and never allocate:
//
//	dst = alpha * op(A) * op(B) + beta * dst   MulTo     (GEMM)
//	dst = op(A) * op(B) + 1 * biasᵀ            MulBiasTo (a dense layer)
//	y   = alpha * op(A) * x + beta * y         MulVecTo  (GEMV)
//	A   = A + alpha * x * yᵀ                   AddOuter  (GER)
//
// # Backends
//
// The first call to [Init] (or to any product) selects the BLAS backend
// once, from the environment variable DPSCOPE_BLAS:
//
//	auto      OpenBLAS when libopenblas.so.0 or libopenblas.so can be opened,
//	          gonum's pure-Go kernels otherwise (the default)
//	go        gonum's pure-Go kernels
//	openblas  OpenBLAS; Init returns an error wrapping ErrNoOpenBLAS when it
//	          cannot be opened
//
// OpenBLAS is opened with github.com/ebitengine/purego, without cgo, so the
// program also builds with CGO_ENABLED=0. Only Sgemm, Sgemv and Ssyrk go to OpenBLAS,
// and only above a size threshold (see [GemmThreshold]); every other routine
// is gonum's native one, which is faster for the vector sizes of this
// program because a call into C costs more than the work. OpenBLAS uses
// runtime.GOMAXPROCS(0) threads unless OPENBLAS_NUM_THREADS is set.
//
// # float64
//
// [Impl64] is the float64 side of the same backend: a blas.Float64 whose
// Dgemm and Dsyrk (above [DgemmThreshold]) and Dgemv (above
// [DgemvThreshold], only out-of-cache matrices) go to OpenBLAS's dgemm_,
// dsyrk_ and dgemv_, everything else to gonum. [UseOpenBLAS64] registers it as gonum's global blas64, which
// gonum/mat and gonum's LAPACK (SVD, EigenSym, QR) call; call it from a
// package init function or at the top of main (see its doc for why).
//
// # Operands with many zeros
//
// [MulSparseTo] and [MulSparseBTo] are MulTo (alpha 1) for products whose
// op(A), or op(B), is full of exact zeros, such as a ReLU layer's output or
// its masked gradient: when dpscope's AVX2 sgemm kernel takes the large
// products and the operand's density is at most [SparseMaxDensity] (with
// the AVX-512 kernel, [SparseMaxDensity512]), an AVX2 kernel forms the
// tiles from lists of each row's nonzeros, skipping the zero terms: one
// row by 64 columns (sparseKernelRow) when C is formed as it is stored,
// two rows by 32 for a C formed transposed (MulSparseBTo). The result is
// the dense kernels' to the bit for finite data (sparse.go says where a
// −0 can differ). The path is on by default with the AVX2 kernel only,
// and not on an AMD of family 19h (Zen 3, Zen 4), where the dense AVX2
// products are faster; DPSCOPE_SPARSE=off turns it off, =on on
// ([EnvSparse]).
//
// # Knobs of the kernels' path
//
// Each changes speed only, never a bit of a result, and is there for the
// benchmarks that time it on and off in one process (docs/PERFORMANCE.md):
// [AVX2Unroll] (on: the AVX2 dense kernel four k an iteration for the
// tiles whose A is read in place and B packed), [AVX2PackB] (on: the AVX2
// products pack B for those tiles even where B could be read in place),
// [SparsePairDisp] (on: the transposed pair kernel with
// base-plus-displacement operands),
// [DenseDealChunks] (0 = 32 chunks for the dense products' panel deal),
// [PackSplitPacked] (on: a product's packing halves cut among the panels
// to be packed) and [GatherSplit] (on only on AMD family 19h: [GatherRows]
// copies a batch's rows on two goroutines).
//
// # Two goroutines
//
// [Split] hands half of a job to one helper goroutine. After a half, the
// helper polls for the next for up to [SplitSpin] (1 ms by default,
// DPSCOPE_SPLIT_SPIN) before it parks, and a caller that finished its half
// first polls up to [SplitWaitSpin] (DPSCOPE_SPLIT_WAIT_SPIN) for the
// helper's: waking a parked goroutine cost tens of µs per hand-off. The
// pollers yield every 64 polls, so that another process may have the
// core; with [SplitGapBackoff] on (off by default) a poller that finds it
// was off its core stops polling for a while. [ParkedHandoffs] counts the
// halves handed to a parked helper. Nothing polls while SingleThreaded is
// in force. Instead of polling, the helper does the pieces of an
// [IdleWork] set by [SetIdleWork] (DP-SGD's next noise), one piece of a
// few µs at a time between halves.
//
// In builds with the race detector, the memory that OpenBLAS reads and writes
// is reported to the detector row by row, so data races through the C path are
// caught as they are through the Go path.
package compute
