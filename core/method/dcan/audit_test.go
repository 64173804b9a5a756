package dcan

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// auditRun runs a small DCAN (400 simulated cells, 200 genes) with an
// audit and returns what auditRunOn returns.
func auditRun(t *testing.T, cfg core.Config) (core.AuditEvent, float64) {
	t.Helper()
	return auditRunOn(t, cfg, simData(t, 400, 200, 4))
}

// auditRunOn runs DCAN on data with an audit and returns its AuditEvent and
// the smallest certified ε of its last budget event (+Inf without one).
func auditRunOn(t *testing.T, cfg core.Config, data *datasets.Preprocessed) (core.AuditEvent, float64) {
	t.Helper()
	r, _ := start(t, context.Background(), cfg, Options{Data: data})
	evs := collect(r)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	var (
		a   *core.AuditEvent
		eps = math.Inf(1)
	)
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.AuditEvent:
			a = &ev
		case core.BudgetEvent:
			eps = math.Inf(1)
			for _, v := range ev.Spent {
				eps = min(eps, v.Epsilon)
			}
		}
	}
	if a == nil {
		t.Fatalf("no AuditEvent from a run with Config.Audit = %+v", *cfg.Audit)
	}
	return *a, eps
}

// TestAuditNonPrivate: without noise or clipping the attacker finds a
// large ε (2.29 with 239 of 250 guesses right, the ceiling of 500 canaries being 4.42; a sound run at ε = 1 gives 0).
func TestAuditNonPrivate(t *testing.T) {
	cfg := baseConfig(core.ModeNonPrivate)
	cfg.Epochs = []int{10, 0}
	cfg.Audit = &core.AuditSpec{Canaries: 500}
	a, _ := auditRun(t, cfg)
	t.Logf("nonprivate: %+v", a)
	if a.EpsilonLower < 2 || a.Canaries != 500 || a.Confidence != core.DefaultAuditConfidence {
		t.Errorf("nonprivate audit = %+v, want a bound ≥ 2 on 500 canaries at 95%%", a)
	}
}

// TestAuditSoundNeverExceeds is the honesty check on the real trainer: for
// sound runs at several ε over seeds, the bound never exceeds the smallest
// certified ε (PLD or RDP). Each audit runs at confidence 1 − 10⁻³, so the
// test fails falsely with probability at most (runs)·10⁻³ (union bound):
// 6·10⁻³ in the short form, 3·10⁻² with DPSCOPE_AUDIT_LONG=1 (ε 0.5–64
// over seeds 0–4). ε = 64 is there to show the audit has power: its bound
// must be well above 0, or the check would pass vacuously.
func TestAuditSoundNeverExceeds(t *testing.T) {
	epsilons, seeds := []float64{1, 8, 64}, []uint64{0, 1}
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		epsilons, seeds = []float64{0.5, 1, 2, 4, 8, 64}, []uint64{0, 1, 2, 3, 4}
	}
	for _, eps := range epsilons {
		for _, seed := range seeds {
			cfg := baseConfig(core.ModeSound)
			// q = 0.5: an included canary takes part in about half of
			// the 20 steps, which gives the attacker the most to see.
			cfg.Epsilon, cfg.Seed, cfg.Epochs, cfg.SampleRate = eps, seed, []int{10, 0}, 0.5
			cfg.Audit = &core.AuditSpec{Canaries: 500, Confidence: 1 - 1e-3}
			a, certified := auditRun(t, cfg)
			t.Logf("ε = %g, seed %d: certified %.4g, bound %.4g (%d of %d), ceiling %.4g", eps, seed, certified, a.EpsilonLower, a.Correct, a.Guesses, a.Ceiling)
			if a.EpsilonLower > certified {
				t.Errorf("ε = %g, seed %d: audit bound %g exceeds the certified ε %g", eps, seed, a.EpsilonLower, certified)
			}
			if eps == 64 && a.EpsilonLower < 0.5 {
				t.Errorf("ε = 64, seed %d: audit bound %g, want ≥ 0.5 (an audit without power checks nothing)", seed, a.EpsilonLower)
			}
		}
	}
}

// TestAuditPaperRefutesNoiseFreeEncoder is the teaching moment: in paper
// mode with only the decoder (layers 4-6) noised, the released encoder
// trains noise-free, and the attacker who sees it refutes the paper's
// ε = 1.
func TestAuditPaperRefutesNoiseFreeEncoder(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	cfg.Epsilon, cfg.Epochs, cfg.Layers = 1, []int{10, 0}, core.LayerRange{First: 4, Last: 6}
	cfg.Audit = &core.AuditSpec{Canaries: 500}
	r, _ := start(t, context.Background(), cfg, Options{Data: simData(t, 400, 200, 4)})
	evs := collect(r)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	var a *core.AuditEvent
	published := math.Inf(1)
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.AuditEvent:
			a = &ev
		case core.GuaranteeEvent:
			for _, v := range ev.Published {
				published = v.Epsilon
			}
		}
	}
	if a == nil {
		t.Fatal("no AuditEvent")
	}
	t.Logf("paper, layers 4-6 noised: published ε %.3g, audit %+v", published, *a)
	if a.EpsilonLower <= published {
		t.Errorf("paper mode with a noise-free encoder: bound %g, want above the paper's ε %g", a.EpsilonLower, published)
	}
}
