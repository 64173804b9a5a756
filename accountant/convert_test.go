package accountant

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestEpsilonRDPOpacus checks ε and the optimal order against Opacus'
// RDPAccountant (improved) and TF-Privacy-2020's classic conversion in
// A_sgm_rdp.csv. Tolerance 1e-8 relative: the README's target for Opacus'
// orders (its log(binom) vs gammaln noise is ~1e-9).
func TestEpsilonRDPOpacus(t *testing.T) {
	orders := OrdersOpacus.Orders()
	for _, row := range readRefs(t, "A_sgm_rdp.csv") {
		ev := Event{row.f(t, "q"), row.f(t, "sigma"), row.i(t, "steps")}
		delta := row.f(t, "delta")
		for _, tc := range []struct {
			conv      Conversion
			col, acol string
		}{{Improved, "epsilon_rdp", "best_alpha"}, {Classic, "epsilon_rdp_classic", "best_alpha_classic"}} {
			eps, a, err := EpsilonRDP([]Event{ev}, delta, orders, tc.conv)
			if err != nil {
				t.Fatalf("EpsilonRDP(%v, %g, %v) error %v", ev, delta, tc.conv, err)
			}
			want, wantA := row.f(t, tc.col), row.f(t, tc.acol)
			if relErr(eps, want) > 1e-8 || a != wantA {
				t.Errorf("EpsilonRDP(%v, %g, %v) = %.15g @%g, want %.15g @%g", ev, delta, tc.conv, eps, a, want, wantA)
			}
		}
	}
}

// parsePhases parses "q:z:steps;q:z:steps".
func parsePhases(t *testing.T, s string) []Event {
	t.Helper()
	var evs []Event
	for _, p := range strings.Split(s, ";") {
		f := strings.Split(p, ":")
		if len(f) != 3 {
			t.Fatalf("bad phase %q", p)
		}
		q, _ := strconv.ParseFloat(f[0], 64)
		z, _ := strconv.ParseFloat(f[1], 64)
		n, _ := strconv.Atoi(f[2])
		evs = append(evs, Event{q, z, n})
	}
	return evs
}

// TestEpsilonRDPHeterogeneous checks sequences whose σ changes against
// Opacus (history of phases) and the classic conversion, F_heterogeneous.csv,
// at 1e-8 relative.
func TestEpsilonRDPHeterogeneous(t *testing.T) {
	for _, row := range readRefs(t, "F_heterogeneous.csv") {
		if row["orders_used"] != "default" {
			continue
		}
		t.Run(row["scenario"], func(t *testing.T) {
			evs := parsePhases(t, row["phases_q:sigma:steps"])
			delta := row.f(t, "delta")
			eps, a, err := EpsilonRDP(evs, delta, OrdersOpacus.Orders(), Improved)
			if err != nil {
				t.Fatal(err)
			}
			if want := row.f(t, "epsilon_rdp_opacus"); relErr(eps, want) > 1e-8 || a != row.f(t, "best_alpha_opacus") {
				t.Errorf("EpsilonRDP(%v) = %.15g @%g, want %.15g @%g", evs, eps, a, want, row.f(t, "best_alpha_opacus"))
			}
			eps, a, _ = EpsilonRDP(evs, delta, OrdersOpacus.Orders(), Classic)
			if want := row.f(t, "epsilon_rdp_classic"); relErr(eps, want) > 1e-8 || a != row.f(t, "best_alpha_classic") {
				t.Errorf("EpsilonRDP(%v, classic) = %.15g @%g, want %.15g", evs, eps, a, want)
			}
		})
	}
}

