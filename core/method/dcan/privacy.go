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

// costs returns the plan as the accountant's Plan: the DP-SGD steps
// of both stages at σ (one item, so the projection adds them in one sum)
// and the k-means releases at kmeansRatio·σ.
func (pl plan) costs() accountant.Plan {
	out := accountant.Plan{}
	if n := pl.steps[0] + pl.steps[1]; n > 0 {
		out = append(out, accountant.PlanItem{SampleRate: pl.q, NoiseRatio: 1, Steps: n})
	}
	if pl.releases > 0 {
		out = append(out, accountant.PlanItem{SampleRate: 1, NoiseRatio: pl.kmeansRatio, Steps: pl.releases})
	}
	return out
}

// privacy is a run's bookkeeping: the ledger (whose running RDP tallies
// make per-step reports O(orders)) and the filter enforcing the target.
// Every audited RDP figure is at accountant.DefaultOrders; DP-DCAN's own
// orders serve only its published figure (accountant.DPDCANTheorem1). It
// implements dpsgd.Recorder. Not safe for concurrent use.
type privacy struct {
	delta     float64
	target    float64 // 0: none
	ledger    *accountant.Ledger
	filter    *accountant.Filter
	component string
	noPLD     bool
}

func newPrivacy(delta, target float64) *privacy {
	return &privacy{delta: delta, target: target, ledger: accountant.NewLedger()}
}

// ledgerOptions are the options of every ledger report of the run.
func (p *privacy) ledgerOptions(pld bool) accountant.LedgerOptions {
	return accountant.LedgerOptions{Orders: p.ledger.Orders().Orders(), SkipPLD: !pld}
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
	if err := ev.Validate(); err != nil {
		return err
	}
	if p.filter != nil {
		if err := p.filter.Spend(ev); err != nil {
			return err
		}
	}
	return p.ledger.Record(component, ev)
}

// fits reports whether count events (q, z) pass the filter now.
func (p *privacy) fits(q, z float64, count int) bool {
	if p.filter == nil {
		return true
	}
	ok, err := p.filter.Fits(accountant.Event{SampleRate: q, NoiseMultiplier: z, Steps: count})
	return err == nil && ok
}

