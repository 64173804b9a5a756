package dpmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
)

// Engine is the DP-MD engine of one run (core.Engine). Build it with New;
// Run may be called once. Outcome is safe to call after Run returns.
type Engine struct {
	cfg     core.Config
	p       Params
	started atomic.Bool
	ledger  *accountant.Ledger
	out     *Outcome
}

// Track is one denoising output: the queries before denoising, after the
// non-private ceiling, or after the private mode.
type Track struct {
	Name string
	X    []float64 // M × D
	// Synthetic: distance to the manifold and to the clean point.
	MeanDist, MaxDist, MeanClean, MaxClean float64
	// Data set: clustering of the queries against their labels, and
	// neighbourhood purity (cosine, k = min(15, n_q − 1) ≥ 5).
	ARI, NMI, ACC, Purity float64
}

// Outcome is what a run computed, for experiments and benchmarks.
type Outcome struct {
	Problem *Problem
	// Params are the parameters in force at the end (T and θ after live
	// patches; the final h and d are the Problem's).
	Params    Params
	Tracks    []Track
	Unchanged int // queries the gate left unchanged at the first iteration
	Budget    *Budget
	// Wall times of the stages.
	Data, LocalPCA time.Duration
	Denoise        map[string]time.Duration // per track
}

// New validates cfg for DP-MD and returns an engine. p holds the method's
// parameters; when cfg.Data is a "manifold:" spec, its keys fill p's zero
// fields. It returns an error wrapping core.ErrBadConfig or ErrParams.
func New(cfg core.Config, p Params) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if IsSpec(cfg.Data) {
		sp, err := ParseSpec(cfg.Data)
		if err != nil {
			return nil, err
		}
		p = merge(p, sp)
	}
	// cfg.Options override the spec: the command line's --opt and --manifold.
	if err := p.set(cfg.Options, "option"); err != nil {
		return nil, err
	}
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	if cfg.Mode != core.ModeNonPrivate && cfg.Epsilon == 0 {
		return nil, fmt.Errorf("%w: epsilon is 0, dpmd needs a target ε in private modes", core.ErrBadConfig)
	}
	if cfg.Sigma != 0 {
		return nil, fmt.Errorf("%w: sigma is %v, must be 0 for dpmd (its noise follows from ε, δ and the sensitivities)", core.ErrBadConfig, cfg.Sigma)
	}
	e := &Engine{cfg: cfg, p: p}
	if cfg.Mode != core.ModeNonPrivate {
		e.ledger = accountant.NewLedger()
	}
	return e, nil
}

// merge fills the zero fields of p from q.
func merge(p, q Params) Params {
	p.Manifold = cmp.Or(p.Manifold, q.Manifold)
	p.D = cmp.Or(p.D, q.D)
	p.N = cmp.Or(p.N, q.N)
	p.Queries = cmp.Or(p.Queries, q.Queries)
	p.Dim = cmp.Or(p.Dim, q.Dim)
	p.T = cmp.Or(p.T, q.T)
	p.MaxQueries = cmp.Or(p.MaxQueries, q.MaxQueries)
	p.PCs = cmp.Or(p.PCs, q.PCs)
	p.Sigma = cmp.Or(p.Sigma, q.Sigma)
	p.H = cmp.Or(p.H, q.H)
	p.Theta = cmp.Or(p.Theta, q.Theta)
	p.CP = cmp.Or(p.CP, q.CP)
	p.Cm = cmp.Or(p.Cm, q.Cm)
	p.SMin = cmp.Or(p.SMin, q.SMin)
	p.Gaussian = p.Gaussian || q.Gaussian
	p.Tangents = p.Tangents || q.Tangents
	p.NonPrivate = cmp.Or(p.NonPrivate, q.NonPrivate)
	return p
}

// Params returns the resolved parameters.
func (e *Engine) Params() Params { return e.p }

// Ledger returns the run's privacy ledger, nil in nonprivate mode.
func (e *Engine) Ledger() *accountant.Ledger { return e.ledger }

// Outcome returns the result of a finished Run, or nil.
func (e *Engine) Outcome() *Outcome { return e.out }

// Run denoises the queries: stage 1 builds the problem, stage 2 computes
// the local PCA (not in sound mode), stage 3 runs T iterations of the
// mode's track — and, in a private mode, of the non-private ceiling — with
// a checkpoint before each (ε and δ patches re-split the remaining budget;
// other patches are rejected).
func (e *Engine) Run(ctx context.Context, ctl *core.Control) error {
	if e.started.Swap(true) {
		return errors.New("dpmd: Run called twice")
	}
	// Queries and references are processed by one goroutine per core, each
	// calling BLAS: OpenBLAS's own threads would fight them (measured: sphere
	// in R^100, n = 10,000, 200 queries, 6.9 s with 2 OpenBLAS threads, 3.9 s
	// with 1). The setting is process-wide, as in core/method/fed.
	defer compute.SingleThreaded()()
	r := &runner{e: e, ctl: ctl, cfg: e.cfg, p: e.p}
	return r.run(ctx)
}
