// Package fake is a deterministic stand-in engine for the interface's tests
// and demos: it speaks the core contract (stages, steps, budget, metrics,
// embedding, guarantee, patches) without training anything.
package fake

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dpscope/dpscope/core"
)

// Engine emits a two-stage run of cfg's planned steps. ε grows as the
// square root of the summed step costs, scaled so that the plan ends at
// the target at the starting σ; a σ patch scales the cost of later steps
// by (σ₀/σ)². Not a privacy accountant: the numbers only have to move
// plausibly.
type Engine struct {
	cfg   core.Config
	delay time.Duration
}

// Register makes the fake available to core.Start as method name, with
// delay between steps. It panics if name is taken (core.Register does).
func Register(name string, delay time.Duration) {
	core.Register(core.Method{Name: name, Family: core.FamilyDPSGD, Audit: auditDoc, New: func(cfg core.Config) (core.Engine, error) {
		return &Engine{cfg: cfg, delay: delay}, nil
	}})
}

// StepsPerEpoch is round(1/q), as the interface plans.
func StepsPerEpoch(q float64) int { return max(int(math.Round(1/q)), 1) }

// Run emits the run's events until its plan ends or ctx is cancelled.
func (e *Engine) Run(ctx context.Context, ctl *core.Control) error {
	cfg := e.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	spe := StepsPerEpoch(cfg.SampleRate)
	sigma := cfg.Sigma
	private := cfg.Mode != core.ModeNonPrivate
	total := 0
	for _, ep := range cfg.Epochs {
		total += ep * spe
	}
	status := core.GuaranteePaperOnly
	reasons := []string{"fake engine: layers " + cfg.Layers.String() + " noised"}
	if !private {
		status, reasons = core.GuaranteeNone, []string{"no noise"}
	}
	ctl.Emit(core.GuaranteeEvent{Status: status, Reasons: reasons})
	spent := 0.0 // Σ step costs
	sigma0, target := sigma, cfg.Epsilon
	if sigma0 <= 0 {
		sigma0 = 1
	}
	if target <= 0 {
		target = 4
	}
	if sigma <= 0 {
		sigma = sigma0 // σ from ε: the fake's "calibration"
	}
	var ledger []core.Mechanism // the steps taken, one entry per σ
	cost := func() float64 { return target * target / float64(max(total, 1)) * (sigma0 * sigma0) / (sigma * sigma) }
	const k, n = 3, 60
	step := 0
	for stage, epochs := range cfg.Epochs {
		ctl.Emit(core.StageEvent{Stage: stage + 1, Name: []string{"instance", "cluster"}[min(stage, 1)], Steps: epochs * spe})
		for ep := 1; ep <= epochs; ep++ {
			for s := 0; s < spe; s++ {
				step++
				patches, err := ctl.Checkpoint(ctx)
				if err != nil {
					return err
				}
				for _, p := range patches {
					if p.Sigma != nil {
						sigma = *p.Sigma
					}
					ctl.Applied(p, step)
				}
				loss := 2/math.Sqrt(float64(step)) + 0.05*rng.Float64()
				ctl.Emit(core.StepEvent{Stage: stage + 1, Epoch: ep, Step: step, Loss: loss,
					Parts: []core.NamedValue{{Name: "zinb", Value: 0.8 * loss}, {Name: "inst", Value: 0.2 * loss}}})
				if private {
					spent += cost()
					eps := math.Sqrt(spent)
					proj := math.Sqrt(spent + cost()*float64(total-step))
					if n := len(ledger); n > 0 && ledger[n-1].NoiseMultiplier == sigma {
						ledger[n-1].Steps++
					} else {
						ledger = append(ledger, core.Mechanism{Component: "stage", SampleRate: cfg.SampleRate, NoiseMultiplier: sigma, Steps: 1})
					}
					var planned []core.Mechanism
					if total > step {
						planned = []core.Mechanism{{SampleRate: cfg.SampleRate, NoiseMultiplier: sigma, Steps: total - step}}
					}
					ctl.Emit(core.BudgetEvent{Step: step, Delta: cfg.Delta, Target: cfg.Epsilon, Sigma: sigma, Orders: "fake",
						Ledger: append([]core.Mechanism(nil), ledger...), Planned: planned,
						Spent:      []core.EpsilonValue{{Accountant: "RDP", Epsilon: eps}, {Accountant: "PLD", Epsilon: 0.85 * eps}},
						Projected:  []core.EpsilonValue{{Accountant: "RDP", Epsilon: proj}, {Accountant: "PLD", Epsilon: 0.85 * proj}},
						Components: []core.NamedValue{{Name: "stage " + string(rune('1'+stage)), Value: eps}}})
				}
				if e.delay > 0 {
					select {
					case <-time.After(e.delay):
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
			quality := 1 - math.Exp(-float64(step)/float64(total+1)*3)
			ctl.Emit(core.MetricsEvent{Stage: stage + 1, Epoch: ep, Step: step, Unreleased: true, Values: []core.NamedValue{
				{Name: "ARI", Value: 0.8 * quality}, {Name: "NMI", Value: 0.85 * quality}, {Name: "silhouette", Value: 0.4 * quality}}})
			emb := core.EmbeddingEvent{Step: step, X: make([]float64, n), Y: make([]float64, n), Cluster: make([]int, n), Truth: make([]int, n)}
			for i := range n {
				c := i % k
				emb.Truth[i] = c
				emb.Cluster[i] = c
				if rng.Float64() > quality {
					emb.Cluster[i] = rng.IntN(k)
				}
				a := 2 * math.Pi * float64(c) / k
				emb.X[i] = 3*math.Cos(a) + rng.NormFloat64()*(1.5-quality)
				emb.Y[i] = 3*math.Sin(a) + rng.NormFloat64()*(1.5-quality)
			}
			ctl.Emit(emb)
		}
	}
	if cfg.Audit != nil {
		return e.audit(ctl, rng, private, sigma)
	}
	return nil
}
