package sounddcan

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestPlanComposesToTarget: the GDP composition of every planned mechanism
// meets the target from below (to 1e-6), and each part takes its share.
func TestPlanComposesToTarget(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 0))
	// stage=off: the fixed split (TestStagedSplit covers stage=auto).
	// target=10000, handoff=off: under target=auto or a handoff the null
	// releases the count at the method's noise first (TestTargetAuto and
	// TestHandoffPlan check that sliver; so does genes=grow:S, the
	// default, whence the null's genes=200 here).
	for _, vals := range []map[string]string{{"stage": "off"}, {"steps": "37", "p": "5", "prep": "public", "net": "0.1", "stage": "off"}, {"steps": "0", "target": "10000", "handoff": "off", "genes": "200"}} {
		o := mustParse(t, vals)
		for _, eps := range []float64{0.5, 1, 8, 16} {
			pl, err := NewPlan(src, true, eps, 1e-5, o, rng)
			if err != nil {
				t.Fatal(err)
			}
			ms := pl.Mechanisms()
			mu := dppca.ComposedMu(ms)
			if mu > pl.Mu*(1+1e-12) || mu < pl.Mu*(1-1e-6) {
				t.Errorf("%v ε=%g: composed μ %.12g, plan μ %.12g", vals, eps, mu, pl.Mu)
			}
			got, err := dppca.EpsilonOf(mu, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			if got > eps || got < eps-1e-5 {
				t.Errorf("%v ε=%g: composition gives ε %.9g", vals, eps, got)
			}
			parts := map[string]float64{}
			for _, m := range ms {
				k := "dppca"
				switch m.Name {
				case MechSGD:
					k = "sgd"
					if o.NoTrain || m.Count != o.Steps || m.Sens != 1 || m.Sigma != pl.Z {
						t.Errorf("SGD mechanism %+v, want %d steps of Δ = 1, σ = z (none for the null)", m, o.Steps)
					}
				case MechSums, MechCounts:
					k = "head"
					if m.Count != o.Rounds() {
						t.Errorf("%s: %d rounds, want %d", m.Name, m.Count, o.Rounds())
					}
				}
				parts[k] += m.Mu() * m.Mu()
			}
			dp, net, head := o.shares()
			if math.Abs(dp+net+head-1) > 1e-12 || math.Abs(dp/head-5) > 1e-12 {
				t.Errorf("shares %g, %g, %g: want a sum of 1 and dppca : head = 5 : 1", dp, net, head)
			}
			for k, want := range map[string]float64{"dppca": dp, "sgd": net, "head": head} {
				if got := parts[k] / (pl.Mu * pl.Mu); math.Abs(got-want) > 1e-6 {
					// the null's network share is 0: no SGD mechanism at all
					t.Errorf("%v ε=%g: %s takes %.8f of μ², want %g", vals, eps, k, got, want)
				}
			}
		}
	}
	if o := mustParse(t, nil); o.Rounds() != 1 {
		t.Errorf("default rounds %d, want 1 (the merge's weights)", o.Rounds())
	}
	pl, err := NewPlan(src, false, 0, 1e-5, mustParse(t, nil), rng)
	if err != nil || pl.Private() || pl.Mechanisms() != nil || pl.Z != 0 || pl.Sums != 0 {
		t.Errorf("nonprivate plan %+v, %v: want no noise", pl, err)
	}
}

// TestEngineAccounting: a sound run's ledger holds every planned mechanism
// (each DP-SGD step and head round once), its GDP composition is the
// audited ε and meets the target; budget, metrics and result are emitted.
// Under genes=auto p=auto (dppca's current rules) the released cell count
// that chose h is in the ledger once, with the rest.
func TestEngineAccounting(t *testing.T) {
	// stage=off: 240 cells are too few for the network at ε = 2 under the
	// staged split (TestStagedEngine).
	for _, opts := range []map[string]string{{"genes": "100", "steps": "30", "stage": "off"}, {"genes": "auto", "p": "auto", "steps": "30", "stage": "off"}} {
		t.Run(opts["genes"], func(t *testing.T) { engineAccounting(t, opts) })
	}
}

