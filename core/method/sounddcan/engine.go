package sounddcan

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/datasets"
)

// MethodName is the name the engine registers under in core, until dcan's
// sound mode is wired to it.
const MethodName = "dcan-sound"

// Accountant names of the ε reported.
const (
	AccountantGDP = "GDP exact (one cell added/removed)"
	AccountantRDP = "RDP ledger (one cell added/removed)"
)

// Stages of a run.
const (
	stageLoad = 1
	stageInit = 2
	stageSGD  = 3
)

// Engine is the dcan-sound engine of one run (core.Engine). Build it with
// New; Run may be called once.
type Engine struct {
	cfg     core.Config
	o       Options
	started atomic.Bool
	ledger  *accountant.Ledger // nil in nonprivate mode
	// load replaces datasets.Load of cfg.Data when set (tests).
	load func() (*datasets.Dataset, error)

	mu  sync.Mutex
	out *Outcome
}

// New validates cfg for dcan-sound. It returns an error wrapping
// core.ErrBadConfig or ErrOptions that names the field.
func New(cfg core.Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch cfg.Mode {
	case core.ModeSound, core.ModeNonPrivate:
	default:
		return nil, fmt.Errorf("%w: mode is %q, dcan-sound offers %s and %s (paper mode is dcan's)", core.ErrBadConfig, cfg.Mode, core.ModeSound, core.ModeNonPrivate)
	}
	if cfg.Sigma != 0 {
		return nil, fmt.Errorf("%w: sigma is %v, must be 0 for dcan-sound (its noise follows from ε, δ and the budget split)", core.ErrBadConfig, cfg.Sigma)
	}
	if cfg.Mode == core.ModeSound && cfg.Epsilon == 0 {
		return nil, fmt.Errorf("%w: epsilon is 0, dcan-sound's sound mode needs a target ε", core.ErrBadConfig)
	}
	o, err := Parse(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.LearningRate > 0 {
		o.LR = cfg.LearningRate
		if o, err = o.Resolve(); err != nil {
			return nil, err
		}
	}
	e := &Engine{cfg: cfg, o: o}
	if cfg.Mode == core.ModeSound {
		e.ledger = accountant.NewLedger()
	}
	return e, nil
}

// Options returns the resolved options.
func (e *Engine) Options() Options { return e.o }

// Ledger returns the run's privacy ledger, nil in nonprivate mode.
func (e *Engine) Ledger() *accountant.Ledger { return e.ledger }

// Outcome returns the finished run's outcome, nil before the end.
func (e *Engine) Outcome() *Outcome {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.out
}

// runner is the state of one Run.
type runner struct {
	e     *Engine
	ctl   *core.Control
	src   *dppca.Source
	pl    Plan
	kFrom bool
	step  int
	truth []int
}

// Run loads the data and fits the model once. The engine takes no live
// patches: each is answered as rejected at the next step boundary.
func (e *Engine) Run(ctx context.Context, ctl *core.Control) error {
	if e.started.Swap(true) {
		return errors.New("dcan-sound: Run called twice")
	}
	ctl.Emit(core.StageEvent{Stage: stageLoad, Name: "load", Steps: 1})
	load := e.load
	if load == nil {
		load = e.cfg.LoadRaw
	}
	d, err := load()
	if err != nil {
		return err
	}
	src, err := dppca.NewSource(d, e.o.K)
	if err != nil {
		return err
	}
	h := src.Genes(e.o.Genes)
	ctl.Emit(core.DataEvent{Cells: d.Cells(), Genes: h, Classes: len(d.Classes)})
	if e.o.P > h {
		return fmt.Errorf("dcan-sound: option p is %d, must be ≤ the %d genes of %s: %w", e.o.P, h, d.Name, ErrInput)
	}
	if min(e.o.Over*src.K, d.Cells()) < src.K || d.Cells() < 2 {
		return fmt.Errorf("dcan-sound: %s has %d cells, too few for K = %d: %w", d.Name, d.Cells(), src.K, ErrInput)
	}
	pl, err := NewPlan(e.cfg.Mode == core.ModeSound, e.cfg.Epsilon, e.cfg.Delta, e.o, h)
	if err != nil {
		return err
	}
	r := &runner{e: e, ctl: ctl, src: src, pl: pl, kFrom: e.o.K == 0}
	ctl.Emit(r.guarantee(nil))
	ctl.Emit(core.WarningEvent{Message: r.noiseMessage()})
	ctl.Emit(core.StageEvent{Stage: stageInit, Name: fmt.Sprintf("dppca: private preprocessing, private PCA, DP k-means into %d centres", min(e.o.Over*src.K, d.Cells())), Steps: 1})
	if err := r.checkpoint(ctx); err != nil {
		return err
	}
	rng := r.rng()
	hk := Hooks{
		Record: r.record,
		Start: func(out *dppca.Outcome) {
			r.truth = make([]int, out.Matrix.N)
			for i := range r.truth {
				r.truth[i] = -1
			}
			if out.Matrix.Labels != nil {
				copy(r.truth, out.Matrix.Labels)
			}
			r.emitBudget()
			ctl.Emit(core.StageEvent{Stage: stageSGD, Name: fmt.Sprintf("DP-SGD on the mixture network (full batch): %d steps", pl.Steps), Steps: pl.Steps})
		},
		Step: func(step int, loss float64) {
			r.step = step
			ctl.Emit(core.StepEvent{Stage: stageSGD, Epoch: 1, Step: step, Loss: loss})
			r.emitBudget()
		},
		Labels: r.emitLabels,
	}
	out, err := Fit(ctx, src, pl, e.o, rng, r.withCheckpoints(ctx, hk))
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.out = out
	e.mu.Unlock()
	return r.finish(out)
}

// withCheckpoints wraps the step hook with a checkpoint (pause, patches)
// before the next step; a cancelled context ends the fit at its next check.
func (r *runner) withCheckpoints(ctx context.Context, hk Hooks) Hooks {
	step := hk.Step
	hk.Step = func(s int, loss float64) {
		step(s, loss)
		_ = r.checkpoint(ctx) // a cancellation is seen by Fit's own ctx check
	}
	return hk
}

// checkpoint takes pauses and answers every patch as rejected.
func (r *runner) checkpoint(ctx context.Context) error {
	patches, err := r.ctl.Checkpoint(ctx)
	if err != nil {
		return err
	}
	for _, p := range patches {
		r.ctl.Rejected(p, r.step+1, fmt.Errorf("dcan-sound takes no live patches: its noise is planned for the whole run in advance; start a new run instead"))
	}
	return nil
}

// rng returns the generator of the dppca stage and the head: seeded by the
// run's seed, or cryptographically when SecureNoise is set.
func (r *runner) rng() *rand.Rand {
	if r.e.cfg.SecureNoise {
		var seed [32]byte
		_, _ = crand.Read(seed[:]) // never fails (crypto/rand's contract since Go 1.24)
		return rand.New(rand.NewChaCha8(seed))
	}
	return rand.New(rand.NewPCG(r.e.cfg.Seed, 0))
}

// record enters one mechanism into the ledger, under its own component.
func (r *runner) record(m dppca.Mechanism) error {
	if r.e.ledger == nil {
		return nil
	}
	ev, err := m.Event()
	if err != nil {
		return err
	}
	return r.e.ledger.Record(m.Name, ev)
}

// spentMu returns the GDP μ of everything in the ledger.
func (r *runner) spentMu() float64 {
	if r.e.ledger == nil {
		return 0
	}
	evs := r.e.ledger.All()
	if len(evs) == 0 {
		return 0
	}
	mu, err := accountant.GDPMu(evs)
	if err != nil {
		return math.Inf(1)
	}
	return mu
}

// emitBudget reports ε spent so far (GDP exact, and the RDP ledger's),
// projected at the end of the plan, and per component.
func (r *runner) emitBudget() {
	l := r.e.ledger
	if l == nil {
		return
	}
	delta := r.e.cfg.Delta
	ev := core.BudgetEvent{Step: r.step, Delta: delta, Target: r.e.cfg.Epsilon}
	if e, err := dppca.EpsilonOf(r.spentMu(), delta); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantGDP, Epsilon: e})
	}
	if rep, err := l.Report(delta, accountant.LedgerOptions{SkipPLD: true}); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantRDP, Epsilon: rep.Total.EpsilonRDP})
	}
	if e, err := dppca.EpsilonOf(dppca.ComposedMu(r.pl.Mechanisms()), delta); err == nil {
		ev.Projected = []core.EpsilonValue{{Accountant: AccountantGDP, Epsilon: e}}
	}
	for _, c := range l.Components() {
		if mu, err := accountant.GDPMu(l.Events(c)); err == nil {
			if e, err := dppca.EpsilonOf(mu, delta); err == nil {
				ev.Components = append(ev.Components, core.NamedValue{Name: c, Value: e})
			}
		}
	}
	r.ctl.Emit(ev)
}

