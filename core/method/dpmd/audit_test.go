package dpmd

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"

	"github.com/dpscope/dpscope/internal/israce"
)

// auditData is a quick synthetic problem: a sphere in R^20, 5,000
// references, 200 queries (the TUI's quick preset).
const auditData = "manifold:sphere?D=20&n=5000&queries=200"

// auditRun runs mode at ε with an audit of the given canaries and
// confidence; it returns the AuditEvent, the smallest certified ε of the
// last BudgetEvent (+Inf without one) and the run's error, if any.
func auditRun(t *testing.T, mode core.Mode, eps float64, seed uint64, canaries int, conf float64) (*core.AuditEvent, float64, error) {
	t.Helper()
	cfg := core.Config{Data: auditData, Method: MethodName, Mode: mode, Epsilon: eps, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: seed,
		Audit: &core.AuditSpec{Canaries: canaries, Confidence: conf}}
	if mode == core.ModeNonPrivate {
		cfg.Epsilon = 0
	}
	run, err := core.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a *core.AuditEvent
	certified := math.Inf(1)
	var runErr error
	for ev := range run.Events() {
		switch e := ev.(type) {
		case core.AuditEvent:
			a = &e
		case core.BudgetEvent:
			// dpmd states its certified ε as the ledger's total spent.
			certified = math.Inf(1)
			for _, v := range e.Spent {
				certified = min(certified, v.Epsilon)
			}
		case core.ErrorEvent:
			runErr = e.Err
		}
	}
	if a == nil && runErr == nil {
		t.Fatal("no AuditEvent from a run with an audit")
	}
	return a, certified, runErr
}

