package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spectrumData returns the n×d matrix U·diag(sv)·Vᵀ with U and V random
// orthonormal (Q factors of Gaussian matrices from rand.NewPCG(seed, 1)).
func spectrumData(n, d int, sv []float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	orth := func(rows, cols int) *mat.Dense {
		g := mat.NewDense(rows, cols, nil)
		for i := range rows {
			for j := range cols {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(g)
		var q mat.Dense
		qr.QTo(&q)
		return mat.DenseCopyOf(q.Slice(0, rows, 0, cols))
	}
	r := len(sv)
	u, v := orth(n, r), orth(d, r)
	for j := range r {
		for i := range n {
			u.Set(i, j, u.At(i, j)*sv[j])
		}
	}
	var x mat.Dense
	x.Mul(u, v.T())
	return x.RawMatrix().Data
}

// principalSine returns the sine of the largest principal angle between
// the row spaces of the k×d orthonormal matrices a and b: the spectral norm
// of a − (a·bᵀ)·b, a's rows with their projection on b's removed (Björck &
// Golub 1973, https://doi.org/10.2307/2005662). Computed this way it is
// accurate to a few u, where √(1 − cos²) has a floor of about √u.
func principalSine(t *testing.T, a, b []float64, k, d int) float64 {
	t.Helper()
	am, bm := mat.NewDense(k, d, a), mat.NewDense(k, d, b)
	var ab, p mat.Dense
	ab.Mul(am, bm.T())
	p.Mul(&ab, bm)
	p.Sub(am, &p)
	return mat.Norm(&p, 2)
}

// TestPCAKrylovMatchesExact compares the block Krylov PCA with the exact
// thin SVD on spectra where the randomized SVD it replaced was inaccurate:
// a flat tail, where λ_k/λ_(k+11) is close to 1, a tail of exact ties, and a
// rank below k. The tolerances come from the stopping rule: the Ritz values
// θ_c lie within ρ = Residual·θ_1 of C's eigenvalues, and by Davis–Kahan
// the sine of the largest angle between the computed and the exact top-k
// subspaces is at most √k·ρ/(λ_k − λ_(k+1)); both get the exact SVD's own
// error, a few m·u·‖X‖ (Demmel, Applied Numerical Linear Algebra, §5.2).
func TestPCAKrylovMatchesExact(t *testing.T) {
	linear := func(r int, top, slope float64) []float64 {
		sv := make([]float64, r)
		for j := range sv {
			sv[j] = math.Sqrt(top * (1 - slope*float64(j)))
		}
		return sv
	}
	lowRank := []float64{9, 7, 5, 4, 3}
	for _, tc := range []struct {
		desc    string
		n, d, k int
		kCmp    int // top components compared: k, or the rank when it is below k
		sv      []float64
	}{
		// λ_j = 2(1 − 0.004j): λ_12/λ_23 = 1.05, a gap of 0.4 % at k.
		{desc: "flat tail, d side", n: 260, d: 200, k: 12, kCmp: 12, sv: linear(200, 2, 0.004)},
		{desc: "flat tail, n side", n: 200, d: 260, k: 12, kCmp: 12, sv: linear(200, 2, 0.004)},
		{desc: "rank below k", n: 260, d: 200, k: 10, kCmp: 5, sv: lowRank},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			x := spectrumData(tc.n, tc.d, tc.sv, 11)
			xc, _ := centerColumns(x, tc.n, tc.d)
			l := tc.k + PCAOversample
			ex, err := pcaExact(xc, tc.n, tc.d, min(tc.n, tc.d))
			if err != nil {
				t.Fatal(err)
			}
			kr, err := pcaKrylov(xc, tc.n, tc.d, tc.k, l, PCABlocks, PCAMaxCycles, PCATol, rand.New(rand.NewPCG(PCASeed, 0)))
			if err != nil {
				t.Fatalf("pcaKrylov(%s) error = %v, want nil", tc.desc, err)
			}
			if kr.Iterations < 1 || !(kr.Residual <= PCATol) {
				t.Errorf("pcaKrylov(%s): Iterations %d, Residual %.3g, want ≥ 1 and ≤ %g", tc.desc, kr.Iterations, kr.Residual, PCATol)
			}
			// Eigenvalues of C are (n−1)·ExplainedVariance.
			lam := func(c int) float64 { return float64(tc.n-1) * ex.ExplainedVariance[c] }
			rho := kr.Residual * lam(0)
			floor := 8 * float64(min(tc.n, tc.d)) * 0x1p-53 * lam(0)
			for c := range tc.k {
				got := float64(tc.n-1) * kr.ExplainedVariance[c]
				if tol := rho + floor; !(math.Abs(got-lam(c)) <= tol) {
					t.Errorf("θ_%d = %.17g, want exact %.17g ± %.3g", c, got, lam(c), tol)
				}
			}
			gap := lam(tc.kCmp-1) - lam(tc.kCmp)
			if gap <= 0 {
				t.Fatalf("test data: λ_k = λ_(k+1) = %v, the top-k subspace is not defined", lam(tc.k))
			}
			sinBound := math.Sqrt(float64(tc.kCmp))*(rho+floor)/gap + 1e-12
			if sin := principalSine(t, kr.Components[:tc.kCmp*tc.d], ex.Components[:tc.kCmp*tc.d], tc.kCmp, tc.d); !(sin <= sinBound) {
				t.Errorf("sin∠(Krylov, exact top-%d subspace) = %.3g, want ≤ %.3g", tc.kCmp, sin, sinBound)
			} else {
				t.Logf("%s: %d cycles, residual %.2g, sin∠ %.2g (bound %.2g)", tc.desc, kr.Iterations, kr.Residual, sin, sinBound)
			}
			again, _ := pcaKrylov(xc, tc.n, tc.d, tc.k, l, PCABlocks, PCAMaxCycles, PCATol, rand.New(rand.NewPCG(PCASeed, 0)))
			for i := range again.Components {
				if again.Components[i] != kr.Components[i] {
					t.Fatalf("pcaKrylov run twice: Components[%d] = %v then %v, want identical", i, kr.Components[i], again.Components[i])
				}
			}
		})
	}
}