// TestEpsilonRDPLibraryTests reproduces accountant test cases of Opacus and
// TF Privacy (values recomputed in T_library_test_vectors.csv).
func TestEpsilonRDPLibraryTests(t *testing.T) {
	ints := func(lo, hi int) []float64 {
		var o []float64
		for a := lo; a <= hi; a++ {
			o = append(o, float64(a))
		}
		return o
	}
	tfComp := []float64{1.25, 1.5, 1.75, 2., 2.25, 2.5, 3., 3.5, 4., 4.5, 5., 6., 7., 8., 10., 12., 14., 16., 20., 24., 28.}
	fine := make([]float64, 0, 99000)
	for i := 1; i < 99000; i++ {
		fine = append(fine, 1+float64(i)/1000)
	}
	for _, tc := range []struct {
		desc   string
		events []Event
		orders []float64
		delta  float64
		conv   Conversion
		want   float64
		wantA  float64
		tol    float64 // the library test's own tolerance
	}{
		{"opacus accountants_test RDP", []Event{{0.04, 1.5, 2250}}, OrdersOpacus.Orders(), 1e-5, Improved, 7.3291111714386545, 0, 1e-7},
		{"tf2020 classic q=0.01 z=4 10000 steps", []Event{{0.01, 4, 10000}}, ints(2, 32), 1e-5, Classic, 1.2585747412526787, 20, 1e-8},
		{"tf composition classic", []Event{{1e-4, 0.4, 40000}, {0.1, 2, 100}}, tfComp, 1e-5, Classic, 8.509656046284402, 2.5, 1e-8},
		{"tf composition improved", []Event{{1e-4, 0.4, 40000}, {0.1, 2, 100}}, tfComp, 1e-5, Improved, 7.387969934602307, 0, 1e-8},
		{"tf2022 gaussian q=1", []Event{{1, 4.530877117, 1}}, fine, 1e-6, Improved, 1.0000000002681213, 0, 1e-9},
		{"tf2020 dp_sgd Test0 classic", []Event{{150.0 / 60000, 1.3, 6000}}, OrdersTFPrivacy.Orders(), 1e-5, Classic, 0.9418705671682597, 19, 1e-8},
		{"tf dp_sgd Test0 improved", []Event{{150.0 / 60000, 1.3, 6000}}, OrdersTFPrivacy.Orders(), 1e-5, Improved, 0.7242234026106222, 19, 1e-8},
		{"tf dp_sgd Test1 improved", []Event{{100.0 / 100000, 1.0, 30000}}, OrdersTFPrivacy.Orders(), 1e-7, Improved, 1.4154988495445144, 13, 1e-8},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			eps, a, err := EpsilonRDP(tc.events, tc.delta, tc.orders, tc.conv)
			if err != nil {
				t.Fatal(err)
			}
			if relErr(eps, tc.want) > tc.tol || (tc.wantA != 0 && a != tc.wantA) {
				t.Errorf("EpsilonRDP(%v, %g, %v) = %.15g @%g, want %.15g @%g", tc.events, tc.delta, tc.conv, eps, a, tc.want, tc.wantA)
			}
		})
	}
}

// TestDeltaFromRDPRoundTrip checks that δ(ε(δ)) = δ for both conversions and
// TF Privacy's constant-RDP case (rdp=1.1 at orders 2..32 → ε 1.32783806176
// @32, δ back to 1e-5 to 7 places).
func TestDeltaFromRDPRoundTrip(t *testing.T) {
	orders := OrdersDPAccounting.Orders()
	rdp, _ := RDP(Event{0.02, 1.1, 500}, orders)
	for _, conv := range []Conversion{Improved, Classic} {
		for _, delta := range []float64{1e-3, 1e-5, 1e-9} {
			eps, _, err := EpsilonFromRDP(orders, rdp, delta, conv)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := DeltaFromRDP(orders, rdp, eps, conv)
			if err != nil {
				t.Fatal(err)
			}
			if relErr(d, delta) > 1e-9 {
				t.Errorf("DeltaFromRDP(ε=%g, %v) = %g, want %g", eps, conv, d, delta)
			}
		}
	}
	var o2, c []float64
	for a := 2; a <= 32; a++ {
		o2, c = append(o2, float64(a)), append(c, 1.1)
	}
	eps, a, _ := EpsilonFromRDP(o2, c, 1e-5, Improved)
	if math.Abs(eps-1.327838061755436) > 1e-12 || a != 32 {
		t.Errorf("EpsilonFromRDP(const 1.1, 1e-5) = %.15g @%g, want 1.327838061755436 @32", eps, a)
	}
}

func TestConversionValidation(t *testing.T) {
	o := []float64{2, 3}
	for _, tc := range []struct {
		desc    string
		rdp     []float64
		delta   float64
		wantErr bool
	}{
		{"normal", []float64{0.1, 0.2}, 1e-5, false},
		{"one infinite order", []float64{math.Inf(1), 0.2}, 1e-5, false},
		{"all infinite", []float64{math.Inf(1), math.Inf(1)}, 1e-5, true},
		{"delta 0", []float64{0.1, 0.2}, 0, true},
		{"delta 1", []float64{0.1, 0.2}, 1, true},
		{"delta negative", []float64{0.1, 0.2}, -1e-5, true},
		{"delta NaN", []float64{0.1, 0.2}, math.NaN(), true},
		{"delta +Inf", []float64{0.1, 0.2}, math.Inf(1), true},
		{"rdp NaN", []float64{math.NaN(), 0.2}, 1e-5, true},
		{"rdp negative", []float64{-0.1, 0.2}, 1e-5, true},
		{"length mismatch", []float64{0.1}, 1e-5, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			eps, _, err := EpsilonFromRDP(o, tc.rdp, tc.delta, Improved)
			if (err != nil) != tc.wantErr {
				t.Fatalf("EpsilonFromRDP(%v, %g) error = %v, want error %v", tc.rdp, tc.delta, err, tc.wantErr)
			}
			if err == nil && (math.IsNaN(eps) || math.IsInf(eps, 0)) {
				t.Errorf("EpsilonFromRDP(%v, %g) = %v, want finite", tc.rdp, tc.delta, eps)
			}
		})
	}
}