// emitLabels reports the clustering after steps steps: scores against the
// labels when known, and the first two code coordinates.
func (r *runner) emitLabels(steps int, codes []float64, p int, labels []int) {
	truth := r.truth
	n := len(labels)
	if r.src.Data.Labels != nil && len(truth) == n {
		nonEmpty := map[int]bool{}
		for _, l := range labels {
			nonEmpty[l] = true
		}
		if s, err := cluster.Score(truth, labels); err == nil {
			r.ctl.Emit(core.MetricsEvent{Stage: stageSGD, Epoch: 1, Step: steps, Unreleased: true, Values: []core.NamedValue{
				{Name: "ARI", Value: s.ARI}, {Name: "NMI", Value: s.NMI}, {Name: "ACC", Value: s.ACC},
				{Name: "non-empty clusters", Value: float64(len(nonEmpty))}}})
		}
	}
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = codes[i*p]
		if p > 1 {
			y[i] = codes[i*p+1]
		}
	}
	r.ctl.Emit(core.EmbeddingEvent{Step: steps, X: x, Y: y, Cluster: append([]int(nil), labels...), Truth: append([]int(nil), truth...)})
}

// finish reports the end: the collapse check, the guarantee with the
// audited ε, and the result.
func (r *runner) finish(out *Outcome) error {
	k := r.src.K
	if 2*out.NonEmpty < k {
		r.ctl.Emit(core.WarningEvent{Message: r.collapseMessage(out)})
	}
	var audited []core.EpsilonValue
	if r.e.ledger != nil {
		if e, err := dppca.EpsilonOf(r.spentMu(), r.e.cfg.Delta); err == nil {
			audited = append(audited, core.EpsilonValue{Accountant: AccountantGDP, Epsilon: e})
		}
		if rep, err := r.e.ledger.Report(r.e.cfg.Delta, accountant.LedgerOptions{SkipPLD: true}); err == nil {
			audited = append(audited, core.EpsilonValue{Accountant: AccountantRDP, Epsilon: rep.Total.EpsilonRDP})
		}
	}
	r.ctl.Emit(r.guarantee(audited))
	m := out.Start.Matrix
	r.ctl.Emit(core.ResultEvent{Cells: m.N, Dim: len(out.Codes) / max(m.N, 1), Embedding: append([]float32(nil), out.Codes...), Cluster: append([]int(nil), out.Labels...), Barcodes: m.Barcodes})
	return nil
}

