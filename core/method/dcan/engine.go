package dcan

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// Trainer is the DP-DCAN engine of one run. Build it with New; Run may be
// called once. Ledger is safe to call concurrently with Run.
type Trainer struct {
	s       settings
	priv    *privacy // nil in nonprivate mode
	started atomic.Bool
	speed   atomic.Pointer[Throughput] // set when Run returns
}

// Throughput is the training speed of a finished run: cells per second of
// each stage's steps, stage 2's per-epoch target refresh included and the
// per-epoch evaluation left out (the PyTorch peer's stage figures with
// --no-epoch-metrics, ../shared/peers/dcan_torch.py).
type Throughput struct {
	// Cells counts the cells of each stage's batches.
	Cells [2]int
	// Seconds is each stage's training time.
	Seconds [2]float64
}

// CellsPerSecond returns stage s's (1 or 2) cells per second, 0 when it
// did not train.
func (p Throughput) CellsPerSecond(s int) float64 {
	if p.Seconds[s-1] <= 0 {
		return 0
	}
	return float64(p.Cells[s-1]) / p.Seconds[s-1]
}

// Throughput returns the training speed of the run once Run has returned,
// and false before.
func (t *Trainer) Throughput() (Throughput, bool) {
	p := t.speed.Load()
	if p == nil {
		return Throughput{}, false
	}
	return *p, true
}

// New validates cfg and opt for DP-DCAN and returns a trainer. The data set
// is loaded by Run (unless opt.Data is set). It returns an error wrapping
// core.ErrBadConfig or ErrConfig for a value the method cannot take: more
// than two stages of epochs, the "pld" enforcing accountant, clients, a
// layer range outside 1–6, or a range other than 1–6 in sound mode.
func New(cfg core.Config, opt Options) (*Trainer, error) {
	opt, err := applyKeys(opt, cfg.Options)
	if err != nil {
		return nil, err
	}
	s, err := resolve(cfg, opt)
	if err != nil {
		return nil, err
	}
	t := &Trainer{s: s}
	if cfg.Mode != core.ModeNonPrivate {
		t.priv = newPrivacy(cfg.Delta, 0)
		t.priv.noPLD = s.opt.NoPLD
	}
	return t, nil
}

// Ledger returns the run's privacy ledger, or nil in nonprivate mode.
func (t *Trainer) Ledger() *accountant.Ledger {
	if t.priv == nil {
		return nil
	}
	return t.priv.ledger
}

// Epochs returns the epochs of stage 1 and stage 2 the run plans.
func (t *Trainer) Epochs() [2]int { return t.s.epochs }

// runState is everything one Run changes.
type runState struct {
	s       settings
	ctl     *core.Control
	m       *model
	emb     *embedding
	priv    *privacy
	private bool
	truth   []int

	q         float64
	spe       int    // steps per epoch
	batch     int    // nonprivate batch size
	planned   [2]int // steps per stage
	done      [2]int
	cells     [2]int           // cells of the batches of each stage
	trainTime [2]time.Duration // each stage's steps (and stage 2's target refresh)
	encoded   int              // 1 + the step count at the last encode, 0 before
	step      int
	stage     int
	epoch     int
	epochs    int // epochs finished over both stages
	pldEvery  int

	sigma, clip float64
	layers      core.LayerRange
	opt         nn.Optimizer // current stage's
	dp          *dpsgd.DPSGD // current stage's (private modes)
	muOpt       nn.Optimizer
	muGrad      compute.Matrix
	kmDone      bool
	exhausted   bool
	circ        Circumstances
	perm        []int
	rng         *rand.Rand
	canaries    *audit.GradientCanaries // nil without an audit (audit.go)
	input       *inputState             // input canaries instead (audit_input.go)
}

