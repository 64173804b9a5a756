package compute

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The level-1 routines run on the backend Init selects; for these lengths
// that is gonum's kernel on both backends, so one pass covers them. Expected
// values are float64 sums; tolerances are (n+2)·u times the sum of absolute
// terms, as in gemmTol.

func TestVectorOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 257
	x := randMatrix(rng, 1, n, 0).Data
	y := randMatrix(rng, 1, n, 0).Data
	var dot, absDot, sq float64
	for i := range n {
		dot += float64(x[i]) * float64(y[i])
		absDot += math.Abs(float64(x[i]) * float64(y[i]))
		sq += float64(x[i]) * float64(x[i])
	}
	for _, tc := range []struct {
		desc      string
		got, want float64
		tol       float64
	}{
		{"Dot", float64(Dot(x, y)), dot, gemmTol(n, absDot)},
		// Dot64 rounds only the float64 sum: (n+2)·2⁻⁵³·Σ|xy|.
		{"Dot64", Dot64(x, y), dot, float64(n+2) * 0x1p-53 * absDot},
		{"Nrm2", float64(Nrm2(x)), math.Sqrt(sq), gemmTol(n, math.Sqrt(sq))},
		{"Nrm2 empty", float64(Nrm2(nil)), 0, 0},
		{"Dot empty", float64(Dot(nil, nil)), 0, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if !(math.Abs(tc.got-tc.want) <= tc.tol) {
				t.Errorf("%s(x) = %v, want %v ± %.3g", tc.desc, tc.got, tc.want, tc.tol)
			}
		})
	}

	t.Run("Axpy and Scal", func(t *testing.T) {
		z := append([]float32(nil), y...)
		Axpy(0.5, x, z)
		Scal(-2, z)
		for i := range n {
			want := -2 * (float64(y[i]) + 0.5*float64(x[i]))
			// Two roundings, each at most u relative to the magnitudes.
			tol := 3 * f32Eps * 2 * (math.Abs(float64(y[i])) + 0.5*math.Abs(float64(x[i])))
			if got := float64(z[i]); !(math.Abs(got-want) <= tol) {
				t.Fatalf("Scal(-2, Axpy(0.5, x, y))[%d] = %v, want %v ± %.3g", i, got, want, tol)
			}
		}
		z[0] = float32(math.NaN())
		Scal(0, z)
		if z[0] != 0 {
			t.Errorf("Scal(0, [NaN ...])[0] = %v, want 0", z[0])
		}
	})
}

func TestMatrixUpdates(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const m, n = 5, 7
	base := randMatrix(rng, m, n+2, 0)
	a := base.View(0, 1, m, n) // strided view: stride n+2
	orig, baseOrig := a.Clone(), base.Clone()
	x := randMatrix(rng, 1, m, 0).Data
	y := randMatrix(rng, 1, n, 0).Data
	d := randMatrix(rng, m, n, 0)

	AddOuter(a, 0.5, x, y)
	AddScaled(a, -1.5, d)
	Scale(2, a)
	for i := range m {
		for j := range n {
			o, xy, dd := float64(orig.At(i, j)), float64(x[i])*float64(y[j]), float64(d.At(i, j))
			want := 2 * (o + 0.5*xy - 1.5*dd)
			tol := 5 * f32Eps * 2 * (math.Abs(o) + 0.5*math.Abs(xy) + 1.5*math.Abs(dd))
			if got := float64(a.At(i, j)); !(math.Abs(got-want) <= tol) {
				t.Fatalf("2·(a + 0.5·x·yᵀ - 1.5·d)[%d,%d] = %v, want %v ± %.3g", i, j, got, want, tol)
			}
		}
	}
	// Columns outside the view are untouched.
	for i := range m {
		for _, j := range []int{0, n + 1} {
			if got, want := base.At(i, j), baseOrig.At(i, j); got != want {
				t.Fatalf("base.At(%d, %d) = %v, want %v", i, j, got, want)
			}
		}
	}
	Scale(0, a)
	for i := range m {
		for j := range n {
			if a.At(i, j) != 0 {
				t.Fatalf("Scale(0, a)[%d,%d] = %v, want 0", i, j, a.At(i, j))
			}
		}
	}
}

// TestMulToDegenerate covers the sizes that never reach BLAS.
func TestMulToDegenerate(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		m, n, k int
		beta    float32
		want    float32
	}{
		{"k=0 scales by beta", 2, 3, 0, 0.5, 2},
		{"k=0 beta=0 zeroes", 2, 3, 0, 0, 0},
		{"m=0 does nothing", 0, 3, 4, 0, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dst := NewMatrix(tc.m, tc.n, nil)
			dst.Fill(4)
			MulTo(dst, NewMatrix(tc.m, tc.k, nil), false, NewMatrix(tc.k, tc.n, nil), false, 1, tc.beta)
			for i := range tc.m {
				for j := range tc.n {
					if got := dst.At(i, j); got != tc.want {
						t.Fatalf("MulTo(%d×%d×%d, beta=%v)[%d,%d] = %v, want %v", tc.m, tc.n, tc.k, tc.beta, i, j, got, tc.want)
					}
				}
			}
		})
	}
}
