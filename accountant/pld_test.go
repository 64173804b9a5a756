package accountant

import (
	"errors"
	"math"
	"testing"
)

// TestPLDAgainstDPAccounting compares ε with dp_accounting's PLDAccountant
// (connect-the-dots, pessimistic, interval 1e-4) in B_sgm_pld_prv.csv and
// F_heterogeneous.csv. Tolerance 1e-6 relative: the README allows ~1e-4 for
// an independent PLD, but this is the same connect-the-dots discretisation
// on the same grid and agrees to ≤ 4e-10 (only truncation rules differ). PLD must
// also be ≤ the RDP ε (Opacus orders) and ≥ the optimistic PLD estimate.
func TestPLDAgainstDPAccounting(t *testing.T) {
	for _, row := range readRefs(t, "B_sgm_pld_prv.csv") {
		ev := Event{row.f(t, "q"), row.f(t, "sigma"), row.i(t, "steps")}
		if testing.Short() && ev.Steps > 100 {
			continue // the 1000-step rows take seconds under -race
		}
		delta := row.f(t, "delta")
		got, err := EpsilonPLD([]Event{ev}, delta, row.f(t, "pld_value_discretization_interval"))
		if err != nil {
			t.Fatal(err)
		}
		want := row.f(t, "epsilon_pld")
		if relErr(got, want) > 1e-6 {
			t.Errorf("EpsilonPLD(%v, %g) = %.10g, want %.10g (rel %.2g)", ev, delta, got, want, relErr(got, want))
		}
		if got > row.f(t, "epsilon_rdp_opacus") || got < row.f(t, "epsilon_pld_optimistic_vdi_1e-4") {
			t.Errorf("EpsilonPLD(%v, %g) = %g, want in [optimistic %s, RDP %s]", ev, delta, got, row["epsilon_pld_optimistic_vdi_1e-4"], row["epsilon_rdp_opacus"])
		}
	}
	for _, row := range readRefs(t, "F_heterogeneous.csv") {
		evs := parsePhases(t, row["phases_q:sigma:steps"])
		delta := row.f(t, "delta")
		got, err := EpsilonPLD(evs, delta, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := row.f(t, "epsilon_pld_dpaccounting"); relErr(got, want) > 1e-6 {
			t.Errorf("EpsilonPLD(%v, %g) = %.10g, want %.10g", evs, delta, got, want)
		}
	}
}

// TestPLDGaussianExact checks the PLD of k Gaussian releases (q = 1) against
// the exact μ-GDP value μ = √k/z: it must never be below the exact ε
// (pessimistic) and within 5e-3 relative above it (discretisation 1e-3,
// at most ~k·h/2 of loss shift in the worst case is far above what
// connect-the-dots shows).
func TestPLDGaussianExact(t *testing.T) {
	for _, tc := range []struct {
		z     float64
		k     int
		delta float64
	}{{1, 1, 1e-5}, {2, 10, 1e-5}, {5, 100, 1e-6}, {0.8, 3, 1e-3}} {
		exact, _ := GDPEpsilon(math.Sqrt(float64(tc.k))/tc.z, tc.delta)
		got, err := EpsilonPLD([]Event{{1, tc.z, tc.k}}, tc.delta, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		if got < exact*(1-1e-12) || relErr(got, exact) > 5e-3 {
			t.Errorf("EpsilonPLD(q=1, z=%g, k=%d, δ=%g) = %.10g, want in [exact %.10g, +0.1%%]", tc.z, tc.k, tc.delta, got, exact)
		}
	}
}

// TestPLDProperties: ε falls as σ rises, rises with q and steps; δ(ε(δ)) = δ;
// a coarser grid never gives a smaller ε than dp_accounting at 1e-4 minus
// the grid; composing PLDs equals the PLD of the sequence.
func TestPLDProperties(t *testing.T) {
	const delta = 1e-5
	eps := func(q, z float64, k int) float64 {
		t.Helper()
		e, err := EpsilonPLD([]Event{{q, z, k}}, delta, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	base := eps(0.05, 1.2, 50)
	if e := eps(0.05, 1.5, 50); !(e < base) {
		t.Errorf("EpsilonPLD(z=1.5) = %g, want < EpsilonPLD(z=1.2) = %g", e, base)
	}
	if e := eps(0.08, 1.2, 50); !(e > base) {
		t.Errorf("EpsilonPLD(q=0.08) = %g, want > %g", e, base)
	}
	if e := eps(0.05, 1.2, 80); !(e > base) {
		t.Errorf("EpsilonPLD(80 steps) = %g, want > %g", e, base)
	}
	p, _ := NewPLD(Event{0.05, 1.2, 50}, 1e-3)
	d, _ := p.Delta(base)
	if relErr(d, delta) > 1e-9 {
		t.Errorf("PLD.Delta(PLD.Epsilon(%g)) = %g, want %g", delta, d, delta)
	}
	a, _ := NewPLD(Event{0.05, 1.2, 20}, 1e-3)
	b, _ := NewPLD(Event{0.05, 1.2, 30}, 1e-3)
	ab, err := a.Compose(b)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := ab.Epsilon(delta); relErr(e, base) > 1e-6 {
		t.Errorf("PLD(20).Compose(PLD(30)).Epsilon = %.10g, want PLD(50) %.10g", e, base)
	}
	c, _ := NewPLD(Event{0.05, 1.2, 20}, 1e-4)
	if _, err := a.Compose(c); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Compose(h=1e-3, h=1e-4) error = %v, want ErrInvalidInput", err)
	}
}

func TestPLDValidation(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		ev      Event
		delta   float64
		h       float64
		wantErr bool
	}{
		{"normal", Event{0.1, 2, 10}, 1e-5, 1e-3, false},
		{"default interval", Event{0.1, 2, 10}, 1e-5, 0, false},
		{"zero steps", Event{0.1, 2, 0}, 1e-5, 1e-3, false},
		{"interval NaN", Event{0.1, 2, 10}, 1e-5, math.NaN(), true},
		{"interval negative", Event{0.1, 2, 10}, 1e-5, -1e-3, true},
		{"interval +Inf", Event{0.1, 2, 10}, 1e-5, math.Inf(1), true},
		{"delta 0", Event{0.1, 2, 10}, 0, 1e-3, true},
		{"delta NaN", Event{0.1, 2, 10}, math.NaN(), 1e-3, true},
		{"q 0", Event{0, 2, 10}, 1e-5, 1e-3, true},
		{"z NaN", Event{0.1, math.NaN(), 10}, 1e-5, 1e-3, true},
		{"steps negative", Event{0.1, 2, -1}, 1e-5, 1e-3, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			e, err := EpsilonPLD([]Event{tc.ev}, tc.delta, tc.h)
			if (err != nil) != tc.wantErr {
				t.Fatalf("EpsilonPLD(%v, %g, %g) error = %v, want error %v", tc.ev, tc.delta, tc.h, err, tc.wantErr)
			}
			if err == nil && (nonFinite(e) || e < 0) {
				t.Errorf("EpsilonPLD(%v, %g, %g) = %g, want finite ≥ 0", tc.ev, tc.delta, tc.h, e)
			}
		})
	}
}
