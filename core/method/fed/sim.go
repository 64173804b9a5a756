package fed

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/core/safe"
	"github.com/dpscope/dpscope/datasets"
)

// Purposes of the random streams: every generator is
// rand.NewPCG(Config.Seed, stream(purpose, round, client)), so a run
// reproduces bit for bit under any scheduling of its goroutines.
const (
	streamBatches = iota + 1
	streamNoise
	streamDR
	streamCentral
	streamMasks
	streamKMeans
	streamClients
	streamFront
)

// stream packs a purpose, a round and a client into a PCG stream id.
func stream(purpose, round, client int) uint64 {
	return uint64(purpose)<<56 | uint64(round)<<24 | uint64(client)
}

// sim is the state of one running federation.
type sim struct {
	e        *Engine
	ctl      *core.Control
	d        *datasets.Preprocessed
	x        compute.Matrix
	l        learner
	pr       *privacy
	rp       *recPrivacy // UnitRecord's bookkeeping; then pr is nil
	k        int
	split    *datasets.Split
	segment  int
	upd      [][]float32
	sum      []float32
	losses   []float64
	ws       []worker
	lr       float64
	truth    []int
	clusters int
	emb      []float64
	pred     []int
	dim      int
	lastLoss float64
	// roundLoss holds the step loss reported for round 1 and for the
	// latest round, for warnLossRose.
	roundLoss [2]float64
	// identity says the network started as the identity on the front
	// end's leading components (rule G42).
	identity bool
	// active[c] says whether client c takes part in the current round
	// (FedSC's sound mode with client rate q < 1); nil: every client
	active []bool
	aud    *fedCanaries // the run's audit canaries (audit.go); nil: none
	// vel is FedSC's server velocity over the weights under
	// Params.ServerMomentum; nil until its first round
	vel []float32
	// segmentStart is the first round of the current split.
	segmentStart int
}

func (e *Engine) newSim(ctl *core.Control, d *datasets.Preprocessed) (*sim, error) {
	s := &sim{e: e, ctl: ctl, d: d, x: dataMatrix(d), lr: e.cfg.LearningRate, truth: d.Labels, clusters: e.p.Clusters}
	if s.clusters == 0 {
		if d.Labels == nil || len(d.Classes) < 1 {
			return nil, configErr("clusters", 0, "set when the data set has no labels")
		}
		s.clusters = len(d.Classes)
	}
	if s.clusters > d.Cells {
		return nil, configErr("clusters", s.clusters, fmt.Sprintf("at most the number of cells, %d", d.Cells))
	}
	var err error
	if e.p.Unit == UnitRecord {
		if s.rp, err = newRecPrivacy(e.cfg, e.rounds, e.p.LocalEpochs, e.p.CellClip); err != nil {
			return nil, err
		}
		s.rp.lrByNoise = e.lrByNoise
		if s.x, err = s.front(); err != nil {
			return nil, err
		}
	}
	if e.v.autoencoder() {
		s.l, err = newAELearner(s.x, e.p, e.cfg.Seed)
	} else {
		s.l, err = newBYOLLearner(s.x, e.p, e.cfg.Seed)
	}
	if err != nil {
		return nil, err
	}
	if s.rp != nil {
		s.l.(*aeLearner).dp = s.rp
		// Only the PCA front end orders its components (rule G42).
		if identityStart && e.p.Front == FrontPCA {
			if err := s.l.(*aeLearner).startAsIdentity(); err != nil {
				return nil, err
			}
			s.identity = true
		}
	} else if s.pr, err = newPrivacy(e.cfg, e.v, e.p, e.rounds, e.clients); err != nil {
		return nil, err
	}
	if err := s.redraw(e.clients, 1); err != nil {
		return nil, err
	}
	s.sum = make([]float32, s.l.size())
	s.pred = make([]int, d.Cells)
	return s, nil
}

