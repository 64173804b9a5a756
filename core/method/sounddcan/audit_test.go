package sounddcan

import (
	"math"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// auditOf runs cfg with an audit of 300 canaries (the mixture's gradient
// has 405 coordinates here) at confidence conf and
// returns the AuditEvent and the smallest certified ε of the guarantee.
func auditOf(t *testing.T, cfg core.Config, conf float64) (core.AuditEvent, float64) {
	t.Helper()
	a, eps, _ := auditOn(t, fixture.Separated(4, 100, 300, 1), cfg, core.AuditSpec{Canaries: 300, Confidence: conf})
	return a, eps
}

// auditOn runs cfg on d with the audit spec and returns the AuditEvent,
// the smallest certified ε of the guarantee and the result's cell count.
func auditOn(t *testing.T, d *datasets.Dataset, cfg core.Config, spec core.AuditSpec) (core.AuditEvent, float64, int) {
	t.Helper()
	cfg.Audit = &spec
	_, evs := runTest(t, d, cfg)
	a, ok := fixture.LastOf[core.AuditEvent](evs)
	if !ok {
		t.Fatalf("no AuditEvent from a run with the audit %+v", spec)
	}
	eps := math.Inf(1)
	if g, ok := fixture.LastOf[core.GuaranteeEvent](evs); ok {
		for _, v := range g.Audited {
			eps = min(eps, v.Epsilon)
		}
	}
	res, _ := fixture.LastOf[core.ResultEvent](evs)
	return a, eps, res.Cells
}

// TestAuditNonPrivate: without noise every canary shows in the steps'
// sums: 3.23 with 150 of 150 right, the ceiling of 300 canaries being
// 3.93 (the best rule guessed on half of them).
func TestAuditNonPrivate(t *testing.T) {
	cfg := fixture.SoundConfig(0, 1, map[string]string{"genes": "100", "p": "5", "steps": "20"})
	cfg.Mode = core.ModeNonPrivate
	a, _ := auditOf(t, cfg, 0.95)
	if a.EpsilonLower < 3 {
		t.Errorf("nonprivate audit = %+v, want a bound ≥ 3", a)
	}
}

// TestAuditNeverExceeds: sound runs at several ε over seeds; the bound
// never exceeds the certified (exact GDP) ε. At confidence 1 − 10⁻³ per run
// it fails falsely with probability at most runs·10⁻³ (6·10⁻³ here,
// 3·10⁻² with DPSCOPE_AUDIT_LONG=1); ε = 64 shows the audit has power.
func TestAuditNeverExceeds(t *testing.T) {
	checkNeverExceeds(t, 0.5, func(cfg core.Config) (core.AuditEvent, float64) { return auditOf(t, cfg, 1-1e-3) })
}

// checkNeverExceeds runs audit (at confidence 1 − 10⁻³) on sound runs at
// ε 1, 8, 64 and seeds 0–1 (ε 0.5–64 and seeds 0–4 with
// DPSCOPE_AUDIT_LONG=1) and fails where the bound exceeds the certified ε,
// or where at ε = 64 it is below power (0: no power check).
func checkNeverExceeds(t *testing.T, power float64, audit func(core.Config) (core.AuditEvent, float64)) {
	t.Helper()
	epsilons, seeds := []float64{1, 8, 64}, []uint64{0, 1}
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		epsilons, seeds = []float64{0.5, 1, 2, 4, 8, 64}, []uint64{0, 1, 2, 3, 4}
	}
	for _, eps := range epsilons {
		for _, seed := range seeds {
			// net=0.4: the gradient canaries live in the DP-SGD steps,
			// and net=rho (the default) gives them a small share of a
			// large ε, so their bound would say little about power.
			cfg := fixture.SoundConfig(eps, seed, map[string]string{"genes": "100", "p": "5", "steps": "20", "net": "0.4"})
			a, certified := audit(cfg)
			t.Logf("ε = %g, seed %d: certified %.4g, bound %.4g (%d of %d), ceiling %.4g", eps, seed, certified, a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
			if a.EpsilonLower > certified {
				t.Errorf("ε = %g, seed %d: bound %g exceeds the certified ε %g", eps, seed, a.EpsilonLower, certified)
			}
			if eps == 64 && a.EpsilonLower < power {
				t.Errorf("ε = 64, seed %d: bound %g, want ≥ %g (an audit without power checks nothing)", seed, a.EpsilonLower, power)
			}
		}
	}
}
