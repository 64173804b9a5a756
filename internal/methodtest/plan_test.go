package methodtest

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestTargetRunsReachTheirPlan is issue 14 point 6: with a target ε and no
// σ, every private method and mode calibrates its noise for every
// mechanism it will use, so it takes every step it planned and spends at
// most the target.
func TestTargetRunsReachTheirPlan(t *testing.T) {
	for _, v := range variants(2) {
		t.Run(v.name, func(t *testing.T) {
			target := v.cfg.Epsilon
			rec := follow(t, v.cfg, nil)
			if rec.err != nil {
				t.Fatalf("run failed: %v", rec.err)
			}
			if rec.done == nil || rec.done.Outcome != core.OutcomeFinished {
				t.Fatalf("run ended with %+v, want outcome finished", rec.done)
			}
			planned := rec.planned
			if v.cfg.Method == "dpmd" {
				planned = 3 // its stages are data, local PCA, then T = 3 iterations
			}
			if planned == 0 || rec.steps != planned {
				t.Errorf("took %d steps of %d planned, want all", rec.steps, planned)
			}
			spent := spentEpsilon(rec)
			if len(spent) == 0 {
				t.Fatalf("no ε reported (budget %+v, audited %+v)", rec.budget, rec.audited)
			}
			for name, e := range spent {
				if e > target*(1+1e-6) {
					t.Errorf("ε spent (%s) = %v, want ≤ target %v", name, e, target)
				}
			}
			t.Logf("%s: %d/%d steps, ε %v ≤ %v", v.name, rec.steps, rec.planned, spent, target)
		})
	}
}

// spentEpsilon returns the ε of the run's last budget event per
// accountant, or the audited figures of its final guarantee when it reports
// no budget events. Figures of "(training steps only)" and "(planned)" are
// left out: they are not what the whole run spent.
func spentEpsilon(rec record) map[string]float64 {
	out := map[string]float64{}
	vals := rec.audited
	if rec.budget != nil {
		vals = rec.budget.Spent
	}
	for _, v := range vals {
		if strings.Contains(v.Accountant, "planned") || strings.Contains(v.Accountant, "training steps only") {
			continue
		}
		out[v.Accountant] = v.Epsilon
	}
	return out
}
