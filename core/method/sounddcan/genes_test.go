package sounddcan

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParseGenesScale: genes=auto:S sets the scale and prints back as
// given; malformed or out-of-range scales are errors naming the option.
func TestParseGenesScale(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "auto:6.5"})
	if o.Genes != dppca.GenesAuto || o.GenesScale != 6.5 || !strings.Contains(o.String(), " genes=auto:6.5 ") {
		t.Errorf("genes=auto:6.5 gives Genes %d, scale %g, %q", o.Genes, o.GenesScale, o.String())
	}
	if o := mustParse(t, map[string]string{"genes": "auto"}); o.GenesScale != 0 || !strings.Contains(o.String(), " genes=auto ") {
		t.Errorf("genes=auto gives scale %g, %q: want dppca's own rule", o.GenesScale, o.String())
	}
	for _, v := range []string{"auto:0", "auto:-1", "auto:x", "auto:NaN", "auto:Inf", "auto:1e4", "auto:", "auto:0.4"} {
		_, err := Parse(map[string]string{"genes": v})
		if err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "genes") {
			t.Errorf("genes=%s: error %v, want an ErrOptions naming genes", v, err)
		}
	}
	bad := mustParse(t, map[string]string{"genes": "200"})
	bad.GenesScale = 6.5 // a scale on a fixed h
	if err := bad.Validate(); err == nil || !errors.Is(err, ErrOptions) {
		t.Errorf("scale 6.5 with genes=200 validates (%v)", err)
	}
	// the hand-off runs dppca's own rule, not the scale
	if h := mustParse(t, map[string]string{"genes": "auto:6.5"}).handoff(); h.GenesScale != 0 || h.Genes != dppca.GenesAuto {
		t.Errorf("handoff keeps genes scale %g", h.GenesScale)
	}
}

// TestPlanGenesScale: under genes=auto:S the dppca stage's h is
// dppca.GenesRuleScale from the released count and the stage's network-on μ, the
// staged split's ρ is read with that h, the null (steps=0) chooses the same
// h from the same release, and the count is released first even where no
// other rule would release it (stage=off, a fixed target).
func TestPlanGenesScale(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(vals map[string]string, eps float64) Plan { return privatePlan(t, src, vals, eps) }
	for _, eps := range []float64{4, 16} {
		pl := plan(map[string]string{"genes": "auto:2"}, eps)
		want := src.Genes(dppca.GenesRuleScale(pl.NoisyN, pl.stageMuOn, 2))
		if pl.DPPCA.H != want || want == src.Genes(dppca.DefaultGenes) {
			t.Errorf("ε %g: h = %d, want GenesRuleScale's %d (≠ the fixed %d)", eps, pl.DPPCA.H, want, dppca.DefaultGenes)
		}
		o := mustParse(t, map[string]string{"genes": "auto:2"})
		_, shNet, _ := o.shares()
		z := math.Sqrt(float64(o.Steps)) / (pl.Mu * math.Sqrt(shNet))
		if r := MeanNoise(z, o.GradClip, src.K, pl.NoisyN, o.LR, want); math.Abs(pl.Rho-r) > 1e-12 {
			t.Errorf("ε %g: staged split's ρ %g, want %g with h = %d", eps, pl.Rho, r, want)
		}
		null := plan(map[string]string{"genes": "auto:2", "steps": "0"}, eps)
		if null.DPPCA.H != pl.DPPCA.H || null.NoisyN != pl.NoisyN {
			t.Errorf("ε %g: null h %d (ñ %g), method %d (ñ %g)", eps, null.DPPCA.H, null.NoisyN, pl.DPPCA.H, pl.NoisyN)
		}
	}
	lo, hi := plan(map[string]string{"genes": "auto:2"}, 4), plan(map[string]string{"genes": "auto:2"}, 16)
	if hi.DPPCA.H <= lo.DPPCA.H {
		t.Errorf("h %d at ε 16 not above %d at ε 4: more budget must carry more genes", hi.DPPCA.H, lo.DPPCA.H)
	}
	off := plan(map[string]string{"genes": "auto:2", "stage": "off", "target": "10000"}, 8)
	if off.NoisyN <= 0 || off.DPPCA.H != src.Genes(dppca.GenesRuleScale(off.NoisyN, off.stageMuOn, 2)) {
		t.Errorf("stage=off: ñ %g, h %d: the count was not released first for the rule", off.NoisyN, off.DPPCA.H)
	}
}

