package fed

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// TestPaperSplit checks FedSC's "paper" split: S = ⌊classes/K⌋ classes per
// client (the paper's 2 of 8 and 4 of 16 with K = 4), at least 1, and IID
// without labels.
func TestPaperSplit(t *testing.T) {
	for _, tc := range []struct {
		classes, k, want int
		labelled         bool
		kind             datasets.SplitKind
	}{
		{8, 4, 2, true, datasets.SplitNonIID}, {16, 4, 4, true, datasets.SplitNonIID},
		{3, 5, 1, true, datasets.SplitNonIID}, {8, 4, 0, false, datasets.SplitIID},
	} {
		got := paperSplit(datasets.SplitConfig{Clients: tc.k}, tc.classes, tc.labelled)
		if got.Kind != tc.kind || got.ClassesPerClient != tc.want || got.Clients != tc.k {
			t.Errorf("%d classes, K = %d, labelled %v: %+v, want kind %v, S = %d", tc.classes, tc.k, tc.labelled, got, tc.kind, tc.want)
		}
	}
	if err := (Params{Split: SplitPaper}).Validate(FL); err == nil {
		t.Errorf("fl accepted the split %q", SplitPaper)
	}
	if err := (Params{}).Validate(FedSC); err != nil {
		t.Errorf("fedsc defaults: %v", err)
	}
	if p := (Params{}).withDefaults(FedSC); p.Split != SplitPaper || p.Divergence != DivergenceCalibrated || p.Momentum != 0.5 || p.ClientRate != 1 {
		t.Errorf("fedsc defaults %q %v %v %v, want the paper's split, Eq. (4) as printed, momentum 0.5, every client", p.Split, p.Divergence, p.Momentum, p.ClientRate)
	}
}

// TestPaperSplitRun checks that a FedSC run on labelled data with the
// default split gives each client ⌊classes/K⌋ whole classes.
func TestPaperSplitRun(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(FedSC, core.ModeNonPrivate)
	cfg.Clients, cfg.Epochs = 2, []int{1, 1}
	p := smallParams(d)
	p.Split = ""
	evs := runEngine(t, cfg, newEngine(t, cfg, FedSC, p))
	for _, ev := range evs {
		if c, ok := ev.(core.ClientsEvent); ok {
			if c.Split != "noniid:2" || len(c.Classes) != 2 || len(c.Classes[0]) != 2 || len(c.Classes[1]) != 2 {
				t.Errorf("clients %+v, want noniid:2 with 2 classes each", c)
			}
			return
		}
	}
	t.Fatal("no clients event")
}

