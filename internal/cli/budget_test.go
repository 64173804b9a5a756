package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// budgetJSON runs `dpscope budget ARGS --json` and decodes the object.
func budgetJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, stdout, stderr := run(t, append(append([]string{"budget"}, args...), "--json")...)
	if code != ExitOK {
		t.Fatalf("budget %q: exit %d: %s", args, code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("budget %q: not JSON: %v\n%s", args, err, stdout)
	}
	return m
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestBudgetSchedule(t *testing.T) {
	// METHODS.md §1 (check): DP-DCAN's q = 210/2122, T = 842 at σ = 2 gives
	// ε = 8.001 by RDP with the authors' orders, best order 3.7.
	m := budgetJSON(t, "--q", "0.098963242", "--sigma", "2", "--steps", "842", "--delta", "1e-5", "--orders", "dpdcan")
	if e := m["epsilon_rdp"].(float64); !near(e, 8.001, 5e-4) || m["best_order"].(float64) != 3.7 {
		t.Errorf("epsilon_rdp = %v at order %v, want 8.001 at 3.7", e, m["best_order"])
	}
	rdp, classic, pld := m["epsilon_rdp"].(float64), m["epsilon_rdp_classic"].(float64), m["epsilon_pld"].(float64)
	if !(pld < rdp && rdp < classic) {
		t.Errorf("want PLD < RDP improved < RDP classic, got %v, %v, %v", pld, rdp, classic)
	}
}

func TestBudgetModes(t *testing.T) {
	tests := []struct {
		desc   string
		args   []string
		fields []string
	}{
		{"calibrate", []string{"--target-epsilon", "1", "--q", "0.01", "--steps", "100"}, []string{"sigma_rdp", "sigma_pld"}},
		{"phases", []string{"--phases", "0.05:1.0:100,0.05:2.0:100"}, []string{"epsilon_rdp", "epsilon_pld", "best_order"}},
		{"gaussian", []string{"--mechanism", "gaussian", "--epsilon", "1"}, []string{"sigma_analytic", "sigma_classic"}},
		{"zcdp", []string{"--rho", "0.1"}, []string{"epsilon_zcdp_classic", "epsilon_zcdp_cks"}},
		{"ppml-omics", []string{"--method", "ppml-omics", "--clients", "30", "--epochs", "5", "--target-epsilon", "5", "--clip", "5"},
			[]string{"epsilon_c", "delta_c", "epsilon_b", "delta_b", "sigma", "epsilon_audited"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m := budgetJSON(t, tc.args...)
			for _, f := range tc.fields {
				v, ok := m[f].(float64)
				if !ok || !(v > 0) || math.IsInf(v, 0) {
					t.Errorf("field %s = %v, want a positive finite number", f, m[f])
				}
			}
		})
	}
	// METHODS.md §3 (check): PPML-Omics with K = 30, E = 5, ε_T = 5, C = 5
	// prescribes σ ≈ 70.85 and audits to ε ≈ 1.20.
	m := budgetJSON(t, "--method", "ppml-omics", "--clients", "30", "--epochs", "5", "--target-epsilon", "5", "--clip", "5")
	if s, a := m["sigma"].(float64), m["epsilon_audited"].(float64); !near(s, 70.85, 1e-3) || !near(a, 1.20, 5e-3) {
		t.Errorf("ppml-omics σ = %v, audited ε = %v; want 70.85 and 1.20", s, a)
	}
	// The calibrated σ must reproduce its target.
	c := budgetJSON(t, "--target-epsilon", "1", "--q", "0.01", "--steps", "200")
	back := budgetJSON(t, "--q", "0.01", "--sigma", jsonNumber(c["sigma_rdp"]), "--steps", "200")
	if e := back["epsilon_rdp"].(float64); e > 1 || e < 1-1e-3 {
		t.Errorf("ε at the calibrated σ = %v, want just below 1", e)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBudgetErrors(t *testing.T) {
	tests := []struct {
		desc string
		args []string
		want int
		msg  string
	}{
		{"nothing asked", nil, ExitUsage, "say what to compute"},
		{"schedule without steps", []string{"--q", "0.1", "--sigma", "1"}, ExitUsage, "--steps"},
		{"q above 1", []string{"--q", "2", "--sigma", "1", "--steps", "3"}, ExitRuntime, "q is 2"},
		{"NaN sigma", []string{"--q", "0.1", "--sigma", "NaN", "--steps", "3"}, ExitRuntime, "NaN"},
		{"δ = 1", []string{"--rho", "0.1", "--delta", "1"}, ExitRuntime, "delta"},
		{"ε ≤ 0", []string{"--mechanism", "gaussian", "--epsilon", "0"}, ExitRuntime, "epsilon"},
		{"bad phases", []string{"--phases", "0.1:1"}, ExitUsage, "q:sigma:steps"},
		{"phases and q", []string{"--phases", "0.1:1:3", "--q", "0.1"}, ExitUsage, "not both"},
		{"unknown method", []string{"--method", "fedsc"}, ExitUsage, "ppml-omics"},
		{"unknown orders", []string{"--rho", "1", "--orders", "mine"}, ExitUsage, "orders"},
		{"tradeoff on rho", []string{"--rho", "1", "--tradeoff"}, ExitUsage, "tradeoff"},
		{"negative steps", []string{"--q", "0.1", "--sigma", "1", "--steps", "-4"}, ExitRuntime, "steps"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"budget"}, tc.args...)...)
			if code != tc.want || !strings.Contains(stderr, tc.msg) {
				t.Errorf("budget %q = exit %d, %q; want exit %d mentioning %q", tc.args, code, stderr, tc.want, tc.msg)
			}
		})
	}
}

