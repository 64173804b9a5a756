package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// checkMul runs mulTo on impl for one case and compares every element of dst
// with a float64 reference within gemmTol, and checks that the padding of
// dst is untouched.
func checkMul(t *testing.T, impl blas.Float32, rng *rand.Rand, m, n, k, pad int, ta, tb bool, alpha, beta float32) {
	t.Helper()
	checkProduct(t, "MulTo", rng, m, n, k, pad, ta, tb, alpha, beta, func(dst, a, b Matrix) {
		mulTo(impl, dst, a, ta, b, tb, alpha, beta)
	})
}

// checkProduct draws one case of dst = alpha·op(a)·op(b) + beta·dst, runs
// mul on it and compares every element of dst with a float64 reference
// within gemmTol, and checks that the padding of dst is untouched: the one
// check every float32 product path (mulTo's backends, the asm kernels)
// goes through.
func checkProduct(t *testing.T, name string, rng *rand.Rand, m, n, k, pad int, ta, tb bool, alpha, beta float32, mul func(dst, a, b Matrix)) {
	t.Helper()
	a, b := randOperands(rng, m, n, k, pad, ta, tb)
	dst := randMatrix(rng, m, n, pad)
	if beta == 0 {
		// beta = 0 must overwrite, not multiply, what dst held.
		dst.Fill(float32(math.NaN()))
	}
	want, scale := refMul(a, ta, b, tb, dst, alpha, beta)
	mul(dst, a, b)
	for i := range m {
		for j := range n {
			got := float64(dst.At(i, j))
			if tol := gemmTol(k, scale[i][j]); !(math.Abs(got-want[i][j]) <= tol) {
				t.Fatalf("%s(%d×%d×%d, ta=%v, tb=%v, alpha=%v, beta=%v)[%d,%d] = %v, want %v ± %.3g",
					name, m, n, k, ta, tb, alpha, beta, i, j, got, want[i][j], tol)
			}
		}
		for j := n; j < dst.Stride && i*dst.Stride+j < len(dst.Data); j++ {
			if v := dst.Data[i*dst.Stride+j]; !math.IsNaN(float64(v)) {
				t.Fatalf("%s wrote %v into padding at row %d, column %d, want NaN left alone", name, v, i, j)
			}
		}
	}
}

func TestMulToMatchesFloat64Reference(t *testing.T) {
	shapes := []struct{ m, n, k int }{
		{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {40, 24, 80}, {1, 100, 50}, {100, 1, 50}, {70, 30, 1}, {24, 16, 300}, {65, 70, 90},
		{2050, 60, 7}, {22, 60, 2100}, {11, 2100, 50}, // above AsmGemmMin and the kernel's piece sizes
	}
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {0.5, 2}, {-1.5, 1}, {0, 0.5}}
	forEachBackend(t, func(t *testing.T, impl blas.Float32) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, s := range shapes {
			for _, sc := range scalars {
				for _, ta := range []bool{false, true} {
					for _, tb := range []bool{false, true} {
						for _, pad := range []int{0, 3} {
							desc := fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/alpha=%v/beta=%v/pad=%d", s.m, s.n, s.k, ta, tb, sc.alpha, sc.beta, pad)
							t.Run(desc, func(t *testing.T) {
								checkMul(t, impl, rng, s.m, s.n, s.k, pad, ta, tb, sc.alpha, sc.beta)
							})
						}
					}
				}
			}
		}
	})
}

// TestMulToBackendsAgree runs the same products on both backends and
// compares them element by element. Each is within gemmTol of the exact
// result, so they are within twice that of each other.
func TestMulToBackendsAgree(t *testing.T) {
	lib := requireOpenBLAS(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		desc    string
		m, n, k int
		ta, tb  bool
	}{
		{desc: "layer forward 64x96x300", m: 64, n: 96, k: 300, tb: true},
		{desc: "weight gradient 300x96x64", m: 300, n: 96, k: 64, ta: true},
		{desc: "input gradient 64x300x96", m: 64, n: 300, k: 96},
		{desc: "both transposed 33x65x129", m: 33, n: 65, k: 129, ta: true, tb: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			ar, ac := tc.m, tc.k
			if tc.ta {
				ar, ac = tc.k, tc.m
			}
			br, bc := tc.k, tc.n
			if tc.tb {
				br, bc = tc.n, tc.k
			}
			whole := randMatrix(rng, ar+2, ac+5, 0)
			a := whole.View(1, 2, ar, ac) // a strided view
			b := randMatrix(rng, br, bc, 1)
			c0 := randMatrix(rng, tc.m, tc.n, 2)
			cGo, cBLAS := c0.Clone(), c0.Clone()
			mulTo(gonum.Implementation{}, cGo, a, tc.ta, b, tc.tb, 0.75, -0.5)
			mulTo(lib, cBLAS, a, tc.ta, b, tc.tb, 0.75, -0.5)
			_, scale := refMul(a, tc.ta, b, tc.tb, c0, 0.75, -0.5)
			for i := range tc.m {
				for j := range tc.n {
					g, o := float64(cGo.At(i, j)), float64(cBLAS.At(i, j))
					if tol := 2 * gemmTol(tc.k, scale[i][j]); !(math.Abs(g-o) <= tol) {
						t.Fatalf("openblas MulTo[%d,%d] = %v, want gonum's %v ± %.3g", i, j, o, g, tol)
					}
				}
			}
		})
	}
}

