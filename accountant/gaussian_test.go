package accountant

import (
	"errors"
	"math"
	"testing"
)

// TestAnalyticGaussianSigma checks σ against the 50-digit mpmath root and
// dp_accounting in D_analytic_gaussian.csv (they agree to 6e-13), at 1e-11
// relative, and the classic formula with its ε < 1 validity flag exactly.
func TestAnalyticGaussianSigma(t *testing.T) {
	for _, row := range readRefs(t, "D_analytic_gaussian.csv") {
		eps, delta := row.f(t, "epsilon"), row.f(t, "delta")
		got, err := AnalyticGaussianSigma(eps, delta, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := row.f(t, "sigma_mpmath"); relErr(got, want) > 1e-11 {
			t.Errorf("AnalyticGaussianSigma(%g, %g, 1) = %.16g, want %.16g", eps, delta, got, want)
		}
		d, _ := AnalyticGaussianDelta(eps, got, 1)
		if d > delta*(1+1e-12) {
			t.Errorf("AnalyticGaussianDelta(%g, σ=%g) = %g, want ≤ %g", eps, got, d, delta)
		}
		cs, valid, _ := ClassicGaussianSigma(eps, delta, 1)
		if relErr(cs, row.f(t, "sigma_classic")) > 1e-14 || valid != (row["classic_valid"] == "True") {
			t.Errorf("ClassicGaussianSigma(%g, %g) = %g, %v, want %s, %s", eps, delta, cs, valid, row["sigma_classic"], row["classic_valid"])
		}
		// Sensitivity scales σ linearly.
		s3, _ := AnalyticGaussianSigma(eps, delta, 3)
		if relErr(s3, 3*got) > 1e-12 {
			t.Errorf("AnalyticGaussianSigma(%g, %g, 3) = %g, want %g", eps, delta, s3, 3*got)
		}
	}
}

func TestGaussianValidation(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		desc               string
		eps, delta, sens   float64
		wantErr, nonFinite bool
	}{
		{"normal", 1, 1e-5, 1, false, false},
		{"eps 0", 0, 1e-5, 1, true, false},
		{"eps negative", -1, 1e-5, 1, true, false},
		{"eps NaN", nan, 1e-5, 1, true, true},
		{"eps +Inf", inf, 1e-5, 1, true, true},
		{"delta 0", 1, 0, 1, true, false},
		{"delta 1", 1, 1, 1, true, false},
		{"delta NaN", 1, nan, 1, true, true},
		{"delta -Inf", 1, math.Inf(-1), 1, true, true},
		{"sensitivity 0", 1, 1e-5, 0, true, false},
		{"sensitivity negative", 1, 1e-5, -2, true, false},
		{"sensitivity +Inf", 1, 1e-5, inf, true, true},
		{"tiny delta boundary", 1, 1e-300, 1, false, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := AnalyticGaussianSigma(tc.eps, tc.delta, tc.sens)
			if (err != nil) != tc.wantErr {
				t.Fatalf("AnalyticGaussianSigma(%g, %g, %g) error = %v, want error %v", tc.eps, tc.delta, tc.sens, err, tc.wantErr)
			}
			if err != nil && errors.Is(err, ErrNonFinite) != tc.nonFinite {
				t.Errorf("AnalyticGaussianSigma(%g, %g, %g) error %v: errors.Is(ErrNonFinite) = %v, want %v", tc.eps, tc.delta, tc.sens, err, !tc.nonFinite, tc.nonFinite)
			}
			if err == nil && (nonFinite(s) || s <= 0) {
				t.Errorf("AnalyticGaussianSigma(%g, %g, %g) = %g, want finite > 0", tc.eps, tc.delta, tc.sens, s)
			}
			_, _, cerr := ClassicGaussianSigma(tc.eps, tc.delta, tc.sens)
			if (cerr != nil) != tc.wantErr {
				t.Errorf("ClassicGaussianSigma(%g, %g, %g) error = %v, want error %v", tc.eps, tc.delta, tc.sens, cerr, tc.wantErr)
			}
		})
	}
}

