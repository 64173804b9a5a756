//go:build linux

package compute

import (
	"testing"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkCallOverhead times a 1×1×1 Sgemm, which is nearly all call cost:
// gonum's Go kernel, OpenBLAS's sgemm_ through purego.SyscallN with pooled
// arguments (what openBLAS does), and OpenBLAS's cblas_sgemm through a
// function made by purego.RegisterLibFunc (reflection, allocates).
func BenchmarkCallOverhead(b *testing.B) {
	lib := requireOpenBLAS(b)
	a, bm, c := []float32{2}, []float32{3}, []float32{0}
	b.Run("gonum", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, 1, 1, 1, 1, a, 1, bm, 1, 0, c, 1)
		}
	})
	b.Run("openblas-syscalln", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lib.Sgemm(blas.NoTrans, blas.NoTrans, 1, 1, 1, 1, a, 1, bm, 1, 0, c, 1)
		}
	})
	b.Run("openblas-registerfunc", func(b *testing.B) {
		h, err := purego.Dlopen(OpenBLASNames[0], purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			b.Skipf("Dlopen(%s): %v", OpenBLASNames[0], err)
		}
		var cblasSgemm func(order, ta, tb, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
		purego.RegisterLibFunc(&cblasSgemm, h, "cblas_sgemm")
		const rowMajor, noTrans = 101, 111
		b.ReportAllocs()
		for b.Loop() {
			cblasSgemm(rowMajor, noTrans, noTrans, 1, 1, 1, 1, &a[0], 1, &bm[0], 1, 0, &c[0], 1)
		}
		if c[0] != 6 {
			b.Fatalf("cblas_sgemm(2·3) = %v, want 6", c[0])
		}
	})
}