func TestMulVecToMatchesFloat64Reference(t *testing.T) {
	forEachBackend(t, func(t *testing.T, impl blas.Float32) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, tc := range []struct {
			m, n        int
			alpha, beta float32
		}{
			{1, 1, 1, 0}, {7, 3, 2, 0.5}, {64, 200, -1, 1}, {200, 64, 0.25, 0}, {33, 1, 1, -2}, {1, 33, 0, 3},
		} {
			for _, ta := range []bool{false, true} {
				for _, pad := range []int{0, 4} {
					t.Run(fmt.Sprintf("%dx%d/ta=%v/alpha=%v/beta=%v/pad=%d", tc.m, tc.n, ta, tc.alpha, tc.beta, pad), func(t *testing.T) {
						a := randMatrix(rng, tc.m, tc.n, pad)
						rows, cols := opDims(a, ta)
						x := randMatrix(rng, 1, cols, 0).Data
						y := randMatrix(rng, 1, rows, 0)
						if tc.beta == 0 {
							y.Fill(float32(math.NaN()))
						}
						// As a product with the n×1 matrix x.
						want, scale := refMul(a, ta, NewMatrix(cols, 1, x), false, NewMatrix(rows, 1, y.Data), tc.alpha, tc.beta)
						mulVecTo(impl, y.Data, a, ta, x, tc.alpha, tc.beta)
						for i := range rows {
							got := float64(y.Data[i])
							if tol := gemmTol(cols, scale[i][0]); !(math.Abs(got-want[i][0]) <= tol) {
								t.Fatalf("MulVecTo(...)[%d] = %v, want %v ± %.3g", i, got, want[i][0], tol)
							}
						}
					})
				}
			}
		}
	})
}

// TestMulToConcurrent multiplies from several goroutines at once, into
// separate matrices and into disjoint column blocks of one matrix; with -race
// it also checks that the race annotations of the C path do not report
// disjoint blocks.
func TestMulToConcurrent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, impl blas.Float32) {
		const workers, m, n, k = 4, 64, 48, 200
		rng := rand.New(rand.NewPCG(7, 8))
		a := randMatrix(rng, m, k, 0)
		b := randMatrix(rng, k, n*workers, 0)
		shared := NewMatrix(m, n*workers, nil)
		want := NewMatrix(m, n*workers, nil)
		mulTo(gonum.Implementation{}, want, a, false, b, false, 1, 0)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for range 5 {
					mulTo(impl, shared.View(0, w*n, m, n), a, false, b.View(0, w*n, k, n), false, 1, 0)
				}
			})
		}
		wg.Wait()
		_, scale := refMul(a, false, b, false, want, 1, 0)
		for i := range m {
			for j := range n * workers {
				if tol := 2 * gemmTol(k, scale[i][j]); !(math.Abs(float64(shared.At(i, j)-want.At(i, j))) <= tol) {
					t.Fatalf("concurrent MulTo[%d,%d] = %v, want %v ± %.3g", i, j, shared.At(i, j), want.At(i, j), tol)
				}
			}
		}
	})
}

func TestMulToDoesNotAllocate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, impl blas.Float32) {
		rng := rand.New(rand.NewPCG(9, 10))
		// Small enough that gonum's Sgemm stays on one goroutine; its
		// parallel path allocates for its workers.
		a, b, c := randMatrix(rng, 8, 8, 0), randMatrix(rng, 8, 8, 0), randMatrix(rng, 8, 8, 0)
		x, y := make([]float32, 8), make([]float32, 8)
		mulTo(impl, c, a, false, b, true, 1, 0) // warm the pool
		if got := testing.AllocsPerRun(50, func() { mulTo(impl, c, a, false, b, true, 1, 0) }); got != 0 {
			t.Errorf("AllocsPerRun(MulTo) = %v, want 0", got)
		}
		if got := testing.AllocsPerRun(50, func() { mulVecTo(impl, y, a, true, x, 1, 0) }); got != 0 {
			t.Errorf("AllocsPerRun(MulVecTo) = %v, want 0", got)
		}
	})
}