// redraw draws the split for k clients from round on, opening a new ledger
// segment, and sizes the per-client buffers.
func (s *sim) redraw(k, round int) error {
	sp, cfg, err := s.drawSplit(k)
	if err != nil {
		return err
	}
	// Everything that can fail comes first, so a redraw that fails (a
	// live clients patch) leaves the run on its old split.
	for len(s.ws) < s.e.workers(k) {
		w, err := s.l.newWorker()
		if err != nil {
			return err
		}
		s.ws = append(s.ws, w)
	}
	s.split, s.k = sp, k
	s.segment++
	for len(s.upd) < k {
		s.upd = append(s.upd, make([]float32, s.l.size()))
	}
	s.upd = s.upd[:k]
	s.losses = make([]float64, k)
	s.l.resetClients(k)
	if s.pr != nil {
		s.pr.segment = fmt.Sprintf("K = %d from round %d", k, round)
	}
	s.segmentStart = round
	for _, n := range sp.Notes {
		s.ctl.Emit(core.WarningEvent{Message: "client split: " + n, Note: true})
	}
	s.ctl.Emit(core.StageEvent{Stage: s.segment, Steps: s.e.rounds - round + 1,
		Name: fmt.Sprintf("%s, K = %d clients, %s split (%s)", s.e.v.Name(), k, cfg, sizeRange(sp.Sizes()))})
	s.ctl.Emit(s.clientsEvent(round, cfg.String()))
	return nil
}

// drawSplit draws the split of the next segment for k clients, changing
// nothing: the same segment and k give the same split.
func (s *sim) drawSplit(k int) (*datasets.Split, datasets.SplitConfig, error) {
	cfg := s.e.split
	cfg.Clients, cfg.Seed = k, s.e.cfg.Seed+uint64(s.segment)*0x9E3779B97F4A7C15
	classes := len(s.d.Classes)
	if s.e.paperSplit {
		cfg = paperSplit(cfg, classes, s.d.Labels != nil)
	}
	var labels []int
	if cfg.Kind != datasets.SplitEqual || s.d.Labels != nil {
		labels = s.d.Labels
	}
	sp, err := datasets.NewSplit(s.d.Cells, labels, classes, cfg)
	if err != nil {
		return nil, cfg, fmt.Errorf("fed: %w", err)
	}
	return sp, cfg, nil
}

// paperSplit is FedSC's non-IID benchmark (§4.1) for K = cfg.Clients:
// every client holds S = ⌊classes/K⌋ classes (at least 1), which gives the
// paper's two settings with K = 4 — 2 of PBMC's 8 types, 4 of mouse
// bladder's 16 — and with ⌊classes/K⌋·K = classes, disjoint whole classes.
// Without labels there are no classes to split by: IID.
func paperSplit(cfg datasets.SplitConfig, classes int, labelled bool) datasets.SplitConfig {
	if !labelled || classes < 1 {
		cfg.Kind = datasets.SplitIID
		return cfg
	}
	cfg.Kind, cfg.ClassesPerClient = datasets.SplitNonIID, max(1, classes/cfg.Clients)
	return cfg
}

// sizeRange formats client sizes as "66–67 cells per client".
func sizeRange(sz []int) string {
	lo, hi := math.MaxInt, 0
	for _, n := range sz {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("%d cells per client", lo)
	}
	return fmt.Sprintf("%d–%d cells per client", lo, hi)
}

// describe returns the current split, one line per client ("client 1: 250
// cells, 2 classes (B, T)"), for the warning that K changed.
func (s *sim) describe() string { return strings.Join(s.split.Describe(s.d.Classes), "\n") }

