package dppca

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// MethodName is the name dppca registers under in core.
const MethodName = "dppca"

// Engine is the dppca engine of one run (core.Engine). Build it with New;
// Run may be called once.
type Engine struct {
	cfg     core.Config
	o       Options
	started atomic.Bool
	ledger  *accountant.Ledger // nil in nonprivate mode
	// load replaces datasets.Load of cfg.Data when set (tests).
	load func() (*datasets.Dataset, error)
	// onStage is called before each stage's first checkpoint when set
	// (tests: a patch queued there is taken at that checkpoint).
	onStage func(rel, stage int)

	mu       sync.Mutex
	outcomes []*Outcome // every finished or interrupted release, in order
}

// ValidatePlanned checks cfg for a method whose noise is planned from ε
// and δ in advance (dppca, and dcan-sound that starts from it): cfg is
// valid, its mode is sound or nonprivate (why not paper: noPaper), σ is
// not set, and sound mode has a target ε. Errors wrap core.ErrBadConfig.
func ValidatePlanned(cfg core.Config, name, noPaper string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch cfg.Mode {
	case core.ModeSound, core.ModeNonPrivate:
	default:
		return fmt.Errorf("%w: mode is %q, %s offers %s and %s (%s)", core.ErrBadConfig, cfg.Mode, name, core.ModeSound, core.ModeNonPrivate, noPaper)
	}
	if cfg.Sigma != 0 {
		return fmt.Errorf("%w: sigma is %v, must be 0 for %s (its noise follows from ε, δ and the budget split)", core.ErrBadConfig, cfg.Sigma, name)
	}
	if cfg.Mode == core.ModeSound && cfg.Epsilon == 0 {
		return fmt.Errorf("%w: epsilon is 0, %s's sound mode needs a target ε", core.ErrBadConfig, name)
	}
	return nil
}

// New validates cfg for dppca. It returns an error wrapping
// core.ErrBadConfig or ErrOptions that names the field.
func New(cfg core.Config) (*Engine, error) {
	if err := ValidatePlanned(cfg, MethodName, "it is dpscope's own method: there is no paper to follow"); err != nil {
		return nil, err
	}
	o, err := Parse(cfg.Options)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, o: o}
	if cfg.Mode == core.ModeSound {
		e.ledger = accountant.NewLedger()
	}
	return e, nil
}

// Options returns the resolved options the run starts with.
func (e *Engine) Options() Options { return e.o }

// Ledger returns the run's privacy ledger, nil in nonprivate mode.
func (e *Engine) Ledger() *accountant.Ledger { return e.ledger }

// Outcomes returns the releases made so far, in order (an interrupted one
// holds what it computed before the patch).
func (e *Engine) Outcomes() []*Outcome {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Outcome(nil), e.outcomes...)
}

// settings are what a patch may change between releases.
type settings struct {
	eps, delta float64
	o          Options
	radius     float64 // absolute clip radius set by a patch; 0: o.Clip·√h
}

// runner is the state of one Run.
type runner struct {
	e      *Engine
	ctl    *core.Control
	src    *Source
	st     settings
	step   int     // steps done over every release
	muPrev float64 // μ² of the releases before the current one
	kFrom  bool    // K was read from the labels
	aud    *auditState
	// dataSent is set once the DataEvent is out: the first release to get
	// past its preprocessing sends it (a patch may end an earlier one).
	dataSent bool
}

