package dppca

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestPlanComposesToTarget: for every ε, preprocessing and schedule, the
// GDP composition of the plan's mechanisms, converted once, equals the
// target ε to 1e-9 relative and never exceeds it; each σ is Δ/(μ√w) with
// the shares stated in Plan's doc.
func TestPlanComposesToTarget(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 8, 50} {
		for _, prep := range []Prep{PrepPrivate, PrepPublic} {
			for _, tt := range []int{1, 5, 20} {
				o, err := Parse(map[string]string{"prep": string(prep), "T": strconv.Itoa(tt)})
				if err != nil {
					t.Fatal(err)
				}
				pl, err := NewPlan(true, eps, 1e-5, o, 200, 7)
				if err != nil {
					t.Fatal(err)
				}
				got, err := EpsilonOf(ComposedMu(pl.Mechanisms()), 1e-5)
				if err != nil {
					t.Fatal(err)
				}
				if got > eps || got < eps*(1-1e-9) {
					t.Errorf("ε=%g prep=%s T=%d: composed ε = %.12g, want ≤ %g within 1e-9", eps, prep, tt, got, eps)
				}
				// The PCA's share of μ² is Split.
				if w := math.Pow(pl.R*pl.R/pl.PCA/pl.Mu, 2); math.Abs(w-o.Split) > 1e-9 {
					t.Errorf("PCA share of μ² = %g, want %g", w, o.Split)
				}
				// The ledger's events give the same μ.
				var evs []accountant.Event
				for _, m := range pl.Mechanisms() {
					ev, err := m.Event()
					if err != nil {
						t.Fatal(err)
					}
					evs = append(evs, ev)
				}
				mu, err := accountant.GDPMu(evs)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(mu-pl.Mu) > 1e-9*pl.Mu {
					t.Errorf("ledger μ = %g, plan μ = %g", mu, pl.Mu)
				}
			}
		}
	}
	pl, err := NewPlan(false, 1, 1e-5, mustParse(t, nil), 200, 7)
	if err != nil || pl.Private() || pl.Mechanisms() != nil || pl.PCA != 0 || pl.Sums != 0 {
		t.Errorf("nonprivate plan = %+v, %v; want no noise and no mechanisms", pl, err)
	}
}

// TestGOENoise: the symmetric noise has variance σ² on the diagonal and
// σ²/2 off it (Frobenius-isotropic), measured over many draws.
func TestGOENoise(t *testing.T) {
	const h, draws, sigma = 6, 4000, 3.0
	rng := rand.New(rand.NewPCG(1, 2))
	var diag, off float64
	for range draws {
		c := make([]float64, h*h)
		addGOE(c, h, sigma, rng)
		for i := range h {
			diag += c[i*h+i] * c[i*h+i]
			for j := i + 1; j < h; j++ {
				off += c[i*h+j] * c[i*h+j]
			}
			for j := range i {
				if c[i*h+j] != 0 {
					t.Fatalf("lower triangle written at (%d, %d)", i, j)
				}
			}
		}
	}
	diag /= draws * h
	off /= draws * h * (h - 1) / 2
	// 24,000 and 60,000 squares: relative sd of the variance ≈ 0.9 % and 0.6 %.
	if math.Abs(diag/(sigma*sigma)-1) > 0.04 || math.Abs(off/(sigma*sigma/2)-1) > 0.04 {
		t.Errorf("variances: diagonal %.3f (want %.3f), off-diagonal %.3f (want %.3f)", diag, sigma*sigma, off, sigma*sigma/2)
	}
}

// TestNonPrivateRecoversSeparatedClusters: with no noise, the pipeline finds
// four well-separated populations (ARI > 0.9) for every seed, with either
// preprocessing; a private run at a generous ε does too.
func TestNonPrivateRecoversSeparatedClusters(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 1)
	for _, prep := range []Prep{PrepPrivate, PrepPublic} {
		o := mustParse(t, map[string]string{"prep": string(prep), "genes": "100", "p": "5"})
		src, err := NewSourceTarget(d, 0, o.sourceTarget())
		if err != nil {
			t.Fatal(err)
		}
		for s := range uint64(5) {
			ari, out := releaseARI(t, src, false, 0, o, s)
			if ari <= 0.9 {
				t.Errorf("prep=%s seed %d: nonprivate ARI %.3f, want > 0.9 (non-empty %d)", prep, s, ari, out.NonEmpty)
			}
		}
		if ari, _ := releaseARI(t, src, true, 50, o, 0); ari <= 0.9 {
			t.Errorf("prep=%s: sound ε=50 ARI %.3f, want > 0.9", prep, ari)
		}
	}
}

