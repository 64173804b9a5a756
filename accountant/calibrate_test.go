package accountant

import (
	"errors"
	"math"
	"testing"
)

// TestCalibrateRDP checks the tight calibration against Opacus'
// get_noise_multiplier with epsilon_tolerance 1e-9 (the exact inverse of its
// RDP curve, C_noise_multiplier.csv) at 1e-5 relative (our σ tolerance is
// 1e-6 and Opacus' ε tolerance 1e-9 leaves σ up to ~1e-6 high), and that the
// returned σ meets the target while σ·(1 − 2e-6) does not.
func TestCalibrateRDP(t *testing.T) {
	orders := OrdersOpacus.Orders()
	for _, row := range readRefs(t, "C_noise_multiplier.csv") {
		b := Budget{row.f(t, "target_epsilon"), row.f(t, "delta")}
		q, steps := row.f(t, "q"), row.i(t, "steps")
		z, err := CalibrateRDP(b, q, steps, orders, Improved, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := row.f(t, "sigma_opacus_tol_1e-9"); relErr(z, want) > 1e-5 {
			t.Errorf("CalibrateRDP(%v, q=%g, %d) = %.10g, want %.10g", b, q, steps, z, want)
		}
		e, _, _ := EpsilonRDP([]Event{{q, z, steps}}, b.Delta, orders, Improved)
		el, _, _ := EpsilonRDP([]Event{{q, z * (1 - 2e-6), steps}}, b.Delta, orders, Improved)
		if e > b.Epsilon || el <= b.Epsilon {
			t.Errorf("ε(σ=%g) = %.12g, ε(σ(1−2e-6)) = %.12g, want ≤ %g < ", z, e, el, b.Epsilon)
		}
	}
}

// TestOpacusNoiseMultiplier replicates Opacus' bisection: it must return the
// same σ (a dyadic rational reached by the same path) as the `sigma` column
// of C_noise_multiplier.csv and Opacus' own test values (1.3562 at
// q=0.04, 2000 steps, ε=8 to 4 places).
func TestOpacusNoiseMultiplier(t *testing.T) {
	for _, row := range readRefs(t, "C_noise_multiplier.csv") {
		b := Budget{row.f(t, "target_epsilon"), row.f(t, "delta")}
		q, steps := row.f(t, "q"), row.i(t, "steps")
		z, err := OpacusNoiseMultiplier(b, q, steps, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if want := row.f(t, "sigma"); z != want {
			t.Errorf("OpacusNoiseMultiplier(%v, %g, %d, 0.01) = %.17g, want %.17g", b, q, steps, z, want)
		}
	}
	z, _ := OpacusNoiseMultiplier(Budget{8, 1e-5}, 0.04, 2000, 0.01)
	if z != 1.356201171875 {
		t.Errorf("OpacusNoiseMultiplier(8, 1e-5, 0.04, 2000) = %.15g, want 1.356201171875", z)
	}
}

func TestCalibrateValidation(t *testing.T) {
	orders := OrdersOpacus.Orders()
	nan := math.NaN()
	for _, tc := range []struct {
		desc    string
		b       Budget
		q       float64
		steps   int
		wantErr error
	}{
		{"normal", Budget{2, 1e-5}, 0.01, 100, nil},
		{"eps NaN", Budget{nan, 1e-5}, 0.01, 100, ErrNonFinite},
		{"eps 0", Budget{0, 1e-5}, 0.01, 100, ErrInvalidInput},
		{"eps -Inf", Budget{math.Inf(-1), 1e-5}, 0.01, 100, ErrNonFinite},
		{"delta 1", Budget{1, 1}, 0.01, 100, ErrInvalidInput},
		{"q 0", Budget{1, 1e-5}, 0, 100, ErrInvalidInput},
		{"q 1.5", Budget{1, 1e-5}, 1.5, 100, ErrInvalidInput},
		{"steps negative", Budget{1, 1e-5}, 0.1, -5, ErrInvalidInput},
		{"unreachable eps", Budget{0.01, 1e-5}, 0.1, 1000, ErrUnreachable},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			z, err := CalibrateRDP(tc.b, tc.q, tc.steps, orders, Improved, 0)
			if tc.wantErr == nil {
				if err != nil || nonFinite(z) || z <= 0 {
					t.Fatalf("CalibrateRDP(%v, %g, %d) = %g, %v, want finite σ", tc.b, tc.q, tc.steps, z, err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("CalibrateRDP(%v, %g, %d) error = %v, want %v", tc.b, tc.q, tc.steps, err, tc.wantErr)
			}
		})
	}
}

// TestSolveSigma: the smallest σ meeting a target of a cost decreasing in
// σ, within the tolerance, always on the safe side; lo when lo meets it;
// ErrUnreachable when hi does not.
func TestSolveSigma(t *testing.T) {
	cost := func(z float64) (float64, error) { return 4 / z, nil } // ε = 4/σ
	z, err := SolveSigma(2, cost, 1e-2, 1e4, 1e-6)
	if err != nil || z < 2 || z > 2*(1+2e-6) {
		t.Errorf("σ = %v, %v; want 2 (from above, within 1e-6)", z, err)
	}
	if z, err := SolveSigma(1e6, cost, 1e-2, 1e4, 1e-6); err != nil || z != 1e-2 {
		t.Errorf("loose target: σ = %v, %v; want lo", z, err)
	}
	if _, err := SolveSigma(1e-9, cost, 1e-2, 1e4, 1e-6); !errors.Is(err, ErrUnreachable) {
		t.Errorf("tight target: err %v, want ErrUnreachable", err)
	}
	if _, err := SolveSigma(1, cost, 0, 1, 1e-6); err == nil {
		t.Error("lo = 0: no error")
	}
	// ProjectRDP of nothing is 0, and grows with steps.
	if e, err := ProjectRDP(nil, 0.1, 1, 0, 1e-5, OrdersDPAccounting.Orders()); err != nil || e != 0 {
		t.Errorf("ProjectRDP of nothing = %v, %v", e, err)
	}
	e1, _ := ProjectRDP(nil, 0.1, 1, 100, 1e-5, OrdersDPAccounting.Orders())
	e2, _ := ProjectRDP(nil, 0.1, 1, 200, 1e-5, OrdersDPAccounting.Orders())
	if !(e1 > 0 && e2 > e1) {
		t.Errorf("ProjectRDP 100 steps %v, 200 steps %v", e1, e2)
	}
}
