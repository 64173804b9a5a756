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

// TestTarget: option target reaches the start whatever total the Source
// was built with (Fit normalises to o.Target), changes the start's rows,
// and the guarantee names the total.
func TestTarget(t *testing.T) {
	d := fixture.Separated(3, 100, 300, 1)
	fit := func(srcTarget float64, vals map[string]string) *Outcome {
		t.Helper()
		src, err := dppca.NewSourceTarget(d, 0, srcTarget)
		if err != nil {
			t.Fatal(err)
		}
		return fitOnce(t, src, true, 8, mustParse(t, vals), 3)
	}
	a := fit(dppca.PublicTarget, map[string]string{"target": "1000"})
	b := fit(1000, map[string]string{"target": "1000"})
	if !slices.Equal(a.Codes, b.Codes) || !slices.Equal(a.Labels, b.Labels) {
		t.Error("target=1000 gives other codes or labels on a Source built with 10⁴ than on one built with 10³: the option does not reach the start")
	}
	c := fit(dppca.PublicTarget, nil)
	if slices.Equal(a.Start.Matrix.Z, c.Start.Matrix.Z) {
		t.Error("target=1000 and the default 10⁴ give the same scaled rows: the total is not applied")
	}
	_, evs := runTest(t, d, fixture.SoundConfig(8, 1, map[string]string{"target": "1000"}))
	g, ok := fixture.LastOf[core.GuaranteeEvent](evs)
	if !ok || !slices.ContainsFunc(g.Reasons, func(r string) bool { return strings.Contains(r, "public total 1000 ") }) {
		t.Errorf("guarantee %v does not name the public total 1000", g.Reasons)
	}
}

// TestTargetAuto: target=auto takes 10³ without noise and where the noise
// the network would leave on a mean is at most TargetRho, 10⁴ above it;
// the null (steps=0) releases the same count first and chooses alike.
func TestTargetAuto(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"target": "auto", "handoff": "off"})
	null := mustParse(t, map[string]string{"target": "auto", "steps": "0", "handoff": "off"})
	if o.String() != "p=10 genes=grow:19 prep=private k=0 steps=50 gclip=1 sideclip=4 lr=0.06 over=3 net=rho(≤0.4) shrink=off stage=auto stagerho=0.1667 gate=comp start=stage subspace=off fill=off hold=first target=auto handoff=off" {
		t.Errorf("target=auto reads as %v", o)
	}
	pl, err := NewPlan(src, false, 0, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
	if err != nil || pl.Target != TargetLow {
		t.Errorf("nonprivate: total %g (%v), want %g", pl.Target, err, TargetLow)
	}
	// 300 cells, K = 3: ρ ≈ 0.26/μ·(8/3)… crosses TargetRho between ε 16
	// and ε 1000.
	for _, eps := range []float64{1, 16, 1000} {
		pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		want := TargetHigh
		if pl.Rho <= TargetRho {
			want = TargetLow
		}
		if pl.Target != want || !(pl.Rho > 0) {
			t.Errorf("ε=%g: ρ %.3g, total %g, want %g", eps, pl.Rho, pl.Target, want)
		}
		pn, err := NewPlan(src, true, eps, 1e-5, null, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if pn.Target != pl.Target || pn.NoisyN != pl.NoisyN {
			t.Errorf("ε=%g: the null chose %g from ñ = %g, the method %g from %g", eps, pn.Target, pn.NoisyN, pl.Target, pl.NoisyN)
		}
		// the null released the count at the method's noise, below its own
		// share: it spends at most the target, short by at most that sliver
		if mu := dppca.ComposedMu(pn.Mechanisms()); mu > pn.Mu*(1+1e-12) || mu < pn.Mu*math.Sqrt(1-dppca.ShareCount) {
			t.Errorf("ε=%g: the null composes to μ %.9g, plan μ %.9g", eps, mu, pn.Mu)
		}
		if eps == 1 && pl.Target != TargetHigh {
			t.Errorf("ε=1 on 300 cells: total %g, want %g (ρ %.3g)", pl.Target, TargetHigh, pl.Rho)
		}
		if eps == 1000 && pl.Target != TargetLow {
			t.Errorf("ε=1000: total %g, want %g (ρ %.3g)", pl.Target, TargetLow, pl.Rho)
		}
	}
}

// TestTargetAutoInputAudit: under target=auto the input audit scores the
// canaries against the real cells' ranking at the total the start chose
// (without noise every included canary is found, as with a fixed total).
func TestTargetAutoInputAudit(t *testing.T) {
	cfg := fixture.SoundConfig(0, 1, map[string]string{"genes": "100", "p": "5", "steps": "20", "target": "auto"})
	cfg.Mode = core.ModeNonPrivate
	a, _, _ := inputAuditOf(t, cfg, 0.95)
	if a.EpsilonLower < 2.5 {
		t.Errorf("nonprivate input audit under target=auto = %+v, want a bound ≥ 2.5 (ceiling 3.53)", a)
	}
}

// TestNetRhoShares: where target=auto takes 10³, net=rho (the default)
// cuts the network's share so its noise on a mean is TargetRho, the rest
// to the start and the head in their ratio; the plan reports those
// shares, and the run's noise message and guarantee say them.
func TestNetRhoShares(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, nil)
	pl, err := NewPlan(src, true, 1000, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	dp, net, head := pl.Shares()
	if pl.Target != TargetLow || !(net < ShareSGD) || math.Abs(dp+net+head-1) > 1e-12 || math.Abs(dp/head-5) > 1e-9 {
		t.Fatalf("ε=1000: total %g, shares %g / %g / %g: want 10³ and a cut network share, the rest 5 : 1", pl.Target, dp, net, head)
	}
	if got := MeanNoise(pl.Z, o.GradClip, src.K, pl.NoisyN, o.LR, pl.DPPCA.H); math.Abs(got-TargetRho) > 1e-9 {
		t.Errorf("the network's noise on a mean %g, want TargetRho %g", got, TargetRho)
	}
	_, evs := runTest(t, fixture.Separated(3, 100, 300, 1), fixture.SoundConfig(1000, 1, nil))
	said := false
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "net=rho cuts the network's share to") && strings.Contains(w.Message, "normalised to 1000") {
			said = true
		}
	}
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	if !said || !slices.ContainsFunc(g.Reasons, func(r string) bool { return strings.Contains(r, "network 0.0") }) {
		t.Errorf("the run does not report the cut share (noise message %v; guarantee %v)", said, g.Reasons)
	}
}