// TestEngineAccounting: a sound run's audited ε is the GDP composition of
// its ledger, equal to the target; the summary's metrics are there; every
// mechanism is in the ledger.
func TestEngineAccounting(t *testing.T) {
	d := fixture.Separated(4, 60, 200, 2)
	e, evs := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100"}), nil)
	g, ok := fixture.LastOf[core.GuaranteeEvent](evs)
	if !ok || g.Status != core.GuaranteeFormal || len(g.Audited) != 1 || g.Audited[0].Accountant != AccountantGDP {
		t.Fatalf("final guarantee = %+v, want formal with one GDP audited ε", g)
	}
	mu, err := accountant.GDPMu(e.Ledger().All())
	if err != nil {
		t.Fatal(err)
	}
	eps, err := accountant.GDPEpsilon(mu, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if a := g.Audited[0].Epsilon; math.Abs(a-eps) > 1e-12 || a > 2 || a < 2-1e-8 {
		t.Errorf("audited ε = %.12g, ledger composition %.12g, target 2", a, eps)
	}
	// 10: offset=dir's direction (rule G19) fires on these 240 cells at ε 2
	if n, want := len(e.Ledger().Components()), len(e.Outcomes()[0].Plan.Mechanisms()); n != want || want != 10 || e.Outcomes()[0].Plan.Offset == 0 {
		t.Errorf("ledger has %d components (%v), want the plan's %d mechanisms (10, the offset's among them)", n, e.Ledger().Components(), want)
	}
	b, _ := fixture.LastOf[core.BudgetEvent](evs)
	if len(b.Spent) < 2 || b.Spent[0].Accountant != AccountantGDP || b.Spent[1].Epsilon < b.Spent[0].Epsilon {
		t.Errorf("budget = %+v, want GDP first and RDP (looser) second", b.Spent)
	}
	m, _ := fixture.LastOf[core.MetricsEvent](evs)
	names := map[string]bool{}
	for _, v := range m.Values {
		names[v.Name] = true
	}
	if !names["ARI"] || !names["NMI"] || !names["ACC"] || !m.Unreleased {
		t.Errorf("final metrics = %+v, want ARI, NMI, ACC marked unreleased", m)
	}
	res, ok := fixture.LastOf[core.ResultEvent](evs)
	outs := e.Outcomes()
	p := len(outs[len(outs)-1].Eigen)
	if !ok || res.Cells != 240 || res.Dim != p || p < MinAutoP || p > DefaultPCap || len(res.Cluster) != 240 || len(res.Embedding) != 240*p {
		t.Errorf("result = %d cells × %d (p chosen %d), %d labels", res.Cells, res.Dim, p, len(res.Cluster))
	}
}

// TestPatchMakesNewRelease: a patch taken in the k-means stage ends release
// 1 (what it spent stays in the ledger) and release 2 runs under the new ε
// and p; the audited ε composes both; bad patches are rejected and change
// nothing.
func TestPatchMakesNewRelease(t *testing.T) {
	d := fixture.Separated(4, 60, 200, 3)
	eps4 := 4.0
	bad := []core.Patch{
		{Options: map[string]string{"T": "0"}},
		{Options: map[string]string{"p": "500"}},
		{Sigma: &eps4},
		{Options: map[string]string{"genes": "50"}}, // not live
	}
	good := core.Patch{Epsilon: &eps4, Options: map[string]string{"p": "4"}}
	e, evs := runTest(t, d, fixture.SoundConfig(1, 1, map[string]string{"genes": "100"}), func(r *core.Run, rel, stage int) {
		if rel == 1 && stage == 3 {
			for _, p := range append(bad, good) {
				r.Apply(p)
			}
		}
	})
	var applied, rejected int
	for _, ev := range evs {
		if p, ok := ev.(core.PatchEvent); ok {
			if p.Applied {
				applied++
			} else if p.Err != "" {
				rejected++
			}
		}
	}
	if applied != 1 || rejected != len(bad) {
		t.Errorf("%d applied, %d rejected; want 1 and %d", applied, rejected, len(bad))
	}
	outs := e.Outcomes()
	if len(outs) != 2 || outs[1].Plan.P != 4 || outs[1].Plan.Epsilon != 4 || outs[0].Labels != nil {
		t.Fatalf("outcomes: %d, want release 1 stopped before its k-means and release 2 at ε = 4, p = 4", len(outs))
	}
	// Release 1 spent its preprocessing and PCA: μ² = (0.1 + 0.5)·μ(1)²,
	// plus offset=dir's 0.05 when its switch fired (rule G19) and
	// centre=auto's 0.05 when its rule fired (G21).
	mu1, mu4 := outs[0].Plan.Mu, outs[1].Plan.Mu
	sh := 0.6
	if outs[0].Plan.Offset > 0 {
		sh += ShareOffset
	}
	if outs[0].Plan.Centre > 0 {
		// centre=auto's sum, released with the PCA when its rule fires
		// (rule G21)
		sh += ShareCentre
	}
	want, err := accountant.GDPEpsilon(math.Sqrt(sh*mu1*mu1+mu4*mu4), 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	if got := g.Audited[0].Epsilon; math.Abs(got-want) > 1e-6*want || got <= 4 {
		t.Errorf("audited ε = %.9g, want %.9g (release 1's PCA and preprocessing composed with release 2 at ε = 4)", got, want)
	}
	res, _ := fixture.LastOf[core.ResultEvent](evs)
	if res.Dim != 4 {
		t.Errorf("result dimension %d, want the patched p = 4", res.Dim)
	}
}

// TestInvalidInput: every bad configuration, option and data set is an
// error naming what is wrong.
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
		{"no epsilon", func(c *core.Config) { c.Epsilon = 0; c.Sigma = 0 }, core.ErrBadConfig, "epsilon"},
		{"unknown option", func(c *core.Config) { c.Options = map[string]string{"q": "1"} }, ErrOptions, `"q"`},
		{"p zero", func(c *core.Config) { c.Options = map[string]string{"p": "0"} }, ErrOptions, "p"},
		{"p above genes", func(c *core.Config) { c.Options = map[string]string{"p": "20", "genes": "10"} }, ErrOptions, "genes"},
		{"split", func(c *core.Config) { c.Options = map[string]string{"split": "0.95"} }, ErrOptions, "split"},
		{"clip", func(c *core.Config) { c.Options = map[string]string{"clip": "NaN"} }, ErrOptions, "clip"},
		{"prep", func(c *core.Config) { c.Options = map[string]string{"prep": "maybe"} }, ErrOptions, "prep"},
		{"init", func(c *core.Config) { c.Options = map[string]string{"init": "kmeans"} }, ErrOptions, "init"},
		{"T text", func(c *core.Config) { c.Options = map[string]string{"T": "five"} }, ErrOptions, "T"},
	}
	for _, tc := range cases {
		cfg := base
		tc.edit(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: New = %v, want an error wrapping %v naming %s", tc.name, err, tc.want, tc.text)
		}
	}
	unlabelled := fixture.Separated(2, 10, 50, 1)
	unlabelled.Labels, unlabelled.Classes = nil, nil
	if _, err := NewSource(unlabelled, 0); !errors.Is(err, ErrInput) {
		t.Errorf("no labels and no k: %v, want ErrInput", err)
	}
	if _, err := NewSource(fixture.Separated(2, 10, 50, 1), 21); !errors.Is(err, ErrInput) {
		t.Errorf("k above n: %v, want ErrInput", err)
	}
	for _, bad := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := NewSourceTarget(fixture.Separated(2, 10, 50, 1), 0, bad); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "public total") {
			t.Errorf("target %v: %v, want ErrInput naming the public total", bad, err)
		}
	}
	few := fixture.Separated(2, 10, 5, 1)
	src, err := NewSource(few, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"p": "10"})
	pl, _ := NewPlan(true, 1, 1e-5, o, src.Genes(o.Genes), 1)
	if _, err := Release(background, src, pl, o, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrInput) {
		t.Errorf("5 genes, p = 10: %v, want ErrInput", err)
	}
	// The edge rule caps p at the genes there are instead.
	o = mustParse(t, nil)
	pl, _ = NewPlan(true, 1, 1e-5, o, src.Genes(o.Genes), 1)
	if out, err := Release(background, src, pl, o, rand.New(rand.NewPCG(1, 1))); err != nil || len(out.Eigen) > 5 || len(out.Eigen) < MinAutoP {
		t.Errorf("5 genes, p = auto: %v, want 2 to 5 components", err)
	}
	// Through core.Start: a missing path is an error event, not a panic.
	cfg := base
	cfg.Data = "/nonexistent/dppca"
	run, err := core.Start(background, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var failed bool
	for ev := range run.Events() {
		if _, ok := ev.(core.ErrorEvent); ok {
			failed = true
		}
	}
	if !failed {
		t.Error("missing data path: no error event")
	}
}

