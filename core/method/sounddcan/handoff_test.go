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

// TestHandoffPlan: handoff=low hands a run to dppca's pipeline exactly
// where ρ (the network at its full share, from the released count) is at
// most HandoffRho, and without noise; handoff=mid where TargetRho < ρ ≤
// stagerho; there no DP-SGD step is planned, the start is dppca's own with hold=on, the whole composition
// stays within μ, and the null (steps=0) decides alike. Elsewhere the plan
// is the default's.
func TestHandoffPlan(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := mustParse(t, nil); !strings.HasSuffix(d.String(), " handoff="+DefaultHandoff) {
		t.Errorf("the default reads as %v", d)
	}
	def := mustParse(t, map[string]string{"handoff": "off"}) // the plan a run not handed off must equal
	for _, mode := range []string{HandoffLow, HandoffMid, HandoffMidMerge} {
		over := 1
		if mode == HandoffMidMerge {
			over = HandoffOver
		}
		o := mustParse(t, map[string]string{"handoff": mode})
		null := mustParse(t, map[string]string{"handoff": mode, "steps": "0"})
		if !strings.HasSuffix(o.String(), " handoff="+mode) {
			t.Errorf("handoff=%s reads as %v", mode, o)
		}
		pl, err := NewPlan(src, false, 0, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
		if want := mode == HandoffLow; err != nil || pl.Handoff != want || (want && (pl.Steps != 0 || pl.Over != over)) {
			t.Errorf("%s nonprivate: handoff %v, %d steps, over %d (%v): want handed off %v", mode, pl.Handoff, pl.Steps, pl.Over, err, want)
		}
		handed := map[bool]bool{}
		for _, eps := range []float64{1, 4, 8, 16, 32, 64, 1000, 1e5} {
			pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
			if err != nil {
				t.Fatal(err)
			}
			pd, err := NewPlan(src, true, eps, 1e-5, def, rand.New(rand.NewPCG(1, 0)))
			if err != nil {
				t.Fatal(err)
			}
			want := pd.RhoOn <= HandoffRho
			if mode != HandoffLow {
				want = pd.RhoOn > TargetRho && pd.RhoOn <= def.StageBound
			}
			if pl.Handoff != want || !(pd.RhoOn > 0) {
				t.Fatalf("%s ε=%g: ρ %.3g, handoff %v, want %v", mode, eps, pd.RhoOn, pl.Handoff, want)
			}
			handed[pl.Handoff] = true
			if !pl.Handoff {
				if pl.Steps != pd.Steps || pl.Z != pd.Z || pl.DPPCA.H != pd.DPPCA.H || pl.shares != pd.shares || pl.Target != pd.Target {
					t.Errorf("%s ε=%g, not handed off: plan differs from the default's (steps %d/%d, z %g/%g, h %d/%d)", mode, eps, pl.Steps, pd.Steps, pl.Z, pd.Z, pl.DPPCA.H, pd.DPPCA.H)
				}
				continue
			}
			dp, net, head := pl.Shares()
			if pl.Steps != 0 || net != 0 || math.Abs(dp/head-5) > 1e-9 || pl.Over != over || pl.Target != TargetLow {
				t.Errorf("%s ε=%g handed off: %d steps, shares %g / %g / %g, over %d, total %g (default %g)", mode, eps, pl.Steps, dp, net, head, pl.Over, pl.Target, pd.Target)
			}
			if mu := dppca.ComposedMu(pl.Mechanisms()); mu > pl.Mu*(1+1e-12) || slices.ContainsFunc(pl.Mechanisms(), func(m dppca.Mechanism) bool { return m.Name == MechSGD }) {
				t.Errorf("%s ε=%g handed off: composes to μ %.9g against %.9g, or plans DP-SGD steps", mode, eps, mu, pl.Mu)
			}
			pn, err := NewPlan(src, true, eps, 1e-5, null, rand.New(rand.NewPCG(1, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if !pn.Handoff || pn.NoisyN != pl.NoisyN || pn.DPPCA.H != pl.DPPCA.H || pn.Sums != pl.Sums {
				t.Errorf("%s ε=%g: the null handed off %v (h %d, ñ %g), the method %v (h %d, ñ %g)", mode, eps, pn.Handoff, pn.DPPCA.H, pn.NoisyN, pl.Handoff, pl.DPPCA.H, pl.NoisyN)
			}
		}
		if !handed[true] || !handed[false] {
			t.Fatalf("%s: the ε list should hand some runs off and not others: %v", mode, handed)
		}
	}
	off := mustParse(t, map[string]string{"handoff": HandoffMidMerge, "stage": "off"})
	for _, eps := range []float64{1, 4, 8, 16, 32, 64, 1000, 1e5} {
		if pl, err := NewPlan(src, true, eps, 1e-5, off, rand.New(rand.NewPCG(1, 0))); err != nil || pl.Handoff {
			t.Errorf("stage=off ε=%g: handed off %v (%v); the handoff reads the staged split's ρ", eps, pl.Handoff, err)
		}
	}
	if _, err := Parse(map[string]string{"handoff": "all"}); err == nil || !strings.Contains(err.Error(), "handoff") {
		t.Errorf("handoff=all: error %v, want one naming the option", err)
	}
}

// TestHandoffRun: a handed-off run trains no step, its start holds dppca's
// own h (genes=auto), and its noise message and guarantee say so.
func TestHandoffRun(t *testing.T) {
	e, evs := runTest(t, fixture.Separated(3, 100, 300, 1), fixture.SoundConfig(1e5, 1, map[string]string{"handoff": "low"}))
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
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	if !said || !slices.ContainsFunc(g.Reasons, func(r string) bool { return strings.Contains(r, "handoff=low") }) {
		t.Errorf("the run does not report the handoff (noise message %v; guarantee %v)", said, g.Reasons)
	}
}
