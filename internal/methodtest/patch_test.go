package methodtest

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestUnreachableEpsilonPatchIsRejected is issue 14 point 10: after the
// first step, a patch to an ε below what is already spent is rejected with
// the reason, and changes nothing: the run still takes every step it
// planned within its first target. FedSC used to accept it.
func TestUnreachableEpsilonPatchIsRejected(t *testing.T) {
	for _, v := range variants(2) {
		t.Run(v.name, func(t *testing.T) {
			tiny := 1e-4
			rec := follow(t, v.cfg, &core.Patch{Epsilon: &tiny})
			if rec.err != nil {
				t.Fatalf("run failed: %v", rec.err)
			}
			if len(rec.patches) != 1 || rec.patches[0].Applied || rec.patches[0].Err == "" {
				t.Fatalf("patch answers = %+v, want one rejection", rec.patches)
			}
			if msg := rec.patches[0].Err; !strings.Contains(msg, "0.0001") && !strings.Contains(msg, "1e-04") {
				t.Errorf("rejection %q does not name the ε asked for", msg)
			}
			if rec.done == nil || rec.done.Outcome != core.OutcomeFinished {
				t.Errorf("run ended with %+v, want finished: the rejected patch must change nothing", rec.done)
			}
			for name, e := range spentEpsilon(rec) {
				if e > v.cfg.Epsilon*(1+1e-6) {
					t.Errorf("ε spent (%s) = %v, want ≤ the first target %v", name, e, v.cfg.Epsilon)
				}
			}
		})
	}
}

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
