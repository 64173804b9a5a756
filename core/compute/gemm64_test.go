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

// f64Eps is the unit roundoff of float64, 2⁻⁵³.
const f64Eps = 0x1p-53

// dense64 is a row-major r×c float64 matrix with a stride, for the float64
// tests.
type dense64 struct {
	r, c, stride int
	data         []float64
}

func (m dense64) at(t bool, i, j int) float64 {
	if t {
		return m.data[j*m.stride+i]
	}
	return m.data[i*m.stride+j]
}

// randDense64 returns an r×c matrix with stride c+pad whose padding holds
// NaN, so a read outside the matrix poisons the result.
func randDense64(rng *rand.Rand, r, c, pad int) dense64 {
	m := dense64{r: r, c: c, stride: c + pad, data: make([]float64, r*(c+pad))}
	for i := range m.data {
		if i%m.stride >= c {
			m.data[i] = math.NaN()
		} else {
			m.data[i] = rng.NormFloat64()
		}
	}
	return m
}

// twoSum and dot2 are the error-free transformations of Ogita, Rump & Oishi,
// "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005,
// https://doi.org/10.1137/030601818 (Algorithms 3.1 and 5.3, with math.FMA
// for TwoProduct): dot2 is as accurate as a dot product computed in twice
// the working precision and then rounded.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	z := s - a
	return s, (a - (s - z)) + (b - z)
}

// refGemm64 returns alpha*op(a)*op(b) + beta*c, each element computed with
// dot2 over the k products and the beta term, and the bound
// |alpha|·Σ_l |op(a)_il||op(b)_lj| + |beta||c_ij| that scales the rounding
// error of a float64 kernel.
func refGemm64(a dense64, ta bool, b dense64, tb bool, c dense64, m, n, k int, alpha, beta float64) (want, scale []float64) {
	want, scale = make([]float64, m*n), make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s, e, sa float64
			add := func(x, y float64) {
				p := x * y
				pe := math.FMA(x, y, -p)
				var q float64
				s, q = twoSum(s, p)
				e += q + pe
				sa += math.Abs(p)
			}
			for l := range k {
				add(alpha*a.at(ta, i, l), b.at(tb, l, j))
			}
			if beta != 0 {
				add(beta, c.data[i*c.stride+j])
			}
			want[i*n+j] = s + e
			scale[i*n+j] = sa
		}
	}
	return want, scale
}

// gemmTol64 bounds the error of a float64 GEMM element against the dot2
// reference: (k+2)·u·scale for the kernel (Higham, Accuracy and Stability of
// Numerical Algorithms, 2002, eq. 3.5, as gemmTol), plus 2·u·scale for the
// reference's rounding of alpha·a_il and of its final sum.
func gemmTol64(k int, scale float64) float64 {
	return float64(k+4) * f64Eps * scale * (1 + 1e-6)
}

// forEachBackend64 runs f on gonum's float64 kernels and on OpenBLAS with no
// size threshold (skipping or failing as requireOpenBLAS says).
func forEachBackend64(t *testing.T, f func(t *testing.T, impl blas.Float64)) {
	t.Helper()
	t.Run(NameGonum, func(t *testing.T) { f(t, gonum.Implementation{}) })
	t.Run(NameOpenBLAS, func(t *testing.T) {
		lib := requireOpenBLAS(t)
		lib.minDgemm, lib.minDgemv = 0, 0
		f(t, lib)
	})
}

func dgemm(impl blas.Float64, c dense64, a dense64, ta bool, b dense64, tb bool, m, n, k int, alpha, beta float64) {
	impl.Dgemm(transpose(ta), transpose(tb), m, n, k, alpha, a.data, max(a.stride, 1), b.data, max(b.stride, 1), beta, c.data, max(c.stride, 1))
}

