package dcan

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// small is the test data set: 240 cells, 120 genes, 3 well-separated types.
func small(t testing.TB) Options {
	return Options{Data: simData(t, 240, 120, 3), NoPLD: true}
}

func TestNonPrivateImprovesARI(t *testing.T) {
	// 300 cells × 200 genes, 4 types with 10% DE genes: k-means on the
	// untrained encoder's embedding is poor (ARI ≈ 0.2), training helps.
	cfg := baseConfig(core.ModeNonPrivate)
	cfg.Epochs = []int{6, 4}
	r, _ := start(t, context.Background(), cfg, Options{Data: simDataDE(t, 300, 200, 4, 0.1)})
	evs := collect(r)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	ari := metrics(evs, "ARI")
	if len(ari) != 10 {
		t.Fatalf("got %d ARI values, want one per epoch (10)", len(ari))
	}
	first, last := ari[0], ari[len(ari)-1]
	t.Logf("ARI per epoch: %.3f", ari)
	if last < first+0.1 || last < 0.3 {
		t.Errorf("ARI went from %.3f to %.3f, want an improvement of 0.1 to at least 0.3", first, last)
	}
	for _, ev := range evs {
		if m, ok := ev.(core.MetricsEvent); ok && !m.Unreleased {
			t.Errorf("metrics event %+v not marked unreleased", m)
		}
	}
}

func TestEventsOfAPrivateRun(t *testing.T) {
	cfg := baseConfig(core.ModeSound)
	cfg.Epochs = []int{1, 1}
	cfg.Epsilon = 2 // more noise: a narrower PLD, cheaper under -race
	opt := small(t)
	opt.NoPLD, opt.PLDEvery = false, -1
	r, tr := start(t, context.Background(), cfg, opt)
	evs := collect(r)
	if err := lastErr(evs); err != nil {
		t.Fatal(err)
	}
	var stages []int
	var guarantees []core.GuaranteeEvent
	var budget core.BudgetEvent
	var step core.StepEvent
	embeddings := 0
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.StageEvent:
			stages = append(stages, ev.Stage)
		case core.GuaranteeEvent:
			guarantees = append(guarantees, ev)
		case core.BudgetEvent:
			budget = ev
		case core.StepEvent:
			step = ev
		case core.EmbeddingEvent:
			embeddings++
			if len(ev.X) != 240 || len(ev.Cluster) != 240 || len(ev.Truth) != 240 {
				t.Errorf("embedding has %d/%d/%d points, want 240", len(ev.X), len(ev.Cluster), len(ev.Truth))
			}
		}
	}
	if len(stages) != 2 || stages[0] != 1 || stages[1] != 2 {
		t.Errorf("stages = %v, want [1 2]", stages)
	}
	if embeddings == 0 {
		t.Error("no embedding event")
	}
	if len(guarantees) < 2 || guarantees[0].Status != core.GuaranteeFormal {
		t.Fatalf("guarantees = %+v, want formal at the start and at the end", guarantees)
	}
	if step.Stage != 2 || len(step.Parts) != 3 || step.Parts[1].Name != "kl" || step.Parts[2].Name != "cc" {
		t.Errorf("last step = %+v, want stage 2 with parts zinb, kl, cc", step)
	}
	// The last budget event holds RDP and PLD, and the components include
	// the DP k-means releases.
	if len(budget.Spent) != 2 || budget.Spent[0].Accountant != "RDP" || budget.Spent[1].Accountant != "PLD" {
		t.Fatalf("final budget spent = %+v, want RDP and PLD", budget.Spent)
	}
	comps := map[string]bool{}
	for _, c := range budget.Components {
		comps[c.Name] = true
	}
	for _, want := range []string{compStage1, compStage2, compCentroids} {
		if !comps[want] {
			t.Errorf("budget components %+v lack %q", budget.Components, want)
		}
	}
	// The ledger's ε is accountant.Summarize of what it recorded, and the
	// recorded steps are the steps taken.
	s, err := accountant.Summarize(tr.Ledger().All(), cfg.Delta, accountant.LedgerOptions{Orders: accountant.DefaultOrders.Orders()})
	if err != nil {
		t.Fatal(err)
	}
	if rel := math.Abs(budget.Spent[0].Epsilon-s.EpsilonRDP) / s.EpsilonRDP; rel > 1e-9 {
		t.Errorf("budget RDP ε = %v, Summarize = %v", budget.Spent[0].Epsilon, s.EpsilonRDP)
	}
	if math.Abs(budget.Spent[1].Epsilon-s.EpsilonPLD) > 1e-12 {
		t.Errorf("budget PLD ε = %v, Summarize = %v", budget.Spent[1].Epsilon, s.EpsilonPLD)
	}
	steps := 0
	for _, c := range []string{compStage1, compStage2} {
		for _, ev := range tr.Ledger().Events(c) {
			steps += ev.Steps
		}
	}
	if steps != step.Step {
		t.Errorf("ledger holds %d steps, the run took %d", steps, step.Step)
	}
	if s.EpsilonRDP > cfg.Epsilon*(1+1e-9) {
		t.Errorf("spent ε = %v above the target %v", s.EpsilonRDP, cfg.Epsilon)
	}
	final := guarantees[len(guarantees)-1]
	if len(final.Audited) != 2 || final.Audited[0].Epsilon != budget.Spent[0].Epsilon {
		t.Errorf("final audited = %+v, want RDP %v and PLD", final.Audited, budget.Spent[0].Epsilon)
	}
}

