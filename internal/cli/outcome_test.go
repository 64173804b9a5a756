package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// ender is a fake engine that takes two steps and ends as its seed says:
// 1 budget exhausted, 2 diverged (an error wrapping core.ErrDiverged).
type ender struct{ seed uint64 }

func (e ender) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.StageEvent{Stage: 1, Name: "only", Steps: 10})
	for step := 1; step <= 2; step++ {
		if _, err := ctl.Checkpoint(ctx); err != nil {
			return err
		}
		ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: step, Loss: 1})
	}
	if e.seed == 2 {
		return fmt.Errorf("loss is NaN at step 3: %w", core.ErrDiverged)
	}
	ctl.EndEarly(core.OutcomeBudgetExhausted, "ε = 8 of the target 8 spent at step 2 of 10")
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-ender", Family: core.FamilyDPSGD, New: func(cfg core.Config) (core.Engine, error) { return ender{cfg.Seed}, nil }})
}

// TestEarlyEndsAreSavedWithTheirReason is issue 14 point 7 for the
// command line: the summary (JSON and text) carries the status and the
// reason, never "finished".
func TestEarlyEndsAreSavedWithTheirReason(t *testing.T) {
	code, stdout, stderr := run(t, "run", "--method", "test-ender", "--mode", "nonprivate", "--seed", "1", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := summaryOf(t, stdout)
	if s.Status != "budget-exhausted" || !strings.Contains(s.Reason, "step 2 of 10") || s.Stopped {
		t.Errorf("summary status %q, reason %q, stopped %v; want budget-exhausted with the reason", s.Status, s.Reason, s.Stopped)
	}
	_, text, _ := run(t, "run", "--method", "test-ender", "--mode", "nonprivate", "--seed", "1")
	if !strings.Contains(text, "budget exhausted before the end of its schedule: ε = 8 of the target 8 spent at step 2 of 10") || strings.Contains(text, "finished") {
		t.Errorf("text summary does not state the early end:\n%s", text)
	}

	code, stdout, _ = run(t, "run", "--method", "test-ender", "--mode", "nonprivate", "--seed", "2", "--json")
	s = summaryOf(t, stdout)
	if code != ExitRuntime || s.Status != "diverged" || !strings.Contains(s.Reason, "NaN") {
		t.Errorf("diverged run: exit %d, status %q, reason %q; want exit 1, diverged, the reason", code, s.Status, s.Reason)
	}
}
