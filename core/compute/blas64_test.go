package compute

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestUseOpenBLAS64 registers Impl64 as gonum's blas64 and checks that
// gonum's LAPACK runs on it: mat.SVD of a 300×200 matrix (large enough that
// its blocked steps call Dgemm above DgemmThreshold) reconstructs the matrix.
func TestUseOpenBLAS64(t *testing.T) {
	UseOpenBLAS64()
	UseOpenBLAS64() // a second call must do nothing
	impl := Impl64()
	if got := blas64.Implementation(); got != impl {
		t.Fatalf("blas64.Implementation() = %T, want Impl64() = %T", got, impl)
	}
	info, err := Init()
	_, isGonum := impl.(gonum.Implementation)
	if wantGonum := err != nil || info.Name == NameGonum; isGonum != wantGonum {
		t.Errorf("Impl64() = %T with backend %s (error %v), want gonum's implementation exactly when the backend is gonum", impl, info.Name, err)
	}
	if mode, _ := ParseMode(os.Getenv(EnvBLAS)); mode != ModeGo && isGonum {
		requireOpenBLAS(t) // skips or fails with the reason
	}

	const m, n = 300, 200
	rng := rand.New(rand.NewPCG(31, 32))
	a := mat.NewDense(m, n, nil)
	var norm2 float64
	for i := range m {
		for j := range n {
			v := rng.NormFloat64()
			a.Set(i, j, v)
			norm2 += v * v
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		t.Fatal("SVD.Factorize = false, want true")
	}
	var u, v, rec mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	rec.Mul(&u, mat.NewDiagDense(n, svd.Values(nil)))
	rec.Mul(&rec, v.T())
	rec.Sub(&rec, a)
	// A backward-stable SVD reconstructs A to c·max(m, n)·u·‖A‖_F; c = 10
	// is ample for dgesvd (Demmel, Applied Numerical Linear Algebra, 1997,
	// §5.4), and a wrong Dgemm gives errors of order ‖A‖_F.
	if got, tol := mat.Norm(&rec, 2), 10*m*f64Eps*math.Sqrt(norm2); !(got <= tol) {
		t.Errorf("‖UΣVᵀ − A‖₂ with blas64 = %T is %.3g, want ≤ %.3g", impl, got, tol)
	}
}
