package accountant

import (
	"errors"
	"math"
	"sync"
	"testing"
)

// TestLedger checks per-component and total figures against direct calls,
// merging of repeated events, projection, and concurrent recording.
func TestLedger(t *testing.T) {
	l := NewLedger()
	const delta = 1e-5
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if err := l.Record("stage 1", Event{0.05, 1.0, 1}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Record("stage 2 centroids", Event{1, 8, 3}); err != nil {
		t.Fatal(err)
	}
	if evs := l.Events("stage 1"); len(evs) != 1 || evs[0].Steps != 100 {
		t.Fatalf("Events(stage 1) = %v, want one merged event of 100 steps", evs)
	}
	opts := LedgerOptions{Orders: OrdersOpacus.Orders(), PLDInterval: 1e-3}
	rep, err := l.Report(delta, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Components) != 2 || rep.Components[0].Component != "stage 1" {
		t.Fatalf("Report components = %+v, want stage 1 then stage 2 centroids", rep.Components)
	}
	all := []Event{{0.05, 1.0, 100}, {1, 8, 3}}
	want, wantA, _ := EpsilonRDP(all, delta, opts.Orders, Improved)
	if rep.Total.EpsilonRDP != want || rep.Total.BestOrder != wantA || rep.Total.Steps != 103 {
		t.Errorf("Report total = %+v, want ε_RDP %g @%g, 103 steps", rep.Total, want, wantA)
	}
	wantPLD, _ := EpsilonPLD(all, delta, 1e-3)
	if relErr(rep.Total.EpsilonPLD, wantPLD) > 1e-12 {
		t.Errorf("Report total ε_PLD = %g, want %g", rep.Total.EpsilonPLD, wantPLD)
	}
	if !(rep.Total.EpsilonPLD <= rep.Total.EpsilonRDP && rep.Total.EpsilonRDP <= rep.Total.EpsilonRDPClassic) {
		t.Errorf("Report total = %+v, want PLD ≤ RDP ≤ RDP classic", rep.Total)
	}
	// The stage-1 figure is RDP of (0.05, 1.0) × 100 = the reference A row q=0.05? Check directly.
	s1, _, _ := EpsilonRDP(all[:1], delta, opts.Orders, Improved)
	if rep.Components[0].EpsilonRDP != s1 {
		t.Errorf("Report stage 1 ε_RDP = %g, want %g", rep.Components[0].EpsilonRDP, s1)
	}
	plan := []Event{{0.05, 2.0, 100}}
	proj, err := l.Project(delta, plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	wp, _, _ := EpsilonRDP(append(all, plan...), delta, opts.Orders, Improved)
	if proj.EpsilonRDP != wp || !(proj.EpsilonRDP > rep.Total.EpsilonRDP) {
		t.Errorf("Project = %g, want %g (> current %g)", proj.EpsilonRDP, wp, rep.Total.EpsilonRDP)
	}
	for _, tc := range []struct {
		desc string
		name string
		ev   Event
	}{{"empty name", "", Event{0.1, 1, 1}}, {"bad q", "x", Event{math.NaN(), 1, 1}}, {"bad steps", "x", Event{0.1, 1, -3}}} {
		t.Run(tc.desc, func(t *testing.T) {
			if err := l.Record(tc.name, tc.ev); !errors.Is(err, ErrInvalidInput) {
				t.Errorf("Record(%q, %v) error = %v, want ErrInvalidInput", tc.name, tc.ev, err)
			}
		})
	}
	if _, err := l.Report(0, opts); err == nil {
		t.Errorf("Report(δ=0) error = nil, want error")
	}
}

// TestFilterSingleOrder: with one order the filter admits steps until the
// next would exceed the budget; the admitted composition then meets the
// target by the improved conversion at that order, one more step would not,
// and adaptively changed σ is accounted. Concurrent Spend calls never
// over-admit.
func TestFilterSingleOrder(t *testing.T) {
	target := Budget{2, 1e-5}
	z, err := CalibrateRDP(target, 0.02, 500, OrdersDPAccounting.Orders(), Improved, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := []Event{{0.02, z, 500}}
	a, err := PlanOrder(plan, target.Delta, OrdersDPAccounting.Orders())
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFilter(FilterConfig{Target: target, Orders: []float64{a}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted []Event
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				ev := Event{0.02, 1.0 + 0.5*float64(i%2), 1} // σ alternates adaptively
				if err := f.Spend(ev); err != nil {
					if !errors.Is(err, ErrBudgetExceeded) {
						t.Error(err)
					}
					return
				}
				mu.Lock()
				admitted = append(admitted, ev)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if f.Steps() != len(admitted) || len(admitted) == 0 {
		t.Fatalf("Filter.Steps() = %d, want %d > 0", f.Steps(), len(admitted))
	}
	eps, _, _ := EpsilonRDP(admitted, target.Delta, []float64{a}, Improved)
	if eps > target.Epsilon*(1+1e-9) {
		t.Errorf("ε of admitted steps at α=%g = %g, want ≤ %g", a, eps, target.Epsilon)
	}
	more, _, _ := EpsilonRDP(append(admitted, Event{0.02, 1.0, 1}), target.Delta, []float64{a}, Improved)
	if more <= target.Epsilon {
		t.Errorf("ε with one more step = %g, want > %g (filter stopped early)", more, target.Epsilon)
	}
	// The last refused step costs R(α) of one σ = 1 step; Used must be within that of 1.
	step := rdpStep(0.02, 1.0, a) / f.budget[0]
	if u := f.Used(); u < 1-step-1e-9 || u > 1+1e-9 {
		t.Errorf("Filter.Used() = %g, want in [1 − %g, 1]", u, step)
	}
}

// TestFilterMultiOrder: with m orders the admitted run meets the target by
// the classic conversion at δ/m at its best order.
func TestFilterMultiOrder(t *testing.T) {
	target := Budget{3, 1e-5}
	orders := OrdersTFPrivacy.Orders()
	f, err := NewFilter(FilterConfig{Target: target, Orders: orders})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for f.Spend(Event{0.05, 1.2, 10}) == nil {
		n += 10
	}
	admitted := []Event{{0.05, 1.2, n}}
	eps, _, _ := EpsilonRDP(admitted, target.Delta/float64(len(orders)), orders, Classic)
	if n == 0 || eps > target.Epsilon*(1+1e-9) {
		t.Errorf("multi-order filter admitted %d steps with ε(δ/m, classic) = %g, want > 0 steps and ≤ %g", n, eps, target.Epsilon)
	}
	if ok, _ := f.Fits(Event{0.05, 1.2, 10}); ok {
		t.Errorf("Fits after exhaustion = true, want false")
	}
	for _, tc := range []struct {
		desc string
		cfg  FilterConfig
	}{
		{"no orders", FilterConfig{Target: target}},
		{"bad eps", FilterConfig{Target: Budget{math.Inf(1), 1e-5}, Orders: orders}},
		{"bad delta", FilterConfig{Target: Budget{1, 0}, Orders: orders}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := NewFilter(tc.cfg); !errors.Is(err, ErrInvalidInput) {
				t.Errorf("NewFilter(%+v) error = %v, want ErrInvalidInput", tc.cfg, err)
			}
		})
	}
}
