package accountant

import (
	"errors"
	"fmt"
	"math"
)

// PlanItem is one mechanism of a plan whose noise is tied to a single
// noise multiplier σ: Steps releases of the sampled Gaussian mechanism at
// rate SampleRate and noise multiplier NoiseRatio·σ. A DP-SGD step is
// {q, 1, steps}; sound DP-DCAN's k-means releases are {1, ratio, count}.
type PlanItem struct {
	SampleRate float64 // q in (0, 1]
	NoiseRatio float64 // noise multiplier over σ, > 0
	Steps      int     // ≥ 0
}

// Plan is the privacy cost still to come, as a function of σ.
type Plan []PlanItem

// Steps returns the number of releases the plan makes.
func (p Plan) Steps() int {
	n := 0
	for _, it := range p {
		n += it.Steps
	}
	return n
}

// Events returns the plan's events at σ.
func (p Plan) Events(sigma float64) []Event {
	out := make([]Event, 0, len(p))
	for _, it := range p {
		if it.Steps > 0 {
			out = append(out, Event{SampleRate: it.SampleRate, NoiseMultiplier: it.NoiseRatio * sigma, Steps: it.Steps})
		}
	}
	return out
}

// validate returns an *InputError for an item that no σ makes valid.
func (p Plan) validate() error {
	for i, it := range p {
		if err := (Event{SampleRate: it.SampleRate, NoiseMultiplier: it.NoiseRatio, Steps: it.Steps}).Validate(); err != nil {
			return fmt.Errorf("accountant: plan item %d: %w", i, err)
		}
	}
	return nil
}

// Calibration is a σ solved for a target and what it projects.
type Calibration struct {
	Sigma   float64 // the smallest σ (relative tolerance 1e-6) meeting the target
	Epsilon float64 // ε at δ at the end of the plan at Sigma (RDP, improved)
	Order   float64 // the order that gives Epsilon
	Orders  string  // the order list's name (OrderSet.String)
}

// Search range and tolerance of every σ calibration after spending: a
// bisection in log σ, so the answer is the same whoever asks (the engines
// mid-run and before it, the interface's preview).
const (
	calMinSigma = 1e-2
	calMaxSigma = 1e4
	calLogTol   = 1e-6
)

// ErrNothingPlanned is wrapped by CalibrateAfter's error when the plan has
// no step left: no σ changes what is still to come.
var ErrNothingPlanned = errors.New("accountant: no noised step left to calibrate")

// CalibrateAfter returns the smallest σ in [1e-2, 1e4], to a relative
// tolerance of 1e-6 (a bisection in log σ), such that the spent events
// followed by plan at σ meet target by RDP (improved conversion) at the
// orders of set, with the ε that σ projects. It returns an error wrapping
// ErrUnreachable when even σ = 1e4 does not meet the target (typically:
// the budget is already spent), one wrapping ErrNothingPlanned (and
// ErrUnreachable) when the plan has no step, and an *InputError for
// invalid inputs. Each evaluation costs O(orders · len(plan)).
func CalibrateAfter(spent []Event, target Budget, plan Plan, set OrderSet) (Calibration, error) {
	if err := validateEvents(spent); err != nil {
		return Calibration{}, err
	}
	t := newTally(set.Orders())
	for _, ev := range spent {
		t.addTo(t.rdp, ev)
		t.steps += ev.Steps
	}
	return t.calibrate(target, plan, set.String())
}

