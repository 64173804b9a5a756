package dpmd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestBudgetNumbers pins the (check) figures of METHODS.md §2 and the
// noise table of ../shared/peers/DPMD_RESULTS.md §3 through NewBudget.
func TestBudgetNumbers(t *testing.T) {
	p, _ := Params{}.Resolve()
	for _, tc := range []struct {
		desc           string
		eps, delta     float64
		m, T, n        int
		h              float64
		d              int
		rhoTot, rhoP   float64
		unitP, sP, sM  float64
		tolRel, tolAbs float64
	}{
		// METHODS.md: ρ_tot = 0.0899247, ρ_P = ρ_m = 4.4962e-5, 105.45 per unit.
		{"METHODS (1, 0.1), m=1000, T=1", 1, 0.1, 1000, 1, 30000, 1.0954451150103321, 2, 0.0899247, 4.4962e-5, 105.45, 0, 0, 1e-5, 0},
		// METHODS.md: ρ_tot(1, 1e-5) = 0.0208199.
		{"METHODS (1, 1e-5)", 1, 1e-5, 1, 1, 30000, 1, 2, 0.0208199, 0.0208199 / 2, 0, 0, 0, 1e-5, 0},
		// DPMD_RESULTS.md §3: sphere n = 30000, h = 2√0.3, T = 2: ς_P = 0.00414, ς_m = 0.00454.
		{"peer sphere noise", 1, 0.1, 1000, 2, 30000, 2 * math.Sqrt(0.3), 2, 0.0899247, 2.248e-5, 149.1, 0.00414, 0.00454, 1e-3, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			b, err := NewBudget(core.ModePaper, tc.eps, tc.delta, tc.m, tc.T, p, tc.n, tc.h, tc.d, tc.d+1)
			if err != nil {
				t.Fatal(err)
			}
			check := func(name string, got, want float64) {
				t.Helper()
				if want != 0 && math.Abs(got-want) > tc.tolRel*math.Abs(want)*5 {
					t.Errorf("%s = %.7g, want %.7g", name, got, want)
				}
			}
			check("ρ_tot", b.Split.RhoTotal, tc.rhoTot)
			check("ρ_P", b.Split.RhoP, tc.rhoP)
			check("ρ_m", b.Split.RhoM, tc.rhoP)
			if tc.unitP != 0 && math.Abs(b.Split.NoiseP-tc.unitP) > 0.05 {
				t.Errorf("ς per unit sensitivity = %.5g, want %.5g", b.Split.NoiseP, tc.unitP)
			}
			// The peer prints 3 significant digits.
			if tc.sP != 0 && (math.Abs(b.Noise.Projector-tc.sP) > 5e-6 || math.Abs(b.Noise.Mean-tc.sM) > 5e-6) {
				t.Errorf("ς_P, ς_m = %.5g, %.5g, want %.3g, %.3g", b.Noise.Projector, b.Noise.Mean, tc.sP, tc.sM)
			}
		})
	}
}

// TestSymNoiseScale checks W: symmetric, mean 0, variance ς² per entry
// j ≤ k. With N draws the sample variance has relative standard error
// √(2/N) and the mean standard error ς/√N; 4.42 standard errors fail a
// correct generator with probability 1e-5 each (normal approximation).
func TestSymNoiseScale(t *testing.T) {
	const D, reps, s = 30, 40, 0.37
	rng := rand.New(rand.NewPCG(9, 9))
	p := make([]float64, D*D)
	var sum, sq float64
	var N int
	for range reps {
		clear(p)
		addSymNoise(p, D, s, rng)
		for j := range D {
			for k := j; k < D; k++ {
				if p[j*D+k] != p[k*D+j] {
					t.Fatalf("W[%d,%d] = %g ≠ W[%d,%d] = %g", j, k, p[j*D+k], k, j, p[k*D+j])
				}
				sum += p[j*D+k]
				sq += p[j*D+k] * p[j*D+k]
				N++
			}
		}
	}
	mean := sum / float64(N)
	v := sq/float64(N) - mean*mean
	if math.Abs(mean) > 4.42*s/math.Sqrt(float64(N)) {
		t.Errorf("mean of W entries = %.4g, want 0 ± %.3g", mean, 4.42*s/math.Sqrt(float64(N)))
	}
	if math.Abs(v/(s*s)-1) > 4.42*math.Sqrt(2/float64(N)) {
		t.Errorf("variance of W entries / ς² = %.4f, want 1 ± %.3f", v/(s*s), 4.42*math.Sqrt(2/float64(N)))
	}
}

