package methodtest

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestTargetRunsReachTheirPlan is issue 14 points 6 and 10, on one run per
// variant: with a target ε and no σ, every private method and mode
// calibrates its noise for every mechanism it will use, so it takes every
// step it planned and spends at most the target; and a patch, after the
// first step, to an ε below what is already spent is rejected with the
// reason and changes nothing (FedSC used to accept it). The run's
// guarantee also says that its noise follows the seed (point 8).
func TestTargetRunsReachTheirPlan(t *testing.T) {
	for _, v := range variants(2) {
		t.Run(v.name, func(t *testing.T) {
			target := v.cfg.Epsilon
			tiny := 1e-4
			rec := follow(t, v.cfg, &core.Patch{Epsilon: &tiny})
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
			if len(rec.patches) != 1 || rec.patches[0].Applied || rec.patches[0].Err == "" {
				t.Fatalf("answers to the ε %v patch = %+v, want one rejection", tiny, rec.patches)
			}
			if msg := rec.patches[0].Err; !strings.Contains(msg, "0.0001") && !strings.Contains(msg, "1e-04") {
				t.Errorf("rejection %q does not name the ε asked for", msg)
			}
			if why := reasons(rec); !strings.Contains(why, "reproducible from the seed") || !strings.Contains(why, "--secure-noise") {
				t.Errorf("seeded run's guarantee reasons do not say the noise follows the seed and name --secure-noise:\n%s", why)
			}
			t.Logf("%s: %d/%d steps, ε %v ≤ %v", v.name, rec.steps, planned, spent, target)
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
