package tui

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// planText prints a planning pass whole, NaNs included (DeepEqual would
// call two NaN figures different).
func planText(r planResult) string {
	return fmt.Sprintf("%d %v %v %v %v %v %v", r.seq, r.pld, r.bySigma, r.bySteps, r.eps, r.sigmaFor, r.err)
}

// TestCachedPlanMatchesDirect: the cached passes give exactly the figures
// the uncached ones compute, under the caller's seq, RDP and PLD.
func TestCachedPlanMatchesDirect(t *testing.T) {
	in := plannerInputs{Q: 0.013, Steps: 517, Delta: 1e-5, Sigma: 1.07, Target: 2.5}
	for _, pld := range []bool{false, true} {
		want := planRDP(3, in)
		if pld {
			want = planPLD(3, in)
		}
		if len(want.bySigma) == 0 || len(want.eps) == 0 {
			t.Fatalf("pld=%v: direct pass empty: %s", pld, planText(want))
		}
		first := cachedPlan(3, in, pld)
		again := cachedPlan(3, in, pld)
		if planText(first) != planText(want) || planText(again) != planText(want) {
			t.Errorf("pld=%v: cached %s / %s, want %s", pld, planText(first), planText(again), planText(want))
		}
		if later := cachedPlan(9, in, pld); later.seq != 9 {
			t.Errorf("pld=%v: seq %d from the cache, want the caller's 9", pld, later.seq)
		}
	}
}

// TestCachedPlanConcurrentSessions: 40 sessions opening the Planner at once
// on the same inputs share one pass, kept in the cache, and all
// get the direct figures. Run under -race.
func TestCachedPlanConcurrentSessions(t *testing.T) {
	in := plannerInputs{Q: 0.021, Steps: 333, Delta: 1e-6, Sigma: 0.93, Target: 3.1}
	want := planText(planPLD(1, in))
	var wg sync.WaitGroup
	got := make([]string, 40)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = planText(cachedPlan(1, in, true))
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Fatalf("session %d got %s, want %s", i, g, want)
		}
	}
	// One pass for all: the key is held (memo's own test counts the passes).
	planCache.Get(planKey{in: in, pld: true}, func() planResult {
		t.Error("the pass the sessions shared is not in the cache")
		return planResult{}
	})
}

// TestCachedAuditMatchesDirect: the Budget pane's cached accounting equals
// the direct one, first call and again, from concurrent sessions.
func TestCachedAuditMatchesDirect(t *testing.T) {
	mechs := []core.Mechanism{{SampleRate: 0.017, NoiseMultiplier: 1.13, Steps: 411}, {SampleRate: 0.05, NoiseMultiplier: 2.2, Steps: 37}}
	evs := []accountant.Event{{SampleRate: 0.017, NoiseMultiplier: 1.13, Steps: 411}, {SampleRate: 0.05, NoiseMultiplier: 2.2, Steps: 37}}
	want := fmt.Sprintf("%+v", account(1e-5, evs))
	if d := account(1e-5, evs); d.err != nil || d.spent.EpsilonRDP <= 0 || len(d.curve) == 0 {
		t.Fatalf("direct accounting empty: %s", want)
	}
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := audit(i, "x", 1e-5, mechs)
			got[i] = fmt.Sprintf("%+v", auditFigures{spent: r.spent, curve: r.curve, err: r.err})
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Fatalf("session %d got %s, want %s", i, g, want)
		}
	}
}
