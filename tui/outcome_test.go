package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// TestEarlyEndIsNeverShownAsFinished is issue 14 point 7: a run that ends
// early says so, with its reason, in the status line, the Compare record
// and the Budget pane's label.
func TestEarlyEndIsNeverShownAsFinished(t *testing.T) {
	for _, tc := range []struct {
		done    core.DoneEvent
		outcome string
		status  string
	}{
		{core.DoneEvent{Outcome: core.OutcomeBudgetExhausted, Reason: "ε = 4 of the target 4 spent at step 115 of 200"},
			"budget-exhausted", "run ended early — budget exhausted: ε = 4 of the target 4 spent at step 115 of 200"},
		{core.DoneEvent{Outcome: core.OutcomeDiverged, Reason: "local training diverged in round 3 of 4"},
			"diverged", "run ended early — diverged: local training diverged in round 3 of 4"},
		{core.DoneEvent{Outcome: core.OutcomeStopped, Stopped: true, Reason: "stopped by the user"},
			"stopped", "run stopped: stopped by the user"},
		{core.DoneEvent{Outcome: core.OutcomeFinished}, "finished", "run finished"},
	} {
		t.Run(tc.outcome, func(t *testing.T) {
			m := sized(t, testModel(t, fakeFast), 160, 48)
			m = feed(t, m, 1, append(fakeRun(1)[:len(fakeRun(1))-1], tc.done))
			m.noteEvents([]core.Event{tc.done}) // what Update does with a run's events
			if got := m.Status(); got != tc.status {
				t.Errorf("status = %q, want %q", got, tc.status)
			}
			cp := m.Pane(TabCompare).(*comparePane)
			if n := len(cp.Records()); n != 1 || cp.Records()[0].Outcome != tc.outcome {
				t.Errorf("Compare records %+v, want one with outcome %q", cp.Records(), tc.outcome)
			}
			bp := m.Pane(TabBudget).(*budgetPane)
			if early := tc.done.Early(); early != (bp.sched.ended != "finished") || !strings.Contains(bp.sched.ended, strings.ReplaceAll(tc.outcome, "-", " ")) {
				t.Errorf("Budget pane's schedule ended = %q, want the outcome %q", bp.sched.ended, tc.outcome)
			}
		})
	}
}

// TestEditAfterAnEndedRunPlansAfresh: once a run has ended, an edit plans
// the new settings from the first step — σ solved for the whole new plan,
// the Budget pane's label and guarantee the new ones — instead of the
// ended run's remainder and badge.
func TestEditAfterAnEndedRunPlansAfresh(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	m = feed(t, m, 1, append(fakeRun(1)[:len(fakeRun(1))-1], core.DoneEvent{Outcome: core.OutcomeStopped, Stopped: true, Reason: "stopped by the user"}))
	if runPaneOf(m).charts.guarantee == nil || m.Pane(TabBudget).(*budgetPane).guar == nil {
		t.Fatal("the ended run's guarantee is not shown before the edit")
	}
	m = press(t, m, "j", "j", "j", "j", "l") // σ × 1.1, as TestEditingSigmaReprojectsEpsilon
	rp, bp := runPaneOf(m), m.Pane(TabBudget).(*budgetPane)
	if rp.sched.finished || bp.sched.finished {
		t.Error("the panes still plan from the ended run's schedule")
	}
	if rp.charts.guarantee != nil || bp.guar != nil {
		t.Error("the ended run's guarantee is still shown after the settings changed")
	}
	pr := rp.Params()
	want, err := rdpOf(pr.Sigma, pr)
	if err != nil || math.Abs(pr.Epsilon/round3(want)-1) > 1e-9 {
		t.Errorf("ε after the σ edit = %v, want %v projected over all %d planned steps (%v)", pr.Epsilon, round3(want), pr.Steps(), err)
	}
}

// TestDataSettingsReachEveryRun is issue 14 point 9 in the interface: the
// command line's labels, orientation and preprocessing go into every run's
// configuration on the loaded data set, and not into a synthetic
// manifold's, which reads no data set.
func TestDataSettingsReachEveryRun(t *testing.T) {
	pre := datasets.DefaultPreprocessConfig()
	pre.NTopGenes = 300
	c := Config{Data: "cells.csv", Labels: "labels.tsv", Orientation: "cells-by-genes", Preprocess: &pre, LabelsColumn: "cell_type", UseRaw: true}
	for i, v := range variants() {
		pr := defaultParams("cells.csv", 1, [2]int{1, 1})
		pr.SetVariant(i)
		cfg := c.runConfig(pr)
		if cfg.Data != "cells.csv" {
			if cfg.Preprocess != nil || cfg.Labels != "" {
				t.Errorf("%s on %s got the data set's settings", v.Label, cfg.Data)
			}
			continue
		}
		if cfg.Preprocess == nil || cfg.Preprocess.NTopGenes != 300 || cfg.Labels != "labels.tsv" || cfg.Orientation != "cells-by-genes" ||
			cfg.LabelsColumn != "cell_type" || !cfg.UseRaw {
			t.Errorf("%s: config %+v lacks the data settings", v.Label, cfg)
		}
	}
}