// TestZCDPConversions checks the classic and Canonne–Kamath–Steinke
// conversions against E_zcdp_to_dp.csv / E_dp_to_zcdp.csv (cdp2adp and
// mpmath; tolerance 1e-12 relative, the reference's own agreement is 2e-16).
func TestZCDPConversions(t *testing.T) {
	for _, row := range readRefs(t, "E_zcdp_to_dp.csv") {
		rho, delta := row.f(t, "rho"), row.f(t, "delta")
		c, err := ZCDPToDPClassic(rho, delta)
		if err != nil || relErr(c, row.f(t, "epsilon_classic")) > 1e-13 {
			t.Errorf("ZCDPToDPClassic(%g, %g) = %.16g, %v, want %s", rho, delta, c, err, row["epsilon_classic"])
		}
		k, err := ZCDPToDPCKS(rho, delta)
		if err != nil || relErr(k, row.f(t, "epsilon_cks_mpmath")) > 1e-12 {
			t.Errorf("ZCDPToDPCKS(%g, %g) = %.16g, %v, want %s", rho, delta, k, err, row["epsilon_cks_mpmath"])
		}
		if !(k <= c) {
			t.Errorf("ZCDPToDPCKS(%g, %g) = %g, want ≤ classic %g", rho, delta, k, c)
		}
	}
	for _, row := range readRefs(t, "E_dp_to_zcdp.csv") {
		eps, delta := row.f(t, "target_epsilon"), row.f(t, "delta")
		rc, err := DPToZCDPClassic(eps, delta)
		if err != nil || relErr(rc, row.f(t, "rho_classic")) > 1e-12 {
			t.Errorf("DPToZCDPClassic(%g, %g) = %.16g, %v, want %s", eps, delta, rc, err, row["rho_classic"])
		}
		rk, err := DPToZCDPCKS(eps, delta)
		if err != nil || relErr(rk, row.f(t, "rho_cks")) > 1e-10 {
			t.Errorf("DPToZCDPCKS(%g, %g) = %.16g, %v, want %s", eps, delta, rk, err, row["rho_cks"])
		}
		back, _ := ZCDPToDPCKS(rk, delta)
		if back > eps*(1+1e-12) {
			t.Errorf("ZCDPToDPCKS(DPToZCDPCKS(%g)) = %.16g, want ≤ %g", eps, back, eps)
		}
	}
	// METHODS.md check values for DP-MD: ε=1, δ=0.1 → 0.0899247; δ=1e-5 → 0.0208199.
	for _, tc := range []struct{ eps, delta, want float64 }{{1, 0.1, 0.0899247}, {1, 1e-5, 0.0208199}} {
		r, _ := DPToZCDPClassic(tc.eps, tc.delta)
		if math.Abs(r-tc.want) > 5e-8 {
			t.Errorf("DPToZCDPClassic(%g, %g) = %.8g, want %g", tc.eps, tc.delta, r, tc.want)
		}
	}
}

// TestGDP checks μ-GDP: composition √Σμ², the (ε, δ) curve against the
// analytic Gaussian (the same function: a Gaussian mechanism with Δ/σ = μ is
// exactly μ-GDP), the CLT μ formula, the ε↔δ round trip and the
// trade-off function's symmetry G_μ(G_μ(α)) = α.
func TestGDP(t *testing.T) {
	mu, err := GDPMu([]Event{{1, 2, 3}, {1, 1, 1}})
	if err != nil || relErr(mu, math.Sqrt(3.0/4+1)) > 1e-15 {
		t.Errorf("GDPMu = %g, %v, want %g", mu, err, math.Sqrt(1.75))
	}
	if _, err := GDPMu([]Event{{0.5, 2, 3}}); err == nil {
		t.Errorf("GDPMu(q=0.5) error = nil, want error")
	}
	sigma, _ := AnalyticGaussianSigma(1, 1e-5, 1)
	e, _ := GDPEpsilon(1/sigma, 1e-5)
	if relErr(e, 1) > 1e-10 {
		t.Errorf("GDPEpsilon(1/σ_analytic(1, 1e-5)) = %.15g, want 1", e)
	}
	clt, _ := GDPMuCLT([]Event{{0.04, 1.5, 2250}})
	if want := 0.04 * math.Sqrt(2250*math.Expm1(1/2.25)); relErr(clt, want) > 1e-15 {
		t.Errorf("GDPMuCLT(q=0.04, z=1.5, 2250) = %g, want %g", clt, want)
	}
	e, _ = GDPEpsilon(clt, 1e-5)
	if d, _ := GDPDelta(clt, e); relErr(d, 1e-5) > 1e-9 {
		t.Errorf("GDPDelta(μ, GDPEpsilon(μ, 1e-5)) = %g, want 1e-5", d)
	}
	for _, a := range []float64{1e-4, 0.01, 0.2, 0.5, 0.9} {
		b, _ := GDPTradeoff(1.3, a)
		bb, _ := GDPTradeoff(1.3, b)
		if math.Abs(bb-a) > 1e-9 {
			t.Errorf("GDPTradeoff(1.3, GDPTradeoff(1.3, %g)) = %g, want %g", a, bb, a)
		}
		if b > 1-a+1e-15 {
			t.Errorf("GDPTradeoff(1.3, %g) = %g, want ≤ 1 − α", a, b)
		}
	}
}