func TestSigmaSolvedFromEpsilon(t *testing.T) {
	cfg := baseConfig(core.ModePaper)
	cfg.Epochs = []int{2, 1}
	r, tr := start(t, context.Background(), cfg, small(t))
	if err := lastErr(collect(r)); err != nil {
		t.Fatal(err)
	}
	evs := tr.Ledger().All()
	steps := 0
	for _, ev := range evs {
		steps += ev.Steps
		if ev.NoiseMultiplier != evs[0].NoiseMultiplier || ev.SampleRate != cfg.SampleRate {
			t.Errorf("ledger event %v, want q = %v and one σ", ev, cfg.SampleRate)
		}
	}
	if steps != 30 {
		t.Fatalf("ledger holds %d steps, want 3 epochs × 10", steps)
	}
	want, err := accountant.CalibrateRDP(accountant.Budget{Epsilon: cfg.Epsilon, Delta: cfg.Delta}, cfg.SampleRate, steps,
		accountant.DefaultOrders.Orders(), accountant.Improved, 1e-7)
	if err != nil {
		t.Fatal(err)
	}
	if z := evs[0].NoiseMultiplier; math.Abs(z-want)/want > 2e-6 {
		t.Errorf("σ = %v, accountant.CalibrateRDP = %v", z, want)
	}
	eps, _, err := accountant.EpsilonRDP(evs, cfg.Delta, accountant.DefaultOrders.Orders(), accountant.Improved)
	if err != nil {
		t.Fatal(err)
	}
	if eps > cfg.Epsilon || eps < cfg.Epsilon*(1-1e-5) {
		t.Errorf("ε of the recorded steps = %v, want the target %v (within 1e-5, not above)", eps, cfg.Epsilon)
	}
	// The registry's preview solves the same σ and projects the same ε,
	// without data.
	c, err := Calibrate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sigma != evs[0].NoiseMultiplier || c.Steps != 30 || c.Orders != accountant.DefaultOrders.String() ||
		len(c.Projected) != 1 || math.Abs(c.Projected[0].Epsilon-eps) > 1e-12 {
		t.Errorf("Calibrate = %+v, want σ %v over 30 steps projecting ε %v", c, evs[0].NoiseMultiplier, eps)
	}
	cfg.Sigma = 2 * c.Sigma
	at2, err := Calibrate(cfg)
	if err != nil || at2.Sigma != cfg.Sigma || at2.Projected[0].Epsilon >= eps {
		t.Errorf("Calibrate at σ %v = %+v (%v), want that σ and ε below %v", cfg.Sigma, at2, err, eps)
	}
	// Sound mode's plan adds the DP k-means releases: more noise for ε.
	cfg.Sigma, cfg.Mode, cfg.Layers = 0, core.ModeSound, core.LayerRange{First: 1, Last: 6}
	snd, err := Calibrate(cfg)
	if err != nil || snd.Sigma <= c.Sigma || snd.Steps != 30+2*DefaultKMeansIterations {
		t.Errorf("sound Calibrate = %+v (%v), want σ above %v over %d releases", snd, err, c.Sigma, 30+2*DefaultKMeansIterations)
	}
	cfg.Mode = core.ModeNonPrivate
	if _, err := Calibrate(cfg); err == nil {
		t.Error("Calibrate in nonprivate mode gave a σ")
	}
}