func TestDgemmMatchesReference(t *testing.T) {
	shapes := []struct{ m, n, k int }{
		{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {40, 24, 80}, {1, 100, 50}, {100, 1, 50}, {70, 30, 1}, {24, 16, 300},
	}
	scalars := []struct{ alpha, beta float64 }{{1, 0}, {0.5, 2}, {-1.5, 1}, {0, 0.5}}
	forEachBackend64(t, func(t *testing.T, impl blas.Float64) {
		rng := rand.New(rand.NewPCG(21, 22))
		for _, s := range shapes {
			for _, sc := range scalars {
				for _, ta := range []bool{false, true} {
					for _, tb := range []bool{false, true} {
						for _, pad := range []int{0, 3} {
							desc := fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/alpha=%v/beta=%v/pad=%d", s.m, s.n, s.k, ta, tb, sc.alpha, sc.beta, pad)
							t.Run(desc, func(t *testing.T) {
								checkDgemm(t, impl, rng, s.m, s.n, s.k, pad, ta, tb, sc.alpha, sc.beta)
							})
						}
					}
				}
			}
		}
	})
}

// checkDgemm runs one Dgemm on impl and compares every element with the
// dot2 reference within gemmTol64, and checks that the padding of C is
// untouched.
func checkDgemm(t *testing.T, impl blas.Float64, rng *rand.Rand, m, n, k, pad int, ta, tb bool, alpha, beta float64) {
	t.Helper()
	ar, ac, br, bc := operandShapes(m, n, k, ta, tb)
	a, b, c := randDense64(rng, ar, ac, pad), randDense64(rng, br, bc, pad), randDense64(rng, m, n, pad)
	if beta == 0 {
		// beta = 0 must overwrite, not multiply, what C held.
		for i := range m {
			for j := range n {
				c.data[i*c.stride+j] = math.NaN()
			}
		}
	}
	want, scale := refGemm64(a, ta, b, tb, c, m, n, k, alpha, beta)
	dgemm(impl, c, a, ta, b, tb, m, n, k, alpha, beta)
	for i := range m {
		for j := range n {
			got := c.data[i*c.stride+j]
			if tol := gemmTol64(k, scale[i*n+j]); !(math.Abs(got-want[i*n+j]) <= tol) {
				t.Fatalf("Dgemm(%d×%d×%d, ta=%v, tb=%v, alpha=%v, beta=%v)[%d,%d] = %v, want %v ± %.3g",
					m, n, k, ta, tb, alpha, beta, i, j, got, want[i*n+j], tol)
			}
		}
		for j := n; j < c.stride; j++ {
			if v := c.data[i*c.stride+j]; !math.IsNaN(v) {
				t.Fatalf("Dgemm wrote %v into padding at row %d, column %d, want NaN left alone", v, i, j)
			}
		}
	}
}

func TestDgemvMatchesReference(t *testing.T) {
	forEachBackend64(t, func(t *testing.T, impl blas.Float64) {
		rng := rand.New(rand.NewPCG(23, 24))
		for _, tc := range []struct {
			m, n        int
			alpha, beta float64
			incX, incY  int
		}{
			{1, 1, 1, 0, 1, 1}, {7, 3, 2, 0.5, 1, 1}, {64, 200, -1, 1, 2, 1}, {200, 64, 0.25, 0, 1, 3},
			{33, 1, 1, -2, -1, 1}, {1, 33, 0, 3, 1, -2}, {50, 40, 1.5, 0.5, -3, -1},
		} {
			for _, ta := range []bool{false, true} {
				for _, pad := range []int{0, 4} {
					t.Run(fmt.Sprintf("%dx%d/ta=%v/alpha=%v/beta=%v/inc=%d,%d/pad=%d", tc.m, tc.n, ta, tc.alpha, tc.beta, tc.incX, tc.incY, pad), func(t *testing.T) {
						checkDgemv(t, impl, rng, tc.m, tc.n, ta, tc.alpha, tc.beta, tc.incX, tc.incY, pad)
					})
				}
			}
		}
	})
}

// checkDgemv runs one Dgemv and compares it with the dot2 reference, the
// vectors read and written with BLAS's increments (element i of a vector of
// length n with increment inc < 0 is at (n−1−i)·|inc|).
func checkDgemv(t *testing.T, impl blas.Float64, rng *rand.Rand, m, n int, ta bool, alpha, beta float64, incX, incY, pad int) {
	t.Helper()
	a := randDense64(rng, m, n, pad)
	lenX, lenY := n, m
	if ta {
		lenX, lenY = m, n
	}
	pos := func(i, n, inc int) int {
		if inc < 0 {
			return (n - 1 - i) * -inc
		}
		return i * inc
	}
	x := randDense64(rng, 1, (lenX-1)*max(incX, -incX)+1, 0).data
	y := randDense64(rng, 1, (lenY-1)*max(incY, -incY)+1, 0).data
	xm, ym := dense64{r: lenX, c: 1, stride: 1, data: make([]float64, lenX)}, dense64{r: lenY, c: 1, stride: 1, data: make([]float64, lenY)}
	for i := range lenX {
		xm.data[i] = x[pos(i, lenX, incX)]
	}
	for i := range lenY {
		if beta == 0 {
			y[pos(i, lenY, incY)] = math.NaN()
		}
		ym.data[i] = y[pos(i, lenY, incY)]
	}
	want, scale := refGemm64(a, ta, xm, false, ym, lenY, 1, lenX, alpha, beta)
	impl.Dgemv(transpose(ta), m, n, alpha, a.data, a.stride, x, incX, beta, y, incY)
	for i := range lenY {
		got := y[pos(i, lenY, incY)]
		if tol := gemmTol64(lenX, scale[i]); !(math.Abs(got-want[i]) <= tol) {
			t.Fatalf("Dgemv(%d×%d, ta=%v)[%d] = %v, want %v ± %.3g", m, n, ta, i, got, want[i], tol)
		}
	}
}

// TestDgemmBackendsAgree multiplies strided views of larger matrices on both
// backends, at the shapes of the PCA products, within twice gemmTol64.
func TestDgemmBackendsAgree(t *testing.T) {
	lib := requireOpenBLAS(t)
	lib.minDgemm = 0
	rng := rand.New(rand.NewPCG(25, 26))
	for _, tc := range []struct {
		desc    string
		m, n, k int
		ta, tb  bool
	}{
		{desc: "X·V 300x60x257", m: 300, n: 60, k: 257},
		{desc: "Xᵀ·Y 257x60x300", m: 257, n: 60, k: 300, ta: true},
		{desc: "Gram 64x64x500", m: 64, n: 64, k: 500, ta: true},
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
			whole := randDense64(rng, ar+2, ac+5, 0)
			a := dense64{r: ar, c: ac, stride: whole.stride, data: whole.data[1*whole.stride+2:]}
			b := randDense64(rng, br, bc, 1)
			c0 := randDense64(rng, tc.m, tc.n, 2)
			cGo := dense64{r: c0.r, c: c0.c, stride: c0.stride, data: append([]float64(nil), c0.data...)}
			cBLAS := dense64{r: c0.r, c: c0.c, stride: c0.stride, data: append([]float64(nil), c0.data...)}
			dgemm(gonum.Implementation{}, cGo, a, tc.ta, b, tc.tb, tc.m, tc.n, tc.k, 0.75, -0.5)
			dgemm(lib, cBLAS, a, tc.ta, b, tc.tb, tc.m, tc.n, tc.k, 0.75, -0.5)
			_, scale := refGemm64(a, tc.ta, b, tc.tb, c0, tc.m, tc.n, tc.k, 0.75, -0.5)
			for i := range tc.m {
				for j := range tc.n {
					g, o := cGo.data[i*c0.stride+j], cBLAS.data[i*c0.stride+j]
					if tol := 2 * gemmTol64(tc.k, scale[i*tc.n+j]); !(math.Abs(g-o) <= tol) {
						t.Fatalf("openblas Dgemm[%d,%d] = %v, want gonum's %v ± %.3g", i, j, o, g, tol)
					}
				}
			}
		})
	}
}

