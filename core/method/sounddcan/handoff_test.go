package sounddcan

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestLowNoiseHandoff: lownoise=dppca hands a run to dppca's pipeline
// exactly where ρ (the network at its full share, from the released
// count) is at most HandoffRho, and without noise; there no DP-SGD step is
// planned, the start is dppca's own with hold=on, the whole composition
// stays within μ, and the null (steps=0) decides alike. Elsewhere the plan
// is the default's.
func TestLowNoiseHandoff(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"lownoise": "dppca"})
	null := mustParse(t, map[string]string{"lownoise": "dppca", "steps": "0"})
	def := mustParse(t, nil)
	if !strings.HasSuffix(o.String(), " lownoise=dppca") || strings.Contains(def.String(), "lownoise") {
		t.Errorf("lownoise=dppca reads as %v, the default as %v", o, def)
	}
	pl, err := NewPlan(src, false, 0, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
	if err != nil || !pl.Handoff || pl.Steps != 0 || pl.Over != 1 {
		t.Errorf("nonprivate: handoff %v, %d steps, over %d (%v): want handed off, no step, K centres", pl.Handoff, pl.Steps, pl.Over, err)
	}
	handed := map[bool]bool{}
	for _, eps := range []float64{1, 16, 1000, 1e5} {
		pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		pd, err := NewPlan(src, true, eps, 1e-5, def, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if want := pd.RhoOn <= HandoffRho; pl.Handoff != want || !(pd.RhoOn > 0) {
			t.Fatalf("ε=%g: ρ %.3g, handoff %v, want %v", eps, pd.RhoOn, pl.Handoff, want)
		}
		handed[pl.Handoff] = true
		if !pl.Handoff {
			if pl.Steps != pd.Steps || pl.Z != pd.Z || pl.DPPCA.H != pd.DPPCA.H || pl.shares != pd.shares {
				t.Errorf("ε=%g, not handed off: plan differs from the default's (steps %d/%d, z %g/%g, h %d/%d)", eps, pl.Steps, pd.Steps, pl.Z, pd.Z, pl.DPPCA.H, pd.DPPCA.H)
			}
			continue
		}
		dp, net, head := pl.Shares()
		if pl.Steps != 0 || net != 0 || math.Abs(dp/head-5) > 1e-9 || pl.Over != 1 || pl.Target != TargetLow {
			t.Errorf("ε=%g handed off: %d steps, shares %g / %g / %g, over %d, total %g", eps, pl.Steps, dp, net, head, pl.Over, pl.Target)
		}
		if mu := dppca.ComposedMu(pl.Mechanisms()); mu > pl.Mu*(1+1e-12) || slices.ContainsFunc(pl.Mechanisms(), func(m dppca.Mechanism) bool { return m.Name == MechSGD }) {
			t.Errorf("ε=%g handed off: composes to μ %.9g against %.9g, or plans DP-SGD steps", eps, mu, pl.Mu)
		}
		pn, err := NewPlan(src, true, eps, 1e-5, null, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if !pn.Handoff || pn.NoisyN != pl.NoisyN || pn.DPPCA.H != pl.DPPCA.H || pn.Sums != pl.Sums {
			t.Errorf("ε=%g: the null handed off %v (h %d, ñ %g), the method %v (h %d, ñ %g)", eps, pn.Handoff, pn.DPPCA.H, pn.NoisyN, pl.Handoff, pl.DPPCA.H, pl.NoisyN)
		}
	}
	if !handed[true] || !handed[false] {
		t.Fatalf("the ε list should hand some runs off and not others: %v", handed)
	}
	if _, err := Parse(map[string]string{"lownoise": "all"}); err == nil || !strings.Contains(err.Error(), "lownoise") {
		t.Errorf("lownoise=all: error %v, want one naming the option", err)
	}
}

// TestLowNoiseRun: a handed-off run trains no step, its start holds dppca's
// own h (genes=auto), and its noise message and guarantee say so.
func TestLowNoiseRun(t *testing.T) {
	e, evs := runTest(t, fixture.Separated(3, 100, 300, 1), soundConfig(1e5, 1, map[string]string{"lownoise": "dppca"}))
	out := e.out
	if out == nil || !out.Plan.Handoff || len(out.Losses) != 0 || out.Start.Plan.H == 200 {
		t.Fatalf("ε=1e5: want a handed-off run with no step and dppca's own h (plan %+v)", out.Plan)
	}
	said := false
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "handed to dppca's own pipeline") {
			said = true
		}
	}
	g, _ := lastOf[core.GuaranteeEvent](evs)
	if !said || !slices.ContainsFunc(g.Reasons, func(r string) bool { return strings.Contains(r, "lownoise=dppca") }) {
		t.Errorf("the run does not report the handoff (noise message %v; guarantee %v)", said, g.Reasons)
	}
}