// TestStagedEngine: under the default staged split a run whose network is
// left out says so, enters no DP-SGD step, enters the count it released
// first once, and its audited ε stays at or below the target.
func TestStagedEngine(t *testing.T) {
	d := fixture.Separated(4, 60, 200, 2)
	e, evs := runTest(t, d, fixture.SoundConfig(2, 1, nil))
	out := e.Outcome()
	if !out.Plan.Staged || !out.Plan.NetOff || len(out.Losses) != 0 {
		t.Fatalf("plan staged %v, network off %v, %d steps: want the network left out at n = 240, ε = 2", out.Plan.Staged, out.Plan.NetOff, len(out.Losses))
	}
	l := e.Ledger()
	if n := len(l.Events(MechSGD)); n != 0 {
		t.Errorf("%d DP-SGD events in the ledger, want none", n)
	}
	if evs := l.Events(dppca.MechCount); len(evs) != 1 {
		t.Errorf("%d cell-count events, want 1 (released first, reused by the stage)", len(evs))
	}
	said := false
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "the network is left out") {
			said = true
		}
	}
	if !said {
		t.Error("no warning says the network was left out")
	}
	g, ok := fixture.LastOf[core.GuaranteeEvent](evs)
	if !ok || len(g.Audited) == 0 || g.Audited[0].Epsilon > 2 || g.Audited[0].Epsilon < 1.99 {
		t.Errorf("final guarantee %+v: want the audited ε in [1.99, 2]", g)
	}
}

func engineAccounting(t *testing.T, opts map[string]string) {
	d := fixture.Separated(4, 60, 200, 2)
	e, evs := runTest(t, d, fixture.SoundConfig(2, 1, opts))
	g, ok := fixture.LastOf[core.GuaranteeEvent](evs)
	if !ok || g.Status != core.GuaranteeFormal || len(g.Audited) != 2 || g.Audited[0].Accountant != AccountantGDP {
		t.Fatalf("final guarantee = %+v, want formal with GDP and RDP audited ε", g)
	}
	l := e.Ledger()
	mu, err := accountant.GDPMu(l.All())
	if err != nil {
		t.Fatal(err)
	}
	out := e.Outcome()
	if want := dppca.ComposedMu(out.Plan.Mechanisms()); math.Abs(mu-want) > 1e-9*want {
		t.Errorf("ledger μ %.12g, plan μ %.12g", mu, want)
	}
	eps, err := accountant.GDPEpsilon(mu, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if a := g.Audited[0].Epsilon; math.Abs(a-eps) > 1e-12 || a > 2 || a < 2-1e-5 {
		t.Errorf("audited ε = %.12g, ledger composition %.12g, target 2", a, eps)
	}
	if g.Audited[1].Epsilon < g.Audited[0].Epsilon {
		t.Errorf("RDP ε %.4g below the exact GDP ε %.4g", g.Audited[1].Epsilon, g.Audited[0].Epsilon)
	}
	steps := func(c string) int {
		n := 0
		for _, ev := range l.Events(c) {
			n += ev.Steps
		}
		return n
	}
	if n := steps(MechSGD); n != 30 {
		t.Errorf("ledger has %d DP-SGD steps, want 30", n)
	}
	if n, m := steps(MechSums), steps(MechCounts); n != 1 || m != 1 {
		t.Errorf("ledger has %d and %d head releases, want 1 round each", n, m)
	}
	if n := len(l.Components()); n != 12 {
		t.Errorf("ledger has %d components %v, want dppca's 9 and 3", n, l.Components())
	}
	b, _ := fixture.LastOf[core.BudgetEvent](evs)
	if len(b.Spent) < 2 || b.Spent[0].Accountant != AccountantGDP || len(b.Components) != 12 || b.Step != 30 {
		t.Errorf("last budget = %+v, want GDP and RDP, 12 components, step 30", b)
	}
	var stepEvents, stages int
	for _, ev := range evs {
		switch v := ev.(type) {
		case core.StepEvent:
			stepEvents++
			if math.IsNaN(v.Loss) || math.IsInf(v.Loss, 0) {
				t.Errorf("step event %+v, want a finite loss", v)
			}
		case core.StageEvent:
			stages++
		}
	}
	if stepEvents == 0 || stages != 3 {
		t.Errorf("%d step events and %d stages, want some and 3", stepEvents, stages)
	}
	m, _ := fixture.LastOf[core.MetricsEvent](evs)
	names := map[string]bool{}
	for _, v := range m.Values {
		names[v.Name] = true
	}
	if !names["ARI"] || !names["NMI"] || !m.Unreleased || m.Step != 30 {
		t.Errorf("final metrics = %+v, want ARI, NMI marked unreleased after step 30", m)
	}
	res, ok := fixture.LastOf[core.ResultEvent](evs)
	if !ok || res.Cells != 240 || res.Dim < dppca.MinAutoP || res.Dim > dppca.DefaultPCap || len(res.Cluster) != 240 || len(res.Embedding) != 240*res.Dim {
		t.Errorf("result = %d cells × %d (want p by the noise edge in [2, 30]), %d labels", res.Cells, res.Dim, len(res.Cluster))
	}
}

// TestNonPrivateRecoversSeparatedClusters: without noise the method finds
// four well-separated populations (ARI > 0.9) for every seed; a sound run
// at a generous ε does too.
func TestNonPrivateRecoversSeparatedClusters(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 1)
	o := mustParse(t, map[string]string{"genes": "100", "p": "5", "steps": "40"})
	src, err := dppca.NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for s := range uint64(5) {
		ari, out := fitARI(t, src, false, 0, o, s)
		if ari <= 0.9 || out.NonEmpty != 4 {
			t.Errorf("seed %d: nonprivate ARI %.3f, %d non-empty; want > 0.9 and 4", s, ari, out.NonEmpty)
		}
	}
	if ari, _ := fitARI(t, src, true, 50, o, 0); ari <= 0.9 {
		t.Errorf("sound ε=50: ARI %.3f, want > 0.9", ari)
	}
}