func TestBudgetExhaustionStopsNoisyTraining(t *testing.T) {
	cfg := baseConfig(core.ModeSound)
	cfg.Epsilon, cfg.Sigma = 3, 0.9
	cfg.Epochs = []int{3, 2}
	r, tr := start(t, context.Background(), cfg, small(t))
	evs := collect(r)
	if err := lastErr(evs); err != nil {
		t.Fatalf("run ended with %v, want a normal end", err)
	}
	var warned bool
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "privacy budget exhausted") {
			warned = true
		}
	}
	if !warned {
		t.Error("no budget-exhausted warning")
	}
	s, err := accountant.Summarize(tr.Ledger().All(), cfg.Delta, accountant.LedgerOptions{Orders: accountant.DefaultOrders.Orders(), SkipPLD: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.EpsilonRDP > cfg.Epsilon || s.Steps >= 50 || s.Steps == 0 {
		t.Errorf("spent ε = %v over %d steps, want ≤ %v and fewer than the 50 planned", s.EpsilonRDP, s.Steps, cfg.Epsilon)
	}
	if _, ok := evs[len(evs)-1].(core.DoneEvent); !ok {
		t.Errorf("last event %#v, want DoneEvent", evs[len(evs)-1])
	}
}

func TestNonFiniteLossStopsWithTypedError(t *testing.T) {
	// A NaN raw count makes the ZINB loss of its cell NaN at the first step
	// that samples it.
	for _, mode := range []core.Mode{core.ModeNonPrivate, core.ModeSound} {
		t.Run(string(mode), func(t *testing.T) {
			d := *simData(t, 240, 120, 3)
			d.RawCounts = append([]float32(nil), d.RawCounts...)
			for i := range d.Cells {
				d.RawCounts[i*d.Genes+7] = float32(math.NaN())
			}
			r, _ := start(t, context.Background(), baseConfig(mode), Options{Data: &d})
			err := lastErr(collect(r))
			var nf *NonFiniteError
			if !errors.As(err, &nf) || !errors.Is(err, ErrNonFinite) {
				t.Fatalf("run error = %v, want a *NonFiniteError", err)
			}
			if nf.Stage != 1 || nf.Step != 1 || !strings.Contains(err.Error(), "step 1") {
				t.Errorf("error %q at stage %d step %d, want stage 1 step 1 named", err, nf.Stage, nf.Step)
			}
		})
	}
}

func TestNonFiniteInputRejected(t *testing.T) {
	d := *simData(t, 240, 120, 3)
	d.X = append([]float32(nil), d.X...)
	d.X[5*d.Genes+7] = float32(math.Inf(1))
	r, _ := start(t, context.Background(), baseConfig(core.ModeNonPrivate), Options{Data: &d})
	err := lastErr(collect(r))
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "x[5, 7]") {
		t.Errorf("run error = %v, want an ErrConfig naming x[5, 7]", err)
	}
}

