package sounddcan

import (
	"math"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestStartAloneFloorDrop: under start=alone, dppca's floor (floor=3:drop,
// its default) can end with K' < K centres; the run then succeeds with a
// mixture of K' components at dppca's released centres (no cell in a
// component dppca dropped, before or after the steps); the null's labels
// are dppca's own; and the ledger
// of a run through the engine holds exactly the stage's plan's
// mechanisms (dppca's own, after p was chosen) and the network's steps,
// composing to the target. Three separated populations asked for K = 8
// make dppca's merge leave groups the counts cannot tell from empty.
func TestStartAloneFloorDrop(t *testing.T) {
	d := fixture.Separated(3, 200, 200, 3)
	dropped := 0
	for _, c := range []struct {
		steps string
		eps   float64
		seed  uint64
	}{{"50", 8, 0}, {"50", 8, 1}, {"0", 8, 0}, {"0", 30, 1}} {
		opts := map[string]string{"start": "alone", "k": "8", "steps": c.steps}
		o := mustParse(t, opts)
		src, err := dppca.NewSourceTarget(d, o.K, o.fixedTarget())
		if err != nil {
			t.Fatal(err)
		}
		out := fitOnce(t, src, true, c.eps, o, c.seed)
		kr := out.Start.K
		if kr <= 0 || kr > 8 || len(out.Start.Counts) != kr {
			t.Fatalf("%v: the start released K = %d with %d counts", opts, kr, len(out.Start.Counts))
		}
		if kr == 8 {
			continue
		}
		dropped++
		if len(out.StartWeights) != kr || len(out.Weights) != kr || len(out.Centres) != kr*out.Start.Matrix.H {
			t.Fatalf("%v: %d start weights, %d weights, %d centre values; want K' = %d components", opts, len(out.StartWeights), len(out.Weights), len(out.Centres), kr)
		}
		if m := max(slices.Max(out.StartLabels), slices.Max(out.Labels)); m >= kr || out.NonEmpty > kr {
			t.Errorf("%v: a cell in component %d, %d non-empty (K' = %d)", opts, m, out.NonEmpty, kr)
		}
		if a, err := cluster.ARI(out.Start.Labels, out.Labels); err != nil || (o.NoTrain && a < 0.95) {
			// the null's are the mixture's π-weighted labels at dppca's
			// centres, dppca's its nearest centre's: near, not equal
			t.Errorf("%v: the null's labels agree with dppca's to ARI %.3f (%v), want ≥ 0.95", opts, a, err)
		}
		if !o.NoTrain && out.Plan.Steps == 0 {
			t.Errorf("%v: the network did not run", opts)
		}
		// the engine's ledger: the stage's mechanisms as its plan lists
		// them, the steps, nothing of the head's
		e, _ := runTest(t, d, fixture.SoundConfig(c.eps, c.seed, opts))
		mu, eps := ledgerBudget(t, e)
		if eps > c.eps || eps < c.eps-1e-5 {
			t.Errorf("%v: the ledger composes to ε %.9g, want the target %g", opts, eps, c.eps)
		}
		n := 0
		for _, ev := range e.Ledger().Events(MechSGD) {
			n += ev.Steps
		}
		if n != out.Plan.Steps {
			t.Errorf("%v: %d DP-SGD events, the plan's %d steps", opts, n, out.Plan.Steps)
		}
		if n := len(e.Ledger().Events(MechSums)) + len(e.Ledger().Events(MechCounts)); n != 0 {
			t.Errorf("%v: %d head releases in the ledger, want none", opts, n)
		}
		var want float64
		for _, m := range out.Start.Plan.Mechanisms() {
			want += float64(m.Count) * (m.Sens / m.Sigma) * (m.Sens / m.Sigma)
		}
		if out.Plan.Steps > 0 {
			want += float64(out.Plan.Steps) / (out.Plan.Z * out.Plan.Z)
		}
		if math.Abs(mu*mu-want) > 1e-6*want {
			t.Errorf("%v: the ledger's μ² %.9g, the stage's and steps' plan %.9g", opts, mu*mu, want)
		}
	}
	if dropped < 3 {
		t.Errorf("the floor dropped centres in %d of the 4 runs, want at least 3 (the test would not test the padding)", dropped)
	}
}
