package compute

import (
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// EnvRequireOpenBLAS, set to 1 (as CI does), turns the skip of OpenBLAS
// tests on a machine without the library into a failure.
const envRequireOpenBLAS = "DPSCOPE_REQUIRE_OPENBLAS"

// f32Eps is the unit roundoff of float32, 2⁻²⁴.
const f32Eps = 1.0 / (1 << 24)

var testLib struct {
	once sync.Once
	lib  *openBLAS
	err  error
}

// requireOpenBLAS returns an OpenBLAS backend that sends every product to C
// (no size threshold), or skips the test with the reason, or fails it when
// DPSCOPE_REQUIRE_OPENBLAS=1.
func requireOpenBLAS(tb testing.TB) *openBLAS {
	tb.Helper()
	testLib.once.Do(func() {
		testLib.lib, testLib.err = loadOpenBLAS(OpenBLASNames)
		if testLib.err == nil {
			testLib.lib.setThreads(defaultThreads())
		}
	})
	if testLib.err != nil {
		if os.Getenv(envRequireOpenBLAS) == "1" {
			tb.Fatalf("OpenBLAS required (%s=1) but not loaded: %v", envRequireOpenBLAS, testLib.err)
		}
		tb.Skipf("OpenBLAS not loaded (install libopenblas0; set %s=1 to fail instead): %v", envRequireOpenBLAS, testLib.err)
	}
	lib := *testLib.lib
	lib.minGemm, lib.minGemv = 0, 0
	return &lib
}

// forEachBackend runs f, in one subtest each, on gonum's native
// implementation and on OpenBLAS with no size threshold; the OpenBLAS subtest
// skips or fails as requireOpenBLAS says.
func forEachBackend(t *testing.T, f func(t *testing.T, impl blas.Float32)) {
	t.Helper()
	t.Run(NameGonum, func(t *testing.T) { f(t, gonum.Implementation{}) })
	t.Run(NameOpenBLAS, func(t *testing.T) { f(t, requireOpenBLAS(t)) })
	// OpenBLAS with every product from AsmGemmMin on each kernel the CPU
	// runs.
	for _, k := range testKernels() {
		t.Run(NameOpenBLAS+"+"+k.name, func(t *testing.T) {
			lib := requireOpenBLAS(t)
			lib.kern = k
			f(t, lib)
		})
	}
}

// randOperands returns random A and B for the product op(A)·op(B) of
// m×n×k (op transposes when tA or tB is set), stored as randMatrix stores
// them: A is k×m when transposed, else m×k; B is n×k when transposed,
// else k×n.
func randOperands(rng *rand.Rand, m, n, k, pad int, tA, tB bool) (a, b Matrix) {
	ar, ac, br, bc := operandShapes(m, n, k, tA, tB)
	return randMatrix(rng, ar, ac, pad), randMatrix(rng, br, bc, pad)
}

// operandShapes returns the stored shapes of A (ar × ac) and B (br × bc)
// for op(A)·op(B) of m×n×k: A is k×m when transposed, else m×k; B is n×k
// when transposed, else k×n.
func operandShapes(m, n, k int, tA, tB bool) (ar, ac, br, bc int) {
	ar, ac, br, bc = m, k, k, n
	if tA {
		ar, ac = k, m
	}
	if tB {
		br, bc = n, k
	}
	return ar, ac, br, bc
}

// randMatrix returns an r×c view with stride c+pad into a fresh slice whose
// padding holds NaN, so a read outside the view poisons the result.
func randMatrix(rng *rand.Rand, r, c, pad int) Matrix {
	stride := c + pad
	data := make([]float32, r*stride)
	for i := range data {
		if i%stride >= c {
			data[i] = float32(math.NaN())
		} else {
			data[i] = float32(rng.NormFloat64())
		}
	}
	return Matrix{Rows: r, Cols: c, Stride: stride, Data: data}
}

// at64 returns element (i, j) of op(m) as float64.
func at64(m Matrix, t bool, i, j int) float64 {
	if t {
		return float64(m.Data[j*m.Stride+i])
	}
	return float64(m.Data[i*m.Stride+j])
}

// refMul returns alpha*op(a)*op(b) + beta*c in float64, and for each element
// the bound |alpha|*Σ_l |op(a)_il||op(b)_lj| + |beta||c_ij| that scales its
// rounding error.
func refMul(a Matrix, ta bool, b Matrix, tb bool, c Matrix, alpha, beta float32) (want, scale [][]float64) {
	m, k := opDims(a, ta)
	_, n := opDims(b, tb)
	want = make([][]float64, m)
	scale = make([][]float64, m)
	for i := range m {
		want[i] = make([]float64, n)
		scale[i] = make([]float64, n)
		for j := range n {
			var s, sa float64
			for l := range k {
				p := at64(a, ta, i, l) * at64(b, tb, l, j)
				s += p
				sa += math.Abs(p)
			}
			want[i][j] = float64(alpha) * s
			scale[i][j] = math.Abs(float64(alpha)) * sa
			if beta != 0 {
				cij := float64(c.Data[i*c.Stride+j])
				want[i][j] += float64(beta) * cij
				scale[i][j] += math.Abs(float64(beta) * cij)
			}
		}
	}
	return want, scale
}

// gemmTol is the rounding-error bound of one float32 dot product of length
// k with its scaling and update: (k+2)·u·scale, u = 2⁻²⁴. Higham, Accuracy
// and Stability of Numerical Algorithms (2002), eq. 3.5 and §3.5, bounds the
// error of a recursively summed dot product by γ_k Σ|x_i y_i| with
// γ_k = k·u/(1-k·u); the two extra units cover alpha and beta, and blocked
// or FMA kernels only lower the constant.
func gemmTol(k int, scale float64) float64 {
	return float64(k+2) * f32Eps * scale * (1 + 1e-6)
}

// withDensity returns an r×c N(0, 1) matrix whose entries are each set to
// 0 with probability 1 − density.
func withDensity(rng *rand.Rand, r, c int, density float64) Matrix {
	m := randMatrix(rng, r, c, 0)
	for i := range m.Data {
		if rng.Float64() >= density {
			m.Data[i] = 0
		}
	}
	return m
}
