package dcan

import (
	"context"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/nn"
)

// patchRun starts a long private run, applies p after the first step and
// returns the acknowledgement, the events and the trainer once the run has
// ended (stopped after stopAfter more steps, or at its end when 0).
func patchRun(t *testing.T, cfg core.Config, p core.Patch, stopAfter int) (core.PatchEvent, []core.Event, *Trainer) {
	t.Helper()
	r, tr := start(t, context.Background(), cfg, small(t))
	defer r.Wait()
	var ack core.PatchEvent
	var evs []core.Event
	sent := false
	for ev := range r.Events() {
		evs = append(evs, ev)
		switch ev := ev.(type) {
		case core.StepEvent:
			if !sent {
				r.Apply(p)
				sent = true
			}
			if ack.Applied && stopAfter > 0 && ev.Step >= ack.Step+stopAfter {
				r.Stop()
			}
		case core.PatchEvent:
			ack = ev
		}
	}
	if !ack.Applied {
		t.Fatalf("patch %s not applied: %+v (last event %#v)", p, ack, evs[len(evs)-1])
	}
	return ack, evs, tr
}

func TestSigmaPatchTakesEffectAtItsStep(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	cfg.Epsilon, cfg.Sigma = 0, 1.5
	cfg.Epochs = []int{30, 0}
	sigma := 3.0
	ack, evs, tr := patchRun(t, cfg, core.Patch{Sigma: &sigma}, 3)
	if ack.Step < 2 {
		t.Fatalf("patch applied at step %d, want ≥ 2 (sent after the first step)", ack.Step)
	}
	got := tr.Ledger().Events(compStage1)
	if len(got) != 2 {
		t.Fatalf("ledger stage 1 = %v, want two phases", got)
	}
	if got[0].NoiseMultiplier != 1.5 || got[0].Steps != ack.Step-1 {
		t.Errorf("first phase = %v, want σ 1.5 for the %d steps before step %d", got[0], ack.Step-1, ack.Step)
	}
	if got[1].NoiseMultiplier != 3 || got[1].Steps < 3 {
		t.Errorf("second phase = %v, want σ 3 from step %d on", got[1], ack.Step)
	}
	var g []core.GuaranteeEvent
	for _, ev := range evs {
		if e, ok := ev.(core.GuaranteeEvent); ok {
			g = append(g, e)
		}
	}
	if len(g) < 2 {
		t.Fatalf("%d guarantee events, want one at the start and one after the σ patch", len(g))
	}
	if g[1].Published[0].Epsilon >= g[0].Published[0].Epsilon {
		t.Errorf("published ε after raising σ = %v, want below %v", g[1].Published[0].Epsilon, g[0].Published[0].Epsilon)
	}
}

func TestEpsilonPatchResolvesSigma(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	// The trainer never waits for this reader (Emit does not block), so
	// the patch lands as many steps after the first StepEvent as the
	// trainer has run ahead, more on a loaded machine. A long run keeps
	// that lead a small part of the budget: the ε spent when it lands
	// stays well below the new target of 4 (a run of 3 + 1 epochs had
	// spent 4.3 by step 6 and refused it).
	cfg.Epochs = []int{30, 0}
	eps := 4.0
	ack, evs, tr := patchRun(t, cfg, core.Patch{Epsilon: &eps}, 0)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	all := tr.Ledger().All()
	if len(all) < 2 || all[len(all)-1].NoiseMultiplier <= all[0].NoiseMultiplier {
		t.Fatalf("ledger %v, want σ raised from step %d on", all, ack.Step)
	}
	got, _, err := accountant.EpsilonRDP(all, cfg.Delta, accountant.DefaultOrders.Orders(), accountant.Improved)
	if err != nil {
		t.Fatal(err)
	}
	if got > eps*(1+1e-9) || got < eps*(1-1e-4) {
		t.Errorf("ε of the whole run = %v, want the new target %v", got, eps)
	}
	// The answer names the σ solved for the target, the one the ledger
	// records from then on, and budget reports carry it with their orders.
	last := all[len(all)-1].NoiseMultiplier
	if ack.Effective == nil || ack.Effective.Sigma == nil || *ack.Effective.Sigma != last || *ack.Effective.Epsilon != eps {
		t.Errorf("patch answer %+v, want effective σ %v for ε %v", ack, last, eps)
	}
	var b core.BudgetEvent
	for _, ev := range evs {
		if be, ok := ev.(core.BudgetEvent); ok {
			b = be
		}
	}
	if b.Sigma != last || b.Orders != accountant.DefaultOrders.String() {
		t.Errorf("last budget σ %v orders %q, want %v and %q", b.Sigma, b.Orders, last, accountant.DefaultOrders.String())
	}
}