// TestAuditNonPrivate: without noise every canary shows, so the bound is
// near the ceiling (4.34 of 5.04 with 500 of 500 right at 95 %).
func TestAuditNonPrivate(t *testing.T) {
	a, _, err := auditRun(t, core.ModeNonPrivate, 0, 1, 1000, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if a.EpsilonLower < 4 || a.Canaries != 1000 {
		t.Errorf("nonprivate audit = %+v, want 1000 canaries and a bound ≥ 4", a)
	}
}

// TestAuditNeverExceeds: sound runs at several ε over seeds; the bound
// never exceeds the certified ε. At confidence 1 − 10⁻³ per run it fails
// falsely with probability at most runs·10⁻³ (6·10⁻³ here, 3·10⁻² with
// DPSCOPE_AUDIT_LONG=1). 100 canaries spread each over g = 42 queries
// (at most K per iteration), so one canary sees most of the budget; at
// ε = 64 the audit must then have power (≥ 1).
func TestAuditNeverExceeds(t *testing.T) {
	israce.SkipNumerics(t)
	epsilons, seeds := []float64{1, 8, 64}, []uint64{0, 1}
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		epsilons, seeds = []float64{0.5, 1, 2, 4, 8, 64}, []uint64{0, 1, 2, 3, 4}
	}
	for _, eps := range epsilons {
		for _, seed := range seeds {
			a, certified, err := auditRun(t, core.ModeSound, eps, seed, 100, 1-1e-3)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(certified, 1) {
				t.Fatalf("ε = %g, seed %d: no certified ε in the run's BudgetEvents", eps, seed)
			}
			t.Logf("ε = %g, seed %d: certified %.4g, bound %.4g (%d of %d), ceiling %.4g", eps, seed, certified, a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
			if a.EpsilonLower > certified {
				t.Errorf("ε = %g, seed %d: bound %g exceeds the certified ε %g", eps, seed, a.EpsilonLower, certified)
			}
			if eps == 64 && a.EpsilonLower < 1 {
				t.Errorf("ε = 64, seed %d: bound %g, want ≥ 1 (an audit without power checks nothing)", seed, a.EpsilonLower)
			}
		}
	}
}

// paperAudit runs paper mode on data at ε with an audit of the default
// canaries (1,000 or 10 % of the references) at 95 % and returns its
// AuditEvent.
func paperAudit(t *testing.T, data string, eps float64, seed uint64) core.AuditEvent {
	t.Helper()
	cfg := core.Config{Data: data, Method: MethodName, Mode: core.ModePaper, Epsilon: eps, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: seed,
		Audit: &core.AuditSpec{Confidence: 0.95}}
	run, err := core.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a *core.AuditEvent
	for ev := range run.Events() {
		switch e := ev.(type) {
		case core.AuditEvent:
			a = &e
		case core.ErrorEvent:
			t.Fatal(e.Err)
		}
	}
	if a == nil {
		t.Fatal("no AuditEvent from a paper-mode run with an audit")
	}
	return *a
}

// TestAuditPaperRefutes: on real data (builtin:default: d = 19, h > 1 in
// PCA units) the paper's sensitivity C_m/(n h^(d−1)) makes its noise
// ~1e-23, while one real neighbour moves a query's mean by far more; the
// attacker who sees the released means b̃ of iteration 1 then refutes the
// paper's ε = 1 near the ceiling of its 191 canaries (10 % of the 1,910
// references): a bound ≥ 1.5 and within 1.5 of the ceiling (seed 1:
// 2.78, 96 of 96 right, ceiling 3.49). The audit is deterministic for a
// seed.
func TestAuditPaperRefutes(t *testing.T) {
	israce.SkipNumerics(t)
	a := paperAudit(t, "builtin:default", 1, 1)
	t.Logf("paper-mode audit: ε ≥ %.3g (%d/%d right), ceiling %.3g, %d canaries", a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling, a.Canaries)
	if a.Canaries != 191 || a.EpsilonLower < 1.5 || a.EpsilonLower < a.Ceiling-1.5 || a.EpsilonLower > a.Ceiling || !strings.Contains(a.Setting, "noisy mean b̃") {
		t.Errorf("paper-mode audit = %+v, want 191 canaries, a bound ≥ 1.5 within 1.5 of the ceiling (refuting ε = 1) and the attacker's view named", a)
	}
	if b := paperAudit(t, "builtin:default", 1, 1); b.EpsilonLower != a.EpsilonLower || b.Correct != a.Correct || b.Guesses != a.Guesses {
		t.Errorf("same seed, two audits: %g (%d/%d) and %g (%d/%d)", a.EpsilonLower, a.Correct, a.Guesses, b.EpsilonLower, b.Correct, b.Guesses)
	}
}

// TestQueryCanariesPlacement: each canary's g slots lie on distinct
// queries, every slot is used once, and g = min(m, slots/canaries).
func TestQueryCanariesPlacement(t *testing.T) {
	for _, tc := range []struct{ m, D, n, g int }{{200, 20, 1000, 4}, {200, 20, 100, 42}, {10, 2, 5, 6}, {3, 1, 6, 1}} {
		cfg := core.Config{Seed: 7, Audit: &core.AuditSpec{Canaries: tc.n}}
		a, err := newQueryCanaries(cfg, tc.m, tc.D)
		if err != nil {
			t.Fatal(err)
		}
		if a.g != tc.g || len(a.in) != tc.n || len(a.owner) != tc.n*tc.g {
			t.Fatalf("%+v: g = %d, %d canaries, %d slots; want g = %d", tc, a.g, len(a.in), len(a.owner), tc.g)
		}
		seen := map[[2]int]bool{}
		for q, ks := range a.byQ {
			for _, k := range ks {
				key := [2]int{a.owner[k], q}
				if seen[key] {
					t.Errorf("%+v: canary %d has two slots on query %d", tc, a.owner[k], q)
				}
				seen[key] = true
			}
		}
		if len(seen) != tc.n*tc.g {
			t.Errorf("%+v: %d (canary, query) pairs, want %d", tc, len(seen), tc.n*tc.g)
		}
	}
}