// TestPaperMeanNoise: with a huge mean noise and no projector noise, one
// paper step moves a query by (I − P̃)ξ, whose squared norm over D − d
// normal coordinates has mean (D − d)ς_m² — checked at 4.42 standard
// errors (chi-square variance 2(D − d)ς⁴ per query; false failure 1e-5).
func TestPaperMeanNoise(t *testing.T) {
	_, s := sample(t, 0, 0, 400, 0.05, 5)
	h, d := 0.5, 1
	tg, err := LocalPCA(context.Background(), s.Noisy, s.N, s.D, h, d)
	if err != nil {
		t.Fatal(err)
	}
	dn, err := NewDenoiser(s.Noisy, s.N, s.D, h, d, tg)
	if err != nil {
		t.Fatal(err)
	}
	w := dn.NewWorker()
	const sm, reps = 1000.0, 400
	var sum float64
	for r := range reps {
		x := []float64{1, 0}
		y := []float64{1, 0}
		if _, err := w.Step(x, StepEigProj, Noise{}, nil); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, uint64(r)))
		if _, err := w.Step(y, StepPaper, Noise{Mean: sm}, rng); err != nil {
			t.Fatal(err)
		}
		dx, dy := y[0]-x[0], y[1]-x[1]
		sum += (dx*dx + dy*dy) / (sm * sm)
	}
	mean := sum / reps
	if tol := 4.42 * math.Sqrt(2.0/reps); math.Abs(mean-1) > tol {
		t.Errorf("mean ‖Δx‖²/ς_m² = %.4f, want (D−d) = 1 ± %.3f", mean, tol)
	}
}

func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	for _, mode := range []core.Mode{core.ModePaper, core.ModeSound} {
		var outs [][]float64
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			e := runEngine(t, mode, "manifold:sphere?D=8&n=600&queries=40&sigma=0.1", 11)
			runtime.GOMAXPROCS(old)
			tr := e.Outcome().Tracks
			outs = append(outs, append(slices.Clone(tr[1].X), tr[2].X...))
		}
		if !slices.Equal(outs[0], outs[1]) {
			t.Errorf("%s: outputs differ between GOMAXPROCS 1 and 2", mode)
		}
	}
}

func TestStopReturnsPromptly(t *testing.T) {
	before := runtime.NumGoroutine()
	start := time.Now()
	var run *core.Run
	_, evs := runEvents(t, context.Background(), core.ModePaper, "manifold:sphere?D=30&n=20000&queries=500&sigma=0.3", 1, func(r *core.Run) {
		run = r
		time.AfterFunc(300*time.Millisecond, r.Stop)
	})
	run.Wait()
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("stopped run took %v, want a prompt return", el)
	}
	if d, ok := evs[len(evs)-1].(core.DoneEvent); !ok || !d.Stopped {
		t.Errorf("last event %+v, want DoneEvent{Stopped: true}", evs[len(evs)-1])
	}
	fixture.GoroutinesBack(t, before)
}