// TestPCAKrylovNotConverged caps the iteration at one cycle on the flat
// spectrum: PCA's contract is a result with its residual and an error
// wrapping ErrPCANotConverged.
func TestPCAKrylovNotConverged(t *testing.T) {
	const n, d, k = 260, 200, 12
	sv := make([]float64, d)
	for j := range sv {
		sv[j] = math.Sqrt(2 * (1 - 0.004*float64(j)))
	}
	xc, _ := centerColumns(spectrumData(n, d, sv, 12), n, d)
	res, err := pcaKrylov(xc, n, d, k, k+PCAOversample, PCABlocks, 1, PCATol, rand.New(rand.NewPCG(PCASeed, 0)))
	if !errors.Is(err, ErrPCANotConverged) || res == nil || !(res.Residual > PCATol) || res.Iterations != 1 {
		t.Fatalf("pcaKrylov(maxCycles 1) = %v, %v, want a result with Residual > %g, Iterations 1, and ErrPCANotConverged",
			fmt.Sprintf("%+v", res != nil), err, PCATol)
	}
}

// TestPCALargeUsesKrylov runs PCA above PCAExactLimit, where it takes the
// block Krylov path, and checks the result against the exact SVD as above
// and the fields PCA adds (method, convergence, orthonormal components).
func TestPCALargeUsesKrylov(t *testing.T) {
	if testing.Short() {
		t.Skip("exact SVD of 700×520 skipped in -short mode")
	}
	const n, d, k = 700, 520, 12
	sv := make([]float64, d)
	for j := range sv {
		sv[j] = math.Sqrt(5 * (1 - 0.0015*float64(j)))
	}
	x := spectrumData(n, d, sv, 13)
	res, err := PCA(x, n, d, k)
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != PCAMethodKrylov || res.Iterations < 1 || !(res.Residual <= PCATol) {
		t.Errorf("PCA(%d×%d, k=%d): Method %q, Iterations %d, Residual %.3g, want %q, ≥ 1, ≤ %g",
			n, d, k, res.Method, res.Iterations, res.Residual, PCAMethodKrylov, PCATol)
	}
	xc, _ := centerColumns(x, n, d)
	ex, err := pcaExact(xc, n, d, k+1)
	if err != nil {
		t.Fatal(err)
	}
	lam := func(r *PCAResult, c int) float64 { return float64(n-1) * r.ExplainedVariance[c] }
	floor := 8 * float64(d) * 0x1p-53 * lam(ex, 0)
	bound := math.Sqrt(k)*(res.Residual*lam(ex, 0)+floor)/(lam(ex, k-1)-lam(ex, k)) + 1e-12
	if sin := principalSine(t, res.Components, ex.Components[:k*d], k, d); !(sin <= bound) {
		t.Errorf("sin∠(PCA, exact top-%d subspace) = %.3g, want ≤ %.3g", k, sin, bound)
	}
	var g mat.Dense
	comp := mat.NewDense(k, d, res.Components)
	g.Mul(comp, comp.T())
	for i := range k {
		for j := range k {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > 1e-13 {
				t.Fatalf("Components·Componentsᵀ[%d][%d] = %v, want %v ± 1e-13", i, j, g.At(i, j), want)
			}
		}
	}
}