// TestMergeCentres: weighted k-means on released centres groups them, ignores
// zero weights and fills missing centres from the left-out points.
func TestMergeCentres(t *testing.T) {
	pts := []float64{0, 0, 0.1, 0, 10, 10, 10.2, 10, 50, 50}
	w := []float64{5, 5, 3, 3, 0}
	c, wt := mergeCentres(pts, w, 2, 2, rand.New(rand.NewPCG(1, 1)))
	lo, hi := 0, 1
	if c[0] > c[2] {
		lo, hi = 1, 0
	}
	if math.Abs(c[lo*2]-0.05) > 1e-9 || math.Abs(c[hi*2]-10.1) > 1e-9 || wt[lo] != 10 || wt[hi] != 6 {
		t.Errorf("merged centres %v weights %v, want (0.05, 0) ×10 and (10.1, 10) ×6", c, wt)
	}
	c, wt = mergeCentres(pts, []float64{1, 0, 0, 0, 0}, 2, 2, rand.New(rand.NewPCG(1, 1)))
	if c[0] != 0 || c[1] != 0 || c[2] != 0.1 || c[3] != 0 || wt[0] != 1 || wt[1] != 0 {
		t.Errorf("one weighted point: centres %v weights %v, want it and the first left-out point", c, wt)
	}
}