func TestBudgetTradeoff(t *testing.T) {
	m := budgetJSON(t, "--q", "0.01", "--sigma", "1", "--steps", "100", "--tradeoff", "--points", "11")
	pts, _ := m["tradeoff"].([]any)
	if len(pts) != 11 {
		t.Fatalf("tradeoff has %d points, want 11", len(pts))
	}
	prevA, prevB := -1.0, 2.0
	for _, p := range pts {
		pt := p.(map[string]any)
		a, b := pt["alpha"].(float64), pt["beta"].(float64)
		// A trade-off curve is non-increasing, and no attacker beats 1 − α by
		// more than the (ε, δ) bound allows; at least it lies in [0, 1 − α].
		if a < prevA || b > prevB || b < 0 || b > 1-a+1e-9 {
			t.Errorf("point (α %v, β %v) after (%v, %v): not a trade-off curve", a, b, prevA, prevB)
		}
		prevA, prevB = a, b
	}
}

// TestBudgetPrivacyFigures: issue 14 points 1–3 at the command line. Before:
// 10^18 steps printed "ε = 0 … PLD … an upper bound", 10^15 panicked in
// gonum's FFT, 10^8 ran out of memory, σ = 0.01 panicked, and
// --target-epsilon 1e300 thrashed then ran out of memory. Now every one is
// a figure or a clear answer, and RDP is printed even where the PLD refuses.
func TestBudgetPrivacyFigures(t *testing.T) {
	steps := []string{"100000000", "1000000000000000", "1000000000000000000"}
	if testing.Short() {
		steps = steps[2:]
	}
	for _, n := range steps {
		m := budgetJSON(t, "--q", "0.1", "--sigma", "2", "--steps", n)
		rdp, _ := m["epsilon_rdp"].(float64)
		pld, _ := m["epsilon_pld"].(float64)
		if !(pld > 0 && pld < rdp) {
			t.Errorf("--steps %s: epsilon_pld %v, epsilon_rdp %v; want 0 < PLD < RDP", n, m["epsilon_pld"], m["epsilon_rdp"])
		}
		if h, _ := m["pld_interval_used"].(float64); !(h >= 1e-4) {
			t.Errorf("--steps %s: pld_interval_used %v, want ≥ the requested 1e-4", n, m["pld_interval_used"])
		}
	}
	code, stdout, stderr := run(t, "budget", "--q", "0.1", "--sigma", "2", "--steps", "1000000000000000000")
	if code != ExitOK || strings.Contains(stdout, "ε = 0 ") || !strings.Contains(stdout, "coarsened from 0.0001") {
		t.Errorf("budget 10^18 steps: exit %d, %q %q; want a PLD figure on a coarsened grid, never 0", code, stdout, stderr)
	}
	// σ = 0.01 has a PLD figure; σ = 5e-4 is beyond the PLD, which says so
	// beside the RDP figures.
	m := budgetJSON(t, "--q", "0.1", "--sigma", "0.01", "--steps", "10")
	if pld, _ := m["epsilon_pld"].(float64); !(pld > 0 && pld < m["epsilon_rdp"].(float64)) {
		t.Errorf("σ = 0.01: %v", m)
	}
	code, stdout, _ = run(t, "budget", "--q", "0.1", "--sigma", "0.0005", "--steps", "10")
	if code != ExitOK || !strings.Contains(stdout, "RDP, improved") || !strings.Contains(stdout, "no PLD figure") || !strings.Contains(stdout, "more noise") {
		t.Errorf("σ = 5e-4: exit %d, %q; want the RDP figures and the PLD's refusal with its way out", code, stdout)
	}
	// A legitimate ε = 0 says why it is 0.
	code, stdout, _ = run(t, "budget", "--q", "0.000001", "--sigma", "100", "--steps", "1")
	if code != ExitOK || !strings.Contains(stdout, "δ(0) ≤ δ") {
		t.Errorf("tiny q: exit %d, %q; want ε = 0 explained", code, stdout)
	}
	code, _, stderr = run(t, "budget", "--target-epsilon", "1e300", "--q", "0.1", "--steps", "100")
	if code != ExitRuntime || !strings.Contains(stderr, "does not set σ") || !strings.Contains(stderr, "1e+300") {
		t.Errorf("--target-epsilon 1e300: exit %d, %q; want a clear refusal", code, stderr)
	}
}