// TestDgemmConcurrent multiplies into disjoint column blocks of one matrix
// from several goroutines; with -race it checks that the race annotations of
// the C path do not report disjoint blocks.
func TestDgemmConcurrent(t *testing.T) {
	forEachBackend64(t, func(t *testing.T, impl blas.Float64) {
		const workers, m, n, k = 4, 64, 48, 200
		rng := rand.New(rand.NewPCG(27, 28))
		a, b := randDense64(rng, m, k, 0), randDense64(rng, k, n*workers, 0)
		shared := dense64{r: m, c: n * workers, stride: n * workers, data: make([]float64, m*n*workers)}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				bw := dense64{r: k, c: n, stride: b.stride, data: b.data[w*n:]}
				cw := dense64{r: m, c: n, stride: shared.stride, data: shared.data[w*n:]}
				for range 5 {
					dgemm(impl, cw, a, false, bw, false, m, n, k, 1, 0)
				}
			})
		}
		wg.Wait()
		want, scale := refGemm64(a, false, b, false, shared, m, n*workers, k, 1, 0)
		for i, v := range shared.data {
			if tol := gemmTol64(k, scale[i]); !(math.Abs(v-want[i]) <= tol) {
				t.Fatalf("concurrent Dgemm element %d = %v, want %v ± %.3g", i, v, want[i], tol)
			}
		}
	})
}

func TestDgemmDoesNotAllocate(t *testing.T) {
	forEachBackend64(t, func(t *testing.T, impl blas.Float64) {
		rng := rand.New(rand.NewPCG(29, 30))
		a, b, c := randDense64(rng, 8, 8, 0), randDense64(rng, 8, 8, 0), randDense64(rng, 8, 8, 0)
		x, y := make([]float64, 8), make([]float64, 8)
		dgemm(impl, c, a, false, b, true, 8, 8, 8, 1, 0) // warm the pool
		if got := testing.AllocsPerRun(50, func() { dgemm(impl, c, a, false, b, true, 8, 8, 8, 1, 0) }); got != 0 {
			t.Errorf("AllocsPerRun(Dgemm) = %v, want 0", got)
		}
		if got := testing.AllocsPerRun(50, func() { impl.Dgemv(blas.Trans, 8, 8, 1, a.data, 8, x, 1, 0, y, 1) }); got != 0 {
			t.Errorf("AllocsPerRun(Dgemv) = %v, want 0", got)
		}
	})
}