// TestInvalidInput: bad configurations and options are errors naming the
// field; data the method cannot use ends the run with an error event.
func TestInvalidInput(t *testing.T) {
	base := fixture.SoundConfig(1, 1, nil)
	base.Method = MethodName
	cases := []struct {
		name string
		edit func(*core.Config)
		want error
		text string
	}{
		{"paper mode", func(c *core.Config) { c.Mode = core.ModePaper }, core.ErrBadConfig, "mode"},
		{"sigma", func(c *core.Config) { c.Sigma = 1 }, core.ErrBadConfig, "sigma"},
		{"no epsilon", func(c *core.Config) { c.Epsilon = 0 }, core.ErrBadConfig, "epsilon"},
		{"unknown option", func(c *core.Config) { c.Options = map[string]string{"nosuch": "1"} }, ErrOptions, `"nosuch"`},
		{"split above its bound", func(c *core.Config) { c.Options = map[string]string{"split": "1"} }, ErrOptions, "split"},
		{"avg zero", func(c *core.Config) { c.Options = map[string]string{"avg": "0"} }, ErrOptions, "avg"},
		{"p zero", func(c *core.Config) { c.Options = map[string]string{"p": "0"} }, ErrOptions, "p"},
		{"p above genes", func(c *core.Config) { c.Options = map[string]string{"p": "20", "genes": "10"} }, ErrOptions, "genes"},
		{"every above steps", func(c *core.Config) { c.Options = map[string]string{"steps": "5", "every": "6"} }, ErrOptions, "every"},
		{"gclip", func(c *core.Config) { c.Options = map[string]string{"gclip": "NaN"} }, ErrOptions, "gclip"},
		{"momentum", func(c *core.Config) { c.Options = map[string]string{"momentum": "1"} }, ErrOptions, "momentum"},
		{"prep", func(c *core.Config) { c.Options = map[string]string{"prep": "maybe"} }, ErrOptions, "prep"},
		{"steps text", func(c *core.Config) { c.Options = map[string]string{"steps": "many"} }, ErrOptions, "steps"},
		{"target above its bound", func(c *core.Config) { c.Options = map[string]string{"target": "1e12"} }, ErrOptions, "target"},
		{"target text", func(c *core.Config) { c.Options = map[string]string{"target": "median"} }, ErrOptions, "target"},
	}
	for _, tc := range cases {
		cfg := base
		tc.edit(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, tc.want) || !errors.Is(err, core.ErrBadConfig) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: New = %v, want an error wrapping %v and core.ErrBadConfig naming %s", tc.name, err, tc.want, tc.text)
		}
	}
	fails := func(name string, cfg core.Config, text string) {
		t.Helper()
		run, err := core.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for ev := range run.Events() {
			if er, ok := ev.(core.ErrorEvent); ok {
				got = er.Err
			}
		}
		if got == nil || !strings.Contains(got.Error(), text) {
			t.Errorf("%s: error %v, want one naming %s", name, got, text)
		}
	}
	cfg := base
	cfg.Data = "/nonexistent/dcan-sound"
	fails("missing path", cfg, "nonexistent")
	testHooks.Lock()
	testHooks.data = fixture.Separated(2, 10, 5, 1)
	testHooks.Unlock()
	cfg = base
	cfg.Method = testMethod
	cfg.Options = map[string]string{"p": "10"}
	fails("5 genes, p = 10", cfg, "option p=10: p must be ≤ the 5 genes")
	cfg.Options = nil
	unlabelled := fixture.Separated(2, 10, 50, 1)
	unlabelled.Labels, unlabelled.Classes = nil, nil
	testHooks.Lock()
	testHooks.data = unlabelled
	testHooks.Unlock()
	fails("no labels, no k", cfg, "k=K")
}

// TestCollapseIsExplained: whenever a run ends with fewer than K/2
// non-empty clusters it says why; otherwise it does not warn so.
func TestCollapseIsExplained(t *testing.T) {
	d := fixture.Separated(8, 30, 400, 4)
	for _, eps := range []float64{0.05, 20} {
		e, evs := runTest(t, d, fixture.SoundConfig(eps, 1, map[string]string{"steps": "20"}))
		out := e.Outcome()
		warned := false
		for _, ev := range evs {
			if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "clusters hold cells") {
				warned = true
			}
		}
		if collapsed := 2*out.NonEmpty < 8; warned != collapsed {
			t.Errorf("ε=%g: %d of 8 clusters non-empty, collapse warning %v", eps, out.NonEmpty, warned)
		}
		if eps == 20 && out.NonEmpty < 4 {
			t.Errorf("ε=20: %d of 8 clusters non-empty on well-separated data", out.NonEmpty)
		}
	}
}