// Run trains both stages, reporting through ctl (see the package doc). It
// returns ctx.Err() when cancelled, a *NonFiniteError when a loss is not
// finite, and a wrapped error when the data cannot be loaded or do not fit
// the method.
func (t *Trainer) Run(ctx context.Context, ctl *core.Control) error {
	if t.started.Swap(true) {
		return errors.New("dcan: Run called twice on one trainer")
	}
	d, err := t.load(ctl)
	if err != nil {
		return err
	}
	var input *inputState
	if a := t.s.cfg.Audit; a != nil && a.Input() {
		if input, d, err = newInputState(d, *a, t.s.cfg.Seed^auditSeedMix); err != nil {
			return err
		}
	}
	r, err := t.prepare(ctl, d)
	if err != nil {
		return err
	}
	r.input = input
	err = r.run(ctx)
	t.speed.Store(&Throughput{Cells: r.cells, Seconds: [2]float64{r.trainTime[0].Seconds(), r.trainTime[1].Seconds()}})
	return err
}

// load returns the preprocessed data set.
func (t *Trainer) load(ctl *core.Control) (*datasets.Preprocessed, error) {
	d := t.s.opt.Data
	if d == nil {
		prep, err := t.s.cfg.LoadData()
		if err != nil {
			return nil, fmt.Errorf("dcan: load: %w", err)
		}
		d = prep.Data
	}
	if d.Cells < 2 || d.Genes < 1 || len(d.X) != d.Cells*d.Genes {
		return nil, configErr("data shape", fmt.Sprintf("%d×%d with %d values", d.Cells, d.Genes, len(d.X)), "at least 2 cells and 1 gene")
	}
	for i, v := range d.X {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, configErr(fmt.Sprintf("input x[%d, %d]", i/d.Genes, i%d.Genes), v, "finite")
		}
	}
	ctl.Emit(core.DataEventOf(d))
	if d.RawCounts == nil {
		ctl.Emit(core.WarningEvent{Message: "the data set has no raw counts: the reconstruction loss is the MSE of the preprocessed input instead of ZINB"})
	}
	return d, nil
}

// kTooLarge is the error of a K larger than the cells of data (after
// preprocessing): it names option k, the input the user gave.
func kTooLarge(k, cells int, data string) error {
	return &core.OptionError{Key: "k", Value: strconv.Itoa(k), Reason: fmt.Sprintf("k must be ≤ the %d cells of %s", cells, data), Kind: ErrConfig}
}

// prepare builds the network, the buffers and the privacy plan.
func (t *Trainer) prepare(ctl *core.Control, d *datasets.Preprocessed) (*runState, error) {
	s, cfg := t.s, t.s.cfg
	k, fromLabels := s.opt.K, false
	if k == 0 {
		if d.Labels == nil || len(d.Classes) < 1 {
			return nil, configErr("K", 0, "set when the data set has no labels")
		}
		k, fromLabels = len(d.Classes), true
	}
	if k > d.Cells {
		return nil, kTooLarge(k, d.Cells, t.s.cfg.Data)
	}
	out := nn.OutputZINB
	if d.RawCounts == nil {
		out = nn.OutputLinear
	}
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: s.opt.Act, Output: out,
		MaxRows: stage1Views * s.opt.ChunkCells, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	m := newModel(ae, d, k, s.opt, cfg.Seed)
	m.initHeads(!s.opt.NoGeneMeanInit, !s.opt.NoDispersionInit)
	r := &runState{
		s: s, ctl: ctl, priv: t.priv, private: t.priv != nil, truth: d.Labels,
		m: m, emb: newEmbedding(d.Cells, ae.Config().Latent, k),
		q: cfg.SampleRate, clip: cfg.Clip, sigma: cfg.Sigma, layers: s.layers,
		muGrad: compute.NewMatrix(k, ae.Config().Latent, nil),
		rng:    rand.New(rand.NewPCG(cfg.Seed, streamBatch)),
	}
	r.circ = Circumstances{Delta: cfg.Delta, K: k, KFromLabels: fromLabels, SecureNoise: cfg.SecureNoise,
		KMeansIterations: s.opt.KMeansIterations, KMeansNoiseRatio: s.opt.KMeansNoiseRatio, EmbedClip: s.opt.EmbedClip,
		GeneMeanInit: m.counts && !s.opt.NoGeneMeanInit, DispersionInit: m.counts && !s.opt.NoDispersionInit}
	if r.private {
		r.spe = max(1, int(math.Round(1/r.q)))
	} else {
		r.batch = max(1, int(math.Round(r.q*float64(d.Cells))))
		r.spe = max(1, d.Cells/r.batch)
		r.perm = make([]int, d.Cells)
		for i := range r.perm {
			r.perm[i] = i
		}
	}
	r.planned = [2]int{s.epochs[0] * r.spe, s.epochs[1] * r.spe}
	r.pldEvery = s.opt.PLDEvery
	if r.pldEvery == 0 {
		r.pldEvery = max(1, (s.epochs[0]+s.epochs[1]+5)/6)
	}
	if r.private {
		if err := r.planPrivacy(); err != nil {
			return nil, err
		}
	}
	if err := r.setupAudit(); err != nil {
		return nil, err
	}
	return r, nil
}