// calibrate is CalibrateAfter from t's curve.
func (t *Tally) calibrate(target Budget, plan Plan, name string) (Calibration, error) {
	if err := target.Validate(); err != nil {
		return Calibration{}, err
	}
	if err := plan.validate(); err != nil {
		return Calibration{}, err
	}
	if plan.Steps() == 0 {
		return Calibration{}, fmt.Errorf("%w: %w", ErrNothingPlanned, ErrUnreachable)
	}
	cost := func(z float64) (float64, error) {
		e, err := t.Project(target.Delta, plan.Events(z)...)
		if err != nil {
			if errors.Is(err, errNoFiniteOrder) {
				return math.Inf(1), nil
			}
			return 0, err
		}
		return e, nil
	}
	z, err := SolveSigma(target.Epsilon, cost, calMinSigma, calMaxSigma, calLogTol)
	if errors.Is(err, ErrUnreachable) {
		spent, _, _ := t.Epsilon(target.Delta)
		return Calibration{}, fmt.Errorf("%w: ε = %g at δ = %g cannot be met with %d steps left after spending ε = %.4g (RDP, %s orders)",
			ErrUnreachable, target.Epsilon, target.Delta, plan.Steps(), spent, name)
	}
	if err != nil {
		return Calibration{}, err
	}
	c := Calibration{Sigma: z, Orders: name}
	rdp := t.RDP()
	for _, ev := range plan.Events(z) {
		t.addTo(rdp, ev)
	}
	c.Epsilon, c.Order, err = t.epsilonOf(rdp, t.steps+plan.Steps(), target.Delta)
	return c, err
}

// ProjectPlan returns ε at δ (RDP, improved conversion, the orders of set)
// of the spent events followed by plan at σ: the projection an interface
// shows while σ is edited. It is CalibrateAfter's cost function.
func ProjectPlan(spent []Event, plan Plan, sigma, delta float64, set OrderSet) (float64, error) {
	if err := checkPositive("sigma", sigma); err != nil {
		return 0, err
	}
	if err := plan.validate(); err != nil {
		return 0, err
	}
	if err := validateEvents(spent); err != nil {
		return 0, err
	}
	t := newTally(set.Orders())
	for _, ev := range spent {
		t.addTo(t.rdp, ev)
		t.steps += ev.Steps
	}
	return t.Project(delta, plan.Events(sigma)...)
}

// NewFilterForPlan returns a single-order filter at target that has
// admitted the spent events, its order chosen for the plan at σ: the
// order at which the largest fraction of the plan fits the budget left,
// (B(α) − R_spent(α)) / R_plan(α) with B(α) = ε − ln(1 − 1/α) +
// (ln δ + ln α)/(α − 1) (the filter's budget at one order). When the plan
// fits, that is the order with the most room; when it does not, the order
// that admits the most of it. It returns an error wrapping
// ErrBudgetExceeded when the spent events do not fit the target.
func NewFilterForPlan(target Budget, spent []Event, plan Plan, sigma float64, set OrderSet) (*Filter, error) {
	if err := validateEvents(spent); err != nil {
		return nil, err
	}
	t := newTally(set.Orders())
	for _, ev := range spent {
		t.addTo(t.rdp, ev)
		t.steps += ev.Steps
	}
	return t.filterFor(target, spent, plan, sigma)
}

// filterFor is NewFilterForPlan from t's curve of spent.
func (t *Tally) filterFor(target Budget, spent []Event, plan Plan, sigma float64) (*Filter, error) {
	if err := target.Validate(); err != nil {
		return nil, err
	}
	if err := plan.validate(); err != nil {
		return nil, err
	}
	if err := checkPositive("sigma", sigma); err != nil {
		return nil, err
	}
	need := make([]float64, len(t.orders))
	for _, ev := range plan.Events(sigma) {
		t.addTo(need, ev)
	}
	ld := math.Log(target.Delta)
	order, best := t.orders[0], math.Inf(-1)
	for i, a := range t.orders {
		room := target.Epsilon - math.Log1p(-1/a) + (ld+math.Log(a))/(a-1) - t.rdp[i]
		frac := room
		if need[i] > 0 {
			frac = room / need[i]
		}
		if frac > best {
			order, best = a, frac
		}
	}
	f, err := NewFilter(FilterConfig{Target: target, Orders: []float64{order}})
	if err != nil {
		return nil, err
	}
	for _, ev := range spent {
		if err := f.Spend(ev); err != nil {
			return nil, fmt.Errorf("accountant: what is already spent does not fit ε = %g: %w", target.Epsilon, err)
		}
	}
	return f, nil
}
