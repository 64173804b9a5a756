package audit

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestPValue(t *testing.T) {
	for _, tc := range []struct {
		desc       string
		m, r, v    int
		eps, delta float64
		want       float64
	}{
		// By hand: q = e/(1+e) = 0.731059; C(10,8)q⁸(1−q)² + 10q⁹(1−q) + q¹⁰
		// = 0.26582 + 0.16053 + 0.04364 = 0.46997 (also a direct sum of
		// math.comb terms in Python: 0.4695614139934625).
		{"tail only", 10, 10, 8, 1, 0, 0.4695614139934625},
		// The δ term 2mδα, α = max_i P[8−i ≤ Bin < 8]/i (the sum of math.comb
		// terms in Python, as the paper's Algorithm states it).
		{"with delta", 100, 10, 8, 1, 1e-3, 0.5216628355815993},
		{"no correct guesses", 10, 5, 0, 2, 0, 1},
		// v = r: q^r, (1/2)^4 at ε = 0.
		{"all correct at eps 0", 4, 4, 4, 0, 0, 1.0 / 16},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := PValue(tc.m, tc.r, tc.v, tc.eps, tc.delta)
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinAbsOrRel(got, tc.want, 1e-10, 1e-9) {
				t.Errorf("PValue(%d, %d, %d, %g, %g) = %.16g, want %.16g", tc.m, tc.r, tc.v, tc.eps, tc.delta, got, tc.want)
			}
		})
	}
}

func TestEpsilonLowerBound(t *testing.T) {
	for _, tc := range []struct {
		desc        string
		m, r, v     int
		delta, beta float64
		want        float64
	}{
		// δ = 0, v = r: q^r < β ⟺ ε < −ln(e^{ln(1/β)/r} − 1); by hand for
		// r = 100, β = 0.05: ln 20 / 100 = 0.0299573, e^x − 1 = 0.0304105,
		// −ln = 3.49297.
		{"all 100 correct", 100, 100, 100, 0, 0.05, 3.4929654311522937},
		{"all 1000 correct", 1000, 1000, 1000, 0, 0.05, 5.809068338546592},
		{"all 10 correct", 10, 10, 10, 0, 0.05, 1.051873233231709},
		// The rest against a bisection over the exact math.comb sums in
		// Python (/tmp/ref.py in the commit message's reproduction).
		{"45 of 50", 100, 50, 45, 0, 0.05, 1.393604122506329},
		{"90 of 100, delta 1e-5", 1000, 100, 90, 1e-5, 0.05, 1.6261434806957262},
		{"90 of 100, delta 1e-3", 1000, 100, 90, 1e-3, 0.05, 0.3884735238971531},
		{"20 of 20, delta 1e-4, 99%", 200, 20, 20, 1e-4, 0.01, 1.1715957162510764},
		// One correct guess out of two is at best chance: nothing refuted.
		{"chance", 10, 2, 1, 0, 0.05, 0},
		{"no guesses", 10, 0, 0, 0, 0.05, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := EpsilonLowerBound(tc.m, tc.r, tc.v, tc.delta, tc.beta)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("EpsilonLowerBound(%d, %d, %d, %g, %g) = %.10g, want %.10g", tc.m, tc.r, tc.v, tc.delta, tc.beta, got, tc.want)
			}
		})
	}
}

// TestCeilingApprox checks DECISIONS' rule of thumb: the ceiling is about
// ln(r / ln(1/β)), closer as r grows.
func TestCeilingApprox(t *testing.T) {
	for _, r := range []int{100, 1000, 10000} {
		got, err := Ceiling(r, r, 0, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		approx := math.Log(float64(r) / math.Log(20))
		if d := math.Abs(got - approx); d > 2/float64(r)*10 {
			t.Errorf("Ceiling(%d, %d, 0, 0.05) = %.6g, ln(r/ln(1/β)) = %.6g: differ by %.3g", r, r, got, approx, d)
		}
	}
}

func TestBoundInputs(t *testing.T) {
	for _, tc := range []struct {
		desc        string
		m, r, v     int
		delta, beta float64
	}{
		{"m zero", 0, 0, 0, 0, 0.05},
		{"r above m", 5, 6, 1, 0, 0.05},
		{"v above r", 5, 3, 4, 0, 0.05},
		{"negative v", 5, 3, -1, 0, 0.05},
		{"delta NaN", 5, 3, 1, math.NaN(), 0.05},
		{"delta 1", 5, 3, 1, 1, 0.05},
		{"delta negative", 5, 3, 1, -1e-9, 0.05},
		{"beta 0", 5, 3, 1, 0, 0},
		{"beta 1", 5, 3, 1, 0, 1},
		{"beta NaN", 5, 3, 1, 0, math.NaN()},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := EpsilonLowerBound(tc.m, tc.r, tc.v, tc.delta, tc.beta); !errors.Is(err, ErrInput) {
				t.Errorf("EpsilonLowerBound(%d, %d, %d, %g, %g) error = %v, want ErrInput", tc.m, tc.r, tc.v, tc.delta, tc.beta, err)
			}
		})
	}
	for _, eps := range []float64{math.NaN(), math.Inf(1), -1} {
		if _, err := PValue(5, 3, 1, eps, 0); !errors.Is(err, ErrInput) {
			t.Errorf("PValue(5, 3, 1, %g, 0) error = %v, want ErrInput", eps, err)
		}
	}
}

// TestBoundMonotone: more correct guesses never lower the bound.
func TestBoundMonotone(t *testing.T) {
	prev := 0.0
	for v := 0; v <= 200; v += 10 {
		got, err := EpsilonLowerBound(1000, 200, v, 1e-5, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if got < prev-1e-9 {
			t.Errorf("EpsilonLowerBound(1000, 200, %d, 1e-5, 0.05) = %g, below %g at v − 10", v, got, prev)
		}
		prev = got
	}
}