// TestCollapseIsExplained: whenever a run ends with fewer than K/2
// non-empty clusters it says why; otherwise it does not warn so.
func TestCollapseIsExplained(t *testing.T) {
	d := fixture.Separated(8, 30, 400, 4)
	for _, eps := range []float64{0.05, 20} {
		e, evs := runTest(t, d, fixture.SoundConfig(eps, 1, nil), nil)
		outs := e.Outcomes()
		out := outs[len(outs)-1]
		warned := false
		for _, ev := range evs {
			if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "clusters hold cells") {
				warned = true
			}
		}
		if collapsed := 2*out.NonEmpty < 8; warned != collapsed {
			t.Errorf("ε=%g: %d of 8 clusters non-empty, collapse warning %v", eps, out.NonEmpty, warned)
		}
	}
}

// TestGoroutinesEnd: no goroutine outlives a finished or cancelled run.
func TestGoroutinesEnd(t *testing.T) {
	d := fixture.Separated(4, 50, 200, 5)
	before := runtime.NumGoroutine()
	runTest(t, d, fixture.SoundConfig(1, 1, nil), nil)
	testHooks.Lock()
	testHooks.data = d
	testHooks.Unlock()
	cfg := fixture.SoundConfig(1, 1, nil)
	cfg.Method = testMethod
	fixture.RunCancelled(t, cfg)
	fixture.GoroutinesBack(t, before)
}