// TestClientSamplingAccounting checks FedSC's sound mode with client rate
// q < 1: σ is calibrated on the subsampled Gaussian (less noise than with
// every client for the same ε), the enforced ε is the RDP one and stops
// just below the target, and the label names the unit and the sampling.
func TestClientSamplingAccounting(t *testing.T) {
	cfg := core.Config{Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1}
	full, err := newPrivacy(cfg, FedSC, Params{}.withDefaults(FedSC), 50, 20)
	if err != nil {
		t.Fatal(err)
	}
	half, err := newPrivacy(cfg, FedSC, Params{ClientRate: 0.5}.withDefaults(FedSC), 50, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !(half.z < full.z) {
		t.Errorf("σ at q = 0.5 is %v, not below σ at q = 1, %v", half.z, full.z)
	}
	want, err := accountant.CalibrateRDP(accountant.Budget{Epsilon: 4, Delta: 1e-5}, 0.5, 50, accountant.OrdersDPAccounting.Orders(), accountant.Improved, 0)
	// Both bisect σ to a relative 1e-6 (CalibrateAfter and CalibrateRDP).
	if err != nil || math.Abs(half.z-want) > 2e-6*want {
		t.Errorf("σ = %v, CalibrateRDP says %v (%v)", half.z, want, err)
	}
	half.segment = "K = 20"
	rounds := 0
	for half.fits(20) && rounds < 200 {
		if err := half.record(20); err != nil {
			t.Fatal(err)
		}
		rounds++
	}
	if e := half.audited(0, 20); rounds < 50 || rounds == 200 || e > 4 || half.audited(1, 20) <= 4 {
		t.Errorf("ran %d rounds to ε %v, want at least the planned 50 and to stop just below 4", rounds, e)
	}
	ev := half.budget(rounds, 20)
	if len(ev.Spent) != 1 || ev.Spent[0].Accountant != LabelFedSCRDP || math.Abs(ev.Spent[0].Epsilon-half.audited(0, 20)) > 1e-12 {
		t.Errorf("spent %+v, want one RDP value %v", ev.Spent, half.audited(0, 20))
	}
	if !strings.Contains(LabelFedSCRDP, "one client's data") || !strings.Contains(LabelFedSCRDP, "subsampled") {
		t.Errorf("label %q does not name the unit and the sampling", LabelFedSCRDP)
	}
	g := half.guarantee(FedSC, core.ModeSound, 20, true)
	if len(g.Audited) != 1 || !strings.HasPrefix(g.Audited[0].Accountant, LabelFedSCRDP) {
		t.Errorf("final guarantee %+v, want the RDP value", g.Audited)
	}
}

// TestClientSamplingRun checks FedSC runs with q = 0.5 in both modes:
// clients not sampled send nothing and the runs end; other variants
// refuse q < 1.
func TestClientSamplingRun(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(FedSC, core.ModeSound)
	p := smallParams(d)
	p.ClientRate = 0.5
	e := newEngine(t, cfg, FedSC, p)
	evs := runEngine(t, cfg, e)
	if ari, ok := lastMetric(evs, "ARI"); !ok || math.IsNaN(ari) {
		t.Errorf("no ARI")
	}
	cfg.Mode = core.ModeNonPrivate
	evs = runEngine(t, cfg, newEngine(t, cfg, FedSC, p))
	if ari, ok := lastMetric(evs, "ARI"); !ok || math.IsNaN(ari) {
		t.Errorf("no ARI in nonprivate mode")
	}
	if _, err := New(baseConfig(FL, core.ModeNonPrivate), FL, p); err == nil {
		t.Errorf("fl accepted client rate 0.5")
	}
	for _, q := range []float64{-0.1, 1.5, math.NaN()} {
		if err := (Params{ClientRate: q}).Validate(FedSC); err == nil {
			t.Errorf("client rate %v accepted", q)
		}
	}
}

// TestSampleClients checks the participants' draw: about q·K of them,
// reproducible from the seed, and everyone with q = 1.
func TestSampleClients(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(FedSC, core.ModeSound)
	cfg.Clients = 400
	p := smallParams(d)
	p.ClientRate, p.Split = 0.25, "iid"
	e := newEngine(t, cfg, FedSC, p)
	s := &sim{e: e, k: 400}
	s.sampleClients(3)
	n := 0
	first := append([]bool(nil), s.active...)
	for c := range 400 {
		if s.takesPart(c) {
			n++
		}
	}
	// Binomial(400, 0.25): mean 100, sd 8.7
	if n < 60 || n > 140 {
		t.Errorf("%d of 400 clients sampled at q = 0.25", n)
	}
	s.sampleClients(3)
	for c := range first {
		if first[c] != s.active[c] {
			t.Fatalf("the draw of round 3 changed")
		}
	}
	e.p.ClientRate = 1
	s.sampleClients(4)
	if s.active != nil || !s.takesPart(7) {
		t.Errorf("q = 1 sampled clients")
	}
}

// TestCentralNoiseToSignal checks FedSC's bound ρ = z·√P/(q·K·√R) on
// hand-computed values, and that it does not depend on the rounds once z
// follows a fixed μ-GDP budget (z = √R/μ with q = 1).
func TestCentralNoiseToSignal(t *testing.T) {
	for _, c := range []struct {
		z                  float64
		weights, rounds, k int
		q, want            float64
	}{
		{2, 400, 4, 4, 1, 5},        // 2·20/(4·2)
		{1, 100, 1, 10, 1, 1},       // the threshold
		{1, 100, 1, 10, 0.5, 2},     // half the clients: twice the ratio
		{3, 100, 0, 5, 1, 0},        // no round
		{3, 100, 4, 0, 1, 0},        // no client
		{3, 100, 4, 5, 0, 0},        // no client rate
		{1.5, 10000, 9, 4, 1, 12.5}, // 1.5·100/(4·3)
	} {
		if got := centralNoiseToSignal(c.z, c.weights, c.rounds, c.k, c.q); math.Abs(got-c.want) > 1e-12*math.Max(1, c.want) {
			t.Errorf("centralNoiseToSignal(%g, %d, %d, %d, %g) = %g, want %g", c.z, c.weights, c.rounds, c.k, c.q, got, c.want)
		}
	}
	const mu, weights, k = 1.65, 425_000, 4
	for _, r := range []int{10, 300} {
		got := centralNoiseToSignal(math.Sqrt(float64(r))/mu, weights, r, k, 1)
		if want := math.Sqrt(weights) / (k * mu); math.Abs(got-want) > 1e-9*want {
			t.Errorf("R = %d: ρ = %g, want √P/(Kμ) = %g", r, got, want)
		}
	}
}

// TestFedSCNoiseWarning checks that a FedSC sound run whose central noise
// swamps the clipped updates says so with its ρ, and that a nonprivate run
// and a run with little noise do not.
func TestFedSCNoiseWarning(t *testing.T) {
	d := simData(t, 60, 40, 3)
	warns := func(evs []core.Event) []string {
		var out []string
		for _, ev := range evs {
			if w, ok := ev.(core.WarningEvent); ok && strings.HasPrefix(w.Message, "utility: the aggregator's noise") {
				out = append(out, w.Message)
			}
		}
		return out
	}
	cfg := baseConfig(FedSC, core.ModeSound)
	e := newEngine(t, cfg, FedSC, smallParams(d))
	got := warns(runEngine(t, cfg, e))
	if len(got) != 1 {
		t.Fatalf("%d central-noise warnings, want 1: %q", len(got), got)
	}
	pr, err := newPrivacy(cfg, FedSC, e.p, e.rounds, e.clients)
	if err != nil {
		t.Fatal(err)
	}
	l, err := newBYOLLearner(dataMatrix(d), e.p, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("= %.3g times", centralNoiseToSignal(pr.z, l.size(), 3, 4, 1))
	if !strings.Contains(got[0], want) || !strings.Contains(got[0], fmt.Sprintf("P = %d weights, K = 4 clients", l.size())) {
		t.Errorf("warning %q does not contain %q and P = %d", got[0], want, l.size())
	}
	cfg.Mode = core.ModeNonPrivate
	if got := warns(runEngine(t, cfg, newEngine(t, cfg, FedSC, smallParams(d)))); len(got) != 0 {
		t.Errorf("nonprivate run warned: %q", got)
	}
	cfg = baseConfig(FedSC, core.ModeSound)
	cfg.Epsilon, cfg.Sigma = 0, 1e-3 // ρ ≈ 1e-3·√P/(4·√3) < 1 for P of a few thousand
	if got := warns(runEngine(t, cfg, newEngine(t, cfg, FedSC, smallParams(d)))); len(got) != 0 {
		t.Errorf("ρ < 1 but warned: %q", got)
	}
}
