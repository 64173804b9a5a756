package cluster

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPCAAxisDesign(t *testing.T) {
	// Rows ±3e1, ±2e2, ±1e3 (+ an offset, removed by centring): the sample
	// covariance is diag(18, 8, 2)/5 exactly, so the components are e1, e2,
	// e3 (signed positive), the explained variances 3.6, 1.6, 0.4 and the
	// scores the rows themselves.
	x := []float64{3, 0, 0, -3, 0, 0, 0, 2, 0, 0, -2, 0, 0, 0, 1, 0, 0, -1}
	for i := range x {
		x[i] += float64(i%3) * 10
	}
	res, err := PCA(x, 6, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	wantVar := []float64{3.6, 1.6, 0.4}
	const tol = 1e-13 // a 6×3 SVD: errors of a few ulps of the largest value
	for c := range 3 {
		if math.Abs(res.ExplainedVariance[c]-wantVar[c]) > tol {
			t.Errorf("ExplainedVariance[%d] = %v, want %v", c, res.ExplainedVariance[c], wantVar[c])
		}
		if math.Abs(res.ExplainedVarianceRatio[c]-wantVar[c]/5.6) > tol {
			t.Errorf("ExplainedVarianceRatio[%d] = %v, want %v", c, res.ExplainedVarianceRatio[c], wantVar[c]/5.6)
		}
		for t2 := range 3 {
			want := 0.0
			if t2 == c {
				want = 1
			}
			if math.Abs(res.Components[c*3+t2]-want) > tol {
				t.Errorf("Components[%d][%d] = %v, want %v", c, t2, res.Components[c*3+t2], want)
			}
		}
	}
	for i := range 6 {
		for c := range 3 {
			want := x[i*3+c] - res.Mean[c]
			if math.Abs(res.Scores[i*3+c]-want) > tol {
				t.Errorf("Scores[%d][%d] = %v, want %v", i, c, res.Scores[i*3+c], want)
			}
		}
	}
}

// planeData returns n points a·u + b·v + offset in R^d with u, v orthonormal,
// a ~ N(0, 9), b ~ N(0, 1), plus noise N(0, noise²) per coordinate.
func planeData(n, d int, noise float64, seed uint64) (x, u, v []float64) {
	rng := rand.New(rand.NewPCG(seed, 0))
	u, v = make([]float64, d), make([]float64, d)
	for t := range d {
		u[t], v[t] = rng.NormFloat64(), rng.NormFloat64()
	}
	scale := func(s []float64, f float64) {
		for t := range s {
			s[t] *= f
		}
	}
	scale(u, 1/math.Sqrt(dot(u, u)))
	p := dot(u, v)
	for t := range v {
		v[t] -= p * u[t]
	}
	scale(v, 1/math.Sqrt(dot(v, v)))
	x = make([]float64, n*d)
	for i := range n {
		a, b := 3*rng.NormFloat64(), rng.NormFloat64()
		for t := range d {
			x[i*d+t] = a*u[t] + b*v[t] + 5 + noise*rng.NormFloat64()
		}
	}
	return x, u, v
}

func TestPCAPlane(t *testing.T) {
	const n, d = 200, 6
	x, u, v := planeData(n, d, 0, 1)
	res, err := PCA(x, n, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	// All the variance lies in the plane: ratios sum to 1, and each
	// component lies in span{u, v} (its projection has norm 1).
	if s := res.ExplainedVarianceRatio[0] + res.ExplainedVarianceRatio[1]; math.Abs(s-1) > 1e-12 {
		t.Errorf("sum of ExplainedVarianceRatio = %v, want 1", s)
	}
	for c := range 2 {
		comp := res.Components[c*d : c*d+d]
		pu, pv := dot(comp, u), dot(comp, v)
		if math.Abs(pu*pu+pv*pv-1) > 1e-12 {
			t.Errorf("‖projection of component %d on the plane‖² = %v, want 1", c, pu*pu+pv*pv)
		}
	}
	// The first axis is close to u (variance 9 against 1): |cos| > 0.95 is
	// far inside what 200 samples give.
	if c := math.Abs(dot(res.Components[:d], u)); c < 0.95 {
		t.Errorf("|cos(component 0, u)| = %v, want > 0.95", c)
	}
	// Scores reconstruct the centred data exactly.
	for i := range n {
		for t2 := range d {
			rec := res.Mean[t2] + res.Scores[i*2]*res.Components[t2] + res.Scores[i*2+1]*res.Components[d+t2]
			if math.Abs(rec-x[i*d+t2]) > 1e-11 {
				t.Fatalf("reconstruction of x[%d][%d] = %v, want %v", i, t2, rec, x[i*d+t2])
			}
		}
	}
}

func TestPCASignConvention(t *testing.T) {
	x, _, _ := planeData(100, 5, 0.3, 9)
	neg := make([]float64, len(x))
	for i, v := range x {
		neg[i] = -v
	}
	a, err := PCA(x, 100, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PCA(neg, 100, 5, 3)
	for c := range 3 {
		comp := a.Components[c*5 : c*5+5]
		big := 0
		for t2, v := range comp {
			if math.Abs(v) > math.Abs(comp[big]) {
				big = t2
			}
		}
		if comp[big] <= 0 {
			t.Errorf("component %d: largest-magnitude entry %v, want > 0", c, comp[big])
		}
		// Negating the data keeps the components and negates the scores.
		for t2 := range 5 {
			if math.Abs(a.Components[c*5+t2]-b.Components[c*5+t2]) > 1e-12 {
				t.Errorf("PCA(−x) component %d differs from PCA(x)'s", c)
				break
			}
		}
		if math.Abs(a.Scores[c]+b.Scores[c]) > 1e-12 {
			t.Errorf("PCA(−x).Scores[0][%d] = %v, want %v", c, b.Scores[c], -a.Scores[c])
		}
	}
}

func TestPCAMethodChoice(t *testing.T) {
	for _, tc := range []struct {
		n, d, k int
		exact   bool
	}{
		{4271, 32, 2, true}, {500, 3000, 50, true}, {2000, 2000, 50, false},
		{4271, 2000, 50, false}, {4271, 2000, 2, false}, {1000, 1000, 300, true},
	} {
		if got := pcaUsesExact(tc.n, tc.d, tc.k); got != tc.exact {
			t.Errorf("pcaUsesExact(%d, %d, %d) = %v, want %v", tc.n, tc.d, tc.k, got, tc.exact)
		}
	}
}

func TestPCAValidation(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 7}
	for _, tc := range []struct {
		desc    string
		x       []float64
		n, d, k int
		wantErr error
	}{
		{"k=0", x, 3, 2, 0, ErrInvalidConfig},
		{"k > d", x, 3, 2, 3, ErrInvalidConfig},
		{"k > n", x, 2, 3, 3, ErrInvalidConfig},
		{"n=1", x[:2], 1, 2, 1, ErrInvalidData},
		{"NaN", []float64{1, math.NaN(), 3, 4}, 2, 2, 1, ErrInvalidData},
		{"shape", x, 4, 2, 1, ErrInvalidData},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := PCA(tc.x, tc.n, tc.d, tc.k); !errors.Is(err, tc.wantErr) {
				t.Errorf("PCA(%s) error = %v, want %v", tc.desc, err, tc.wantErr)
			}
		})
	}
	// Constant data: zero variance, ratios 0, no error.
	res, err := PCA([]float64{2, 2, 2, 2, 2, 2}, 3, 2, 1)
	if err != nil || res.ExplainedVariance[0] != 0 || res.ExplainedVarianceRatio[0] != 0 {
		t.Errorf("PCA(constant) = %+v, %v, want zero variances and no error", res, err)
	}
}