// TestScaledGenesGrow: under genes=grow:S h = max(200, min(1000,
// round(ñ·μ/S))) at stated ñ, μ and S: the floor, the rule between, the
// cap; under auto:S the same rule without the floor (down to 50).
func TestScaledGenesGrow(t *testing.T) {
	grow := mustParse(t, map[string]string{"genes": "grow:19"})
	auto := mustParse(t, map[string]string{"genes": "auto:19"})
	for _, c := range []struct {
		n, mu      float64
		grow, auto int
	}{
		{2000, 0.65, 200, 68},           // the first screen's regime: auto falls to 68, grow keeps 200
		{300, 1, 200, 50},               // a small set: auto at its floor 50
		{3800, 1, 200, 200},             // exactly 200
		{4000, 1.9, 400, 400},           // the rule between floor and cap
		{4271, 3.3, 742, 742},           // pbmc-sized at a large budget
		{1e5, 1, 1000, 1000},            // the cap
		{2000, math.Inf(1), 1000, 1000}, // no noise
	} {
		if g, a := grow.scaledGenes(c.n, c.mu), auto.scaledGenes(c.n, c.mu); g != c.grow || a != c.auto {
			t.Errorf("ñ %g, μ %g, S 19: grow h %d (want %d), auto h %d (want %d)", c.n, c.mu, g, c.grow, a, c.auto)
		}
	}
}

// TestParseGenesGrow: genes=grow:S sets the scale and the floor 200 and
// prints back as given; malformed scales are errors naming the option; a
// floor without a scale does not validate; the hand-off drops the floor.
func TestParseGenesGrow(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "grow:6.5"})
	if o.Genes != dppca.GenesAuto || o.GenesScale != 6.5 || o.GenesFloor != dppca.DefaultGenes || !strings.Contains(o.String(), " genes=grow:6.5 ") {
		t.Errorf("genes=grow:6.5 gives Genes %d, scale %g, floor %d, %q", o.Genes, o.GenesScale, o.GenesFloor, o.String())
	}
	if back := mustParse(t, map[string]string{"genes": "grow:6.5"}); back != o {
		t.Errorf("parsing twice differs: %v, %v", back, o)
	}
	for _, v := range []string{"grow:0", "grow:-1", "grow:x", "grow:NaN", "grow:Inf", "grow:1e4", "grow:", "grow", "grow:0.4"} {
		_, err := Parse(map[string]string{"genes": v})
		if err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "genes") {
			t.Errorf("genes=%s: error %v, want an ErrOptions naming genes", v, err)
		}
	}
	bad := mustParse(t, map[string]string{"genes": "200"})
	bad.GenesFloor = 200 // a floor on a fixed h, no scale
	if err := bad.Validate(); err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "floor") {
		t.Errorf("floor 200 without a scale validates (%v)", err)
	}
	if h := o.handoff(); h.GenesFloor != 0 || h.GenesScale != 0 {
		t.Errorf("handoff keeps floor %d, scale %g", h.GenesFloor, h.GenesScale)
	}
}

// TestPlanGenesGrow: under genes=grow:S the plan's h is max(200, ñ·μ/S)
// from the released count, the staged split's ρ is read with that h, and
// the null chooses the same h: at a large S the floor holds (h = 200,
// where auto:S would fall below), at a small S h grows past it.
func TestPlanGenesGrow(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(vals map[string]string, eps float64) Plan { return privatePlan(t, src, vals, eps) }
	floor := src.Genes(dppca.DefaultGenes)
	for _, c := range []struct {
		genes string
		eps   float64
		above bool // h above the floor
	}{{"grow:100", 4, false}, {"grow:1", 16, true}} {
		pl := plan(map[string]string{"genes": c.genes}, c.eps)
		o := mustParse(t, map[string]string{"genes": c.genes})
		raw := dppca.GenesRuleScale(pl.NoisyN, pl.stageMuOn, o.GenesScale)
		want := src.Genes(max(raw, dppca.DefaultGenes))
		if pl.DPPCA.H != want || (pl.DPPCA.H > floor) != c.above {
			t.Errorf("%s ε %g: h = %d, want %d (rule %d, floor %d)", c.genes, c.eps, pl.DPPCA.H, want, raw, floor)
		}
		if !c.above && raw >= dppca.DefaultGenes {
			t.Errorf("%s ε %g: the rule gives %d ≥ 200, the floor is not tested", c.genes, c.eps, raw)
		}
		_, shNet, _ := o.shares()
		z := math.Sqrt(float64(o.Steps)) / (pl.Mu * math.Sqrt(shNet))
		if r := MeanNoise(z, o.GradClip, src.K, pl.NoisyN, o.LR, want); math.Abs(pl.Rho-r) > 1e-12 {
			t.Errorf("%s ε %g: staged split's ρ %g, want %g with h = %d", c.genes, c.eps, pl.Rho, r, want)
		}
		null := plan(map[string]string{"genes": c.genes, "steps": "0"}, c.eps)
		if null.DPPCA.H != pl.DPPCA.H {
			t.Errorf("%s ε %g: null h %d, method %d", c.genes, c.eps, null.DPPCA.H, pl.DPPCA.H)
		}
	}
}

