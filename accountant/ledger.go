package accountant

import (
	"fmt"
	"slices"
	"sync"
)

// LedgerOptions selects the accountants a Ledger report uses.
type LedgerOptions struct {
	// Orders are the RDP orders. Defaults to DefaultOrders when nil.
	Orders []float64
	// PLDInterval is the PLD discretisation interval. Defaults to
	// DefaultPLDInterval when 0.
	PLDInterval float64
	// SkipPLD leaves EpsilonPLD at 0 (the PLD is the slow accountant: tens of
	// milliseconds per component).
	SkipPLD bool
	// KeepRDPIfPLDRefuses makes Summarize and CalibrateSummary return the
	// RDP figures with the reason in PLDRefused, and no PLD figure, where
	// the PLD refuses (ErrPLDRange, ErrUnreachable), instead of failing. The
	// calculator sets it; a caller that reads EpsilonPLD without looking at
	// PLDRefused must not, or it would take a 0 for a bound.
	KeepRDPIfPLDRefuses bool
}

// Spent is the privacy cost of a set of events at one δ, by accountant.
type Spent struct {
	Component         string  `json:"component,omitempty"`
	Steps             int     `json:"steps"`
	EpsilonRDP        float64 `json:"epsilon_rdp"`         // improved conversion
	BestOrder         float64 `json:"best_order"`          // its optimal order
	EpsilonRDPClassic float64 `json:"epsilon_rdp_classic"` // classic conversion
	BestOrderClassic  float64 `json:"best_order_classic"`
	EpsilonPLD        float64 `json:"epsilon_pld,omitempty"` // 0 when skipped or refused
	// PLDIntervalUsed is the grid interval the PLD ran on: the requested
	// one, a power-of-two multiple where that could not hold the loss, or a
	// power-of-two fraction where it was coarse for the step's spread.
	PLDIntervalUsed float64 `json:"pld_interval_used,omitempty"`
	// PLDRefused says why the PLD gave no ε (Summarize with
	// KeepRDPIfPLDRefuses): the loss is beyond its grids, or no finite ε
	// exists at δ. The RDP figures stand.
	PLDRefused string `json:"pld_refused,omitempty"`
}

// LedgerReport is a ledger's cost per component and in total.
type LedgerReport struct {
	Delta      float64 `json:"delta"`
	Components []Spent `json:"components"`
	Total      Spent   `json:"total"`
}

// Ledger records named components ("stage 1", "stage 2 centroids", "DP-MD
// projector", …) and the events each consumed, in order. Consecutive
// identical (q, z) events of a component are merged into one with summed
// Steps. It keeps a running RDP tally at DefaultOrders, in total and per
// component, so that its RDP figures, projections and calibrations cost
// O(orders) per event recorded, never a re-sum of the history. A Ledger is
// safe for concurrent use by multiple goroutines.
type Ledger struct {
	mu      sync.Mutex
	names   []string
	comps   map[string][]Event
	total   *Tally
	tallies map[string]*Tally
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{comps: map[string][]Event{}, total: newTally(DefaultOrders.Orders()), tallies: map[string]*Tally{}}
}

// Record appends ev to component (created on first use). It returns an error
// for an empty name or an invalid event, and records nothing then.
func (l *Ledger) Record(component string, ev Event) error {
	if component == "" {
		return fmt.Errorf("accountant: ledger component name is empty: %w", ErrInvalidInput)
	}
	if err := ev.Validate(); err != nil {
		return fmt.Errorf("accountant: ledger %q: %w", component, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	evs, ok := l.comps[component]
	if !ok {
		l.names = append(l.names, component)
		l.tallies[component] = newTally(l.total.orders)
	}
	l.total.addTo(l.total.rdp, ev)
	l.total.steps += ev.Steps
	// The component's curve reuses the total's cached step curve.
	ct := l.tallies[component]
	if ev.Steps > 0 {
		for i, v := range l.total.stepCurve(ev.SampleRate, ev.NoiseMultiplier) {
			ct.rdp[i] += float64(ev.Steps) * v
		}
	}
	ct.steps += ev.Steps
	if n := len(evs); n > 0 && evs[n-1].SampleRate == ev.SampleRate && evs[n-1].NoiseMultiplier == ev.NoiseMultiplier {
		evs[n-1].Steps += ev.Steps
	} else {
		evs = append(evs, ev)
	}
	l.comps[component] = evs
	return nil
}

// Components returns the component names in order of first use.
func (l *Ledger) Components() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.names...)
}

// Events returns a copy of the events recorded for component.
func (l *Ledger) Events(component string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.comps[component]...)
}

// All returns a copy of every recorded event, component by component.
func (l *Ledger) All() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for _, n := range l.names {
		out = append(out, l.comps[n]...)
	}
	return out
}

// Report returns ε at δ per component and for the composition of all
// components, by RDP (improved and classic) and PLD.
func (l *Ledger) Report(delta float64, opts LedgerOptions) (LedgerReport, error) {
	if err := checkDelta(delta); err != nil {
		return LedgerReport{}, err
	}
	l.mu.Lock()
	names := append([]string(nil), l.names...)
	per := make([][]Event, len(names))
	for i, n := range names {
		per[i] = append([]Event(nil), l.comps[n]...)
	}
	// The running tallies give the RDP figures when the report asks for
	// their orders (or none): the events are then summed only for the PLD.
	var tallies []*Tally
	var total *Tally
	if opts.Orders == nil || slices.Equal(opts.Orders, l.total.orders) {
		tallies = make([]*Tally, len(names))
		for i, n := range names {
			tallies[i] = l.tallies[n].clone()
		}
		total = l.total.clone()
	}
	l.mu.Unlock()
	rep := LedgerReport{Delta: delta}
	var all []Event
	for i, n := range names {
		var s Spent
		var err error
		if tallies != nil {
			s, err = spendTally(per[i], tallies[i], delta, opts)
		} else {
			s, err = spend(per[i], delta, opts)
		}
		if err != nil {
			return LedgerReport{}, fmt.Errorf("accountant: ledger %q: %w", n, err)
		}
		s.Component = n
		rep.Components = append(rep.Components, s)
		all = append(all, per[i]...)
	}
	var tot Spent
	var err error
	if total != nil {
		tot, err = spendTally(all, total, delta, opts)
	} else {
		tot, err = spend(all, delta, opts)
	}
	if err != nil {
		return LedgerReport{}, err
	}
	tot.Component = "total"
	rep.Total = tot
	return rep, nil
}