// projected returns ε (RDP) at the end of pl with σ = z; +Inf when it
// cannot be computed.
func (p *privacy) projected(pl plan, z float64) float64 {
	if z <= 0 {
		return math.Inf(1)
	}
	e, err := p.ledger.ProjectRDP(p.delta, pl.costs().Events(z)...)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// solveSigma returns the smallest σ, to relative tolerance 1e-6, such that
// what is already spent plus pl at σ meets ε ≤ target at δ
// (accountant's CalibrateAfter on the ledger's running tally). It returns
// an error wrapping accountant.ErrUnreachable when even σ = 1e4 does not
// meet the target (typically: the budget is already spent) or no noised
// step is left.
func (p *privacy) solveSigma(target, delta float64, pl plan) (float64, error) {
	c, err := p.ledger.CalibrateAfter(accountant.Budget{Epsilon: target, Delta: delta}, pl.costs())
	if err != nil {
		return 0, fmt.Errorf("dcan: %w", err)
	}
	return c.Sigma, nil
}

// spentRDP returns ε (RDP) of everything recorded.
func (p *privacy) spentRDP() float64 {
	e, _, err := p.ledger.EpsilonRDP(p.delta)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// planFilter returns the filter a target (ε, δ) would install for the
// remaining plan pl at σ = z (accountant.NewFilterForPlan's order choice),
// with every event already recorded re-admitted, without installing it.
func (p *privacy) planFilter(target, delta float64, pl plan, z float64) (*accountant.Filter, error) {
	f, err := p.ledger.FilterForPlan(accountant.Budget{Epsilon: target, Delta: delta}, pl.costs(), z)
	if err != nil {
		return nil, fmt.Errorf("dcan: %w", err)
	}
	return f, nil
}

// setTarget installs a filter at (target, δ) planned for pl at σ = z;
// target 0 removes the filter.
func (p *privacy) setTarget(target float64, pl plan, z float64) error {
	if target == 0 {
		p.target, p.filter = 0, nil
		return nil
	}
	f, err := p.planFilter(target, p.delta, pl, z)
	if err != nil {
		return err
	}
	p.target, p.filter = target, f
	return nil
}

// budgetEvent reports what is spent, per component, and the projection of
// pl at σ; with pld it adds the PLD ε of the ledger.
func (p *privacy) budgetEvent(step int, pl plan, sigma float64, pld bool) core.BudgetEvent {
	ev := core.BudgetEvent{Step: step, Delta: p.delta, Target: p.target, Sigma: sigma, Orders: p.ledger.Orders().String()}
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
		e, err := p.ledger.ComponentEpsilonRDP(name, p.delta)
		if err != nil {
			e = math.Inf(1)
		}
		ev.Components = append(ev.Components, core.NamedValue{Name: name, Value: e})
		ev.Ledger = append(ev.Ledger, mechanisms(name, p.ledger.Events(name))...)
	}
	if sigma > 0 {
		ev.Planned = mechanisms("", pl.costs().Events(sigma))
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

// Calibrate is DP-DCAN's preview of a config's noise (core.Method's
// Calibrate): the plan the engine will make (every DP-SGD step of both
// stages, round(1/q) per epoch, and sound mode's DP k-means releases) and
// the σ it will solve for the target, by the same calibration
// (accountant.CalibrateAfter at accountant.DefaultOrders), or the ε a
// given σ projects. It needs no data.
func Calibrate(cfg core.Config) (core.Calibration, error) {
	opt, err := applyKeys(Options{}, cfg.Options)
	if err != nil {
		return core.Calibration{}, err
	}
	s, err := resolve(cfg, opt)
	if err != nil {
		return core.Calibration{}, err
	}
	if cfg.Mode == core.ModeNonPrivate {
		return core.Calibration{}, core.Wrapf(ErrConfig, "dcan: nonprivate mode adds no noise")
	}
	spe := max(1, int(math.Round(1/cfg.SampleRate)))
	pl := plan{q: cfg.SampleRate, kmeansRatio: s.opt.KMeansNoiseRatio, steps: [2]int{s.epochs[0] * spe, s.epochs[1] * spe}}
	if cfg.Mode == core.ModeSound && s.epochs[1] > 0 {
		pl.releases = 2 * s.opt.KMeansIterations
	}
	c := core.Calibration{Sigma: cfg.Sigma, Orders: accountant.DefaultOrders.String(), Steps: pl.costs().Steps()}
	if c.Sigma == 0 {
		cal, err := accountant.CalibrateAfter(nil, accountant.Budget{Epsilon: cfg.Epsilon, Delta: cfg.Delta}, pl.costs(), accountant.DefaultOrders)
		if err != nil {
			return core.Calibration{}, fmt.Errorf("dcan: σ for ε = %g: %w", cfg.Epsilon, err)
		}
		c.Sigma = cal.Sigma
	}
	if c.Steps == 0 {
		c.Projected = []core.EpsilonValue{{Accountant: "RDP", Epsilon: 0}}
		return c, nil
	}
	e, err := accountant.ProjectPlan(nil, pl.costs(), c.Sigma, cfg.Delta, accountant.DefaultOrders)
	if err != nil {
		return core.Calibration{}, fmt.Errorf("dcan: ε at σ = %g: %w", c.Sigma, err)
	}
	c.Projected = []core.EpsilonValue{{Accountant: "RDP", Epsilon: e}}
	c.Planned = mechanisms("", pl.costs().Events(c.Sigma))
	return c, nil
}

// mechanisms copies accountant events into the events' form, under
// component.
func mechanisms(component string, evs []accountant.Event) []core.Mechanism {
	out := make([]core.Mechanism, len(evs))
	for i, ev := range evs {
		out[i] = core.Mechanism{Component: component, SampleRate: ev.SampleRate, NoiseMultiplier: ev.NoiseMultiplier, Steps: ev.Steps}
	}
	return out
}
