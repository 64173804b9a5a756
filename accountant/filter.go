package accountant

import (
	"fmt"
	"math"
	"sync"
)

// FilterConfig configures a Filter.
type FilterConfig struct {
	// Target is the (ε, δ) the whole run must satisfy. Required.
	Target Budget
	// Orders are the RDP orders the filter tracks. Required (use PlanOrder to
	// pick the single order that is best for a planned schedule). With one
	// order α the filter is Feldman & Zrnic's RDP filter with the improved
	// conversion; with m > 1 orders each order gets δ/m (see Filter).
	Orders []float64
}

// Filter is a privacy filter: it holds a target (ε, δ) and admits the next
// event only if the composition of everything admitted so far plus that
// event still meets the target, and it remains sound when σ, q or the number
// of steps are chosen adaptively from earlier outputs (Feldman & Zrnic 2021,
// https://arxiv.org/abs/2008.11193, Thm 3.1: the adaptive composition stopped
// before Σ_t R_t(α) exceeds B is (α, B)-RDP).
//
// With a single order α the budget is B(α) = ε − ln((α−1)/α) + (ln δ + ln α)/(α−1),
// the improved conversion solved for R. With m orders, a step is admitted if
// some order still has room under B(α) = ε − ln(m/δ)/(α−1): on the event that
// order α's budget was never exceeded the run coincides with Feldman–Zrnic's
// α-filter, whose privacy loss exceeds ε with probability at most
// e^{−(α−1)(ε−B(α))} = δ/m (Markov on their supermartingale), and a union
// bound over the m orders gives δ. The union bound costs ln m in the
// numerator, so a single well-chosen order (PlanOrder) is usually tighter.
//
// A Filter is safe for concurrent use by multiple goroutines; Spend is
// atomic (check and record under one lock).
type Filter struct {
	mu     sync.Mutex
	target Budget
	orders []float64
	budget []float64
	spent  []float64
	steps  int
}

// NewFilter validates cfg and returns an empty filter.
func NewFilter(cfg FilterConfig) (*Filter, error) {
	if err := cfg.Target.Validate(); err != nil {
		return nil, fmt.Errorf("accountant: new filter: %w", err)
	}
	if err := validateOrders(cfg.Orders); err != nil {
		return nil, fmt.Errorf("accountant: new filter: %w", err)
	}
	f := &Filter{target: cfg.Target, orders: append([]float64(nil), cfg.Orders...)}
	f.budget = make([]float64, len(f.orders))
	f.spent = make([]float64, len(f.orders))
	m := float64(len(f.orders))
	eps, ld := cfg.Target.Epsilon, math.Log(cfg.Target.Delta)
	for i, a := range f.orders {
		if len(f.orders) == 1 {
			f.budget[i] = eps - math.Log1p(-1/a) + (ld+math.Log(a))/(a-1)
		} else {
			f.budget[i] = eps - (math.Log(m)-ld)/(a-1)
		}
	}
	return f, nil
}

// PlanOrder returns the order at which the planned events reach the smallest
// improved-conversion ε at δ: the natural single order for a Filter that
// expects to follow that plan.
func PlanOrder(plan []Event, delta float64, orders []float64) (float64, error) {
	_, a, err := EpsilonRDP(plan, delta, orders, Improved)
	return a, err
}

// Fits reports whether ev can be admitted now, without recording it.
func (f *Filter) Fits(ev Event) (bool, error) {
	if err := ev.Validate(); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fits(ev), nil
}

func (f *Filter) fits(ev Event) bool {
	for i, a := range f.orders {
		r := f.spent[i] + float64(ev.Steps)*rdpStep(ev.SampleRate, ev.NoiseMultiplier, a)
		if r <= f.budget[i]*(1+1e-12) {
			return true
		}
	}
	return false
}

// Spend admits and records ev if it fits, and otherwise returns an error
// wrapping ErrBudgetExceeded and records nothing.
func (f *Filter) Spend(ev Event) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.fits(ev) {
		return fmt.Errorf("%w: %d more steps at q=%g, z=%g would exceed ε=%g at δ=%g after %d steps",
			ErrBudgetExceeded, ev.Steps, ev.SampleRate, ev.NoiseMultiplier, f.target.Epsilon, f.target.Delta, f.steps)
	}
	for i, a := range f.orders {
		f.spent[i] += float64(ev.Steps) * rdpStep(ev.SampleRate, ev.NoiseMultiplier, a)
	}
	f.steps += ev.Steps
	return nil
}

// Steps returns the number of steps admitted so far.
func (f *Filter) Steps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.steps
}

// Used returns the largest fraction of the budget used at the order with the
// most room left: min_α R_spent(α)/B(α), in [0, ∞); ≥ 1 means full.
func (f *Filter) Used() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := math.Inf(1)
	for i := range f.orders {
		if f.budget[i] > 0 {
			u = math.Min(u, f.spent[i]/f.budget[i])
		}
	}
	if math.IsInf(u, 1) {
		return 1
	}
	return u
}
