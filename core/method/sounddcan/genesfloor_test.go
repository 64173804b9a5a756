package sounddcan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"

	"github.com/dpscope/dpscope/internal/israce"
)

// TestStartAloneGenesFloor: under start=alone, genes=grow:18 gives the
// start h = max(200, dppca's rule at the start's μ and the released
// count) with R = 0.5·√h, for the network's run and for its null
// (steps=0; the count is released first for both, alike); the fit's start runs
// at that h; and the engine's ledger holds exactly the start's plan's
// mechanisms and the plan's steps, composing to the target. Both sides
// of the floor are reached (1,000 cells: at ε 2 the rule gives h < 200,
// at ε 30 more). The whole:S form, and a scale dppca refuses, are
// refused under start=alone.
func TestStartAloneGenesFloor(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 250, 600, 3)
	below, above, trained := 0, 0, 0
	for _, c := range []struct {
		steps string
		eps   float64
		seed  uint64
	}{{"50", 2, 0}, {"0", 2, 1}, {"50", 30, 0}, {"0", 30, 1}} {
		opts := map[string]string{"start": "alone", "genes": "grow:18", "steps": c.steps}
		o := mustParse(t, opts)
		on := mustParse(t, map[string]string{"start": "alone", "genes": "grow:18"})
		src, err := dppca.NewSourceTarget(d, 0, o.fixedTarget())
		if err != nil {
			t.Fatal(err)
		}
		pl, err := NewPlan(src, true, c.eps, 1e-5, o, rand.New(rand.NewPCG(c.seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		// the count is released first, at the network-on share's noise,
		// alike for the network's run and its null
		pon, err := NewPlan(src, true, c.eps, 1e-5, on, rand.New(rand.NewPCG(c.seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if pl.DPPCA.NoisyN != pon.DPPCA.NoisyN || pl.DPPCA.NoisyN <= 0 || pl.DPPCA.Count != pon.DPPCA.Count {
			t.Fatalf("%v: released count %g (σ %g), the network-on run's %g (σ %g): want the same release", opts, pl.DPPCA.NoisyN, pl.DPPCA.Count, pon.DPPCA.NoisyN, pon.DPPCA.Count)
		}
		rule := src.Genes(dppca.GenesRule(pl.DPPCA.NoisyN, pl.DPPCA.Mu))
		if rule < dppca.DefaultGenes {
			below++
		} else {
			above++
		}
		if want := max(dppca.DefaultGenes, rule); pl.DPPCA.H != want {
			t.Errorf("%v: h %d, want max(200, dppca's rule %d at the start's μ %.4g) = %d", opts, pl.DPPCA.H, rule, pl.DPPCA.Mu, want)
		}
		if r := 0.5 * math.Sqrt(float64(pl.DPPCA.H)); math.Abs(pl.DPPCA.R-r) > 1e-12*r {
			t.Errorf("%v: R %g, want 0.5·√h = %g", opts, pl.DPPCA.R, r)
		}
		if o.NoTrain && pl.Steps != 0 {
			t.Errorf("%v: %d steps in the null", opts, pl.Steps)
		}
		trained += pl.Steps
		out := fitOnce(t, src, true, c.eps, o, c.seed)
		if out.Start.Plan.H != pl.DPPCA.H || out.Start.Matrix.H != pl.DPPCA.H {
			t.Errorf("%v: the start ran at h %d (matrix %d), its plan's %d", opts, out.Start.Plan.H, out.Start.Matrix.H, pl.DPPCA.H)
		}
		e, _ := runTest(t, d, fixture.SoundConfig(c.eps, c.seed, opts))
		mu, eps := ledgerBudget(t, e)
		// at most the target; below it by the count's release only (drawn
		// at the network-on share's noise when the network is off)
		if eps > c.eps || eps < 0.99*c.eps {
			t.Errorf("%v: the ledger composes to ε %.9g, want the target %g (within 1%% below)", opts, eps, c.eps)
		}
		var want float64
		for _, m := range out.Start.Plan.Mechanisms() {
			want += float64(m.Count) * (m.Sens / m.Sigma) * (m.Sens / m.Sigma)
		}
		n := 0
		for _, ev := range e.Ledger().Events(MechSGD) {
			n += ev.Steps
		}
		if n != out.Plan.Steps {
			t.Errorf("%v: %d DP-SGD steps in the ledger, the plan's %d", opts, n, out.Plan.Steps)
		}
		if out.Plan.Steps > 0 {
			want += float64(out.Plan.Steps) / (out.Plan.Z * out.Plan.Z)
		}
		if math.Abs(mu*mu-want) > 1e-6*want {
			t.Errorf("%v: the ledger's μ² %.9g, the start's and steps' plan %.9g", opts, mu*mu, want)
		}
	}
	if trained == 0 {
		t.Error("no run trained: the ledger's steps are not tested")
	}
	if below == 0 || above == 0 {
		t.Errorf("dppca's rule was below 200 in %d runs and at least 200 in %d: want both (the floor and the rule each tested)", below, above)
	}
	for _, bad := range []map[string]string{{"start": "alone", "genes": "whole:18"}, {"start": "alone", "genes": "start:18"}, {"start": "alone", "genes": "grow:0.5"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestAloneGenesScale: the scale passed to dppca gives h = max(floor,
// the rule at scale S) through dppca's own rule, within dppca's bounds.
func TestAloneGenesScale(t *testing.T) {
	for _, c := range []struct {
		n, mu float64
		want  int
	}{{2000, 1.0, 200}, {2000, 3.0, 333}, {4000, 0.9, 200}, {300, 0.7, 200}, {150, 1.0, 150}, {1e5, 2, 1000}} {
		s := aloneGenesScale(c.n, c.mu, 18, 200)
		if h := dppca.GenesRuleScale(c.n, c.mu, s); h != c.want || s < dppca.MinGenesScale || s > 18 {
			t.Errorf("ñ %g, μ %g: scale %g gives h %d, want %d (scale in [%d, 18])", c.n, c.mu, s, h, c.want, dppca.MinGenesScale)
		}
	}
	if s := aloneGenesScale(2000, 1, 18, 0); s != 18 {
		t.Errorf("no floor: scale %g, want 18", s)
	}
}
