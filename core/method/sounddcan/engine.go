package sounddcan

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
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
	if err := dppca.ValidatePlanned(cfg, MethodName, "paper mode is dcan's"); err != nil {
		return nil, err
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
	// canaries and auditErr are the run's audit (audit.go).
	canaries *audit.SumCanaries
	auditErr error
	// input is the run's input-canary audit (AuditSpec.Kind input; nil
	// otherwise), scored from the dppca stage's released gene ranking
	// (inputStart).
	input      *dppca.InputAudit
	inputStart *dppca.Matrix
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
	var input *dppca.InputAudit
	raw := d // before any canary: target=auto may rebuild the audit below
	if a := e.cfg.Audit; a != nil && a.Input() {
		if err := dppca.CheckInputPrep(e.o.Prep); err != nil {
			return fmt.Errorf("dcan-sound: %w", err)
		}
		if input, d, err = dppca.NewInputAuditTarget(d, *a, e.cfg.Seed^auditSeedMix, e.o.fixedTarget()); err != nil {
			return err
		}
	}
	src, err := dppca.NewSourceTarget(d, e.o.K, e.o.fixedTarget())
	if err != nil {
		return err
	}
	if h := src.Genes(e.o.Genes); e.o.PRule == dppca.PRuleFixed && e.o.P > h {
		return &core.OptionError{Key: "p", Value: strconv.Itoa(e.o.P), Reason: fmt.Sprintf("p must be ≤ the %d genes used of %s", h, d.Source), Kind: ErrInput}
	}
	if min(max(e.o.Over, 1)*src.K, d.Cells()) < src.K || d.Cells() < 2 {
		return core.Wrapf(ErrInput, "dcan-sound: %s has %d cells, too few for K = %d", d.Name, d.Cells(), src.K)
	}
	r := &runner{e: e, ctl: ctl, src: src, kFrom: e.o.K == 0, input: input}
	rng := r.rng()
	// The plan draws the released cell count from rng under genes=auto.
	pl, err := NewPlan(src, e.cfg.Mode == core.ModeSound, e.cfg.Epsilon, e.cfg.Delta, e.o, rng)
	if err != nil {
		return err
	}
	r.pl = pl
	if a := e.cfg.Audit; input != nil && pl.Target != e.o.fixedTarget() {
		// target=auto chose another total from the released count: the
		// same canaries (the same seed), the real cells' ranking sums at
		// the start's total.
		if r.input, _, err = dppca.NewInputAuditTarget(raw, *a, e.cfg.Seed^auditSeedMix, pl.Target); err != nil {
			return err
		}
	}
	ctl.Emit(core.DataEvent{Cells: d.Cells(), Genes: pl.DPPCA.H, Classes: len(d.Classes)})
	ctl.Emit(r.guarantee(nil))
	ctl.Emit(core.WarningEvent{Message: r.noiseMessage(), Note: true})
	ctl.Emit(core.StageEvent{Stage: stageInit, Name: fmt.Sprintf("dppca: private preprocessing, private PCA, DP k-means into %d centres", min(max(pl.Over, 1)*src.K, d.Cells())), Steps: 1})
	if err := r.checkpoint(ctx); err != nil {
		return err
	}
	hk := Hooks{
		Record: r.record,
		Start: func(out *dppca.Outcome) {
			r.inputStart = out.Matrix
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
		Labels:   r.emitLabels,
		Canaries: r.auditCanaries(),
	}
	out, err := Fit(ctx, src, pl, e.o, rng, r.withCheckpoints(ctx, hk))
	if err != nil {
		return err
	}
	// The subspace test may have replaced the network by head rounds.
	r.pl = out.Plan
	if out.Plan.SubOff {
		ctl.Emit(core.WarningEvent{Message: fmt.Sprintf("subspace test: the start's noise edge %.3g is at most %g times its released eigenvalues up to the (K−1)-th, so its private subspace is accurate and the network has little to correct; no DP-SGD step ran and the network's share went to %d more Lloyd rounds of the head (sums noise %.3g, counts %.3g)", out.Start.Plan.Edge(), subspaceRho(e.o.Subspace), out.Plan.Extra, out.Plan.ExtraSums, out.Plan.ExtraCounts), Note: true})
	}
	e.mu.Lock()
	e.out = out
	e.mu.Unlock()
	if err := r.finish(out); err != nil {
		return err
	}
	return r.emitAudit()
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
	n, dim := m.N, len(out.Codes)/max(m.N, 1)
	if c := r.input.Cells(); c >= 0 && c < n {
		n = c // the input canaries follow the real cells and are no result
	}
	r.ctl.Emit(core.ResultEvent{Cells: n, Dim: dim, Embedding: append([]float32(nil), out.Codes[:n*dim]...), Cluster: append([]int(nil), out.Labels[:n]...), Barcodes: m.Barcodes[:n]})
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
	if pl.Steps == 0 {
		why := "steps=0 (the null)"
		if pl.Handoff {
			why = fmt.Sprintf("handoff=%s handed the run to dppca's own pipeline: the noise the network would leave on a mean, %.3g of R, is %s", r.e.o.Handoff, pl.RhoOn, r.e.o.handoffBound())
		}
		if pl.NetOff {
			why = fmt.Sprintf("the staged split left the network out (the noise it would leave on a mean, %.3g of R, is above %g) and gave its share to the start", pl.Rho, r.e.o.StageBound)
		}
		if pl.SubOff {
			why = fmt.Sprintf("the subspace test left the network out (the start's spectrum cleared its noise edge %g times over) and gave its share to %d more Lloyd rounds of the head", 1/subspaceRho(r.e.o.Subspace), pl.Extra)
		}
		return msg + fmt.Sprintf(": no DP-SGD step ran (%s), so these are the private start's clusters: %s; at this ε the noise of the private PCA and k-means leaves some released centres where no cell is nearest; a larger ε or a smaller K leaves more signal", why, start)
	}
	h := float64(out.Start.Matrix.H)
	nt := max(out.Start.Matrix.NoisyN, 1)
	noise := MeanNoise(pl.Z, r.e.o.GradClip, k, nt, r.e.o.LR, out.Start.Matrix.H) * pl.R
	return msg + fmt.Sprintf(": at this ε the private start is noisy (%s) and the noise left on each mixture mean is about %.3g in norm over its %g genes, against a radius R = %.3g of every cell's row: a component whose mean the noise moved far from every cell loses them all to the others; a larger ε or a smaller K leaves more signal",
		start, noise, h, pl.R)
}

// noiseMessage states the noise of the run.
func (r *runner) noiseMessage() string {
	pl, o := r.pl, r.e.o.forK(r.src.K) // p=span: the p the plan used
	rowsBound := o.RowsBelow
	if pl.Rows {
		o = o.dppcaRows() // what ran
	}
	shDP, shNet, shHead := pl.Shares()
	p := fmt.Sprintf("p = %d", o.P)
	if o.PRule == dppca.PRuleEdge || pl.Handoff {
		p = fmt.Sprintf("p ≤ %d by the noise edge", dppca.DefaultPCap)
	}
	head := fmt.Sprintf("K = %d (dppca stage into %d), %s, h = %d genes, R = %.3g, %d full-batch DP-SGD steps of size η = %.4g with the EM preconditioner, each cell's gradient clipped to 1 in units of %.3g (means), %g (weights) and %.3g (variance; sideclip = %g), %d head round",
		r.src.K, min(max(pl.Over, 1)*r.src.K, r.src.Data.Cells()), p, pl.DPPCA.H, pl.R, pl.Steps, o.LR, pl.CMu, o.SideClip, o.SideClip*pl.CV, o.SideClip, pl.Rounds)
	if o.NoTrain {
		head += "; steps=0: the null (the mixture at its private start, the network's share given back)"
	}
	if pl.Staged {
		verdict := "the network runs"
		if pl.Handoff {
			verdict = "handoff's band (below)"
		}
		if pl.NetOff {
			verdict = "above it, the network is left out and its share of the budget goes to the start (as steps=0)"
		}
		head += fmt.Sprintf("; staged split: cell count ñ = %.0f released first, the noise the network would leave on a mean is %.3g of R (bound %g): %s", pl.NoisyN, pl.Rho, o.StageBound, verdict)
	}
	if rowsBound > 0 && pl.Private() {
		verdict := "so the start's rows are the default's"
		if pl.Rows {
			verdict = "so the start's rows are dppca's (genes=alonestart:18, target 10³, offset=dir)"
		}
		head += fmt.Sprintf("; rows=auto:%d: dppca's gene rule from the released cell count gives h = %d, %s", rowsBound, pl.RowsH, verdict)
	}
	if o.Target == TargetAuto && pl.Handoff {
		head += fmt.Sprintf("; target=auto: handed off, so dppca's own total %g", pl.Target)
	} else if o.Target == TargetAuto {
		head += fmt.Sprintf("; target=auto: the noise the network would leave on a mean with its fixed share is %.3g of R (bound %.3g), so every cell is normalised to %g", pl.RhoOn, TargetRho, pl.Target)
		if o.NetRule == NetRhoRule && pl.Private() && pl.Target == TargetLow && pl.Steps > 0 {
			head += fmt.Sprintf(" and net=rho cuts the network's share to %.3g (its noise on a mean at the bound), the rest to the start and the head", shNet)
		}
	}
	if o.Over == OverNoise && pl.Private() && !pl.Handoff {
		head += fmt.Sprintf("; over=noise: one of the stage's Lloyd rounds would leave noise %.3g of R on an average one of %d centres' means (bound %g), so it clusters into %d", pl.OverNoiseRho, OverCluster*r.src.K, o.StageBound, min(pl.Over*r.src.K, r.src.Data.Cells()))
	}
	if o.Start == StartMerge && !pl.Handoff {
		head += fmt.Sprintf("; start=merge: the stage's first rounds run with %d centres, merged into K inside the stage (weighted by their released counts) before its last rounds with K, so the head's round runs on K centres and does not merge", min(max(pl.Over, 1)*r.src.K, r.src.Data.Cells()))
	}
	if pl.StageRounds > 0 && pl.Private() {
		head += fmt.Sprintf("; rounds=auto: one of the stage's Lloyd rounds leaves noise %.3g of R on an average one of %d centres' means (bound %g), so it runs %d rounds", pl.RoundsNoiseRho, OverCluster*r.src.K, o.StageBound, pl.StageRounds)
	}
	if pl.Handoff {
		head += fmt.Sprintf("; handoff=%s: the noise the network would leave on a mean at its full share is %.3g of R (%s), so the run is handed to dppca's own pipeline (genes=auto: h = %d, p by the noise edge, %d Lloyd rounds, %s, every round holding a light centre) and no DP-SGD step runs; the network's share goes to the start and the head", o.Handoff, pl.RhoOn, o.handoffBound(), pl.DPPCA.H, dppca.DefaultT, o.handoffMerge())
	}
	if o.Subspace != SubspaceOff {
		head += fmt.Sprintf("; subspace test after the start: when its noise edge is at most %g times the released (K−1)-th eigenvalue the network is left out and its share goes to %d more head rounds", subspaceRho(o.Subspace), SubspaceRounds)
	}
	if o.Shrink == ShrinkJS {
		head += "; every released step shrunk block by block (James–Stein)"
	}
	if !pl.Private() {
		return head + "; nonprivate: no noise (gradients still clipped)"
	}
	return fmt.Sprintf("%s; GDP μ = %.4g for ε = %g, δ = %g, split dppca %.3g / network %.3g / head %.3g of μ²; DP-SGD noise multiplier z = %.3g (σ = z per coordinate of the summed clipped gradient, in those units); head noise: sums %.3g (Δ = R), counts %.3g (Δ = 1); the dppca stage's own noise: covariance %.3g, k-means sums %.3g and counts %.3g per round",
		head, pl.Mu, pl.Epsilon, pl.Delta, shDP, shNet, shHead, pl.Z, pl.Sums, pl.Counts, pl.DPPCA.PCA, pl.DPPCA.Sums, pl.DPPCA.Counts)
}
