package sounddcan

import (
	"context"
	"reflect"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestStartMergeOptions: start=merge keeps the stage's rules (the same
// dppca options as the default but the merge's fill, HeldFill, the head's round and its share) and
// refuses an over-clustering factor with nothing to merge.
func TestStartMergeOptions(t *testing.T) {
	o := mustParse(t, map[string]string{"start": "merge"})
	def := mustParse(t, nil)
	if o.Start != StartMerge || o.Over != OverCluster || o.Rounds() != 1 || o.Hold != def.Hold || o.Genes != def.Genes || o.P != def.P {
		t.Errorf("start=merge resolves to %s, want the default's options with start=merge", o)
	}
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	ddo, err := def.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	if ddo.HeldFill || !do.HeldFill {
		t.Errorf("HeldFill %v under start=merge, %v by default; want true, false", do.HeldFill, ddo.HeldFill)
	}
	ddo.HeldFill = true
	if !reflect.DeepEqual(do, ddo) {
		t.Errorf("the stage's options\n%+v\nwant the default's with HeldFill\n%+v", do, ddo)
	}
	for _, bad := range []map[string]string{{"start": "merge", "over": "1"}, {"start": "merger"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	mustParse(t, map[string]string{"start": "merge", "over": "2"})
	mustParse(t, map[string]string{"start": "merge", "over": "noise"})
}

// TestStartMerge: under start=merge the run's plan is the default's (the
// same shares, σ and count release), its start is dppca's held release
// over-clustered into 3K for ⌊T/2⌋ rounds and merged into K inside the
// stage (the same centres to the digit as dppca.ReleaseHeldFirst with
// Over = 3 on a K-centre source, and not those of Over = 1), it releases
// K centres after its 5 rounds and the head's round weights all K with no
// merge; on four separated populations at ε 30 the null finds them; and a
// run through the engine records exactly the default's mechanisms,
// composing to at most the target, within 1 %.
func TestStartMerge(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 250, 200, 3)
	for _, c := range []struct {
		opts map[string]string
		eps  float64
	}{{map[string]string{"start": "merge", "steps": "0"}, 30}, {map[string]string{"start": "merge"}, 30}, {map[string]string{"start": "merge"}, 4}} {
		v := newVariant(t, d, c.opts, "start", c.eps)
		o, src := v.o, v.src
		pl, fitRng := v.samePlan()
		if pl.Over != OverCluster || pl.Rounds != 1 {
			t.Fatalf("%v: plan over %d, head rounds %d; want %d and 1", c.opts, pl.Over, pl.Rounds, OverCluster)
		}
		out, err := Fit(context.Background(), src, pl, o, fitRng, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		k, p := src.K, len(out.Start.Eigen)
		if len(out.Start.Centres) != k*p || out.Start.K != k || len(out.Start.Inertia) != dppcaStageRounds || len(out.StartWeights) != k {
			t.Fatalf("%v: the start released %d centres (K %d) after %d rounds, %d weights; want %d, %d rounds, %d weights", c.opts, len(out.Start.Centres)/p, out.Start.K, len(out.Start.Inertia), len(out.StartWeights), k, dppcaStageRounds, k)
		}
		// the same start, replayed through dppca's held release
		release := func(over int) []float64 {
			return v.heldRelease(o, pl, k, func(do *dppca.Options) { do.Over = over })
		}
		if want := release(OverCluster); !reflect.DeepEqual(out.Start.Centres, want) {
			t.Errorf("%v ε %g: the start's centres differ from dppca's held release with over = %d", c.opts, c.eps, OverCluster)
		}
		if reflect.DeepEqual(out.Start.Centres, release(1)) {
			t.Errorf("%v ε %g: the start's centres are those of K-centre rounds throughout (no over-clustering)", c.opts, c.eps)
		}
		if c.eps == 30 {
			if a, err := cluster.ARI(out.Start.Matrix.Labels, out.Labels); err != nil || a < 0.95 || out.NonEmpty != k {
				t.Errorf("%v ε 30: ARI %.3f on four separated populations, %d non-empty; want ≥ 0.95 and %d (err %v)", c.opts, a, out.NonEmpty, k, err)
			}
		}
		// the engine's ledger: the default's mechanisms, to the target
		e := v.checkLedger()
		if n := len(e.Ledger().Events(MechSums)) + len(e.Ledger().Events(MechCounts)); n != 2 {
			t.Errorf("%v: %d head releases in the ledger, want 2 (one round)", c.opts, n)
		}
	}
}
