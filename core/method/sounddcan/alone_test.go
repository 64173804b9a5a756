package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestStartAloneOptions: start=alone resolves to dppca's own defaults
// (the stage's options are dppca.Parse's, what `--method dppca` runs,
// but centre=off and mergestarts=10),
// has no head round and no head share, and refuses a head merge or a
// held release.
func TestStartAloneOptions(t *testing.T) {
	o := mustParse(t, map[string]string{"start": "alone"})
	if o.Hold != HoldOff || o.Target != TargetLow || o.Over != 1 || o.Genes != dppca.GenesAuto || o.PRule != dppca.PRuleEdge || o.Rounds() != 0 {
		t.Errorf("start=alone resolves to %s, want hold=off target=1000 over=1 genes=auto p=auto and no head round", o)
	}
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	// dppca.Parse's defaults but centre=off: centre=auto (rule G21)
	// shifts the projection the mixture is lifted from, and G21 judged
	// dppca alone
	// and mergestarts=10 (rule G23 judged dppca alone as well)
	want, err := dppca.Parse(map[string]string{"centre": "off", "mergestarts": "10"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(do, want) {
		t.Errorf("the stage's options\n%+v\nwant dppca's defaults\n%+v", do, want)
	}
	for _, on := range []bool{true, false} {
		oo := o
		oo.NoTrain = !on
		dp, net, head := oo.shares()
		if head != 0 || math.Abs(dp+net-1) > 1e-15 || (on && net != ShareSGD) {
			t.Errorf("steps on %v: shares %g / %g / %g, want the start all but the network's %g, the head none", on, dp, net, head, ShareSGD)
		}
	}
	for _, bad := range []map[string]string{{"start": "alone", "over": "3"}, {"start": "alone", "hold": "first"}, {"rounds": "-1"}, {"start": "solo"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if s := mustParse(t, nil).String(); strings.Contains(s, "rounds") {
		t.Errorf("the default's string %q names rounds", s)
	}
}

// TestStartAloneIsDPPCA: under start=alone the start's releases are
// dppca's own at the stage's share of μ² (its engine's plan and
// generator, its total 10³): the same labels, centres and released
// counts, with the null (steps=0, dppca at the whole budget, no count
// released first) and with the network on at a fixed share (the count
// released first by the staged split, at the noise dppca's own plan
// gives it). The runs' ledgers compose to the target exactly.
func TestStartAloneIsDPPCA(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	for _, c := range []struct {
		opts map[string]string
		eps  float64
	}{{map[string]string{"start": "alone", "steps": "0"}, 4}, {map[string]string{"start": "alone", "net": "0.4"}, 30}} {
		o := mustParse(t, c.opts)
		src, err := dppca.NewSourceTarget(d, 0, o.fixedTarget())
		if err != nil {
			t.Fatal(err)
		}
		const seed = 5
		fitRng := rand.New(rand.NewPCG(seed, 0)) // the engine's generator, through the plan and the fit
		pl, err := NewPlan(src, true, c.eps, 1e-5, o, fitRng)
		if err != nil {
			t.Fatal(err)
		}
		if on := !o.NoTrain; on != (pl.Steps > 0) || pl.Staged != on || pl.Rounds != 0 {
			t.Fatalf("%v: steps %d, staged %v, head rounds %d: want the network on and staged iff steps > 0, no head round", c.opts, pl.Steps, pl.Staged, pl.Rounds)
		}
		shDP, _, _ := pl.Shares()
		out, err := Fit(context.Background(), src, pl, o, fitRng, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		// dppca alone at the stage's ε, as its engine runs it
		eps1, err := stageEpsilon(pl.Mu, shDP, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		do, err := dppca.Parse(nil)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		dpl, err := src.PlanFor(true, eps1, 1e-5, do, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(dpl.Count-pl.DPPCA.Count) > 1e-12*dpl.Count || math.Abs(dpl.NoisyN-pl.DPPCA.NoisyN) > 1e-9 || dpl.H != pl.DPPCA.H {
			t.Errorf("%v: stage plan count σ %.15g, ñ %.12g, h %d; dppca's %.15g, %.12g, %d", c.opts, pl.DPPCA.Count, pl.DPPCA.NoisyN, pl.DPPCA.H, dpl.Count, dpl.NoisyN, dpl.H)
		}
		want, err := dppca.Release(context.Background(), src, dpl, do, rng)
		if err != nil {
			t.Fatal(err)
		}
		got := out.Start
		if !reflect.DeepEqual(got.Labels, want.Labels) || len(got.Centres) != len(want.Centres) || len(got.Counts) != src.K {
			t.Fatalf("%v: the start's labels or centres differ from dppca's (%d and %d centre values, %d counts)", c.opts, len(got.Centres), len(want.Centres), len(got.Counts))
		}
		for i := range got.Centres {
			if math.Abs(got.Centres[i]-want.Centres[i]) > 1e-9*(1+math.Abs(want.Centres[i])) {
				t.Fatalf("%v: centre value %d is %g, dppca's %g", c.opts, i, got.Centres[i], want.Centres[i])
			}
		}
		for j := range got.Counts {
			if math.Abs(got.Counts[j]-want.Counts[j]) > 1e-9*(1+math.Abs(want.Counts[j])) {
				t.Fatalf("%v: released count %d is %g, dppca's %g", c.opts, j, got.Counts[j], want.Counts[j])
			}
		}
		// the null's labels are dppca's here (four separated populations,
		// weights by released counts): the mixture starts at its centres
		if o.NoTrain && !reflect.DeepEqual(out.Labels, want.Labels) {
			t.Errorf("%v: the null's labels differ from dppca's on separated populations", c.opts)
		}
		// the ledger of a run through the engine composes to the target
		e, evs := runTest(t, d, fixture.SoundConfig(c.eps, seed, c.opts))
		_, eps := ledgerBudget(t, e)
		if eps > c.eps || eps < c.eps-1e-5 {
			t.Errorf("%v: the ledger composes to ε %.9g, want the target %g", c.opts, eps, c.eps)
		}
		if n := len(e.Ledger().Events(MechSums)) + len(e.Ledger().Events(MechCounts)); n != 0 {
			t.Errorf("%v: %d head releases in the ledger, want none", c.opts, n)
		}
		if n := len(e.Ledger().Events(MechSGD)); (n > 0) != !o.NoTrain {
			t.Errorf("%v: %d DP-SGD events in the ledger", c.opts, n)
		}
		if g, ok := fixture.LastOf[core.GuaranteeEvent](evs); !ok || len(g.Audited) == 0 || math.Abs(g.Audited[0].Epsilon-eps) > 1e-12 {
			t.Errorf("%v: final guarantee %+v, want the ledger's ε %.9g", c.opts, g, eps)
		}
	}
}