// run is the round loop.
func (s *sim) run(ctx context.Context) error {
	e := s.e
	s.ctl.Emit(s.guarantee(false))
	s.warnNoise()
	if err := s.startAudit(); err != nil {
		return err
	}
	evaluated := false
	round := 0
	for r := 1; r <= e.rounds; r++ {
		if e.beforeRound != nil {
			e.beforeRound(r)
		}
		ps, err := s.ctl.Checkpoint(ctx)
		if err != nil {
			return err
		}
		if err := s.applyPatches(ps, r); err != nil {
			return err
		}
		if !s.pr.fits(s.k) || (s.rp != nil && !s.rp.fits()) {
			s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
				"budget exhausted: round %d would take the audited ε past the target %g; training stops", r, e.cfg.Epsilon)})
			s.ctl.EndEarly(core.OutcomeBudgetExhausted, fmt.Sprintf("round %d of %d would take the audited ε past the target %g", r, e.rounds, e.cfg.Epsilon))
			break
		}
		if err := s.clientsRound(ctx, r); err != nil {
			if !errors.Is(err, nn.ErrNonFinite) {
				return err
			}
			if e.cfg.Mode == core.ModeNonPrivate {
				// No noise to blame and no sound model to keep: a failure
				// that front ends can still call a divergence.
				return fmt.Errorf("%w: %w", core.ErrDiverged, err)
			}
			// Local training blew up, typically under the paper's noise
			// level: nothing of round r was released, so the server model of
			// round r−1 is kept, evaluated and reported, with the reason.
			s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
				"training diverged in round %d (%v): the noise added to the clients' updates overwhelms them; the model of round %d is kept and evaluated", r, err, r-1)})
			s.ctl.EndEarly(core.OutcomeDiverged, fmt.Sprintf("local training diverged in round %d of %d (%v); the model of round %d is kept", r, e.rounds, err, r-1))
			break
		}
		if err := s.serverStep(ctx, r); err != nil {
			return err
		}
		round = r
		if s.pr != nil {
			if err := s.pr.record(s.k); err != nil {
				return err
			}
		}
		if s.rp != nil {
			if err := s.rp.record(fmt.Sprintf("DP-SGD, K = %d from round %d", s.k, s.segmentStart)); err != nil {
				return err
			}
		}
		evaluated = r%e.p.EvalEvery == 0 || r == e.rounds
		if err := s.report(ctx, r, evaluated); err != nil {
			return err
		}
	}
	if !evaluated {
		if err := s.evaluate(ctx, round); err != nil {
			return err
		}
	}
	s.warnLossRose(round)
	s.ctl.Emit(s.result())
	s.ctl.Emit(s.guarantee(true))
	return s.emitAudit()
}

// guarantee returns the run's GuaranteeEvent, planned or final.
func (s *sim) guarantee(final bool) core.GuaranteeEvent {
	if s.rp != nil && s.rp.private {
		return s.rp.guarantee(s.e.v, final)
	}
	return s.pr.guarantee(s.e.v, s.e.cfg.Mode, s.k, final)
}