// Project returns the total cost at δ if the planned events run after
// everything recorded so far: the ε at the end of a planned schedule.
func (l *Ledger) Project(delta float64, planned []Event, opts LedgerOptions) (Spent, error) {
	if err := validateEvents(planned); err != nil {
		return Spent{}, err
	}
	l.mu.Lock()
	var all []Event
	for _, n := range l.names {
		all = append(all, l.comps[n]...)
	}
	var t *Tally
	if opts.Orders == nil || slices.Equal(opts.Orders, l.total.orders) {
		t = l.total.clone()
	}
	l.mu.Unlock()
	all = append(all, planned...)
	var s Spent
	var err error
	if t != nil {
		// The running tally plus the plan: O(orders) per planned event.
		for _, ev := range planned {
			t.addTo(t.rdp, ev)
			t.steps += ev.Steps
		}
		s, err = spendTally(all, t, delta, opts)
	} else {
		s, err = spend(all, delta, opts)
	}
	s.Component = "projected"
	return s, err
}

// Spend returns the cost of events at δ by every accountant in opts.
func spend(events []Event, delta float64, opts LedgerOptions) (Spent, error) {
	if err := checkDelta(delta); err != nil {
		return Spent{}, err
	}
	orders := opts.Orders
	if orders == nil {
		orders = DefaultOrders.Orders()
	}
	if err := validateOrders(orders); err != nil {
		return Spent{}, err
	}
	if err := validateEvents(events); err != nil {
		return Spent{}, err
	}
	t := newTally(orders)
	for _, ev := range events {
		addRDPTo(t.rdp, ev, orders)
		t.steps += ev.Steps
	}
	return spendTally(events, t, delta, opts)
}

// spendTally is spend with the events' RDP curve already summed in t.
func spendTally(events []Event, t *Tally, delta float64, opts LedgerOptions) (Spent, error) {
	if err := checkDelta(delta); err != nil {
		return Spent{}, err
	}
	s := Spent{Steps: t.steps}
	if s.Steps == 0 {
		return s, nil
	}
	orders, rdp := t.orders, t.rdp
	var err error
	if s.EpsilonRDP, s.BestOrder, err = EpsilonFromRDP(orders, rdp, delta, Improved); err != nil {
		return Spent{}, err
	}
	if s.EpsilonRDPClassic, s.BestOrderClassic, err = EpsilonFromRDP(orders, rdp, delta, Classic); err != nil {
		return Spent{}, err
	}
	if !opts.SkipPLD {
		p, err := NewPLDSequence(events, opts.PLDInterval)
		if err != nil {
			return Spent{}, err
		}
		if s.EpsilonPLD, err = p.Epsilon(delta); err != nil {
			return Spent{}, err
		}
		s.PLDIntervalUsed = p.Interval()
	}
	return s, nil
}

// Orders names the order list of the ledger's running RDP tally.
func (l *Ledger) Orders() OrderSet { return DefaultOrders }

// tally returns a copy of the total tally, or of component's ("" is the
// total; an unknown component is an empty tally).
func (l *Ledger) tally(component string) *Tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	if component == "" {
		return l.total.clone()
	}
	if t, ok := l.tallies[component]; ok {
		return t.clone()
	}
	return newTally(l.total.orders)
}

// EpsilonRDP returns ε at δ (improved conversion) of everything recorded,
// from the running tally, and its best order: O(orders).
func (l *Ledger) EpsilonRDP(delta float64) (eps, order float64, err error) {
	return l.tally("").Epsilon(delta)
}

// ComponentEpsilonRDP returns ε at δ (improved conversion) of component
// alone, from its running tally: O(orders). An unknown component is 0.
func (l *Ledger) ComponentEpsilonRDP(component string, delta float64) (float64, error) {
	if component == "" {
		return 0, fmt.Errorf("accountant: ledger component name is empty: %w", ErrInvalidInput)
	}
	e, _, err := l.tally(component).Epsilon(delta)
	return e, err
}

// ProjectRDP returns ε at δ (improved conversion) if the planned events run
// after everything recorded: O(orders) per planned event.
func (l *Ledger) ProjectRDP(delta float64, planned ...Event) (float64, error) {
	return l.tally("").Project(delta, planned...)
}

// CalibrateAfter is the package's CalibrateAfter with the ledger's
// recorded events as what is spent, from its running tally.
func (l *Ledger) CalibrateAfter(target Budget, plan Plan) (Calibration, error) {
	return l.tally("").calibrate(target, plan, DefaultOrders.String())
}

// FilterForPlan is NewFilterForPlan with the ledger's recorded events as
// what is spent.
func (l *Ledger) FilterForPlan(target Budget, plan Plan, sigma float64) (*Filter, error) {
	l.mu.Lock()
	t := l.total.clone()
	var spent []Event
	for _, n := range l.names {
		spent = append(spent, l.comps[n]...)
	}
	l.mu.Unlock()
	return t.filterFor(target, spent, plan, sigma)
}
