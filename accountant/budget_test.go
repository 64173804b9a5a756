package accountant

import (
	"math"
	"testing"
)

// TestCalibratePLD checks σ under PLD against dp_accounting's
// calibrate_dp_mechanism with PLDAccountant (C_noise_multiplier.csv,
// column sigma_dpaccounting_pld, interval 1e-4) using a coarser grid
// (1e-3, for speed): ε moves by ≤ 3e-3 relative between the grids (B table),
// so σ is compared at 3e-3; the returned σ must meet the target on its grid.
func TestCalibratePLD(t *testing.T) {
	for _, row := range readRefs(t, "C_noise_multiplier.csv") {
		if row.i(t, "steps") != 100 || row.f(t, "q") != 0.01 {
			continue
		}
		b := Budget{row.f(t, "target_epsilon"), row.f(t, "delta")}
		if testing.Short() && b.Epsilon != 1 {
			continue
		}
		z, err := CalibratePLD(b, 0.01, 100, 1e-3, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if want := row.f(t, "sigma_dpaccounting_pld"); relErr(z, want) > 3e-3 {
			t.Errorf("CalibratePLD(%v, 0.01, 100) = %.8g, want %.8g", b, z, want)
		}
		if e, _ := EpsilonPLD([]Event{{0.01, z, 100}}, b.Delta, 1e-3); e > b.Epsilon {
			t.Errorf("EpsilonPLD(σ=%g) = %g, want ≤ %g", z, e, b.Epsilon)
		}
		r, _ := CalibrateRDP(b, 0.01, 100, OrdersDPAccounting.Orders(), Improved, 0)
		if !(z < r) {
			t.Errorf("CalibratePLD = %g, want < CalibrateRDP = %g (PLD is tighter)", z, r)
		}
	}
}

// TestSummaries checks the calculator-facing summaries against the direct
// functions and A_sgm_rdp.csv's first Opacus row.
func TestSummaries(t *testing.T) {
	s, err := Summarize([]Event{{0.01, 1.0, 100}}, 1e-5, LedgerOptions{Orders: OrdersOpacus.Orders(), PLDInterval: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if relErr(s.EpsilonRDP, 1.2141452107864754) > 1e-8 || s.BestOrder != 8.8 {
		t.Errorf("Summarize(0.01, 1, 100).EpsilonRDP = %g @%g, want 1.2141452107864754 @8.8", s.EpsilonRDP, s.BestOrder)
	}
	if !(s.EpsilonPLD < s.EpsilonRDP && s.EpsilonRDP < s.EpsilonRDPClassic) {
		t.Errorf("Summarize = %+v, want PLD < RDP < classic", s)
	}
	g, err := GaussianMechanismSummary(1, 1e-5, 1)
	if err != nil || relErr(g.SigmaAnalytic, 3.730631634815942) > 1e-11 || g.ClassicValid {
		t.Errorf("GaussianMechanismSummary(1, 1e-5, 1) = %+v, %v, want σ 3.7306316348 and classic invalid", g, err)
	}
	z, err := ZCDPConversionSummary(0.1, 1e-5)
	if err != nil || relErr(z.EpsilonZCDPCKS, 1.914238832003598) > 1e-12 || relErr(z.EpsilonZCDPClassic, 2.2459660262893473) > 1e-13 {
		t.Errorf("ZCDPConversionSummary(0.1, 1e-5) = %+v, %v", z, err)
	}
	if _, err := Summarize([]Event{{0.01, math.NaN(), 1}}, 1e-5, LedgerOptions{}); err == nil {
		t.Errorf("Summarize(z=NaN) error = nil, want error")
	}
	if _, err := CalibrateSummary(Budget{0.001, 1e-5}, 0.1, 1000, LedgerOptions{SkipPLD: true}); err == nil {
		t.Errorf("CalibrateSummary(unreachable) error = nil, want error")
	}
}