// TestNonPrivateMode: no ledger, no noise, guarantee none.
func TestNonPrivateMode(t *testing.T) {
	d := fixture.Separated(4, 50, 200, 6)
	cfg := fixture.SoundConfig(0, 1, map[string]string{"steps": "20"})
	cfg.Mode = core.ModeNonPrivate
	e, evs := runTest(t, d, cfg)
	if e.Ledger() != nil {
		t.Error("nonprivate run has a ledger")
	}
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	if g.Status != core.GuaranteeNone {
		t.Errorf("guarantee %v, want none", g.Status)
	}
	if _, ok := fixture.LastOf[core.BudgetEvent](evs); ok {
		t.Error("nonprivate run emitted a budget")
	}
	ari, err := cluster.ARI(d.Labels, e.Outcome().Labels)
	if err != nil || ari <= 0.9 {
		t.Errorf("nonprivate ARI %.3f (%v), want > 0.9", ari, err)
	}
}

// TestGoroutinesEnd: no goroutine outlives a finished or cancelled run.
func TestGoroutinesEnd(t *testing.T) {
	d := fixture.Separated(4, 50, 200, 5)
	before := runtime.NumGoroutine()
	runTest(t, d, fixture.SoundConfig(1, 1, map[string]string{"steps": "10"}))
	testHooks.Lock()
	testHooks.data = d
	testHooks.Unlock()
	cfg := fixture.SoundConfig(1, 1, nil)
	cfg.Method = testMethod
	fixture.RunCancelled(t, cfg)
	fixture.GoroutinesBack(t, before)
}

// TestParseDefaults: no options give the rules of the package comment;
// steps=0 is the null.
func TestParseDefaults(t *testing.T) {
	o := mustParse(t, nil)
	want := Options{P: 10, PRule: dppca.PRuleFixed, Genes: dppca.GenesAuto, GenesScale: 19, GenesFloor: 200, Prep: dppca.PrepPrivate, Steps: 50, GradClip: 1, LR: 3.0 / 50, Over: 3, Net: 0.4, Shrink: ShrinkOff, Stage: StageAuto, Gate: GateComp, NetRule: NetRhoRule, Start: StartStage, Subspace: SubspaceOff, Fill: FillOff, Hold: HoldFirst, Target: TargetAuto, StageBound: 0.1667, Handoff: HandoffOff, SideClip: DefaultSideClip}
	if o != want {
		t.Errorf("defaults = %v, want %v", o, want)
	}
	o = mustParse(t, map[string]string{"p": "4", "genes": "50", "prep": "public", "k": "7", "steps": "10", "gclip": "1", "lr": "0.5", "over": "1", "net": "0.1", "shrink": "js", "stage": "off", "gate": "off", "target": "1000", "stagerho": "0.2"})
	want = Options{P: 4, PRule: dppca.PRuleFixed, Genes: 50, Prep: dppca.PrepPublic, K: 7, Steps: 10, GradClip: 1, LR: 0.5, Over: 1, Net: 0.1, Shrink: ShrinkJS, Stage: StageOff, Gate: GateOff, NetRule: NetFixed, Start: StartStage, Subspace: SubspaceOff, Fill: FillOff, Hold: HoldFirst, Target: 1000, StageBound: 0.2, Handoff: HandoffOff, SideClip: DefaultSideClip}
	if o != want {
		t.Errorf("parsed = %v, want %v", o, want)
	}
	o = mustParse(t, map[string]string{"steps": "0"})
	if !o.NoTrain || o.String() != "p=10 genes=grow:19 prep=private k=0 steps=0 gclip=1 sideclip=4 lr=0.06 over=3 net=rho(≤0.4) shrink=off stage=auto stagerho=0.1667 gate=comp start=stage subspace=off fill=off hold=first target=auto handoff=off" {
		t.Errorf("steps=0 gives %v (NoTrain %v), want the null", o, o.NoTrain)
	}
	o = mustParse(t, map[string]string{"p": "auto", "genes": "auto"})
	if o.P != dppca.DefaultPCap || o.PRule != dppca.PRuleEdge || o.Genes != dppca.GenesAuto || o.String() != "p=auto(≤30) genes=auto prep=private k=0 steps=50 gclip=1 sideclip=4 lr=0.06 over=3 net=rho(≤0.4) shrink=off stage=auto stagerho=0.1667 gate=comp start=stage subspace=off fill=off hold=first target=auto handoff=off" {
		t.Errorf("p=auto genes=auto gives %v, want dppca's current rules", o)
	}
	o = mustParse(t, map[string]string{"steps": "0"})
	if dp, net, head := o.shares(); net != 0 || math.Abs(dp+head-1) > 1e-12 || math.Abs(dp/head-5) > 1e-12 {
		t.Errorf("null shares %g, %g, %g: want 0 to the network, dppca : head = 5 : 1", dp, net, head)
	}
}