// clientsRound runs every client's local training on at most workers
// goroutines. Client k writes only upd[k] and losses[k]; nothing depends on
// which goroutine ran it.
func (s *sim) clientsRound(ctx context.Context, round int) error {
	s.sampleClients(round)
	lr := s.e.p.LRSchedule.rate(s.lr, round, s.e.rounds)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for w := range s.e.workers(s.k) {
		wk := s.ws[w]
		g.Go(safe.Func(func() error {
			for {
				c := int(next.Add(1) - 1)
				if c >= s.k {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				if !s.takesPart(c) {
					// not sampled: no training, nothing sent (its slot sums
					// as zero), its state and last loss kept
					clear(s.upd[c])
					continue
				}
				j := job{round: round, client: c, cells: s.split.Clients[c], lr: lr, out: s.upd[c]}
				loss, err := wk.local(gctx, j)
				if err != nil {
					return err
				}
				s.losses[c] = loss
				s.privatize(c, round)
			}
		}))
	}
	return g.Wait()
}

// sampleClients draws the round's participants in FedSC with client rate
// q < 1: each client independently with probability q
// (Poisson sampling, the subsampled Gaussian the accountant composes),
// from the stream (streamClients, round, 0). The draw is the aggregator's,
// and the guarantee assumes it stays hidden from whoever sees the models.
func (s *sim) sampleClients(round int) {
	q := s.e.p.ClientRate
	if s.e.v != FedSC || q >= 1 {
		s.active = nil
		return
	}
	rng := s.noiseRand(streamClients, round, 0)
	s.active = make([]bool, s.k)
	for c := range s.active {
		s.active[c] = rng.Float64() < q
	}
}

// sampledCells is the number of cells of the round's participants: FedSC's
// nonprivate size weights n_k/Σ n_j run over them.
func (s *sim) sampledCells() int {
	if s.active == nil {
		return s.d.Cells
	}
	n := 0
	for c, on := range s.active {
		if on {
			n += len(s.split.Clients[c])
		}
	}
	return max(n, 1)
}

// takesPart reports whether client c trains in the current round.
func (s *sim) takesPart(c int) bool { return s.active == nil || s.active[c] }

// privatize turns client c's raw update into what it uploads: weighted
// (ppml-omics φ_k = d_k/d; FedSC n_k/n without DP), clipped to C and
// noised locally in the private modes.
func (s *sim) privatize(c, round int) {
	u := s.upd[c]
	share := float32(float64(len(s.split.Clients[c])) / float64(s.sampledCells()))
	if s.e.v == PPMLOmics || (s.e.v == FedSC && s.pr == nil) {
		compute.Scal(share, u)
	}
	if s.pr == nil {
		s.localBefore(c, u)
		s.localAfter(c, u)
		return
	}
	ClipTo(u, s.pr.clip)
	s.localBefore(c, u)
	if std := s.pr.localStd(); std > 0 {
		AddNoise(u, std, s.noiseRand(streamNoise, round, c))
	}
	s.localAfter(c, u)
}

// noiseRand returns the generator of DP noise: seeded from Config.Seed, or
// a ChaCha8 keyed by crypto/rand with Config.SecureNoise.
func (s *sim) noiseRand(purpose, round, client int) *rand.Rand {
	if s.e.cfg.SecureNoise {
		var key [32]byte
		_, _ = crand.Read(key[:]) // never fails on supported platforms (Go ≥ 1.24)
		return rand.New(rand.NewChaCha8(key))
	}
	return rand.New(rand.NewPCG(s.e.cfg.Seed, stream(purpose, round, client)))
}

// serverStep aggregates the uploads and updates the server state:
// w ← w + γ·Σ_k u_k with γ = η/K (FL, FL-DP: w_t + η·mean Δ), η
// (PPML-Omics: φ-weighted sum), 1 (FedSC: size-weighted deltas) or 1/K
// (FedSC's DP extension, after the aggregator's noise; 1/(qK) with client
// rate q).
func (s *sim) serverStep(ctx context.Context, round int) error {
	ups := s.upd
	if s.e.v == PPMLOmics {
		rng := rand.New(rand.NewPCG(s.e.cfg.Seed, stream(streamDR, round, 0)))
		perm := SwapPermutation(s.k, rng)
		if s.e.p.Protocol == ProtocolFisherYates {
			perm = FisherYatesPermutation(s.k, rng)
		}
		ups = Permute(ups, perm)
	}
	if err := Aggregate(ctx, s.sum, ups, s.e.workers(s.k)); err != nil {
		return err
	}
	s.centralBefore(s.sum)
	if std := s.pr.centralStd(); std > 0 {
		AddNoise(s.sum, std, s.noiseRand(streamCentral, round, 0))
	}
	s.centralAfter(s.sum)
	// no client uploads its kept span (the predictor under
	// PredictorLocal): the noise on it is dropped (post-processing) and
	// the server's copy stays the initial one every client starts from
	lo, hi := keptSpan(s.l)
	clear(s.sum[lo:hi])
	gamma := 1.0
	switch {
	case s.e.v == FL || s.e.v == FLDP:
		gamma = s.lr / float64(s.k)
	case s.e.v == PPMLOmics:
		gamma = s.lr
	case s.pr != nil:
		// DP-FedAvg's fixed denominator qK (McMahan et al. 2018): dividing
		// by the number actually sampled would make it data-independent
		// only by luck; with q = 1 it is 1/K
		gamma = 1 / (s.e.p.ClientRate * float64(s.k))
	}
	if b := s.e.p.ServerMomentum; b > 0 && s.e.v == FedSC {
		s.momentumStep(float32(b), float32(gamma))
		return nil
	}
	compute.Axpy(float32(gamma), s.sum, s.l.state())
	return nil
}

// momentumStep applies FedSC's server momentum (Params.ServerMomentum):
// v ← β·v + γ·Σ, w ← w + v on the encoder and predictor weights, and the
// plain step w ← w + γ·Σ on the BatchNorm statistics after them. The
// velocity starts at 0 and lives for the run.
func (s *sim) momentumStep(beta, gamma float32) {
	w := s.l.state()
	n := s.l.(*byolLearner).weights()
	if s.vel == nil {
		s.vel = make([]float32, n)
	}
	for i := range s.vel {
		s.vel[i] = beta*s.vel[i] + gamma*s.sum[i]
		w[i] += s.vel[i]
	}
	compute.Axpy(gamma, s.sum[n:], w[n:])
}

// clientsEvent reports the current split as fields: K, the split's
// spelling, the cells and the classes of each client.
func (s *sim) clientsEvent(round int, split string) core.ClientsEvent {
	ev := core.ClientsEvent{Round: round, K: s.k, Split: split, Sizes: s.split.Sizes()}
	if s.split.Counts != nil {
		ev.Classes = make([][]string, s.k)
		for k := range s.k {
			for _, j := range s.split.ClientClasses(k) {
				name := strconv.Itoa(j + 1)
				if j < len(s.d.Classes) {
					name = s.d.Classes[j]
				}
				ev.Classes[k] = append(ev.Classes[k], name)
			}
		}
	}
	return ev
}

// noiseToSignal is a lower bound on the ratio of the local noise to the
// signal that clipped updates can carry over a run of fl-dp or
// ppml-omics: rounds rounds in which each of k clients uploads its update
// clipped to C plus N(0, z²C²) on each of the model's weights. The server
// adds the mean (fl-dp) or the φ-weighted sum (ppml-omics) of the uploads.
// Over the run the clipped parts of the mean add up to at most rounds·C in
// norm, and its noise, independent across clients, rounds and weights, has
// norm z·C·√(rounds·weights/k); in the sum they are rounds·k·C and
// z·C·√(rounds·k·weights), the same ratio. So
//
//	ρ = z·√(weights/(rounds·k)).
//
// At ρ ≥ 1 no sequence of clipped updates can outweigh the noise, whatever
// the learning rate.
func noiseToSignal(z float64, weights, rounds, k int) float64 {
	if rounds < 1 || k < 1 {
		return 0
	}
	return z * math.Sqrt(float64(weights)/(float64(rounds)*float64(k)))
}

// warnNoise emits a WarningEvent when the run's local noise swamps what
// its clipped updates can carry (noiseToSignal ≥ 1): a private run of
// fl-dp or ppml-omics that then stays at its untrained twin says why
// (FedSC's central noise: warnCentralNoise).
func (s *sim) warnNoise() {
	pr := s.pr
	if pr == nil || pr.z == 0 {
		return
	}
	if s.e.v == FedSC {
		s.warnCentralNoise()
		return
	}
	rho := noiseToSignal(pr.z, s.l.size(), pr.planned, s.k)
	if rho < 1 {
		return
	}
	s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
		"utility: the local noise swamps the clipped updates — over the %d planned rounds its norm is at least ρ = σ·√(P/(R·K)) = %.3g times the largest total the clipped updates can make (σ = %.4g·C, P = %d weights, K = %d clients), so the model stays where noise puts it and its clustering is expected at its untrained twin's (the null line), whatever the learning rate; ρ < 1 would need about P/ρ² weights or ρ² times more clients (docs/RESULTS.md, \"FL-DP and PPML-Omics in sound mode\")",
		pr.planned, rho, pr.z, s.l.size(), s.k)})
}

// warnLossRose emits a WarningEvent when a private record-unit run that
// started from the identity (rule G42) ends with its server model's loss
// above round 1's: the steps' noise then outweighs what they carry and
// moves the network away from its start. A user who sees the loss climb
// should know that it is the noise, not a fault.
func (s *sim) warnLossRose(rounds int) {
	if !s.identity || !s.rp.private || rounds < 2 || !(s.roundLoss[1] > s.roundLoss[0]) {
		return
	}
	s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
		"utility: the training loss rose from %.4g (round 1) to %.4g (round %d): at this ε the noise in the clients' DP-SGD steps outweighs what the steps carry, so training moves the network away from its start (the identity on the private projection's leading components) rather than towards a better fit; the clustering is then mostly the projection's",
		s.roundLoss[0], s.roundLoss[1], rounds)})
}
