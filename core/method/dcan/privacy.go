package dcan

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Ledger component names.
const (
	compStage1    = "stage 1"
	compStage2    = "stage 2"
	compCentroids = "stage 2 centroids"
)

// plan is the privacy cost still to come: DP-SGD steps at the current σ
// and, in sound mode, the DP k-means releases not yet made.
type plan struct {
	q           float64
	steps       [2]int  // remaining noised steps of stage 1 and stage 2
	releases    int     // remaining Gaussian releases of DP k-means
	kmeansRatio float64 // their noise multiplier over σ
}

// privacy is a run's bookkeeping: the ledger, the filter enforcing the
// target, and running RDP curves so that per-step reports cost O(orders).
// It implements dpsgd.Recorder. Not safe for concurrent use.
type privacy struct {
	delta     float64
	target    float64 // 0: none
	orders    []float64
	ledger    *accountant.Ledger
	filter    *accountant.Filter
	component string
	total     []float64            // RDP of everything recorded
	comp      map[string][]float64 // RDP per component
	cache     map[[2]float64][]float64
	scratch   []float64
	noPLD     bool
}

func newPrivacy(delta, target float64) *privacy {
	o := accountant.OrdersDPDCAN.Orders()
	return &privacy{
		delta: delta, target: target, orders: o, ledger: accountant.NewLedger(),
		total: make([]float64, len(o)), comp: map[string][]float64{},
		cache: map[[2]float64][]float64{}, scratch: make([]float64, len(o)),
	}
}

// ledgerOptions are the options of every ledger report of the run.
func (p *privacy) ledgerOptions(pld bool) accountant.LedgerOptions {
	return accountant.LedgerOptions{Orders: p.orders, SkipPLD: !pld}
}

// rdpOf returns the RDP curve of one step at (q, z), cached.
func (p *privacy) rdpOf(q, z float64) ([]float64, error) {
	key := [2]float64{q, z}
	if r, ok := p.cache[key]; ok {
		return r, nil
	}
	r, err := accountant.RDP(accountant.Event{SampleRate: q, NoiseMultiplier: z, Steps: 1}, p.orders)
	if err != nil {
		return nil, err
	}
	p.cache[key] = r
	return r, nil
}

// RecordStep admits one DP-SGD step through the filter and records it in
// the ledger under the current component. It implements dpsgd.Recorder;
// an error wrapping accountant.ErrBudgetExceeded refuses the step.
func (p *privacy) RecordStep(q, sigma float64) error {
	return p.record(p.component, q, sigma, 1)
}

// record admits and records count events (q, z) under component.
func (p *privacy) record(component string, q, z float64, count int) error {
	ev := accountant.Event{SampleRate: q, NoiseMultiplier: z, Steps: count}
	r, err := p.rdpOf(q, z)
	if err != nil {
		return err
	}
	if p.filter != nil {
		if err := p.filter.Spend(ev); err != nil {
			return err
		}
	}
	if err := p.ledger.Record(component, ev); err != nil {
		return err
	}
	c := p.comp[component]
	if c == nil {
		c = make([]float64, len(p.orders))
		p.comp[component] = c
	}
	for i, v := range r {
		p.total[i] += float64(count) * v
		c[i] += float64(count) * v
	}
	return nil
}

// fits reports whether count events (q, z) pass the filter now.
func (p *privacy) fits(q, z float64, count int) bool {
	if p.filter == nil {
		return true
	}
	ok, err := p.filter.Fits(accountant.Event{SampleRate: q, NoiseMultiplier: z, Steps: count})
	return err == nil && ok
}

// epsilon converts an RDP curve at the run's δ (improved conversion); an
// all-zero curve (nothing recorded) is ε = 0.
func (p *privacy) epsilon(rdp []float64) (eps, order float64) {
	zero := true
	for _, v := range rdp {
		zero = zero && v == 0
	}
	if zero {
		return 0, 0
	}
	e, a, err := accountant.EpsilonFromRDP(p.orders, rdp, p.delta, accountant.Improved)
	if err != nil {
		return math.Inf(1), 0
	}
	return e, a
}

// projectedTo writes into dst the RDP of what is spent plus pl at σ = z.
func (p *privacy) projectedTo(dst []float64, pl plan, z float64) error {
	copy(dst, p.total)
	if n := pl.steps[0] + pl.steps[1]; n > 0 {
		r, err := p.rdpOf(pl.q, z)
		if err != nil {
			return err
		}
		for i, v := range r {
			dst[i] += float64(n) * v
		}
	}
	if pl.releases > 0 {
		r, err := p.rdpOf(1, pl.kmeansRatio*z)
		if err != nil {
			return err
		}
		for i, v := range r {
			dst[i] += float64(pl.releases) * v
		}
	}
	return nil
}

// projected returns ε (RDP) at the end of pl with σ = z.
func (p *privacy) projected(pl plan, z float64) float64 {
	if err := p.projectedTo(p.scratch, pl, z); err != nil {
		return math.Inf(1)
	}
	e, _ := p.epsilon(p.scratch)
	return e
}

// Noise multiplier search range of solveSigma.
const (
	minSigma = 1e-2
	maxSigma = 1e4
)