// FuzzParse: Parse never panics; what it accepts is valid.
func FuzzParse(f *testing.F) {
	f.Add("p", "10", "steps", "50")
	f.Add("genes", "3", "p", "4")
	f.Add("steps", "0", "gclip", "1e300")
	f.Add("lr", "-1", "k", "0")
	f.Add("start", "dppca", "over", "3")
	f.Add("subspace", "edge", "start", "stage")
	f.Add("fill", "split", "hold", " on")
	f.Add("target", "1000", "target", "1e9")
	f.Add("handoff", "midmerge", "stage", "off")
	f.Add("genes", "auto:6.5", "p", "300")
	f.Add("genes", "auto:1e-9", "stage", "off")
	f.Add("genes", "grow:19", "start", "dppca")
	f.Add("genes", "whole:18", "handoff", "midmerge")
	f.Add("genes", "start:18", "target", "auto")
	f.Add("genes", "grow:-0", "handoff", "mid")
	f.Add("p", "span", "genes", "12")
	f.Add("p", "span", "handoff", "midmerge")
	f.Add("over", "noise", "steps", "0")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		o, err := Parse(map[string]string{k1: v1, k2: v2})
		if err != nil {
			if !errors.Is(err, ErrOptions) {
				t.Fatalf("error %v does not wrap ErrOptions", err)
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("Parse accepted %v, Validate says %v", o, err)
		}
		if (o.PRule == dppca.PRuleFixed && o.Genes != dppca.GenesAuto && o.P > o.Genes) || !(o.LR > 0) || o.Rounds() != 1 || o.Steps < 1 {
			t.Fatalf("accepted %v", o)
		}
	})
}

