package fed

import (
	"errors"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// auditMethod is testMethod with an audit: core.Start refuses Config.Audit
// for a method without one.
const auditMethod = "fed-audit-test"

func init() {
	core.Register(core.Method{Name: auditMethod, Family: core.FamilyFederated, Options: allSpecs, Audit: auditDoc, New: func(cfg core.Config) (core.Engine, error) {
		select {
		case e := <-queued:
			return e, nil
		default:
			return nil, errors.New("no engine queued")
		}
	}})
}

// auditRun runs variant v in mode m with 500 canaries at 99.9 % and
// returns the audit and the smallest certified ε (0 if none).
func auditRun(t *testing.T, v Variant, m core.Mode, eps float64, seed uint64) (core.AuditEvent, float64) {
	t.Helper()
	d := simData(t, 200, 60, 3)
	cfg := baseConfig(v, m)
	cfg.Method, cfg.Seed = auditMethod, seed
	if m != core.ModeNonPrivate {
		cfg.Epsilon = eps
	}
	cfg.Audit = &core.AuditSpec{Canaries: 500, Confidence: 0.999}
	evs := runEngine(t, cfg, newEngine(t, cfg, v, smallParams(d)))
	var a *core.AuditEvent
	for _, ev := range evs {
		if ae, ok := ev.(core.AuditEvent); ok {
			a = &ae
		}
	}
	if a == nil {
		t.Fatalf("%v %s: no audit event", v, m)
	}
	outside := a.Outside
	certified := 0.0
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.GuaranteeEvent:
			certified = 0
			for _, e := range ev.Audited {
				if slices.Contains(outside, e.Accountant) {
					continue
				}
				if certified == 0 || e.Epsilon < certified {
					certified = e.Epsilon
				}
			}
		}
	}
	if a.Canaries != 500 || a.Ceiling <= 0 || a.EpsilonLower < 0 || a.EpsilonLower > a.Ceiling {
		t.Errorf("%v %s: audit %+v, want 500 canaries and 0 ≤ bound ≤ ceiling", v, m, *a)
	}
	return *a, certified
}

// TestFedAuditHonest: the honesty checks of docs/AUDIT.md for the
// federated methods. Sound runs (local noise: FL-DP; central noise with
// client sampling: FedSC) never show a bound above their certified
// client-level ε (a false failure has probability ≤ 10⁻³ a run); a noise-free
// run shows a large one, so the check is not vacuous.
func TestFedAuditHonest(t *testing.T) {
	for _, tc := range []struct {
		v   Variant
		eps float64
	}{{FLDP, 1}, {FLDP, 8}, {FLDP, 200}, {PPMLOmics, 8}, {FedSC, 8}, {FedSC, 200}} {
		a, certified := auditRun(t, tc.v, core.ModeSound, tc.eps, 7)
		t.Logf("%v sound ε %g: bound %.3g (%d/%d), certified %.3g, ceiling %.3g", tc.v, tc.eps, a.EpsilonLower, a.Correct, a.Guesses, certified, a.Ceiling)
		if certified <= 0 {
			t.Errorf("%v sound: no certified ε", tc.v)
		} else if a.EpsilonLower > certified {
			t.Errorf("%v sound ε %g: attack bound %v above the certified %v", tc.v, tc.eps, a.EpsilonLower, certified)
		}
		// At ε = 200 the noise is small against the canary: the bound must
		// come near the ceiling, or the canaries never reached the release.
		if tc.eps == 200 && a.EpsilonLower < 0.5 {
			t.Errorf("%v sound ε 200: bound %v, want ≥ 0.5 (ceiling %v)", tc.v, a.EpsilonLower, a.Ceiling)
		}
	}
	a, _ := auditRun(t, FL, core.ModeNonPrivate, 0, 7)
	t.Logf("FL nonprivate: bound %.3g (%d/%d), ceiling %.3g", a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
	if a.EpsilonLower < 0.5 {
		t.Errorf("FL without noise: bound %v, want ≥ 0.5 against a ceiling of 1.17 (the canaries are seen exactly)", a.EpsilonLower)
	}
}