func TestGuaranteeAndLedger(t *testing.T) {
	for _, tc := range []struct {
		mode core.Mode
		want core.Guarantee
	}{{core.ModePaper, core.GuaranteeConditional}, {core.ModeSound, core.GuaranteeFormal}, {core.ModeNonPrivate, core.GuaranteeNone}} {
		e, evs := runEvents(t, context.Background(), tc.mode, "manifold:circle?n=500&queries=20&sigma=0.1", 2, nil)
		var g *core.GuaranteeEvent
		var last *core.BudgetEvent
		for _, ev := range evs {
			switch v := ev.(type) {
			case core.GuaranteeEvent:
				g = &v
			case core.BudgetEvent:
				last = &v
			}
		}
		if g == nil || g.Status != tc.want || len(g.Reasons) == 0 {
			t.Errorf("%s: guarantee %+v, want %s with reasons", tc.mode, g, tc.want)
		}
		if tc.mode == core.ModeNonPrivate {
			continue
		}
		// The whole budget is spent after T iterations: ε = 1 by the
		// classic conversion, which inverts DPToZCDPClassic.
		if last == nil || last.Spent[0].Accountant != "zCDP→(ε,δ) classic" || math.Abs(last.Spent[0].Epsilon-1) > 1e-9 {
			t.Errorf("%s: final budget %+v, want zCDP→(ε,δ) classic ε = 1", tc.mode, last)
		}
		if rep, err := e.Ledger().Report(1e-5, accountantOpts()); err != nil || rep.Total.Steps != 2*20*len(rep.Components) {
			t.Errorf("%s: ledger %+v, %v: want %d steps per component", tc.mode, rep, err, 2*20)
		}
	}
}

func TestBadInput(t *testing.T) {
	y := []float64{0, 0, 1, 0, 0, 1}
	ctx := context.Background()
	for _, tc := range []struct {
		desc string
		y    []float64
		n, D int
		h    float64
		d    int
	}{
		{"h = 0", y, 3, 2, 0, 1},
		{"h < 0", y, 3, 2, -1, 1},
		{"h NaN", y, 3, 2, math.NaN(), 1},
		{"d = D", y, 3, 2, 1, 2},
		{"d = 0", y, 3, 2, 1, 0},
		{"empty", nil, 0, 2, 1, 1},
		{"NaN coordinate", []float64{0, 0, math.NaN(), 0, 0, 1}, 3, 2, 1, 1},
		{"shape", y, 2, 2, 1, 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := LocalPCA(ctx, tc.y, tc.n, tc.D, tc.h, tc.d); !errors.Is(err, ErrInput) {
				t.Errorf("LocalPCA error = %v, want ErrInput", err)
			}
			if _, err := NewDenoiser(tc.y, tc.n, tc.D, tc.h, tc.d, nil); !errors.Is(err, ErrInput) {
				t.Errorf("NewDenoiser error = %v, want ErrInput", err)
			}
		})
	}
	for _, spec := range []string{
		"manifold:cube", "manifold:sphere?D=abc", "manifold:sphere?bogus=1", "manifold:sphere?sigma=-1",
		"manifold:sphere?D=3&d=3", "manifold:circle?theta=1", "manifold:circle?noise=laplace", "manifold:circle?h=NaN",
	} {
		if _, err := ParseSpec(spec); !errors.Is(err, ErrParams) || !errors.Is(err, core.ErrBadConfig) {
			t.Errorf("ParseSpec(%q) error = %v, want ErrParams", spec, err)
		}
	}
	p, err := ParseSpec("manifold:sphere?D=100&n=30000&queries=1000&sigma=0.3&T=2")
	if err != nil || p.D != 100 || p.N != 30000 || p.Queries != 1000 || p.Sigma != 0.3 || p.T != 2 || p.Manifold != "sphere" {
		t.Errorf("ParseSpec = %+v, %v", p, err)
	}
	// d ≥ D through the engine: an error event, never a panic.
	cfg := core.Config{Data: "manifold:circle?d=2", Method: testMethod, Mode: core.ModeNonPrivate, SampleRate: 1}
	if _, err := New(cfg, Params{}); !errors.Is(err, ErrParams) && err == nil {
		run, err := core.Start(ctx, cfg)
		if err == nil {
			var last core.Event
			for ev := range run.Events() {
				last = ev
			}
			if _, ok := last.(core.ErrorEvent); !ok {
				t.Errorf("d = D run ended with %T, want ErrorEvent", last)
			}
		}
	}
}

func accountantOpts() accountant.LedgerOptions { return accountant.LedgerOptions{SkipPLD: true} }