// planPrivacy solves σ from the target (unless given) and installs the
// filter.
func (r *runState) planPrivacy() error {
	cfg := r.s.cfg
	pl := r.plan()
	if r.sigma == 0 {
		z, err := r.priv.solveSigma(cfg.Epsilon, r.priv.delta, pl)
		if err != nil {
			return err
		}
		r.sigma = z
	}
	if cfg.Epsilon > 0 {
		if err := r.priv.setTarget(cfg.Epsilon, pl, r.sigma); err != nil {
			return err
		}
		r.circ.Target = cfg.Epsilon
		if e := r.priv.projected(pl, r.sigma); e > cfg.Epsilon*(1+1e-9) {
			r.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
				"σ = %s gives ε = %s by the end of the schedule, above the target %s: noisy training will stop when the budget is spent",
				fmtG(r.sigma), fmtG(e), fmtG(cfg.Epsilon))})
		}
	}
	if w := r.noiseDominates(); w != "" {
		r.ctl.Emit(core.WarningEvent{Message: w})
	}
	return nil
}

// noiseDominates says, when it is so, that each step's noise outweighs the
// largest signal the step can carry: the noise vector's expected norm is
// about σC√P over the P noised parameters, and the clipped sum of a batch
// of expected size qN has norm at most qN·C (every per-cell gradient
// clipped to C and all pointing one way). Below 1 the model mostly takes
// a random walk, and since Adam divides the gradient's scale out, a
// different ε (a different σ) then changes the result little
// (docs/RESULTS.md, real data at 20 + 10 epochs).
func (r *runState) noiseDominates() string {
	if r.sigma <= 0 {
		return ""
	}
	lo, hi := r.m.ae.ParamRange(r.layers.First, r.layers.Last)
	ratio := r.q * float64(r.m.n) / (r.sigma * math.Sqrt(float64(hi-lo)))
	if ratio >= 1 {
		return ""
	}
	return fmt.Sprintf("noise dominates every step: signal ≤ %s × noise (the largest clipped batch sum qN·C against the noise's norm σC√P, "+
		"σ = %s, P = %d noised parameters); training moves mostly at random and a different ε changes the result little — "+
		"more cells, fewer noised parameters or a larger ε raise the ratio; the redesigned sound DP-DCAN (--method dcan-sound) trains a small network on a private start instead", fmtG(ratio), fmtG(r.sigma), hi-lo)
}

