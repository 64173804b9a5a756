package compute

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// Impl64 returns the blas.Float64 implementation of the backend chosen by
// Init, calling Init if needed: with OpenBLAS, Dgemm and Dsyrk above
// DgemmThreshold and Dgemv above DgemvThreshold go to OpenBLAS's dgemm_,
// dsyrk_ and dgemv_, and every other routine is gonum's; otherwise, and after an Init error, it is
// gonum's native implementation. Both are safe for concurrent use.
func Impl64() blas.Float64 {
	selectOnce()
	if selected.err != nil || selected.lib == nil {
		return gonum.Implementation{}
	}
	return selected.lib
}

var global64 sync.Once

// UseOpenBLAS64 makes gonum's package-level float64 BLAS (blas64, used by
// gonum/mat and by gonum's LAPACK, so by mat.SVD, mat.EigenSym and every
// blas64.Gemm) the implementation Impl64 returns, so that float64 products
// follow DPSCOPE_BLAS like float32 ones. Only its first call acts; later
// calls do nothing, so every package that needs it may call it.
//
// When it is safe: blas64.Use writes a package variable of gonum that
// gonum reads without synchronisation. Call UseOpenBLAS64 from a package
// init function (as core/cluster does) or at the top of main, before any
// goroutine uses gonum: init functions run one at a time in a single
// goroutine before main. Its first call must not run concurrently with
// gonum code in another goroutine, and nothing else in the program may call
// blas64.Use.
func UseOpenBLAS64() {
	global64.Do(func() { blas64.Use(Impl64()) })
}