// TestStagedSplit: under stage=auto the cell count is released first with
// the noise the dppca stage's count mechanism has when the network runs,
// that release is the stage's count mechanism (entered once), the network
// runs exactly when MeanNoise ≤ StageRho, and the composition never
// exceeds the target: exact when the network runs, and below it by at most
// the count's unused share when its share went back to the start.
func TestStagedSplit(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	var on, off int
	// net=0.4: the fixed share (the rules that cut it follow); handoff=off
	// (TestHandoffPlan covers it).
	for _, vals := range []map[string]string{{"stage": "auto", "net": "0.4"}, {"stage": "auto", "genes": "auto", "net": "0.4"}, {"stage": "auto", "prep": "public", "net": "0.4"}, {"stage": "auto", "net": "auto"}, {"stage": "auto", "net": "rho", "target": "auto"}, {"stage": "auto", "net": "0.4", "stagerho": "0.1667"}} {
		vals["handoff"] = "off"
		o := mustParse(t, vals)
		for _, eps := range []float64{0.5, 2, 8, 64, 1000} {
			rng := rand.New(rand.NewPCG(3, 0))
			pl, err := NewPlan(src, true, eps, 1e-5, o, rng)
			if err != nil {
				t.Fatal(err)
			}
			if !pl.Staged || pl.NoisyN < 1 || pl.DPPCA.NoisyN != pl.NoisyN {
				t.Fatalf("%v ε=%g: plan %+v, want a staged count carried into the dppca stage", vals, eps, pl)
			}
			if o.Prep == dppca.PrepPublic && pl.NoisyN != 300 {
				t.Errorf("prep=public: count %g, want the public 300", pl.NoisyN)
			}
			z := math.Sqrt(float64(o.Steps)) / (pl.Mu * math.Sqrt(o.Net))
			if rho := MeanNoise(z, o.GradClip, src.K, pl.NoisyN, o.LR, pl.DPPCA.H); math.Abs(rho-pl.Rho) > 1e-12*rho {
				t.Errorf("%v ε=%g: ρ %g, want %g", vals, eps, pl.Rho, rho)
			}
			if pl.NetOff != (pl.Rho > o.StageBound) || pl.NetOff != (pl.Steps == 0) {
				t.Errorf("%v ε=%g: ρ %.3g, network off %v, %d steps", vals, eps, pl.Rho, pl.NetOff, pl.Steps)
			}
			if !pl.NetOff {
				// the noise the network leaves on a mean: ρ at the fixed
				// share; under net=auto raised to NetRho by a smaller share
				// (never above the fixed share)
				want := pl.Rho
				switch o.NetRule {
				case NetAuto:
					want = max(pl.Rho, NetRho)
				case NetRhoRule:
					want = max(pl.Rho, TargetRho)
				}
				if got := MeanNoise(pl.Z, o.GradClip, src.K, pl.NoisyN, o.LR, pl.DPPCA.H); math.Abs(got-want) > 1e-9*want {
					t.Errorf("%v ε=%g: the network's noise on a mean %.6g, want %.6g", vals, eps, got, want)
				}
			}
			ms := pl.Mechanisms()
			counts := 0
			for _, m := range ms {
				if m.Name == dppca.MechCount {
					counts++
					if m.Sigma != pl.CountSigma {
						t.Errorf("%v ε=%g: count mechanism σ %g, released with %g", vals, eps, m.Sigma, pl.CountSigma)
					}
				}
				if m.Name == MechSGD && pl.NetOff {
					t.Errorf("%v ε=%g: network off but a DP-SGD mechanism %+v", vals, eps, m)
				}
			}
			if want := 1; o.Prep == dppca.PrepPublic {
				if counts != 0 || pl.CountSigma != 0 {
					t.Errorf("prep=public: %d count mechanisms, σ %g, want none", counts, pl.CountSigma)
				}
			} else if counts != want {
				t.Errorf("%v ε=%g: %d count mechanisms, want %d", vals, eps, counts, want)
			}
			mu := dppca.ComposedMu(ms)
			lo := pl.Mu * (1 - 1e-6)
			if pl.NetOff || o.NetRule != NetFixed {
				// the start's share grew after the count was released at
				// the smaller one: its unused sliver, at most the count's
				// share of the stage
				lo = pl.Mu * math.Sqrt(1-dppca.ShareCount)
			}
			if mu > pl.Mu*(1+1e-12) || mu < lo {
				t.Errorf("%v ε=%g (network off %v): composed μ %.12g, plan μ %.12g", vals, eps, pl.NetOff, mu, pl.Mu)
			}
			if pl.NetOff {
				off++
			} else {
				on++
			}
		}
	}
	if on == 0 || off == 0 {
		t.Errorf("network on in %d plans, off in %d: want both decisions exercised", on, off)
	}
}

