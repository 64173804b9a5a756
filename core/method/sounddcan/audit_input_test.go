package sounddcan

import (
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"

	"github.com/dpscope/dpscope/internal/israce"
)

// inputAuditOf runs cfg on 2,000 simulated cells with an input-canary
// audit (200 synthetic cells, 10 %) at confidence conf and returns the
// AuditEvent, the smallest certified ε and the result's cell count.
func inputAuditOf(t *testing.T, cfg core.Config, conf float64) (core.AuditEvent, float64, int) {
	t.Helper()
	return auditOn(t, fixture.Separated(4, 500, 300, 1), cfg, core.AuditSpec{Confidence: conf, Kind: core.AuditInput})
}

// TestInputAuditNonPrivate: without noise every included canary moves its
// gene's ranking sum by exactly 1: measured 2.99 (198 of 200; the
// attacker does not know how many are in), ceiling 3.53; the result
// holds the real cells only.
func TestInputAuditNonPrivate(t *testing.T) {
	cfg := fixture.SoundConfig(0, 1, map[string]string{"genes": "100", "p": "5", "steps": "20"})
	cfg.Mode = core.ModeNonPrivate
	a, _, cells := inputAuditOf(t, cfg, 0.95)
	t.Logf("nonprivate: bound %.4g (%d of %d), ceiling %.4g", a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
	if a.Kind != core.AuditInput || a.EpsilonLower < 2.5 {
		t.Errorf("nonprivate input audit = %+v, want a bound ≥ 2.5 (ceiling 3.53)", a)
	}
	if cells != 2000 {
		t.Errorf("result has %d cells, want the 2000 real ones", cells)
	}
}

// TestInputAuditNeverExceeds: sound runs at several ε over seeds; the
// input-canary bound never exceeds the certified ε (false-failure
// probability at most runs·10⁻³: 6·10⁻³, 3·10⁻² with
// DPSCOPE_AUDIT_LONG=1).
func TestInputAuditNeverExceeds(t *testing.T) {
	israce.SkipNumerics(t)
	checkNeverExceeds(t, 0, func(cfg core.Config) (core.AuditEvent, float64) {
		a, certified, _ := inputAuditOf(t, cfg, 1-1e-3)
		return a, certified
	})
}
