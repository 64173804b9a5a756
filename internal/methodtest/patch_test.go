package methodtest

import (
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestReachableEpsilonPatchIsApplied checks the other side of every
// method's patch path: a larger target is taken, the guarantee is
// re-stated after it, and the run spends at most the new target.
func TestReachableEpsilonPatchIsApplied(t *testing.T) {
	for _, v := range variants(2) {
		t.Run(v.name, func(t *testing.T) {
			more := 2 * v.cfg.Epsilon
			rec := follow(t, v.cfg, &core.Patch{Epsilon: &more})
			if rec.err != nil {
				t.Fatalf("run failed: %v", rec.err)
			}
			if len(rec.patches) != 1 || !rec.patches[0].Applied {
				t.Fatalf("patch answers = %+v, want the patch applied", rec.patches)
			}
			after := false
			for _, ev := range rec.events {
				switch ev.(type) {
				case core.PatchEvent:
					after = true
				case core.GuaranteeEvent:
					if after {
						after = false
						goto restated
					}
				}
			}
			t.Error("no GuaranteeEvent after the applied patch: the badge must be recomputed on every patch")
		restated:
			if rec.done == nil || rec.done.Outcome != core.OutcomeFinished {
				t.Errorf("run ended with %+v, want finished", rec.done)
			}
			for name, e := range spentEpsilon(rec) {
				if e > more*(1+1e-6) {
					t.Errorf("ε spent (%s) = %v, want ≤ the new target %v", name, e, more)
				}
			}
		})
	}
}
