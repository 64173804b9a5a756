package fed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/datasets"
)

// Default client counts when core.Config.Clients is 0 (docs/METHODS.md).
const (
	DefaultClientsFL    = 5  // PPML-Omics, FL
	DefaultClientsDP    = 30 // PPML-Omics, DP runs
	DefaultClientsFedSC = 4  // FedSC
)

// Engine is one federated run of a Variant. Build it with New; Run may be
// called once.
type Engine struct {
	cfg   core.Config
	v     Variant
	p     Params
	split datasets.SplitConfig
	// paperSplit: FedSC's "paper" split, noniid:S with S = classes/K
	paperSplit bool
	rounds     int
	clients    int
	// lrByNoise: the record unit's learning rate was not set, so each
	// client's step follows rule G41 (recPrivacy.stepLR)
	lrByNoise bool
	started   atomic.Bool
	// beforeRound is called with each round's number before its
	// checkpoint when set (tests: it holds the engine at a known round
	// until a patch is queued, so the patch lands there on any number of
	// cores). Nil in every run the faces start.
	beforeRound func(round int)
}

// New validates cfg and p for variant v and returns its engine. Rounds are
// Config.Epochs[0] (default DefaultRoundsAE or DefaultRoundsFedSC), local
// epochs Config.Epochs[1] when given. It returns an error wrapping
// ErrConfig for a value the variant cannot take: fl in a private mode,
// fedsc in paper mode (FedSC makes no DP claim: nonprivate is the paper,
// sound the labelled DP extension), zero rounds, more than two epoch
// counts, or invalid Params.
func New(cfg core.Config, v Variant, p Params) (*Engine, error) {
	if v < FL || v > FedSC {
		return nil, configErr("variant", int(v), "FL, FLDP, PPMLOmics or FedSC")
	}
	switch {
	case v == FL && cfg.Mode != core.ModeNonPrivate:
		return nil, configErr("mode", cfg.Mode, "nonprivate for fl (use fl-dp or ppml-omics for a private run)")
	case v == FedSC && cfg.Mode == core.ModePaper:
		return nil, configErr("mode", cfg.Mode, "nonprivate (the FedSC paper, which makes no DP claim) or sound (dpscope's client-level DP extension) for fedsc")
	}
	e := &Engine{cfg: cfg, v: v}
	if len(cfg.Epochs) > 2 {
		return nil, configErr("epochs", cfg.Epochs, "[rounds] or [rounds, local epochs]")
	}
	e.rounds = map[bool]int{true: DefaultRoundsAE, false: DefaultRoundsFedSC}[v.autoencoder()]
	if len(cfg.Epochs) > 0 {
		e.rounds = cfg.Epochs[0]
	}
	// No round at all is the method's null run (its untrained model), which
	// spends no privacy: only without it.
	if e.rounds < 1 && !(e.rounds == 0 && cfg.Mode == core.ModeNonPrivate) {
		return nil, configErr("rounds", e.rounds, "≥ 1 (0 only in nonprivate mode: the untrained model)")
	}
	if len(cfg.Epochs) > 1 && p.LocalEpochs == 0 {
		if cfg.Epochs[1] < 1 {
			return nil, configErr("local epochs", cfg.Epochs[1], "≥ 1")
		}
		p.LocalEpochs = cfg.Epochs[1]
	}
	if err := p.Validate(v); err != nil {
		return nil, err
	}
	if p.EvalBN == EvalBNPooled && (v != FedSC || cfg.Mode != core.ModeNonPrivate) {
		// The pooled moments are summaries of every client's cells that no
		// accountant covers.
		return nil, configErr("evaluation BatchNorm statistics", p.EvalBN, "running (pooled is for fedsc in nonprivate mode only)")
	}
	if p.Unit == UnitRecord {
		// The record unit's own defaults (package doc, "Record-level sound
		// mode"); the nonprivate twin runs the same pipeline without noise.
		if cfg.Mode == core.ModePaper {
			return nil, configErr("privacy unit", p.Unit, "client in paper mode (record is sound mode's design)")
		}
		if len(cfg.Epochs) == 0 {
			e.rounds = DefaultRoundsRecord
		}
		if p.Hidden == nil {
			p.Hidden = []int{DefaultRecordHidden}
		}
		p.Latent = cmp.Or(p.Latent, DefaultRecordLatent)
		p.LocalEpochs = cmp.Or(p.LocalEpochs, DefaultLocalStepsRecord)
		p.Proj = cmp.Or(p.Proj, DefaultProjRecord)
		p.Front = cmp.Or(p.Front, FrontPCA)
		if p.Optimizer == OptimizerAdam {
			return nil, configErr("local optimizer", p.Optimizer, "sgd or auto with the record unit (DP-SGD)")
		}
		p.Optimizer = OptimizerSGD
		if cfg.LearningRate == 0 {
			e.cfg.LearningRate = DefaultLRRecord
			e.lrByNoise = true
		}
		if cfg.Clients == 0 {
			e.cfg.Clients = DefaultClientsFL
		}
		cfg = e.cfg
	}
	if p.Batch == 0 && v.autoencoder() && cfg.Mode != core.ModePaper {
		p.Batch = DefaultBatchAERetuned
	}
	e.p = p.withDefaults(v)
	if e.p.Optimizer == OptimizerAuto {
		e.p.Optimizer = OptimizerAdam
		if cfg.Mode == core.ModePaper {
			e.p.Optimizer = OptimizerSGD
		}
	}
	if e.p.Split == SplitPaper {
		// resolved against the data's classes and K at every split draw
		e.paperSplit = true
	} else {
		sc, err := datasets.ParseSplit(e.p.Split)
		if err != nil {
			return nil, core.Wrapf(ErrConfig, "%w", err)
		}
		e.split = sc
	}
	if e.p.ClientRate != 1 && v != FedSC {
		return nil, configErr("client rate", e.p.ClientRate, "1 (client sampling is FedSC's)")
	}
	e.clients = cfg.Clients
	if e.clients == 0 {
		switch {
		case v == FedSC:
			e.clients = DefaultClientsFedSC
		case cfg.Mode == core.ModeNonPrivate:
			e.clients = DefaultClientsFL
		default:
			e.clients = DefaultClientsDP
		}
	}
	if cfg.LearningRate == 0 {
		e.cfg.LearningRate = map[bool]float64{true: DefaultLRAE, false: DefaultLRBYOL}[v.autoencoder()]
	}
	switch {
	case e.p.Unit == UnitRecord:
		if _, err := newRecPrivacy(e.cfg, e.rounds, e.p.LocalEpochs, e.p.CellClip); err != nil {
			return nil, err
		}
	case cfg.Mode != core.ModeNonPrivate:
		// solve σ now so that an unreachable target is a start-up error
		if _, err := newPrivacy(cfg, v, e.p, e.rounds, e.clients); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Variant returns the engine's variant.
func (e *Engine) Variant() Variant { return e.v }

// Rounds returns the planned number of rounds.
func (e *Engine) Rounds() int { return e.rounds }

// Run trains the federation, reporting through ctl (see the package doc).
// It returns ctx.Err() when cancelled and a wrapped error when the data
// cannot be loaded, do not fit the split, or a loss is not finite.
func (e *Engine) Run(ctx context.Context, ctl *core.Control) error {
	if e.started.Swap(true) {
		return errors.New("fed: Run called twice on one engine")
	}
	d, err := e.load()
	if err != nil {
		return err
	}
	ctl.Emit(core.DataEventOf(d))
	s, err := e.newSim(ctl, d)
	if err != nil {
		return err
	}
	// Clients multiply small matrices on parallel goroutines: OpenBLAS's
	// own threads only contend with them (4× slower measured with K = 5 on
	// two cores), and its results depend on its thread count. The setting
	// is process-wide; it is restored when the run ends.
	defer compute.SingleThreaded()()
	return s.run(ctx)
}

// load returns the preprocessed data set.
func (e *Engine) load() (*datasets.Preprocessed, error) {
	d := e.p.Data
	if d == nil {
		prep, err := e.cfg.LoadData()
		if err != nil {
			return nil, fmt.Errorf("fed: load: %w", err)
		}
		d = prep.Data
	}
	if d.Cells < 2 || d.Genes < 1 || len(d.X) != d.Cells*d.Genes {
		return nil, configErr("data shape", fmt.Sprintf("%d×%d with %d values", d.Cells, d.Genes, len(d.X)), "at least 2 cells and 1 gene")
	}
	return d, nil
}

// workers returns the number of client goroutines for k clients.
func (e *Engine) workers(k int) int {
	w := runtime.GOMAXPROCS(0)
	if e.p.Workers > 0 {
		w = e.p.Workers
	}
	return max(1, min(w, k))
}

// dataMatrix views the preprocessed values as a cells × genes matrix.
func dataMatrix(d *datasets.Preprocessed) compute.Matrix {
	return compute.NewMatrix(d.Cells, d.Genes, d.X)
}
