package accountant

import (
	"errors"
	"math"
	"testing"
)

// The running tally equals the re-summed curve of the same events.
func TestTallyMatchesRDPSequence(t *testing.T) {
	evs := []Event{{0.01, 1.1, 300}, {1, 3.3, 10}, {0.01, 0.9, 50}, {0.01, 1.1, 7}}
	orders := DefaultOrders.Orders()
	want, err := RDPSequence(evs, orders)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := NewTally(orders)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLedger()
	for i, ev := range evs {
		if err := tl.Add(ev); err != nil {
			t.Fatal(err)
		}
		if err := l.Record([]string{"a", "b"}[i%2], ev); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range tl.RDP() {
		if math.Abs(v-want[i]) > 1e-12*math.Max(1, want[i]) {
			t.Fatalf("order %g: tally %g, re-sum %g", orders[i], v, want[i])
		}
	}
	e1, a1, err := tl.Epsilon(1e-5)
	if err != nil {
		t.Fatal(err)
	}
	e2, a2, err := EpsilonRDP(evs, 1e-5, orders, Improved)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e1-e2) > 1e-12*e2 || a1 != a2 {
		t.Errorf("tally ε %g at order %g, EpsilonRDP %g at %g", e1, a1, e2, a2)
	}
	le, _, err := l.EpsilonRDP(1e-5)
	if err != nil || math.Abs(le-e2) > 1e-12*e2 {
		t.Errorf("ledger ε %g (%v), want %g", le, err, e2)
	}
	rep, err := l.Report(1e-5, LedgerOptions{SkipPLD: true})
	if err != nil || math.Abs(rep.Total.EpsilonRDP-e2) > 1e-12*e2 || rep.Total.Steps != 367 {
		t.Errorf("report total %+v (%v), want ε %g over 367 steps", rep.Total, err, e2)
	}
	ca, err := l.ComponentEpsilonRDP("a", 1e-5)
	wa, _, _ := EpsilonRDP([]Event{evs[0], evs[2]}, 1e-5, orders, Improved)
	if err != nil || math.Abs(ca-wa) > 1e-12*wa {
		t.Errorf("component a ε %g (%v), want %g", ca, err, wa)
	}
	if err := tl.Add(Event{0, 1, 1}); err == nil {
		t.Error("tally took q = 0")
	}
	if _, err := NewTally([]float64{1}); err == nil {
		t.Error("tally took order 1")
	}
}

// CalibrateAfter's σ is the smallest meeting the target: its projection is
// within the target and 1e-5 less σ is above it; the ledger's answer is the
// same as the function's over the ledger's events.
func TestCalibrateAfter(t *testing.T) {
	spent := []Event{{0.01, 1.2, 400}}
	plan := Plan{{0.01, 1, 600}, {1, 3, 10}}
	target := Budget{Epsilon: 4, Delta: 1e-5}
	c, err := CalibrateAfter(spent, target, plan, DefaultOrders)
	if err != nil {
		t.Fatal(err)
	}
	if c.Orders != "dpaccounting_default_156" || c.Epsilon > target.Epsilon || c.Epsilon < 0.999*target.Epsilon {
		t.Errorf("calibration %+v: ε should be just under %g at the default orders", c, target.Epsilon)
	}
	below, err := ProjectPlan(spent, plan, c.Sigma*(1-1e-5), target.Delta, DefaultOrders)
	if err != nil || below <= target.Epsilon {
		t.Errorf("σ·(1−1e-5) projects ε %g (%v), want above %g", below, err, target.Epsilon)
	}
	at, err := ProjectPlan(spent, plan, c.Sigma, target.Delta, DefaultOrders)
	if err != nil || math.Abs(at-c.Epsilon) > 1e-12 {
		t.Errorf("ProjectPlan at σ %g = %g (%v), calibration says %g", c.Sigma, at, err, c.Epsilon)
	}
	l := NewLedger()
	if err := l.Record("s", spent[0]); err != nil {
		t.Fatal(err)
	}
	lc, err := l.CalibrateAfter(target, plan)
	if err != nil || lc != c {
		t.Errorf("ledger calibration %+v (%v), want %+v", lc, err, c)
	}
	// The same solve SolveSigma does with ProjectRDP's cost, bit for bit.
	want, err := SolveSigma(target.Epsilon, func(z float64) (float64, error) {
		return ProjectPlan(spent, plan, z, target.Delta, DefaultOrders)
	}, 1e-2, 1e4, 1e-6)
	if err != nil || want != c.Sigma {
		t.Errorf("SolveSigma gives %g (%v), CalibrateAfter %g", want, err, c.Sigma)
	}
	if _, err := CalibrateAfter([]Event{{1, 0.1, 100}}, target, plan, DefaultOrders); !errors.Is(err, ErrUnreachable) {
		t.Errorf("spent budget: error %v, want ErrUnreachable", err)
	}
	if _, err := CalibrateAfter(nil, target, Plan{{0.1, 1, 0}}, DefaultOrders); !errors.Is(err, ErrNothingPlanned) {
		t.Errorf("empty plan: error %v, want ErrNothingPlanned", err)
	}
	if _, err := CalibrateAfter(nil, target, Plan{{1.5, 1, 3}}, DefaultOrders); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("q = 1.5: error %v, want an input error", err)
	}
	if _, err := CalibrateAfter(nil, Budget{Epsilon: -1, Delta: 1e-5}, plan, DefaultOrders); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("ε = −1: error %v, want an input error", err)
	}
}

// The planned filter admits what is spent and the plan it was built for,
// and refuses a plan at much less noise.
func TestNewFilterForPlan(t *testing.T) {
	target := Budget{Epsilon: 3, Delta: 1e-5}
	spent := []Event{{0.01, 1.5, 200}}
	plan := Plan{{0.01, 1, 800}}
	c, err := CalibrateAfter(spent, target, plan, DefaultOrders)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFilterForPlan(target, spent, plan, c.Sigma*1.01, DefaultOrders)
	if err != nil {
		t.Fatal(err)
	}
	if f.Steps() != 200 {
		t.Errorf("filter re-admitted %d steps, want 200", f.Steps())
	}
	if err := f.Spend(Event{0.01, c.Sigma * 1.01, 800}); err != nil {
		t.Errorf("the plan at 1.01σ does not fit its filter: %v", err)
	}
	if err := f.Spend(Event{0.01, 0.5, 800}); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("800 more steps at σ 0.5: error %v, want ErrBudgetExceeded", err)
	}
	if _, err := NewFilterForPlan(Budget{Epsilon: 0.1, Delta: 1e-5}, spent, plan, 1, DefaultOrders); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("spent above the target: error %v, want ErrBudgetExceeded", err)
	}
	l := NewLedger()
	if err := l.Record("s", spent[0]); err != nil {
		t.Fatal(err)
	}
	lf, err := l.FilterForPlan(target, plan, c.Sigma*1.01)
	if err != nil || lf.Steps() != 200 {
		t.Errorf("ledger's filter: %v, %d steps", err, lf.Steps())
	}
}