// Run loads the data and makes one release; a patch taken at a step
// boundary ends the current release (what it spent stays in the ledger) and
// starts a new one under the new settings.
func (e *Engine) Run(ctx context.Context, ctl *core.Control) error {
	if e.started.Swap(true) {
		return errors.New("dppca: Run called twice")
	}
	ctl.Emit(core.StageEvent{Stage: 1, Name: "load", Steps: 1})
	load := e.load
	if load == nil {
		load = e.cfg.LoadRaw
	}
	d, err := load()
	if err != nil {
		return err
	}
	aud := newAuditState(e.cfg)
	if aud != nil && aud.spec.Input() {
		if err := CheckInputPrep(e.o.Prep); err != nil {
			return err
		}
		if e.o.Target == TargetMedian {
			// The input audit's known sums need the total before any
			// release; a released median is not known then.
			return fmt.Errorf("%w: dppca's input audit needs a public total: option target=median releases it (use a number)", core.ErrBadConfig)
		}
		if aud.input, d, err = NewInputAuditTarget(d, *e.cfg.Audit, aud.seed, e.o.Target); err != nil {
			return err
		}
	}
	src, err := NewSourceTarget(d, e.o.K, e.o.sourceTarget())
	if err != nil {
		return err
	}
	r := &runner{e: e, ctl: ctl, src: src, st: settings{eps: e.cfg.Epsilon, delta: e.cfg.Delta, o: e.o}, kFrom: e.o.K == 0, aud: aud}
	ctl.Emit(r.guarantee(nil))
	for rel := 1; ; rel++ {
		out, restart, err := r.release(ctx, rel)
		if out != nil {
			e.mu.Lock()
			e.outcomes = append(e.outcomes, out)
			e.mu.Unlock()
		}
		if err != nil {
			return err
		}
		if !restart {
			if err := r.finish(out); err != nil {
				return err
			}
			return r.aud.emit(ctl, e.cfg.Mode, out)
		}
	}
}

// rng returns the generator of release rel (1-based): seeded by the run's
// seed, or cryptographically when SecureNoise is set.
func (r *runner) rng(rel int) *rand.Rand {
	if r.e.cfg.SecureNoise {
		var seed [32]byte
		_, _ = crand.Read(seed[:]) // never fails (crypto/rand's contract since Go 1.24)
		return rand.New(rand.NewChaCha8(seed))
	}
	return rand.New(rand.NewPCG(r.e.cfg.Seed, uint64(rel-1)))
}

// normRng returns the generator of clip=auto's norm histogram in release
// rel (Plan.NormRng): a second stream of the run's seed, or cryptographic
// when SecureNoise is set.
func (r *runner) normRng(rel int) *rand.Rand {
	if r.e.cfg.SecureNoise {
		return r.rng(rel)
	}
	return rand.New(rand.NewPCG(r.e.cfg.Seed, normStream(rel)))
}

