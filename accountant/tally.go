package accountant

import "slices"

// DefaultOrders is dpscope's RDP order list: every audited RDP figure of
// every method uses it (docs DECISIONS, "Orders"). The order lists of
// published code (OrdersDPDCAN, OrdersOpacus, …) serve only to reproduce
// a paper's own figure.
const DefaultOrders = OrdersDPAccounting

// Tally is a running RDP curve: the per-order sum of the RDP of every event
// added so far. Adding an event costs O(orders), whatever was added
// before, so a per-step report never re-sums a run's history. The curve of
// each distinct (q, z) is cached: a DP-SGD run adds the same step
// thousands of times. A Tally is not safe for concurrent use; Ledger
// guards its own.
type Tally struct {
	orders []float64
	rdp    []float64
	steps  int
	cache  map[[2]float64][]float64
}

// NewTally returns an empty tally at orders, or an *InputError when the
// orders are not all > 1.
func NewTally(orders []float64) (*Tally, error) {
	if err := validateOrders(orders); err != nil {
		return nil, err
	}
	return newTally(orders), nil
}

// newTally returns an empty tally at orders the caller has validated.
func newTally(orders []float64) *Tally {
	return &Tally{orders: slices.Clone(orders), rdp: make([]float64, len(orders)), cache: map[[2]float64][]float64{}}
}

// stepCurve returns the RDP curve of one step at (q, z), cached.
func (t *Tally) stepCurve(q, z float64) []float64 {
	key := [2]float64{q, z}
	if r, ok := t.cache[key]; ok {
		return r
	}
	r := make([]float64, len(t.orders))
	addRDPTo(r, Event{SampleRate: q, NoiseMultiplier: z, Steps: 1}, t.orders)
	// Bound the cache: a run that changes σ at every step (a slider held
	// down) must not grow it without end.
	if len(t.cache) >= 64 {
		clear(t.cache)
	}
	t.cache[key] = r
	return r
}

// addTo adds the RDP of a valid ev to dst (a curve at t's orders).
func (t *Tally) addTo(dst []float64, ev Event) {
	if ev.Steps == 0 {
		return
	}
	n := float64(ev.Steps)
	for i, v := range t.stepCurve(ev.SampleRate, ev.NoiseMultiplier) {
		dst[i] += n * v
	}
}

// Add adds ev to the tally, or returns an *InputError for an invalid event
// and adds nothing.
func (t *Tally) Add(ev Event) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	t.addTo(t.rdp, ev)
	t.steps += ev.Steps
	return nil
}

// Orders returns a copy of the tally's orders.
func (t *Tally) Orders() []float64 { return slices.Clone(t.orders) }

// RDP returns a copy of the running curve, one value per order.
func (t *Tally) RDP() []float64 { return slices.Clone(t.rdp) }

// Steps returns the number of steps added.
func (t *Tally) Steps() int { return t.steps }

// Epsilon returns ε at δ of everything added (improved conversion) and its
// best order; an empty tally is ε = 0 at order 0.
func (t *Tally) Epsilon(delta float64) (eps, order float64, err error) {
	return t.epsilonOf(t.rdp, t.steps, delta)
}

// epsilonOf converts a curve at t's orders; steps 0 is ε = 0.
func (t *Tally) epsilonOf(rdp []float64, steps int, delta float64) (float64, float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	if steps == 0 {
		return 0, 0, nil
	}
	return EpsilonFromRDP(t.orders, rdp, delta, Improved)
}

// Project returns ε at δ (improved conversion) of everything added followed
// by the planned events, without adding them: O(orders) per planned event.
func (t *Tally) Project(delta float64, planned ...Event) (float64, error) {
	if err := validateEvents(planned); err != nil {
		return 0, err
	}
	dst := t.RDP()
	steps := t.steps
	for _, ev := range planned {
		t.addTo(dst, ev)
		steps += ev.Steps
	}
	e, _, err := t.epsilonOf(dst, steps, delta)
	return e, err
}

// clone returns an independent copy (the cache is shared read-mostly state
// and is copied too, so the copies never race).
func (t *Tally) clone() *Tally {
	c := &Tally{orders: t.orders, rdp: slices.Clone(t.rdp), steps: t.steps, cache: make(map[[2]float64][]float64, len(t.cache))}
	for k, v := range t.cache {
		c.cache[k] = v
	}
	return c
}
