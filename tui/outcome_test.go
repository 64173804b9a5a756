package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
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