// collapseMessage says why fewer than K/2 clusters hold cells.
func (r *runner) collapseMessage(out *Outcome) string {
	pl, k := r.pl, r.src.K
	msg := fmt.Sprintf("only %d of K = %d clusters hold cells at the end", out.NonEmpty, k)
	seen := map[int]bool{}
	for _, l := range out.StartLabels {
		seen[l] = true
	}
	start := fmt.Sprintf("dppca's centres merged into K already gave %d non-empty clusters", len(seen))
	if !pl.Private() {
		return msg + ": without noise this means some mixture components lie where no cell is their most probable (the start: " + start + "); a smaller K may suit these data better"
	}
	h := float64(out.Start.Matrix.H)
	nt := max(out.Start.Matrix.NoisyN, 1)
	eta := r.e.o.LR
	noise := 0.0
	if pl.Steps > 0 {
		// A mean's noise after the steps: each step adds η·z·cMu/(ñ·π) per
		// coordinate and the preconditioned steps forget the past at rate
		// η, so it settles at that times √(η/(2 − η)); over h genes.
		noise = pl.Z * pl.CMu / (nt / float64(k)) * math.Sqrt(eta/(2-eta)) * math.Sqrt(h)
	}
	return msg + fmt.Sprintf(": at this ε the private start is noisy (%s) and the noise left on each mixture mean is about %.3g in norm over its %g genes, against a radius R = %.3g of every cell's row: a component whose mean the noise moved far from every cell loses them all to the others; a larger ε or a smaller K leaves more signal",
		start, noise, h, pl.R)
}

