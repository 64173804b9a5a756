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
	bad := mustParse(t, nil)
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
	plan := func(vals map[string]string, eps float64) Plan {
		t.Helper()
		pl, err := NewPlan(src, true, eps, 1e-5, mustParse(t, vals), rand.New(rand.NewPCG(5, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
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