// release makes release rel. It returns restart = true when a patch was
// applied at a step boundary.
func (r *runner) release(ctx context.Context, rel int) (*Outcome, bool, error) {
	st := r.st
	private := r.e.cfg.Mode == core.ModeSound
	rng := r.rng(rel)
	pl, err := r.src.PlanFor(private, st.eps, st.delta, st.o, st.radius, rng)
	if err != nil {
		return nil, false, err
	}
	if pl.AutoClip {
		pl.NormRng = r.normRng(rel)
	}
	rl := newRelease(r.src, pl, st.o, rng)
	rl.aud = r.aud
	suffix := ""
	if rel > 1 {
		suffix = fmt.Sprintf(" (release %d)", rel)
	}
	mechs := pl.Mechanisms()
	record := func(names ...string) error {
		for _, m := range mechs {
			for _, n := range names {
				if m.Name == n {
					m.Count = 1 // one round at a time for the k-means
					if err := r.record(rel, m); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if pl.NoisyN > 0 {
		// genes=auto read the released cell count to choose h: it is
		// spent now, whatever happens to the rest of the release.
		if err := record(MechCount); err != nil {
			return nil, false, err
		}
	}
	// target=median released its histogram with the plan (Source.PlanFor):
	// spent now as well.
	if err := record(MechMedian); err != nil {
		return nil, false, err
	}
	// stage 1: preprocessing
	r.ctl.Emit(core.StageEvent{Stage: 1, Name: "preprocess" + suffix, Steps: 1})
	r.hook(rel, 1)
	if again, err := r.checkpoint(ctx); err != nil || again {
		return nil, again, err
	}
	if err := rl.prep(); err != nil {
		return nil, false, err
	}
	if !r.dataSent {
		r.dataSent = true
		// The matrix the pipeline reads: every cell (its own preprocessing
		// touches one cell at a time), the h genes of the covariance
		// (after the depth cap, which reads the released gene means).
		r.ctl.Emit(core.DataEvent{Cells: r.src.Data.Cells(), Genes: rl.pl.H, Classes: len(r.src.Data.Classes)})
	}
	// clip=auto's norm histogram is released inside the preprocessing
	// (after the scaling, before the row clip): spent with it, as is
	// offset=dir's direction sum (offset.go), released at the same point
	// when its prediction fires (else the plan has its share back with
	// the k-means): the mechanisms are read from the plan after it.
	mechs = rl.pl.Mechanisms()
	prepMechs := []string{MechRanking, MechMeans, MechMeans2, MechSpread, MechSelectPCA, MechOffset, MechNorms}
	if pl.NoisyN == 0 {
		prepMechs = append(prepMechs, MechCount)
	}
	if err := record(prepMechs...); err != nil {
		return nil, false, err
	}
	r.ctl.Emit(core.WarningEvent{Message: noiseMessage(rl.pl, rl.out.Matrix, st.o, r.src.K), Note: true})
	// stage 2: private PCA
	r.ctl.Emit(core.StageEvent{Stage: 2, Name: "private PCA" + suffix, Steps: 1})
	r.hook(rel, 2)
	if again, err := r.checkpoint(ctx); err != nil || again {
		return &rl.out, again, err
	}
	if err := rl.pca(); err != nil {
		return nil, false, err
	}
	pl = rl.pl // p is now chosen: the k-means noise follows it
	mechs = pl.Mechanisms()
	// centre=auto's sum of the projected rows is released in the same
	// stage, after the covariance, when its rule fires (centre.go)
	if err := record(MechPCA, MechCentre); err != nil {
		return nil, false, err
	}
	r.ctl.Emit(core.WarningEvent{Message: kmeansMessage(rl), Note: true})
	// stage 3: DP k-means
	rl.chooseOver() // the rounds, and under merge=early their noise, follow it
	pl = rl.pl
	mechs = pl.Mechanisms()
	r.ctl.Emit(core.StageEvent{Stage: 3, Name: "DP k-means" + suffix, Steps: rl.rounds()})
	r.hook(rel, 3)
	for t := 0; t < rl.rounds(); t++ {
		if again, err := r.checkpoint(ctx); err != nil || again {
			return &rl.out, again, err
		}
		if err := rl.round(ctx); err != nil {
			return nil, false, err
		}
		if t == 0 && pl.Seed > 0 {
			if err := record(MechSeed); err != nil {
				return nil, false, err
			}
		}
		if err := record(MechSums, MechCounts); err != nil {
			return nil, false, err
		}
		if t == rl.o.mergeAt() && rl.out.Chose > 0 {
			// choose=objective released its scalar in this round
			if err := record(MechChoose); err != nil {
				return nil, false, err
			}
		}
		r.step++
		r.ctl.Emit(core.StepEvent{Stage: 3, Epoch: t + 1, Step: r.step, Loss: rl.out.Inertia[t]})
		r.emitBudget(pl)
		r.emitRound(&rl.out, t+1, t+1 == rl.rounds())
	}
	r.muPrev += pl.Mu * pl.Mu
	return &rl.out, false, nil
}

// hook calls the test hook, if any.
func (r *runner) hook(rel, stage int) {
	if r.e.onStage != nil {
		r.e.onStage(rel, stage)
	}
}

// record enters one mechanism of release rel into the ledger.
func (r *runner) record(rel int, m Mechanism) error {
	if r.e.ledger == nil {
		return nil
	}
	ev, err := m.Event()
	if err != nil {
		return err
	}
	return r.e.ledger.Record(fmt.Sprintf("release %d: %s", rel, m.Name), ev)
}

// checkpoint takes the queued patches. It returns again = true when one was
// applied: the current release then ends and a new one starts.
func (r *runner) checkpoint(ctx context.Context) (bool, error) {
	patches, err := r.ctl.Checkpoint(ctx)
	if err != nil {
		return false, err
	}
	again := false
	for _, p := range patches {
		st, err := r.patched(p)
		if err != nil {
			r.ctl.Rejected(p, r.step+1, err)
			continue
		}
		r.st = st
		r.ctl.Applied(p, r.step+1)
		again = true
	}
	if again {
		// What the interrupted release spent is in the ledger; the next
		// release's projection starts from all of it.
		r.muPrev = r.spentMu()
	}
	return again, nil
}

// spentMu returns the μ of everything in the ledger.
func (r *runner) spentMu() float64 { return SpentMu(r.e.ledger) }