func TestPatchesRejected(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		mode  core.Mode
		patch core.Patch
	}{
		{"σ in nonprivate mode", core.ModeNonPrivate, core.Patch{Sigma: ptr(2.0)}},
		{"layers in sound mode", core.ModeSound, core.Patch{Layers: &core.LayerRange{First: 1, Last: 3}}},
		{"σ and ε together", core.ModePaper, core.Patch{Sigma: ptr(2.0), Epsilon: ptr(3.0)}},
		{"clients", core.ModePaper, core.Patch{Clients: ptrInt(3)}},
		{"unreachable ε", core.ModePaper, core.Patch{Epsilon: ptr(1e-4)}},
		// Everything else in it is valid: none of it may take effect.
		{"unreachable ε with δ, C and a learning rate", core.ModePaper,
			core.Patch{Epsilon: ptr(1e-4), Delta: ptr(1e-3), Clip: ptr(5.0), LearningRate: ptr(0.5)}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(tc.mode)
			cfg.Epochs = []int{20, 0}
			r, tr := start(t, context.Background(), cfg, small(t))
			sent := false
			var ack core.PatchEvent
			for ev := range r.Events() {
				switch ev := ev.(type) {
				case core.StepEvent:
					if !sent {
						r.Apply(tc.patch)
						sent = true
					}
				case core.PatchEvent:
					ack = ev
					r.Stop()
				}
			}
			r.Wait()
			if ack.Applied || ack.Err == "" {
				t.Errorf("patch %s answered %+v, want rejected with a reason", tc.patch, ack)
			}
			if p := tr.priv; p != nil && (p.target != cfg.Epsilon || p.delta != cfg.Delta || p.filter == nil) {
				t.Errorf("after a rejected patch the target is ε %v δ %v (filter %v), want the run's %v, %v", p.target, p.delta, p.filter != nil, cfg.Epsilon, cfg.Delta)
			}
			if l := tr.Ledger(); l != nil {
				for _, ev := range l.All() {
					if ev.NoiseMultiplier != l.All()[0].NoiseMultiplier {
						t.Errorf("ledger %v changed σ after a rejected patch", l.All())
					}
				}
			}
		})
	}
}

func TestLayerPatchChangesTheGuarantee(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	cfg.Epochs = []int{30, 0}
	ack, evs, tr := patchRun(t, cfg, core.Patch{Layers: &core.LayerRange{First: 1, Last: 6}}, 2)
	var statuses []core.Guarantee
	for _, ev := range evs {
		if g, ok := ev.(core.GuaranteeEvent); ok {
			statuses = append(statuses, g.Status)
		}
	}
	if len(statuses) < 2 || statuses[0] != core.GuaranteeNone || statuses[1] != core.GuaranteePaperOnly {
		t.Errorf("guarantee statuses = %v, want none then paper-only after the patch at step %d", statuses, ack.Step)
	}
	// Changing the layer range does not change the accounting.
	if all := tr.Ledger().All(); len(all) != 1 {
		t.Errorf("ledger = %v, want one phase (same q and σ)", all)
	}
}

func TestLearningRatePatchInNonPrivateMode(t *testing.T) {
	cfg := baseConfig(core.ModeNonPrivate)
	cfg.Epochs = []int{30, 0}
	lr := 5e-4
	ack, _, _ := patchRun(t, cfg, core.Patch{LearningRate: &lr}, 1)
	if ack.Step < 2 || *ack.Patch.LearningRate != lr {
		t.Errorf("patch answered %+v, want the learning rate applied from a step ≥ 2", ack)
	}
}

func TestDeltaPatchResolvesSigma(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	cfg.Epochs = []int{3, 1}
	delta := 1e-7
	ack, evs, tr := patchRun(t, cfg, core.Patch{Delta: &delta}, 0)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	all := tr.Ledger().All()
	if len(all) < 2 || all[len(all)-1].NoiseMultiplier <= all[0].NoiseMultiplier {
		t.Fatalf("ledger %v, want σ raised from step %d on", all, ack.Step)
	}
	got, _, err := accountant.EpsilonRDP(all, delta, accountant.DefaultOrders.Orders(), accountant.Improved)
	if err != nil {
		t.Fatal(err)
	}
	if got > cfg.Epsilon*(1+1e-9) || got < cfg.Epsilon*(1-1e-4) {
		t.Errorf("ε at the new δ = %v, want the target %v", got, cfg.Epsilon)
	}
	var last core.BudgetEvent
	for _, ev := range evs {
		if b, ok := ev.(core.BudgetEvent); ok {
			last = b
		}
	}
	if last.Delta != delta {
		t.Errorf("final budget δ = %v, want %v", last.Delta, delta)
	}
}