// plan returns the privacy cost still to come.
func (r *runState) plan() plan {
	pl := plan{q: r.q, kmeansRatio: r.s.opt.KMeansNoiseRatio}
	if !r.private || r.exhausted {
		return pl
	}
	pl.steps = [2]int{r.planned[0] - r.done[0], r.planned[1] - r.done[1]}
	if r.s.cfg.Mode == core.ModeSound && !r.kmDone && r.s.epochs[1] > 0 {
		pl.releases = 2 * r.s.opt.KMeansIterations
	}
	return pl
}

// run trains the two stages and reports.
func (r *runState) run(ctx context.Context) error {
	r.ctl.Emit(r.guarantee(nil))
	if err := r.stage1(ctx); err != nil {
		return err
	}
	if err := r.stage2(ctx); err != nil {
		return err
	}
	// A run that trained no epoch (epochs 0,0) still reports how the codes
	// of its untrained network cluster: the method's null reference line.
	if r.epochs == 0 {
		r.stage = 1
		if err := r.evaluate(ctx); err != nil {
			return err
		}
	}
	if r.private {
		b := r.priv.budgetEvent(r.step, r.plan(), r.sigma, true)
		r.ctl.Emit(b)
		r.ctl.Emit(r.guarantee(&b))
	}
	return r.emitAudit()
}

// dpConfig returns the DP-SGD configuration of a stage.
func (r *runState) dpConfig(views int, seed uint64) dpsgd.Config {
	return dpsgd.Config{SampleRate: r.q, NoiseMultiplier: r.sigma, ClipNorm: r.clip,
		Perturbed: dpsgd.LayerRange{First: r.layers.First, Last: r.layers.Last},
		Clipping:  r.s.opt.Clipping, Views: views, Seed: seed, Secure: r.s.cfg.SecureNoise}
}

// stageSetup prepares a stage's optimizer and DP-SGD.
func (r *runState) stageSetup(stage int, opt nn.Optimizer) error {
	opt = r.auditWrap(opt)
	r.stage, r.opt = stage, opt
	r.m.parts = [numParts]float64{}
	if !r.private {
		return nil
	}
	views, seed := stage1Views, r.s.cfg.Seed
	if stage == 2 {
		views, seed = 1, r.s.cfg.Seed^0x9E3779B97F4A7C15
	}
	r.priv.component = map[int]string{1: compStage1, 2: compStage2}[stage]
	dp, err := dpsgd.New(&r.m.ae.Net, opt, r.m.n, r.dpConfig(views, seed), r.priv)
	if err != nil {
		return err
	}
	r.dp = dp
	return nil
}

// stage1 trains the instance stage.
func (r *runState) stage1(ctx context.Context) error {
	lr := DefaultStage1LR
	if r.s.cfg.LearningRate > 0 {
		lr = r.s.cfg.LearningRate
	}
	adam, err := nn.NewAdam(len(r.m.ae.Params), nn.AdamConfig{LR: lr})
	if err != nil {
		return err
	}
	if err := r.stageSetup(1, adam); err != nil {
		return err
	}
	if r.m.center {
		r.encode()
	}
	r.ctl.Emit(core.StageEvent{Stage: 1, Name: "instance: ZINB of the cell + per-cell instance loss of two masked views", Steps: r.planned[0]})
	return r.train(ctx, 1, r.m.stage1Loss, nil)
}

