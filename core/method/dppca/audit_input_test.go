package dppca

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/internal/fixture"
)

// inputAuditOf runs cfg on 2,000 simulated cells with an input-canary
// audit (m = 200, 10 % of the cells) at confidence conf and returns the
// AuditEvent, the smallest certified ε and the result's cell count.
func inputAuditOf(t *testing.T, cfg core.Config, conf float64) (core.AuditEvent, float64, int) {
	t.Helper()
	cfg.Audit = &core.AuditSpec{Confidence: conf, Kind: core.AuditInput}
	_, evs := runTest(t, fixture.Separated(4, 500, 300, 1), cfg, nil)
	a, ok := fixture.LastOf[core.AuditEvent](evs)
	if !ok {
		t.Fatal("no AuditEvent from a run with an input audit")
	}
	eps := math.Inf(1)
	if g, ok := fixture.LastOf[core.GuaranteeEvent](evs); ok {
		for _, v := range g.Audited {
			eps = min(eps, v.Epsilon)
		}
	}
	res, ok := fixture.LastOf[core.ResultEvent](evs)
	if !ok {
		t.Fatal("no ResultEvent")
	}
	return a, eps, res.Cells
}

// TestInputAuditNonPrivate: without noise each included canary moves its
// gene's ranking sum by exactly 1 and an excluded one by 0, so every guess
// is right; the bound is that of the best rule with all guesses right
// (the attacker does not know how many canaries are in). The result holds
// the 2,000 real cells only.
func TestInputAuditNonPrivate(t *testing.T) {
	cfg := fixture.SoundConfig(0, 1, nil)
	cfg.Mode = core.ModeNonPrivate
	a, _, cells := inputAuditOf(t, cfg, 0.95)
	t.Logf("nonprivate: bound %.4g (%d of %d), ceiling %.4g", a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
	if a.Kind != core.AuditInput || a.Canaries != 200 || !strings.Contains(a.Setting, "input canaries") {
		t.Errorf("audit = %+v, want 200 input canaries", a)
	}
	if a.EpsilonLower < 2.5 {
		t.Errorf("nonprivate input audit = %+v, want a bound ≥ 2.5 (ceiling 3.53)", a)
	}
	if cells != 2000 {
		t.Errorf("result has %d cells, want the 2000 real ones", cells)
	}
}

// TestInputAuditNeverExceeds: sound releases at several ε over seeds; the
// input-canary bound never exceeds the certified ε. At confidence
// 1 − 10⁻³ per run a false failure has probability at most runs·10⁻³:
// 6·10⁻³ here, 3·10⁻² with DPSCOPE_AUDIT_LONG=1. At ε = 64 the best
// seed's bound must be ≥ 0.1 (measured 0.44 and 0.16: the ranking is a
// small share of the budget, so its noise stays large), or the check
// would pass for an audit without power.
func TestInputAuditNeverExceeds(t *testing.T) {
	epsilons, seeds := []float64{1, 8, 64}, []uint64{0, 1}
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		epsilons, seeds = []float64{0.5, 1, 2, 4, 8, 64}, []uint64{0, 1, 2, 3, 4}
	}
	best64 := 0.0
	for _, eps := range epsilons {
		for _, seed := range seeds {
			a, certified, _ := inputAuditOf(t, fixture.SoundConfig(eps, seed, nil), 1-1e-3)
			if eps == 64 {
				best64 = max(best64, a.EpsilonLower)
			}
			t.Logf("ε = %g, seed %d: certified %.4g, bound %.4g (%d of %d), ceiling %.4g", eps, seed, certified, a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
			if a.EpsilonLower > certified {
				t.Errorf("ε = %g, seed %d: bound %g exceeds the certified ε %g", eps, seed, a.EpsilonLower, certified)
			}
		}
	}
	if best64 < 0.1 {
		t.Errorf("ε = 64: best bound %g, want ≥ 0.1 (an audit without power checks nothing)", best64)
	}
}

// TestInputAuditRefusals: more input canaries than 10 % of the cells, and
// prep=public (no ranking release), are errors naming the cause.
func TestInputAuditRefusals(t *testing.T) {
	d := fixture.Separated(2, 50, 40, 1)
	if _, _, err := NewInputAudit(d, core.AuditSpec{Canaries: 11, Kind: core.AuditInput}, 1); err == nil || !strings.Contains(err.Error(), "10 %") {
		t.Errorf("11 canaries on 100 cells: err = %v, want one naming the 10 %% cap", err)
	}
	a, aug, err := NewInputAudit(d, core.AuditSpec{Kind: core.AuditInput}, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := 0
	for _, b := range a.canaries.Included() {
		if b {
			in++
		}
	}
	if aug.Cells() != 100+in || d.Cells() != 100 || aug.Validate() != nil {
		t.Errorf("augmented %d cells (valid: %v), original %d; want 100 + %d included and the original unchanged", aug.Cells(), aug.Validate(), d.Cells(), in)
	}
	if _, err := a.Event(&Matrix{}, 1e-5, 0.95, "x"); err == nil || !strings.Contains(err.Error(), "prep=public") {
		t.Errorf("Event without a ranking: err = %v, want one naming prep=public", err)
	}
	if err := CheckInputPrep(PrepPublic); !errors.Is(err, core.ErrBadConfig) || !strings.Contains(err.Error(), "prep=public") {
		t.Errorf("CheckInputPrep(public) = %v, want ErrBadConfig naming prep=public", err)
	}
	if err := CheckInputPrep(PrepPrivate); err != nil {
		t.Errorf("CheckInputPrep(private) = %v, want nil", err)
	}
	if audit.MaxInputCanaries(100) != 10 {
		t.Errorf("MaxInputCanaries(100) = %d, want 10", audit.MaxInputCanaries(100))
	}
}