// TestOverRule: over=auto over-clusters exactly when an average centre of
// the 3K clears the head's count bar twice, decides from the count it
// released first (entered once, for the null too), and over-clusters
// without noise.
func TestOverRule(t *testing.T) {
	for _, c := range []struct {
		n     float64
		k     int
		sigma float64
		want  int
	}{{600, 4, 5, OverCluster}, {600, 4, 10, 1}, {359, 4, 5, 1}, {360, 4, 5, OverCluster}, {11, 2, 0, 1}, {12, 2, 0.1, OverCluster}} {
		if got := overRule(c.n, c.k, c.sigma); got != c.want {
			t.Errorf("overRule(%g, %d, %g) = %d, want %d", c.n, c.k, c.sigma, got, c.want)
		}
	}
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, vals := range []map[string]string{{"over": "auto"}, {"over": "auto", "steps": "0"}} {
		o := mustParse(t, vals)
		for _, eps := range []float64{1, 1000} {
			pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(2, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if want := overRule(pl.NoisyN, src.K, pl.Counts); !pl.Staged || pl.Over != want {
				t.Errorf("%v ε=%g: staged %v, over %d, want the count first and %d", vals, eps, pl.Staged, pl.Over, want)
			}
			seen[pl.Over] = true
			n := 0
			for _, m := range pl.Mechanisms() {
				if m.Name == dppca.MechCount {
					n++
				}
			}
			if mu := dppca.ComposedMu(pl.Mechanisms()); n != 1 || mu > pl.Mu*(1+1e-12) {
				t.Errorf("%v ε=%g: %d count mechanisms, composed μ %g of %g", vals, eps, n, mu, pl.Mu)
			}
		}
	}
	if !seen[1] || !seen[OverCluster] {
		t.Errorf("over=auto chose %v, want both 1 and %d exercised", seen, OverCluster)
	}
	pl, err := NewPlan(src, false, 0, 1e-5, mustParse(t, map[string]string{"over": "auto"}), rand.New(rand.NewPCG(2, 0)))
	if err != nil || pl.Over != OverCluster {
		t.Errorf("nonprivate over=auto: %d (%v), want %d", pl.Over, err, OverCluster)
	}
}

// TestStageBound: option stagerho moves only the staged split's bound: on
// the same released count (the same ρ), a plan whose ρ lies between 1/6
// and 1/4 runs the network under stagerho=0.25 and leaves it out under
// the default 0.1667, giving its share to the start; out-of-range values are
// errors naming the option.
func TestStageBound(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	def, tight := mustParse(t, map[string]string{"stagerho": "0.25", "handoff": "off"}), mustParse(t, map[string]string{"handoff": "off"})
	found := false
	for eps := 0.5; eps <= 64 && !found; eps *= 1.05 {
		pd, err := NewPlan(src, true, eps, 1e-5, def, rand.New(rand.NewPCG(5, 0)))
		if err != nil {
			t.Fatal(err)
		}
		pt, err := NewPlan(src, true, eps, 1e-5, tight, rand.New(rand.NewPCG(5, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if pd.Rho != pt.Rho || pd.NoisyN != pt.NoisyN {
			t.Fatalf("ε=%g: ρ %g / %g, counts %g / %g: want the same release", eps, pd.Rho, pt.Rho, pd.NoisyN, pt.NoisyN)
		}
		if pd.NetOff != (pd.Rho > StageRho) || pt.NetOff != (pt.Rho > 0.1667) {
			t.Errorf("ε=%g ρ=%.3g: network off %v (1/4), %v (default 1/6)", eps, pd.Rho, pd.NetOff, pt.NetOff)
		}
		if pd.Rho > 0.1667 && pd.Rho <= StageRho {
			found = true
			if _, net, _ := pt.Shares(); pt.Steps != 0 || net != 0 {
				t.Errorf("ε=%g: the default keeps %d steps, share %g", eps, pt.Steps, net)
			}
			if pd.Steps == 0 {
				t.Errorf("ε=%g: stagerho=0.25 left the network out at ρ %.3g", eps, pd.Rho)
			}
			if pt.DPPCA.Mu <= pd.DPPCA.Mu {
				t.Errorf("ε=%g: the start's μ %g with the network out, %g with it on: want its share back", eps, pt.DPPCA.Mu, pd.DPPCA.Mu)
			}
		}
	}
	if !found {
		t.Error("no ε with ρ between 1/6 and 1/4 on the grid")
	}
	for _, v := range []string{"0", "1.5", "x", "-0.1"} {
		if _, err := Parse(map[string]string{"stagerho": v}); err == nil || !strings.Contains(err.Error(), "stagerho") {
			t.Errorf("stagerho=%s: error %v, want one naming the option", v, err)
		}
	}
}