// privatePlan is the private plan of the options vals at ε (δ 1e-5) on
// src, with a fixed generator, for the genes tests.
func privatePlan(t *testing.T, src *dppca.Source, vals map[string]string, eps float64) Plan {
	t.Helper()
	pl, err := NewPlan(src, true, eps, 1e-5, mustParse(t, vals), rand.New(rand.NewPCG(5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestGenesWhole checks genes=whole:S: it parses to grow:S's floor and
// scale with GenesWhole, prints back, needs a floor, is dropped by the
// hand-off; in a private plan h = max(200, ñ·μ/S) with μ the whole run's
// (above the floor at ε 4 and S = 2, more genes than grow:2 reads at
// the stage's μ), the staged split's ρ is read with that h, and the null
// (steps=0) chooses the same h.
func TestGenesWhole(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "whole:18"})
	if o.Genes != dppca.GenesAuto || o.GenesScale != 18 || o.GenesFloor != dppca.DefaultGenes || !o.GenesWhole || !strings.Contains(o.String(), " genes=whole:18 ") {
		t.Errorf("genes=whole:18 gives Genes %d, scale %g, floor %d, whole %v, %q", o.Genes, o.GenesScale, o.GenesFloor, o.GenesWhole, o.String())
	}
	for _, v := range []string{"whole:0", "whole:x", "whole:", "whole", "whole:NaN"} {
		if _, err := Parse(map[string]string{"genes": v}); err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "genes") {
			t.Errorf("genes=%s: error %v, want an ErrOptions naming genes", v, err)
		}
	}
	bad := o
	bad.GenesScale = 0 // (without a floor it is alone:S, TestGenesAlone)
	if err := bad.Validate(); err == nil || !errors.Is(err, ErrOptions) {
		t.Errorf("whole without a scale validates (%v)", err)
	}
	if h := o.handoff(); h.GenesWhole {
		t.Error("handoff keeps genes=whole")
	}
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	pl := privatePlan(t, src, map[string]string{"genes": "whole:2"}, 4)
	grow := privatePlan(t, src, map[string]string{"genes": "grow:2"}, 4)
	want := src.Genes(max(dppca.GenesRuleScale(pl.NoisyN, pl.Mu, 2), dppca.DefaultGenes))
	if pl.DPPCA.H != want || pl.DPPCA.H <= grow.DPPCA.H {
		t.Errorf("whole:2 ε 4: h = %d, want %d (ñ %g, μ %g), above grow:2's %d", pl.DPPCA.H, want, pl.NoisyN, pl.Mu, grow.DPPCA.H)
	}
	w := mustParse(t, map[string]string{"genes": "whole:2"})
	_, shNet, _ := w.shares()
	z := math.Sqrt(float64(w.Steps)) / (pl.Mu * math.Sqrt(shNet))
	if r := MeanNoise(z, w.GradClip, src.K, pl.NoisyN, w.LR, want); math.Abs(pl.Rho-r) > 1e-12 {
		t.Errorf("whole:2: staged split's ρ %g, want %g with h = %d", pl.Rho, r, want)
	}
	if null := privatePlan(t, src, map[string]string{"genes": "whole:2", "steps": "0"}, 4); null.DPPCA.H != pl.DPPCA.H {
		t.Errorf("whole:2: null h %d, method %d", null.DPPCA.H, pl.DPPCA.H)
	}
}

// TestGenesStart checks genes=start:S: it parses to whole:S with the
// rules at the default's h, prints back and is dropped by the hand-off;
// in a private plan the start's h is whole:S's while ρ, the shares and
// the total are the default's (grow:19) from the same released count.
func TestGenesStart(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "start:18"})
	if !o.GenesWhole || !o.GenesRulesAtDefault || o.GenesScale != 18 || o.GenesFloor != dppca.DefaultGenes || !strings.Contains(o.String(), " genes=start:18 ") {
		t.Errorf("genes=start:18 gives whole %v, rules %v, scale %g, floor %d, %q", o.GenesWhole, o.GenesRulesAtDefault, o.GenesScale, o.GenesFloor, o.String())
	}
	bad := o
	bad.GenesWhole = false
	if err := bad.Validate(); err == nil || !errors.Is(err, ErrOptions) {
		t.Errorf("rules at the default's h without whole validates (%v)", err)
	}
	if h := o.handoff(); h.GenesRulesAtDefault || h.GenesWhole {
		t.Error("handoff keeps genes=start")
	}
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	st := privatePlan(t, src, map[string]string{"genes": "start:2"}, 4)
	wh := privatePlan(t, src, map[string]string{"genes": "whole:2"}, 4)
	def := privatePlan(t, src, nil, 4)
	if st.DPPCA.H != wh.DPPCA.H || st.DPPCA.H <= def.DPPCA.H {
		t.Errorf("start:2 h %d, want whole:2's %d, above the default's %d", st.DPPCA.H, wh.DPPCA.H, def.DPPCA.H)
	}
	if st.Rho != def.Rho || st.Target != def.Target || st.shares != def.shares || st.NetOff != def.NetOff {
		t.Errorf("start:2 ρ %g, total %g, net off %v; want the default's %g, %g, %v", st.Rho, st.Target, st.NetOff, def.Rho, def.Target, def.NetOff)
	}
}