// solveSigma returns the smallest σ, to relative tolerance 1e-6, such that
// what is already spent plus pl at σ meets ε ≤ target at the run's δ (RDP,
// improved conversion, OrdersDPDCAN). The cost is decreasing in σ, so a
// bisection in log σ converges. It returns an error wrapping
// accountant.ErrUnreachable when even σ = 1e4 does not meet the target
// (typically: the budget is already spent).
func (p *privacy) solveSigma(target float64, pl plan) (float64, error) {
	if pl.steps[0]+pl.steps[1]+pl.releases == 0 {
		return 0, fmt.Errorf("dcan: no noised step left to calibrate: %w", accountant.ErrUnreachable)
	}
	z, err := accountant.SolveSigma(target, func(z float64) (float64, error) { return p.projected(pl, z), nil }, minSigma, maxSigma, 1e-6)
	if errors.Is(err, accountant.ErrUnreachable) {
		return 0, fmt.Errorf("dcan: ε = %g at δ = %g cannot be met with %d steps left after spending ε = %g: %w",
			target, p.delta, pl.steps[0]+pl.steps[1], p.spentRDP(), accountant.ErrUnreachable)
	}
	return z, err
}

// spentRDP returns ε (RDP) of everything recorded.
func (p *privacy) spentRDP() float64 {
	e, _ := p.epsilon(p.total)
	return e
}

// setTarget installs a filter at (target, δ) and re-admits every event
// already recorded; target 0 removes the filter. The filter's single order
// is the one at which the largest fraction of the remaining plan pl at
// σ = z fits the budget left, (B(α) − R_spent(α)) / R_plan(α) with
// B(α) = ε − ln(1 − 1/α) + (ln δ + ln α)/(α − 1) (the filter's budget at
// one order): when the plan fits, the order with the most room; when it
// does not, the order that admits the most of it.
func (p *privacy) setTarget(target float64, pl plan, z float64) error {
	if target == 0 {
		p.target, p.filter = 0, nil
		return nil
	}
	if err := p.projectedTo(p.scratch, pl, z); err != nil {
		return err
	}
	ld := math.Log(p.delta)
	order, best := p.orders[0], math.Inf(-1)
	for i, a := range p.orders {
		room := target - math.Log1p(-1/a) + (ld+math.Log(a))/(a-1) - p.total[i]
		need := p.scratch[i] - p.total[i]
		frac := room
		if need > 0 {
			frac = room / need
		}
		if frac > best {
			order, best = a, frac
		}
	}
	f, err := accountant.NewFilter(accountant.FilterConfig{
		Target: accountant.Budget{Epsilon: target, Delta: p.delta},
		Orders: []float64{order},
	})
	if err != nil {
		return err
	}
	for _, ev := range p.ledger.All() {
		if err := f.Spend(ev); err != nil {
			return fmt.Errorf("dcan: what is already spent does not fit ε = %g: %w", target, err)
		}
	}
	p.target, p.filter = target, f
	return nil
}

// budgetEvent reports what is spent, per component, and the projection of
// pl at σ; with pld it adds the PLD ε of the ledger.
func (p *privacy) budgetEvent(step int, pl plan, sigma float64, pld bool) core.BudgetEvent {
	ev := core.BudgetEvent{Step: step, Delta: p.delta, Target: p.target, Sigma: sigma, Orders: accountant.OrdersDPDCAN.String()}
	ev.Spent = []core.EpsilonValue{{Accountant: "RDP", Epsilon: p.spentRDP()}}
	if pld && !p.noPLD {
		if s, err := accountant.Summarize(p.ledger.All(), p.delta, p.ledgerOptions(true)); err == nil {
			ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: "PLD", Epsilon: s.EpsilonPLD})
		}
	}
	if sigma > 0 {
		ev.Projected = []core.EpsilonValue{{Accountant: "RDP", Epsilon: p.projected(pl, sigma)}}
	}
	for _, name := range p.ledger.Components() {
		e, _ := p.epsilon(p.comp[name])
		ev.Components = append(ev.Components, core.NamedValue{Name: name, Value: e})
	}
	return ev
}

// published returns the paper's Theorem 1 ε of the DP-SGD steps spent and
// planned (the k-means releases are not in the paper's accounting).
func (p *privacy) published(pl plan, sigma float64) (float64, error) {
	s1 := p.ledger.Events(compStage1)
	s2 := p.ledger.Events(compStage2)
	if sigma > 0 && pl.steps[0] > 0 {
		s1 = append(s1, accountant.Event{SampleRate: pl.q, NoiseMultiplier: sigma, Steps: pl.steps[0]})
	}
	if sigma > 0 && pl.steps[1] > 0 {
		s2 = append(s2, accountant.Event{SampleRate: pl.q, NoiseMultiplier: sigma, Steps: pl.steps[1]})
	}
	if len(s1)+len(s2) == 0 {
		return 0, errors.New("dcan: no noised step")
	}
	e, _, err := accountant.DPDCANTheorem1(s1, s2, p.delta)
	return e, err
}

// targetOr returns the current target, or def when p is nil or has none.
func (p *privacy) targetOr(def float64) float64 {
	if p == nil || p.target == 0 {
		return def
	}
	return p.target
}