// stage2 trains the cluster stage.
func (r *runState) stage2(ctx context.Context) error {
	if r.s.epochs[1] == 0 || r.exhausted {
		return nil
	}
	m := r.m
	opt, err := nn.NewAdadelta(len(m.ae.Params), nn.AdadeltaConfig{LR: DefaultStage2LR, Rho: DefaultAdadeltaRo})
	if err != nil {
		return err
	}
	if err := r.stageSetup(2, opt); err != nil {
		return err
	}
	sound := r.s.cfg.Mode == core.ModeSound
	m.trainMu = !sound
	if m.trainMu {
		if r.muOpt, err = nn.NewAdadelta(len(m.mu.Data), nn.AdadeltaConfig{LR: DefaultStage2LR, Rho: DefaultAdadeltaRo}); err != nil {
			return err
		}
	}
	r.ctl.Emit(core.StageEvent{Stage: 2, Name: "cluster: ZINB + DEC KL + cluster–cluster loss", Steps: r.planned[1]})
	r.encode()
	if sound {
		if err := r.privateCentroids(ctx); err != nil || r.exhausted {
			return err
		}
	} else if _, err := m.kmeansCentroids(ctx, r.emb, r.s.cfg.Seed, r.s.opt.InitRestarts); err != nil {
		return err
	}
	before := func(epoch int) error {
		r.encode()
		if every := r.resetEvery(); every > 0 && epoch > 1 && (epoch-1)%every == 0 {
			if _, err := m.kmeansCentroids(ctx, r.emb, r.s.cfg.Seed+uint64(epoch), r.s.opt.InitRestarts); err != nil {
				return err
			}
		}
		m.refreshTarget(r.emb, sound)
		return nil
	}
	return r.train(ctx, 2, m.stage2Loss, before)
}

// resetEvery returns the epochs between k-means re-sets of the stage-2
// centroids, 0 for never (Options.ResetEvery).
func (r *runState) resetEvery() int {
	switch e := r.s.opt.ResetEvery; {
	case r.s.cfg.Mode == core.ModeSound || e < 0:
		return 0
	case e > 0:
		return e
	case r.s.cfg.Mode == core.ModePaper:
		return DefaultResetEvery
	}
	return 0
}

// privateCentroids runs sound mode's DP k-means after admitting its
// releases through the filter and recording them in the ledger.
func (r *runState) privateCentroids(ctx context.Context) error {
	o := r.s.opt
	z, count := o.KMeansNoiseRatio*r.sigma, 2*o.KMeansIterations
	if !r.priv.fits(1, z, count) {
		r.exhaust("the DP k-means of the stage-2 centroids")
		return nil
	}
	if err := r.priv.record(compCentroids, 1, z, count); err != nil {
		return err
	}
	r.kmDone = true
	rng := rand.New(rand.NewPCG(r.s.cfg.Seed, streamKMeans))
	if r.s.cfg.SecureNoise {
		var key [32]byte
		crand.Read(key[:])
		rng = rand.New(rand.NewChaCha8(key))
	}
	rel, err := r.m.dpCentroids(ctx, r.emb, o.KMeansIterations, z, o.EmbedClip, rng)
	if err != nil {
		return err
	}
	n := 0
	for _, g := range rel {
		n += g.Count
	}
	if n != count {
		return fmt.Errorf("dcan: DP k-means made %d releases, %d were recorded", n, count)
	}
	return nil
}

// exhaust stops noisy training and says so, in a warning now and in the
// run's DoneEvent (an early end, never "finished").
func (r *runState) exhaust(what string) {
	r.exhausted = true
	r.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
		"privacy budget exhausted before step %d (%s): ε = %s spent of the target %s at δ = %s; noisy training stops and the run finishes its evaluation",
		r.step+1, what, fmtG(r.priv.spentRDP()), fmtG(r.priv.target), fmtG(r.priv.delta))})
	r.ctl.EndEarly(core.OutcomeBudgetExhausted, fmt.Sprintf("ε = %s of the target %s spent at step %d of %d (%s)",
		fmtG(r.priv.spentRDP()), fmtG(r.priv.target), r.step, r.planned[0]+r.planned[1], what))
}

// encode runs the encoder on every cell into the embedding unless it
// already holds the codes of the current parameters: an epoch's
// evaluation and the next epoch's target refresh (or stage 2's start)
// see the same parameters, and the encoder pass over all cells was a
// tenth of stage 2.
func (r *runState) encode() {
	if r.encoded == r.step+1 {
		return
	}
	r.m.encodeAll(r.emb)
	r.encoded = r.step + 1
}
