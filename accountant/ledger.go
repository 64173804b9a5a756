package accountant

import (
	"fmt"
	"sync"
)

// LedgerOptions selects the accountants a Ledger report uses.
type LedgerOptions struct {
	// Orders are the RDP orders. Defaults to OrdersDPAccounting when nil.
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
// Steps. A Ledger is safe for concurrent use by multiple goroutines.
type Ledger struct {
	mu    sync.Mutex
	names []string
	comps map[string][]Event
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{comps: map[string][]Event{}} }

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
	}
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
	l.mu.Unlock()
	rep := LedgerReport{Delta: delta}
	var all []Event
	for i, n := range names {
		s, err := spend(per[i], delta, opts)
		if err != nil {
			return LedgerReport{}, fmt.Errorf("accountant: ledger %q: %w", n, err)
		}
		s.Component = n
		rep.Components = append(rep.Components, s)
		all = append(all, per[i]...)
	}
	tot, err := spend(all, delta, opts)
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
	all := append(l.All(), planned...)
	s, err := spend(all, delta, opts)
	s.Component = "projected"
	return s, err
}

// Spend returns the cost of events at δ by every accountant in opts.
func spend(events []Event, delta float64, opts LedgerOptions) (Spent, error) {
	if err := checkDelta(delta); err != nil {
		return Spent{}, err
	}
	var s Spent
	for _, ev := range events {
		s.Steps += ev.Steps
	}
	if s.Steps == 0 {
		return s, nil
	}
	orders := opts.Orders
	if orders == nil {
		orders = OrdersDPAccounting.Orders()
	}
	rdp, err := RDPSequence(events, orders)
	if err != nil {
		return Spent{}, err
	}
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