// applyState is a private paper-mode run state at step 0 with a filter at
// ε = 8, enough for apply (no data pass).
func applyState(t *testing.T) *runState {
	t.Helper()
	d := simData(t, 60, 20, 3)
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: nn.Tanh, Output: nn.OutputLinear, MaxRows: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{}.withDefaults()
	adam, err := nn.NewAdam(len(ae.Params), nn.AdamConfig{LR: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig(core.ModePaper)
	r := &runState{s: settings{cfg: cfg, opt: o, epochs: [2]int{2, 2}}, m: newModel(ae, d, 3, o, 1), opt: adam,
		priv: newPrivacy(cfg.Delta, 0), private: true, q: 0.1, clip: 0.1, layers: core.LayerRange{First: 1, Last: 3},
		planned: [2]int{20, 20}, circ: Circumstances{Delta: cfg.Delta}}
	if r.sigma, err = r.priv.solveSigma(cfg.Epsilon, cfg.Delta, r.plan()); err != nil {
		t.Fatal(err)
	}
	if err := r.priv.setTarget(cfg.Epsilon, r.plan(), r.sigma); err != nil {
		t.Fatal(err)
	}
	if r.dp, err = dpsgd.New(&ae.Net, adam, r.m.n, r.dpConfig(1, 1), r.priv); err != nil {
		t.Fatal(err)
	}
	return r
}

// A patch that fails any check changes nothing: not the learning rate,
// clip, σ, δ, target or filter it would otherwise have set, even when the
// failing part is the last one checked (the ε solve).
func TestRejectedPatchLeavesTheRunUnchanged(t *testing.T) {
	r := applyState(t)
	// Five steps spent: no σ meets ε = 1e-4 any more.
	if err := r.priv.record(compStage1, r.q, r.sigma, 5); err != nil {
		t.Fatal(err)
	}
	r.done[0] = 5
	lr, sigma, clip, filter, dcfg := r.opt.LR(), r.sigma, r.clip, r.priv.filter, r.dp.Config()
	for _, p := range []core.Patch{
		{Epsilon: ptr(1e-4), Delta: ptr(1e-3), Clip: ptr(5.0), LearningRate: ptr(0.5)},
		{Sigma: ptr(3.0), Clip: ptr(5.0), LearningRate: ptr(0.5), Layers: &core.LayerRange{First: 1, Last: 9}},
		{Clip: ptr(5.0), LearningRate: ptr(0.5), Clients: ptrInt(2)},
	} {
		if _, err := r.apply(p); err == nil {
			t.Fatalf("patch %s applied, want rejected", p)
		}
		if r.opt.LR() != lr || r.sigma != sigma || r.clip != clip || r.priv.filter != filter || r.priv.target != 8 ||
			r.priv.delta != 1e-5 || r.circ.Delta != 1e-5 || r.dp.Config() != dcfg {
			t.Fatalf("after rejected patch %s: lr %v σ %v C %v target %v δ %v, want %v %v %v 8 1e-5, filter and DP-SGD config unchanged",
				p, r.opt.LR(), r.sigma, r.clip, r.priv.target, r.priv.delta, lr, sigma, clip)
		}
	}
	// The same changes with a reachable target all take effect.
	if _, err := r.apply(core.Patch{Epsilon: ptr(6.0), Delta: ptr(1e-4), Clip: ptr(5.0), LearningRate: ptr(0.5)}); err != nil {
		t.Fatal(err)
	}
	if r.opt.LR() != 0.5 || r.clip != 5 || r.sigma == sigma || r.priv.target != 6 || r.priv.delta != 1e-4 || r.priv.filter == filter ||
		r.dp.Config().NoiseMultiplier != r.sigma || r.dp.Config().ClipNorm != 5 {
		t.Errorf("after an applied patch: lr %v C %v σ %v target %v δ %v", r.opt.LR(), r.clip, r.sigma, r.priv.target, r.priv.delta)
	}
}