// TestNonPrivateMode: no ledger, guarantee none, ε patches rejected.
func TestNonPrivateMode(t *testing.T) {
	d := fixture.Separated(4, 50, 200, 6)
	cfg := fixture.SoundConfig(0, 1, nil)
	cfg.Mode = core.ModeNonPrivate
	eps := 2.0
	e, evs := runTest(t, d, cfg, func(r *core.Run, rel, stage int) {
		if rel == 1 && stage == 2 {
			r.Apply(core.Patch{Epsilon: &eps})
		}
	})
	if e.Ledger() != nil {
		t.Error("nonprivate mode has a ledger")
	}
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	p, _ := fixture.LastOf[core.PatchEvent](evs)
	if g.Status != core.GuaranteeNone || p.Applied || p.Err == "" {
		t.Errorf("guarantee %s, patch %+v; want none and a rejected ε patch", g.Status, p)
	}
	m, _ := fixture.LastOf[core.MetricsEvent](evs)
	if m.Values[0].Name != "ARI" || m.Values[0].Value <= 0.9 {
		t.Errorf("nonprivate ARI on separated data = %+v, want > 0.9", m.Values)
	}
}

// TestPrivatePrepIsPerCellPlusNoise: the per-cell transform normalises each
// cell to the public total; the private preprocessing ranks marker genes
// first on separated data and its rows respect the clip radius.
func TestPrivatePrepIsPerCellPlusNoise(t *testing.T) {
	d := fixture.Separated(4, 200, 300, 7)
	cl := newCellLog(d, PublicTarget)
	cols, vals := cl.x.Row(0)
	var total float64
	for _, v := range vals {
		total += math.Expm1(float64(v))
	}
	if math.Abs(total-PublicTarget) > 1e-2 || len(cols) == 0 {
		t.Errorf("cell 0 normalised total = %g, want %g", total, PublicTarget)
	}
	// NewSource keeps PublicTarget (dcan-sound's start); dppca's engine
	// normalises to its option target, DefaultTarget by default.
	for _, tc := range []struct {
		src  func() (*Source, error)
		want float64
	}{
		{func() (*Source, error) { return NewSource(d, 0) }, PublicTarget},
		{func() (*Source, error) { return NewSourceTarget(d, 0, mustParse(t, nil).Target) }, DefaultTarget},
	} {
		s, err := tc.src()
		if err != nil {
			t.Fatal(err)
		}
		_, vals := s.cl.x.Row(3)
		var tot float64
		for _, v := range vals {
			tot += math.Expm1(float64(v))
		}
		if s.Target != tc.want || math.Abs(tot-tc.want) > 1e-3*tc.want {
			t.Errorf("source target %g, cell 3 total %g; want %g", s.Target, tot, tc.want)
		}
	}
	o := mustParse(t, map[string]string{"genes": "160"})
	var m *Matrix
	for _, private := range []bool{false, true} {
		pl, err := NewPlan(private, 8, 1e-5, o, 160, 3)
		if err != nil {
			t.Fatal(err)
		}
		m, _ = privatePrep(cl, pl, rand.New(rand.NewPCG(1, 1)))
		markers := countBelow(m.Genes, 160)
		if want := map[bool]int{false: 160, true: 150}[private]; markers < want {
			t.Errorf("private %v: %d of the 160 genes kept are markers, want ≥ %d", private, markers, want)
		}
	}
	for i := range m.N {
		var s float64
		for _, v := range m.Z[i*m.H : (i+1)*m.H] {
			s += v * v
		}
		if math.Sqrt(s) > 3+1e-9 {
			t.Fatalf("row %d has norm %g above R = 3", i, math.Sqrt(s))
		}
	}
}

