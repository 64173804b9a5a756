package tui

import (
	"context"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// TestSoundDCANFromTheInterfaceReachesItsPlan is issue 14 point 6: the
// interface's σ solve counts DP-SGD steps only, so passing that σ made
// sound DP-DCAN's filter (which also admits the DP k-means) stop at step
// 115 of 200. The interface now hands the ε target to the engine, which
// calibrates σ for every mechanism. The short form runs 2 + 2 epochs;
// DPSCOPE_LONG=1 runs the interface's default epochs (core.DefaultEpochs,
// 20 + 20: 400 steps).
func TestSoundDCANFromTheInterfaceReachesItsPlan(t *testing.T) {
	epochs := [2]int{2, 2}
	if os.Getenv("DPSCOPE_LONG") != "" {
		epochs = core.DefaultEpochs
	}
	pr := defaultParams("builtin:default", 1, epochs)
	for i, v := range variants() {
		if v.Method == "dcan" && v.Mode == core.ModeSound {
			pr.SetVariant(i)
		}
	}
	cfg := pr.Config("")
	if cfg.Sigma != 0 || cfg.Epsilon != pr.Epsilon {
		t.Fatalf("Config() has σ %v and ε %v, want σ 0 (the engine solves it) and ε %v", cfg.Sigma, cfg.Epsilon, pr.Epsilon)
	}
	pre := datasets.DefaultPreprocessConfig()
	pre.NTopGenes = 64 // the plan does not depend on the genes; the run's time does
	cfg.Preprocess = &pre
	run, err := core.StartWith(context.Background(), cfg, core.Options{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	steps, spent, sigma := 0, 0.0, 0.0
	var done *core.DoneEvent
	for ev := range run.Events() {
		switch ev := ev.(type) {
		case core.StepEvent:
			steps = ev.Step
		case core.BudgetEvent:
			spent, sigma = ev.Spent[0].Epsilon, ev.Sigma
		case core.DoneEvent:
			done = &ev
		case core.ErrorEvent:
			t.Fatal(ev.Err)
		}
	}
	if want := pr.Steps(); steps != want || done == nil || done.Outcome != core.OutcomeFinished {
		t.Errorf("sound DP-DCAN took %d of %d steps and ended %+v, want every step and outcome finished", steps, want, done)
	}
	if spent > pr.Epsilon*(1+1e-6) || spent < 0.9*pr.Epsilon {
		t.Errorf("ε spent = %v, want ≤ the target %v and close to it", spent, pr.Epsilon)
	}
	if sigma <= pr.Sigma {
		t.Errorf("engine σ = %v, want above the interface's DP-SGD-only σ %v (it also pays for the DP k-means)", sigma, pr.Sigma)
	}
	t.Logf("%d/%d steps, ε %.4g ≤ %v, σ %.4g (interface's DP-SGD-only solve %.4g)", steps, pr.Steps(), spent, pr.Epsilon, sigma, pr.Sigma)
}
