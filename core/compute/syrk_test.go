package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestDsyrkMatchesReference checks C = alpha·op(A)·op(A)ᵀ + beta·C on the
// chosen triangle against the dot2 reference within gemmTol64, and that the
// other triangle and the padding (NaN) are left alone.
func TestDsyrkMatchesReference(t *testing.T) {
	forEachBackend64(t, func(t *testing.T, impl blas.Float64) {
		rng := rand.New(rand.NewPCG(33, 34))
		for _, s := range []struct{ n, k int }{{1, 1}, {5, 3}, {17, 40}, {40, 17}, {64, 200}} {
			for _, sc := range []struct{ alpha, beta float64 }{{1, 0}, {0.5, 2}, {-1.5, 1}, {0, 0.5}} {
				for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
					for _, trans := range []bool{false, true} {
						for _, pad := range []int{0, 3} {
							desc := fmt.Sprintf("n=%d/k=%d/ul=%c/trans=%v/alpha=%v/beta=%v/pad=%d", s.n, s.k, ul, trans, sc.alpha, sc.beta, pad)
							t.Run(desc, func(t *testing.T) { checkDsyrk(t, impl, rng, s.n, s.k, ul, trans, sc.alpha, sc.beta, pad) })
						}
					}
				}
			}
		}
	})
}

func checkDsyrk(t *testing.T, impl blas.Float64, rng *rand.Rand, n, k int, ul blas.Uplo, trans bool, alpha, beta float64, pad int) {
	t.Helper()
	ar, ac := n, k
	if trans {
		ar, ac = k, n
	}
	a := randDense64(rng, ar, ac, pad)
	c := randDense64(rng, n, n, pad)
	inTri := func(i, j int) bool { return (ul == blas.Upper) == (j >= i) || i == j }
	// With beta = 0 the triangle's old values must not matter. They are
	// finite (1e300) rather than NaN: gonum v0.17.0's Dsyrk multiplies them
	// by beta instead of overwriting them for ul Lower, tA Trans, so NaN
	// would survive there.
	for i := range n {
		for j := range n {
			switch {
			case !inTri(i, j):
				c.data[i*c.stride+j] = math.NaN()
			case beta == 0:
				c.data[i*c.stride+j] = 1e300
			}
		}
	}
	want, scale := refGemm64(a, trans, a, !trans, c, n, n, k, alpha, beta)
	impl.Dsyrk(ul, transpose(trans), n, k, alpha, a.data, a.stride, beta, c.data, c.stride)
	for i := range n {
		for j := range c.stride {
			got := c.data[i*c.stride+j]
			if j >= n || !inTri(i, j) {
				if !math.IsNaN(got) {
					t.Fatalf("Dsyrk wrote %v at [%d,%d] outside the %c triangle, want NaN left alone", got, i, j, ul)
				}
				continue
			}
			if tol := gemmTol64(k, scale[i*n+j]); !(math.Abs(got-want[i*n+j]) <= tol) {
				t.Fatalf("Dsyrk(n=%d, k=%d)[%d,%d] = %v, want %v ± %.3g", n, k, i, j, got, want[i*n+j], tol)
			}
		}
	}
}

// TestSsyrkMatchesReference is TestDsyrkMatchesReference for Ssyrk, against
// the float64 reference within gemmTol.
func TestSsyrkMatchesReference(t *testing.T) {
	forEachBackend(t, func(t *testing.T, impl blas.Float32) {
		rng := rand.New(rand.NewPCG(35, 36))
		for _, s := range []struct{ n, k int }{{1, 1}, {5, 3}, {17, 40}, {40, 17}, {100, 300}} {
			for _, sc := range []struct{ alpha, beta float32 }{{1, 0}, {0.5, 2}, {-1.5, 1}} {
				for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
					for _, trans := range []bool{false, true} {
						ar, ac := s.n, s.k
						if trans {
							ar, ac = s.k, s.n
						}
						a := randMatrix(rng, ar, ac, 3)
						c := randMatrix(rng, s.n, s.n, 2)
						want, scale := refMul(a, trans, a, !trans, c, sc.alpha, sc.beta)
						inTri := func(i, j int) bool { return (ul == blas.Upper) == (j >= i) || i == j }
						for i := range s.n {
							for j := range s.n {
								if !inTri(i, j) {
									c.Data[i*c.Stride+j] = float32(math.NaN())
								}
							}
						}
						impl.Ssyrk(ul, transpose(trans), s.n, s.k, sc.alpha, a.Data, a.Stride, sc.beta, c.Data, c.Stride)
						for i := range s.n {
							for j := range s.n {
								got := float64(c.Data[i*c.Stride+j])
								if !inTri(i, j) {
									if !math.IsNaN(got) {
										t.Fatalf("n=%d k=%d ul=%c trans=%v: wrote %v at [%d,%d] outside the triangle", s.n, s.k, ul, trans, got, i, j)
									}
									continue
								}
								if tol := gemmTol(s.k, scale[i][j]); !(math.Abs(got-want[i][j]) <= tol) {
									t.Fatalf("n=%d k=%d ul=%c trans=%v alpha=%v beta=%v: [%d,%d] = %v, want %v ± %.3g", s.n, s.k, ul, trans, sc.alpha, sc.beta, i, j, got, want[i][j], tol)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestSingleThreaded checks that SingleThreaded sets OpenBLAS to one thread
// and that its restore function puts the previous count back, also when
// calls nest.
func TestSingleThreaded(t *testing.T) {
	if _, err := Init(); err != nil || selected.lib == nil {
		t.Skip("the selected backend is not OpenBLAS")
	}
	before := selected.lib.threads()
	defer func() { _ = SetThreads(before) }()
	_ = SetThreads(2)
	restore := SingleThreaded()
	if n := selected.lib.threads(); n != 1 {
		t.Fatalf("threads = %d inside SingleThreaded, want 1", n)
	}
	inner := SingleThreaded()
	inner()
	if n := selected.lib.threads(); n != 1 {
		t.Fatalf("threads = %d after a nested restore, want 1", n)
	}
	if asmSingle.Load() != 1 {
		t.Fatalf("asmSingle = %d inside one SingleThreaded, want 1", asmSingle.Load())
	}
	restore()
	restore() // a second call changes nothing
	if n := selected.lib.threads(); n != 2 {
		t.Fatalf("threads = %d after restore, want 2", n)
	}
	if asmSingle.Load() != 0 {
		t.Fatalf("asmSingle = %d after restore, want 0", asmSingle.Load())
	}
}