// BenchmarkRelease times one sound release at ε = 1 on synthetic data and,
// when the shared data are there, on pbmc_4k (loading excluded), and
// reports the ARI.
func BenchmarkRelease(b *testing.B) {
	sets := []struct {
		name string
		d    func() *datasets.Dataset
	}{
		{"separated", func() *datasets.Dataset { return fixture.Separated(8, 250, 1000, 1) }},
		{"pbmc_4k", func() *datasets.Dataset { return openShared(b, "pbmc_4k") }},
	}
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			o := mustParse(b, nil)
			src, err := NewSourceTarget(s.d(), 0, o.sourceTarget())
			if err != nil {
				b.Fatal(err)
			}
			pl, err := src.PlanFor(true, 1, 1e-5, o, 0, rand.New(rand.NewPCG(0, 0)))
			if err != nil {
				b.Fatal(err)
			}
			var ari float64
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				out, err := Release(background, src, pl, o, rand.New(rand.NewPCG(uint64(i), 0)))
				if err != nil {
					b.Fatal(err)
				}
				a, _ := cluster.ARI(out.Matrix.Labels, out.Labels)
				ari += a
			}
			b.ReportMetric(ari/float64(b.N), "ARI")
		})
	}
}

func mustParse(t testing.TB, m map[string]string) Options {
	t.Helper()
	o, err := Parse(m)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestKErrorSaysItOnce: k above the cells, through core.Start, is one
// sentence naming option k, its value and the data set, the method's name
// said once ("core: dppca: dppca: k is …: dppca: invalid input" before),
// still ErrInput under errors.Is; CheckData (what the CLI asks before the
// run) gives the same error.
func TestKErrorSaysItOnce(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: MethodName, Mode: core.ModeSound, Epsilon: 1, Delta: 1e-5,
		Clip: 1, SampleRate: 0.1, Options: map[string]string{"k": "100000"}}
	const want = "option k=100000: k must be ≤ the 2000 cells of builtin:default"
	err := core.CheckData(cfg)
	var oe *core.OptionError
	if err == nil || err.Error() != want || !errors.As(err, &oe) || oe.Key != "k" || !errors.Is(err, ErrInput) {
		t.Errorf("CheckData = %v, want %q, an OptionError wrapping ErrInput", err, want)
	}
	run, err := core.Start(background, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for ev := range run.Events() {
		if e, ok := ev.(core.ErrorEvent); ok {
			got = e.Err
		}
	}
	if got == nil || got.Error() != "core: dppca: "+want || !errors.Is(got, ErrInput) {
		t.Errorf("the run's error %v, want %q wrapping ErrInput", got, "core: dppca: "+want)
	}
	cfg.Options = nil
	if err := core.CheckData(cfg); err != nil {
		t.Errorf("k from the labels: CheckData = %v", err)
	}
}