// noiseMessage states the noise of the run.
func (r *runner) noiseMessage() string {
	pl, o := r.pl, r.e.o
	shDP, shNet, shHead := o.shares()
	head := fmt.Sprintf("K = %d (dppca stage into %d), p = %d, h = %d genes, R = %.3g, %d full-batch DP-SGD steps of size η = %.4g with the EM preconditioner, each cell's gradient clipped to 1 in units of %.3g (means) and %.3g (variance), %d head round",
		r.src.K, min(o.Over*r.src.K, r.src.Data.Cells()), o.P, pl.DPPCA.H, pl.R, pl.Steps, o.LR, pl.CMu, pl.CV, pl.Rounds)
	if o.NoTrain {
		head += "; steps=0: the null (the mixture at its private start, the network's share given back)"
	}
	if !pl.Private() {
		return head + "; nonprivate: no noise (gradients still clipped)"
	}
	return fmt.Sprintf("%s; GDP μ = %.4g for ε = %g, δ = %g, split dppca %.3g / network %.3g / head %.3g of μ²; DP-SGD noise multiplier z = %.3g (σ = z per coordinate of the summed clipped gradient, in those units); head noise: sums %.3g (Δ = R), counts %.3g (Δ = 1); the dppca stage's own noise: covariance %.3g, k-means sums %.3g and counts %.3g per round",
		head, pl.Mu, pl.Epsilon, pl.Delta, shDP, shNet, shHead, pl.Z, pl.Sums, pl.Counts, pl.DPPCA.PCA, pl.DPPCA.Sums, pl.DPPCA.Counts)
}

// guarantee states the run's guarantee; audited is the ε spent, when known.
func (r *runner) guarantee(audited []core.EpsilonValue) core.GuaranteeEvent {
	o, cfg := r.e.o, r.e.cfg
	shDP, shNet, shHead := o.shares()
	live := "live metrics (ARI, NMI, ACC) use the true labels of private data: they are for exploration and no guarantee covers them"
	design := "sound mode is a redesign, not the paper's network (METHODS.md §1): dppca's private codes and over-clustered centres, merged into K after one noisy Lloyd round, start a mixture network (a learned per-component scaling of the codes and a Gaussian-mixture clustering head with learned weights) trained on its negative log-likelihood by DP-SGD on the full batch with Adam; it takes its clip, sampling rate and schedule from its options (gclip, steps, lr), not from --clip, --q, --layers or --epochs"
	if cfg.Mode == core.ModeNonPrivate {
		return core.GuaranteeEvent{Status: core.GuaranteeNone, Reasons: []string{"nonprivate mode: the same pipeline with no noise, no privacy claim", design, live}}
	}
	kReason := fmt.Sprintf("K = %d was given as an option (public)", r.src.K)
	if r.kFrom {
		kReason = fmt.Sprintf("assumption: K = %d, the number of classes of the labels, is public", r.src.K)
	}
	reasons := []string{
		"(ε, δ)-DP for one cell added or removed: every release is a Gaussian mechanism without subsampling, in one ledger — dppca's (gene statistics, Analyze-Gauss covariance, seeding histogram, k-means sums and counts), the head's cluster sums (Δ = R) and counts (Δ = 1), every DP-SGD step (full batch, q = 1: the clipped gradient sum has sensitivity C, noise z·C on every parameter); the composition is exact in GDP (μ = √Σ(Δ/σ)²), converted once to (ε, δ); the RDP ledger's figure is shown beside it",
		fmt.Sprintf("noise calibrated in advance from ε and δ: fixed shares of μ² (dppca stage %.3g, network %.3g over %d steps, head %.3g over %d round)", shDP, shNet, r.pl.Steps, shHead, o.Rounds()),
		"whole-network DP-SGD: every parameter (scaling, cluster means, cluster weights) is noised and each cell's gradient is clipped as a whole; a cell's loss depends only on its own code and the parameters; the −log|det| term depends on no cell and is added without noise; the mixture starts from released values only (merged centres, released counts and eigenvalues)",
		"labels and merges: each cell's own code against the trained mixture; the over-clustered centres are merged by k-means on the released centres weighted by the released counts (post-processing)",
		"public constants fixed in advance, not read from the data: p, h, R, K's over-clustering factor, steps, C, the learning rate, the budget split",
		kReason,
		"no live patches: the plan is fixed for the whole run",
		design,
	}
	status := core.GuaranteeFormal
	if o.Prep == dppca.PrepPrivate {
		reasons = append(reasons, fmt.Sprintf("private preprocessing (dppca): each cell normalised to the public total %g and log1p; gene ranking, cell count, gene means and spreads released with noise", dppca.PublicTarget))
	} else {
		status = core.GuaranteeConditional
		reasons = append(reasons, "assumption (prep=public): scanpy's preprocessing statistics (filters, median library size, HVGs, gene means and sds) are public, yet computed on the private cells without noise")
	}
	if !cfg.SecureNoise {
		reasons = append(reasons, "noise follows the run's seed (secure noise is off): seeded noise is for teaching and reproducibility only")
	}
	reasons = append(reasons, live)
	return core.GuaranteeEvent{Status: status, Reasons: reasons, Audited: audited}
}