func TestCancelEndsPromptlyWithoutLeaks(t *testing.T) {
	for _, mode := range []core.Mode{core.ModeNonPrivate, core.ModeSound} {
		t.Run(string(mode), func(t *testing.T) {
			before := runtime.NumGoroutine()
			cfg := baseConfig(mode)
			cfg.Epochs = []int{1000, 0}
			cfg.Epsilon = 100
			r, _ := start(t, context.Background(), cfg, small(t))
			for ev := range r.Events() {
				if _, ok := ev.(core.StepEvent); ok {
					break
				}
			}
			t0 := time.Now()
			r.Stop()
			evs := collect(r)
			r.Wait()
			d := time.Since(t0)
			t.Logf("stopped in %v", d)
			if d > time.Second {
				t.Errorf("Stop took %v, want well under a second", d)
			}
			if done, ok := evs[len(evs)-1].(core.DoneEvent); !ok || !done.Stopped {
				t.Errorf("last event %#v, want DoneEvent{Stopped: true}", evs[len(evs)-1])
			}
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before {
				if time.Now().After(deadline) {
					t.Fatalf("%d goroutines after the run, %d before", runtime.NumGoroutine(), before)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }
func ptrInt(v int) *int      { return &v }

func TestRunGuaranteeByMode(t *testing.T) {
	for _, tc := range []struct {
		desc      string
		mode      core.Mode
		layers    core.LayerRange
		want      core.Guarantee
		published bool
		audited   bool
	}{
		{"DCAN", core.ModeNonPrivate, core.LayerRange{}, core.GuaranteeNone, false, false},
		{"DP-DCAN 1-3", core.ModePaper, core.LayerRange{First: 1, Last: 3}, core.GuaranteeNone, true, false},
		{"DPE-DCAN 1-6", core.ModePaper, core.LayerRange{First: 1, Last: 6}, core.GuaranteePaperOnly, true, true},
		{"DP-DCAN-sound", core.ModeSound, core.LayerRange{}, core.GuaranteeFormal, true, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(tc.mode)
			cfg.Layers = tc.layers
			cfg.Epochs = []int{1, 0}
			r, _ := start(t, context.Background(), cfg, small(t))
			evs := collect(r)
			if err := lastErr(evs); err != nil {
				t.Fatal(err)
			}
			var g *core.GuaranteeEvent
			for _, ev := range evs {
				if e, ok := ev.(core.GuaranteeEvent); ok {
					g = &e
					break
				}
			}
			if g == nil {
				t.Fatal("no guarantee event")
			}
			if g.Status != tc.want || (len(g.Published) > 0) != tc.published || (len(g.Audited) > 0) != tc.audited {
				t.Errorf("guarantee = %s, published %v, audited %v; want %s, %v, %v",
					g.Status, g.Published, g.Audited, tc.want, tc.published, tc.audited)
			}
			if tc.published && math.Abs(g.Published[0].Epsilon-cfg.Epsilon) > 1e-4*cfg.Epsilon {
				t.Errorf("published ε = %v, want the target %v (σ solved by the same RDP)", g.Published[0].Epsilon, cfg.Epsilon)
			}
		})
	}
}

// TestHeadInitInGuarantee checks that a private run says, in its
// guarantee reasons, which ZINB head biases were initialised from the
// data, and that Options.NoGeneMeanInit and NoDispersionInit remove the
// initialisation and its mention.
func TestHeadInitInGuarantee(t *testing.T) {
	for _, tc := range []struct {
		desc           string
		noMean, noDisp bool
		want           string // "" for no mention of an initial bias
	}{
		{"default", false, false, "initial biases of the ZINB mean and dispersion heads"},
		{"NoDispersionInit", false, true, "initial bias of the ZINB mean head"},
		{"NoGeneMeanInit", true, false, "initial bias of the ZINB dispersion head"},
		{"both off", true, true, ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(core.ModeSound)
			cfg.Epochs = []int{1, 0}
			opt := small(t)
			opt.NoGeneMeanInit, opt.NoDispersionInit = tc.noMean, tc.noDisp
			r, _ := start(t, context.Background(), cfg, opt)
			evs := collect(r)
			if err := lastErr(evs); err != nil {
				t.Fatal(err)
			}
			var mention string
			for _, ev := range evs {
				if g, ok := ev.(core.GuaranteeEvent); ok {
					for _, s := range g.Reasons {
						if i := strings.Index(s, "initial bias"); i >= 0 {
							mention = s[i:]
						}
					}
				}
			}
			if tc.want == "" && mention != "" || !strings.HasPrefix(mention, tc.want) {
				t.Errorf("guarantee reasons mention %q, want %q", mention, tc.want)
			}
		})
	}
}

// TestNoiseDominatesWarning checks the warning that each step's noise
// outweighs the largest possible clipped signal: on the small set (24 cells
// a batch, ~10⁵ noised parameters) it is given at the σ that ε = 8 needs,
// not at σ = 0.01, and never without noise.
func TestNoiseDominatesWarning(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		mode  core.Mode
		sigma float64
		want  bool
	}{
		{"sound, sigma from eps 8", core.ModeSound, 0, true},
		{"sound, sigma 0.01", core.ModeSound, 0.01, false},
		{"nonprivate", core.ModeNonPrivate, 0, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(tc.mode)
			cfg.Epochs, cfg.Sigma = []int{1, 1}, tc.sigma
			r, _ := start(t, context.Background(), cfg, small(t))
			evs := collect(r)
			if err := lastErr(evs); err != nil {
				t.Fatal(err)
			}
			got := false
			for _, ev := range evs {
				if w, ok := ev.(core.WarningEvent); ok && strings.HasPrefix(w.Message, "noise dominates every step") {
					got = true
				}
			}
			if got != tc.want {
				t.Errorf("noise-dominates warning given: %v, want %v", got, tc.want)
			}
		})
	}
}
