package sounddcan

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestRhoClipOptions: rhoclip reads gclip (the default: the rules read
// the steps' own bound) or a number in (0, 1000], and refuses the rest;
// the defaults' string is unchanged.
func TestRhoClipOptions(t *testing.T) {
	o := mustParse(t, nil)
	if o.RhoClip != 0 || o.rulesClip() != o.GradClip || strings.Contains(o.String(), "rhoclip") {
		t.Errorf("default: rhoclip %g, rules read %g, gclip %g (%s)", o.RhoClip, o.rulesClip(), o.GradClip, o)
	}
	if o := mustParse(t, map[string]string{"gclip": "0.9"}); o.rulesClip() != 0.9 {
		t.Errorf("gclip=0.9 alone: the rules read %g, want 0.9 (gclip's own behaviour)", o.rulesClip())
	}
	if o := mustParse(t, map[string]string{"gclip": "0.9", "rhoclip": "gclip"}); o.rulesClip() != 0.9 || o.RhoClip != 0 {
		t.Errorf("rhoclip=gclip: the rules read %g (RhoClip %g)", o.rulesClip(), o.RhoClip)
	}
	o = mustParse(t, map[string]string{"gclip": "0.9", "rhoclip": "1"})
	if o.rulesClip() != 1 || o.GradClip != 0.9 || !strings.Contains(o.String(), "gclip=0.9") || !strings.Contains(o.String(), "rhoclip=1") {
		t.Errorf("gclip=0.9;rhoclip=1: rules %g, gclip %g (%s)", o.rulesClip(), o.GradClip, o)
	}
	for _, bad := range []string{"0", "-1", "1001", "NaN", "Inf", "own"} {
		if _, err := Parse(map[string]string{"rhoclip": bad}); err == nil {
			t.Errorf("rhoclip=%s accepted", bad)
		}
	}
}

// TestRhoClipPlan: with gclip=0.9 and rhoclip=1 every decision of the
// plan (the staged split, the network's share under net=rho, target=auto,
// ρ itself) and every noise is the default's; only the means' bound CMu
// is 0.9·R. With gclip=0.9 alone the rules read ρ at 0.9 (ρ and RhoOn
// scale by 0.9 exactly, the count being the same draw). Checked over ε
// so that both sides of the staged split and of target=auto are covered.
func TestRhoClipPlan(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSourceTarget(d, 0, TargetHigh)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(eps float64, opts map[string]string) Plan {
		pl, err := NewPlan(src, true, eps, 1e-5, mustParse(t, opts), rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	var off, on, low int
	for _, eps := range []float64{1, 2, 4, 8, 16, 64} {
		def := plan(eps, nil)
		cand := plan(eps, map[string]string{"gclip": "0.9", "rhoclip": "1"})
		if math.Abs(cand.CMu-0.9*cand.R) > 1e-12*cand.R || math.Abs(def.CMu-def.R) > 1e-12*def.R {
			t.Errorf("ε %g: CMu %g against R %g (default %g against %g): want 0.9·R and R", eps, cand.CMu, cand.R, def.CMu, def.R)
		}
		cand.CMu = def.CMu
		if !reflect.DeepEqual(cand, def) {
			t.Errorf("ε %g: gclip=0.9;rhoclip=1 changed the plan beyond CMu:\n%+v\n%+v", eps, cand, def)
		}
		own := plan(eps, map[string]string{"gclip": "0.9"})
		if math.Abs(own.RhoOn-0.9*def.RhoOn) > 1e-9*def.RhoOn {
			t.Errorf("ε %g: gclip=0.9 reads RhoOn %g, want 0.9 × %g", eps, own.RhoOn, def.RhoOn)
		}
		if def.NetOff {
			off++
		} else {
			on++
		}
		if def.Target == TargetLow {
			low++
		}
	}
	if off == 0 || on == 0 || low == 0 {
		t.Errorf("the ε grid covers network off %d, on %d, target 10³ %d times: want each at least once", off, on, low)
	}
}

// TestRhoClipRun: on separated populations the candidate's run differs
// from the default's only through the steps (its start, weights at the
// start and plan noise are the same draws) and its trained means do move
// differently: the option is not a no-op, and the gate reads the rules'
// bound (a run whose gate read 0.9 could hold fewer components).
func TestRhoClipRun(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSourceTarget(d, 0, TargetHigh)
	if err != nil {
		t.Fatal(err)
	}
	_, def := fitARI(t, src, true, 16, mustParse(t, nil), 0)
	_, cand := fitARI(t, src, true, 16, mustParse(t, map[string]string{"gclip": "0.9", "rhoclip": "1"}), 0)
	if def.Plan.NetOff || def.Plan.Steps == 0 {
		t.Fatalf("the network is off at ε 16 (ρ %g): the test needs it on", def.Plan.Rho)
	}
	if !reflect.DeepEqual(def.StartWeights, cand.StartWeights) || !reflect.DeepEqual(def.StartLabels, cand.StartLabels) {
		t.Errorf("the start differs between the default and gclip=0.9;rhoclip=1")
	}
	if def.Plan.Z != cand.Plan.Z {
		t.Errorf("the steps' noise multiplier differs: %g against %g", cand.Plan.Z, def.Plan.Z)
	}
	var diff float64
	for i := range def.Centres {
		diff = max(diff, math.Abs(float64(def.Centres[i]-cand.Centres[i])))
	}
	if !(diff > 0) {
		t.Errorf("gclip=0.9;rhoclip=1 trained exactly the default's means")
	}
}
