package fed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// byolLearner is FedSC's federated BYOL. The server state, every client's
// online model and every update are one vector laid out as
// [encoder parameters | predictor parameters | encoder BatchNorm running
// statistics]; each client keeps its own online model and EMA target
// between rounds.
type byolLearner struct {
	x                   compute.Matrix
	p                   Params
	seed                uint64
	encNP, predNP, encS int
	dim                 int
	server              []float32
	clients             []byolClient
}

// byolClient is one client's state across rounds.
type byolClient struct {
	online []float32 // full layout
	target []float32 // [encoder parameters | encoder statistics]
	lambda float64   // FedEMA's λ_k (or calibrated's α·d_k⁰), fixed at the first divergence-aware update
	begun  bool
}

// encoderSpec describes FedSC's encoder G→w1→…→wL: Linear–BatchNorm–ReLU
// between hidden layers, a linear last layer, and L2 normalisation, with
// Glorot-uniform weights: contrastive-sc's encoder (its models.py), whose
// widths [200, 40, 60] FedSC §4.1 takes and whose initialisation the paper
// does not restate. The first layer's backward skips ∂L/∂x (the input is
// data).
func encoderSpec(genes int, widths []int, rows int) *netSpec {
	s := &netSpec{maxRows: rows, xavier: true}
	prev := genes
	for i, w := range widths {
		s.linear(prev, w, i > 0)
		if i < len(widths)-1 {
			s.batchNorm(w)
			s.relu(w)
		}
		prev = w
	}
	s.l2norm(prev)
	return s
}

// predictorSpec describes the predictor D→H→D, Linear–BatchNorm–ReLU–
// Linear: BYOL's predictor MLP as the FedEMA reference code builds it
// (EasyFL applications/fedssl model.py, MLP with two layers), which FedSC's
// federation follows; the paper's "one linear layer with the output
// dimension of 128" cannot meet a 60-wide target, so 128 is read as H. Its
// BatchNorm runs on batch statistics only (the predictor is not used at
// evaluation), so its running statistics stay in the worker and are
// neither sent nor averaged.
func predictorSpec(dim, hidden, rows int) *netSpec {
	s := &netSpec{maxRows: rows}
	s.linear(dim, hidden, true)
	s.batchNorm(hidden)
	s.relu(hidden)
	s.linear(hidden, dim, true)
	return s
}

func newBYOLLearner(x compute.Matrix, p Params, seed uint64) (*byolLearner, error) {
	l := &byolLearner{x: x, p: p, seed: seed, dim: p.Encoder[len(p.Encoder)-1]}
	enc := encoderSpec(x.Cols, p.Encoder, 1).done(seed)
	pred := predictorSpec(l.dim, p.PredictorHidden, 1).done(seed + 1)
	l.encNP, l.predNP, l.encS = len(enc.params), len(pred.params), len(enc.stats)
	l.server = make([]float32, 0, l.size())
	l.server = append(append(append(l.server, enc.params...), pred.params...), enc.stats...)
	return l, nil
}

func (l *byolLearner) size() int        { return l.encNP + l.predNP + l.encS }
func (l *byolLearner) state() []float32 { return l.server }

// weights is the length of the state's weights (encoder then predictor),
// before the encoder's BatchNorm statistics.
func (l *byolLearner) weights() int { return l.encNP + l.predNP }

// kept is the span [lo, hi) of the state that each client keeps to itself
// and never uploads: the predictor under PredictorLocal, empty otherwise.
func (l *byolLearner) kept() (lo, hi int) {
	if l.p.Predictor == PredictorLocal {
		return l.encNP, l.weights()
	}
	return 0, 0
}

// keptSpan is the learner's kept span (byolLearner.kept), empty for a
// learner whose clients upload everything.
func keptSpan(l learner) (lo, hi int) {
	if bl, ok := l.(*byolLearner); ok {
		return bl.kept()
	}
	return 0, 0
}

// resetClients gives k clients a fresh state: they start from the global
// model at their next round.
func (l *byolLearner) resetClients(k int) {
	l.clients = make([]byolClient, k)
	for c := range l.clients {
		l.clients[c] = byolClient{online: make([]float32, l.size()), target: make([]float32, l.encNP+l.encS)}
	}
}

func (l *byolLearner) newWorker() (worker, error) {
	b, g := l.p.Batch, l.x.Cols
	rows := max(b, 256)
	w := &byolWorker{l: l,
		enc:  encoderSpec(g, l.p.Encoder, rows).done(l.seed),
		tgt:  encoderSpec(g, l.p.Encoder, rows).done(l.seed),
		pred: predictorSpec(l.dim, l.p.PredictorHidden, rows).done(l.seed + 1),
		v1:   compute.NewMatrix(b, g, nil), v2: compute.NewMatrix(b, g, nil),
		t1: compute.NewMatrix(b, l.dim, nil), t2: compute.NewMatrix(b, l.dim, nil),
		dp: compute.NewMatrix(b, l.dim, nil), scratch: compute.NewMatrix(b, l.dim, nil)}
	return w, nil
}

type byolWorker struct {
	l              *byolLearner
	enc, tgt, pred *seqNet
	v1, v2         compute.Matrix
	t1, t2, dp     compute.Matrix
	scratch        compute.Matrix
	perm           []int
	pooled         *seqNet // EvalBNPooled's encoder, built at its first use
	dec            decorr  // Params.Decorr's buffers
}

func (w *byolWorker) embedDim() int { return w.l.dim }

// divergenceMu returns μ_k of the client update rule for divergence
// d = ‖W_g − W_k‖ of the encoder parameters (see Divergence).
func divergenceMu(rule Divergence, alpha float64, lambda *float64, d float64) float64 {
	switch rule {
	case DivergenceOff:
		return 0
	case DivergencePrinted:
		if d == 0 {
			return 1
		}
		return min(alpha/d, 1)
	case DivergenceCalibrated:
		if *lambda == 0 {
			if d == 0 {
				return 1 // nothing to mix; calibrate at the first d > 0
			}
			*lambda = alpha * d
		}
		return min(*lambda/d, 1) // the printed rule with radius α·d₀ (d = 0 gives +Inf, so 1)
	}
	if *lambda == 0 {
		if d == 0 {
			return 0
		}
		*lambda = alpha / d
	}
	return min(*lambda*d, 1)
}

// startClient brings client c's online model to the start of round round
// (1-based): the global model at its first round, W_k ← μ_k W_k +
// (1 − μ_k) W_g after, with μ_k = 0 in the FedAvg warm-up (rounds up to
// Params.Warmup), so the divergence rule (and the calibrated rule's d_k⁰)
// starts at the first round after it. Under TargetMix the target takes the
// same μ_k-mix; under PredictorLocal the predictor is left as the client's.
func (l *byolLearner) startClient(c, round int) {
	st, g := &l.clients[c], l.server
	if !st.begun {
		copy(st.online, g)
		copy(st.target, g[:l.encNP])
		copy(st.target[l.encNP:], g[l.encNP+l.predNP:])
		st.begun = true
		return
	}
	d := 0.0
	for i, v := range g[:l.encNP] {
		e := float64(v) - float64(st.online[i])
		d += e * e
	}
	var mu float32 // the warm-up's: take the global model whole
	if round > l.p.Warmup {
		mu = float32(divergenceMu(l.p.Divergence, l.p.DivergenceAlpha, &st.lambda, math.Sqrt(d)))
	}
	mixed := len(g)
	if l.p.BNStats != BNMix {
		mixed = l.encNP + l.predNP // the running statistics are set below
	}
	// the kept span (the predictor under PredictorLocal) stays the
	// client's own
	lo, hi := l.kept()
	mixInto(st.online[:lo], g[:lo], mu)
	mixInto(st.online[hi:mixed], g[hi:mixed], mu)
	if l.p.BNStats == BNGlobal {
		copy(st.online[mixed:], g[mixed:])
	}
	if l.p.Target == TargetMix {
		// the target takes the online encoder's download: its parameters,
		// then its statistics as the online ones (target and online
		// statistics sit at st.target[encNP:] and g[encNP+predNP:])
		tp, ts, gs := st.target[:l.encNP], st.target[l.encNP:], g[l.encNP+l.predNP:]
		for i, v := range g[:l.encNP] {
			tp[i] = mu*tp[i] + (1-mu)*v
		}
		switch l.p.BNStats {
		case BNMix:
			for i, v := range gs {
				ts[i] = mu*ts[i] + (1-mu)*v
			}
		case BNGlobal:
			copy(ts, gs)
		}
	}
}

// mixInto sets dst ← mu·dst + (1 − mu)·src, Eq. (3)'s download.
func mixInto(dst, src []float32, mu float32) {
	for i, v := range src {
		dst[i] = mu*dst[i] + (1-mu)*v
	}
}

// mask writes the masked view dst = x ⊙ m/(1−p), m ~ Bernoulli(1−p), of the
// rows of x. Entry j of a row is kept when u ≥ p for u = Float64() of a
// rand.Rand on src, i.e. when the 53 low bits of src.Uint64() are at least
// ⌈p·2⁵³⌉ (Float64 is those bits / 2⁵³, exactly): the same draws and the
// same mask as calling Float64, without its indirect call per entry, and a
// dropped entry written as +0 without a branch.
func (w *byolWorker) mask(dst compute.Matrix, rows []int, src *rand.PCG) {
	p := w.l.p.MaskProb
	scale := float32(1 / (1 - p))
	thr := uint64(math.Ceil(p * (1 << 53)))
	for r, i := range rows {
		xr := w.l.x.RawRowView(i)
		d := dst.RawRowView(r)[:len(xr)]
		for j, v := range xr {
			u := src.Uint64() << 11 >> 11
			// keep = 1 when u ≥ thr (both < 2⁵³, so u − thr wraps only when u < thr)
			keep := uint32((u-thr)>>63) ^ 1
			d[j] = math.Float32frombits(math.Float32bits(v*scale) & -keep)
		}
	}
}

// local runs FedSC's local training of client j.client: for every
// mini-batch, two masked views, the symmetric BYOL loss
// (2 − 2cos(q(f(v1)), sg(t(v2)))) + (2 − 2cos(q(f(v2)), sg(t(v1)))) averaged
// over the batch, an SGD step (momentum, weight decay) on the online
// encoder f and predictor q, then the target update t ← τt + (1 − τ)f.
// A last batch of a single cell is skipped (BatchNorm needs two rows).
func (w *byolWorker) local(ctx context.Context, j job) (float64, error) {
	l := w.l
	l.startClient(j.client, j.round)
	st := &l.clients[j.client]
	copy(w.enc.params, st.online[:l.encNP])
	copy(w.pred.params, st.online[l.encNP:l.encNP+l.predNP])
	copy(w.enc.stats, st.online[l.encNP+l.predNP:])
	copy(w.tgt.params, st.target[:l.encNP])
	copy(w.tgt.stats, st.target[l.encNP:])
	cfg := nn.SGDConfig{LR: j.lr, Momentum: l.p.Momentum, WeightDecay: l.p.WeightDecay}
	sgdE, err := nn.NewSGD(l.encNP, cfg)
	if err != nil {
		return 0, err
	}
	sgdP, err := nn.NewSGD(l.predNP, cfg)
	if err != nil {
		return 0, err
	}
	w.perm = append(w.perm[:0], j.cells...)
	src := rand.NewPCG(l.seed, stream(streamMasks, j.round, j.client))
	rng := rand.New(src) // the shuffles; the masks draw from src directly
	tau := float32(l.p.EMADecay)
	tau1 := 1 - tau
	ep, tp := w.enc.params, w.tgt.params[:len(w.enc.params)]
	total, steps := 0.0, 0
	for range l.p.LocalEpochs {
		rng.Shuffle(len(w.perm), func(a, b int) { w.perm[a], w.perm[b] = w.perm[b], w.perm[a] })
		for s := 0; s < len(w.perm); s += l.p.Batch {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			rows := w.perm[s:min(s+l.p.Batch, len(w.perm))]
			if len(rows) < 2 {
				continue
			}
			loss := w.step(rows, src)
			if err := nn.CheckFinite("local loss", loss); err != nil {
				return 0, fmt.Errorf("fed: round %d, client %d: %w", j.round, j.client+1, err)
			}
			sgdE.Step(w.enc.params, w.enc.grads)
			sgdP.Step(w.pred.params, w.pred.grads)
			for i, v := range ep {
				tp[i] = tau*tp[i] + tau1*v
			}
			total += loss
			steps++
		}
	}
	copy(st.online, w.enc.params)
	copy(st.online[l.encNP:], w.pred.params)
	copy(st.online[l.encNP+l.predNP:], w.enc.stats)
	copy(st.target, w.tgt.params)
	copy(st.target[l.encNP:], w.tgt.stats)
	for i, v := range st.online {
		j.out[i] = v - l.server[i]
	}
	lo, hi := l.kept()
	clear(j.out[lo:hi]) // not uploaded
	if steps == 0 {
		return 0, nil
	}
	return total / float64(steps), nil
}

// step computes the gradients of one batch's symmetric BYOL loss into the
// online networks' grads and returns the loss averaged over the batch.
func (w *byolWorker) step(rows []int, src *rand.PCG) float64 {
	n, d := len(rows), w.l.dim
	v1, v2 := w.v1.View(0, 0, n, w.l.x.Cols), w.v2.View(0, 0, n, w.l.x.Cols)
	w.mask(v1, rows, src)
	w.mask(v2, rows, src)
	t1, t2 := w.t1.View(0, 0, n, d), w.t2.View(0, 0, n, d)
	compute.Copy(t1, w.tgt.forward(v1, true))
	compute.Copy(t2, w.tgt.forward(v2, true))
	clear(w.enc.grads)
	clear(w.pred.grads)
	return (w.half(v1, t2) + w.half(v2, t1)) / float64(n)
}

// half adds the gradient of Σ_i (2 − 2cos(q(f(v)_i), t_i)) / n into the
// online grads, with t held constant (stop-gradient), and returns the sum;
// with Params.Decorr = β > 0, also that of β·L(f(v)) (FedDecorr, see
// decorr), whose n·β·L the sum then includes.
func (w *byolWorker) half(v, t compute.Matrix) float64 {
	n := v.Rows
	z := w.enc.forward(v, true)
	p := w.pred.forward(z, true)
	dp, scr := w.dp.View(0, 0, n, w.l.dim), w.scratch.View(0, 0, n, w.l.dim)
	dp.Zero()
	scr.Zero()
	neg := nn.NegCosine(dp, scr, p, t, float32(2/float64(n)))
	dz := w.pred.backward(dp)
	sum := 2*float64(n) + 2*neg
	if b := w.l.p.Decorr; b > 0 {
		sum += float64(n) * w.dec.addGrad(z, dz, b)
	}
	w.enc.backward(dz)
	return sum
}

// embed writes the global online encoder's L2-normalised output for every
// cell, with the BatchNorm statistics Params.EvalBN names. FedSC has no
// server-side loss: it returns NaN.
func (w *byolWorker) embed(dst []float64) (int, float64) {
	return w.embedWith(dst, w.l.p.EvalBN)
}

// embedWith is embed with the BatchNorm statistics ev: the global running
// statistics in batches, or (EvalBNPooled) one training-mode forward of
// every cell through a copy of the encoder sized for all of them, whose
// BatchNorm layers then normalise by the exact mean and (biased) variance
// of all cells at their input, layer by layer.
func (w *byolWorker) embedWith(dst []float64, ev EvalBN) (int, float64) {
	l := w.l
	if ev == EvalBNPooled {
		if w.pooled == nil || w.pooled.ops[0].(*linearOp).y.Rows < l.x.Rows {
			w.pooled = encoderSpec(l.x.Cols, l.p.Encoder, l.x.Rows).done(l.seed)
		}
		copy(w.pooled.params, l.server[:l.encNP])
		w.write(dst, 0, w.pooled.forward(l.x, l.x.Rows > 1))
		return l.dim, math.NaN()
	}
	copy(w.enc.params, l.server[:l.encNP])
	copy(w.enc.stats, l.server[l.encNP+l.predNP:])
	rows := w.v1.Rows
	if r := w.enc.ops[0].(*linearOp).y.Rows; r > rows {
		rows = r
	}
	for s := 0; s < l.x.Rows; s += rows {
		r := min(rows, l.x.Rows-s)
		w.write(dst, s, w.enc.forward(l.x.View(s, 0, r, l.x.Cols), false))
	}
	return l.dim, math.NaN()
}

// write copies the embeddings z of cells s, s+1, … into dst.
func (w *byolWorker) write(dst []float64, s int, z compute.Matrix) {
	for i := range z.Rows {
		for c, v := range z.RawRowView(i) {
			dst[(s+i)*w.l.dim+c] = float64(v)
		}
	}
}

// centralNoiseToSignal is the lower bound ρ on the ratio of the
// aggregator's noise to the signal over a run of FedSC's client-level DP
// extension: in each of rounds rounds, about q·k clients add updates
// clipped to C to the sum, and the aggregator adds N(0, z²C²) to each of
// its weights. Over the run the clipped parts add up to at most
// rounds·q·k·C in norm, and the noise, independent across rounds and
// weights, has norm z·C·√(rounds·weights). So
//
//	ρ = z·√weights / (q·k·√rounds),
//
// which, with z ≈ √rounds/μ for a μ-GDP budget (q = 1), is √weights/(k·μ):
// fixed by the budget, the model's size and the number of clients, not by
// the rounds, C or the learning rate. At ρ ≥ 1 no sequence of clipped
// updates can outweigh the noise.
func centralNoiseToSignal(z float64, weights, rounds, k int, q float64) float64 {
	if rounds < 1 || k < 1 || !(q > 0) {
		return 0
	}
	return z * math.Sqrt(float64(weights)) / (q * float64(k) * math.Sqrt(float64(rounds)))
}

// warnCentralNoise emits a WarningEvent when FedSC's central noise swamps
// what the clients' clipped updates can carry (centralNoiseToSignal ≥ 1):
// with FedSC's K = 4 clients and its ~10⁵–10⁶ weights, ρ is in the tens at
// every ε (docs/RESULTS.md, "FedSC's client-level curve"), so a run that
// stays at or below its untrained encoder says why.
func (s *sim) warnCentralNoise() {
	pr := s.pr
	q := pr.p.ClientRate
	if q == 0 { // Params not through withDefaults: every client
		q = DefaultClientRate
	}
	lo, hi := keptSpan(s.l)
	weights := s.l.size() - (hi - lo) // the kept span's noise is dropped
	rho := centralNoiseToSignal(pr.z, weights, pr.planned, s.k, q)
	if rho < 1 {
		return
	}
	s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf(
		"utility: the aggregator's noise swamps the clipped client updates — over the %d planned rounds its norm is at least ρ = σ·√P/(q·K·√R) = %.3g times the largest total the clipped updates can make (σ = %.4g·C, P = %d weights, K = %d clients, q = %.3g), so the global model stays where noise puts it and its clustering is expected at or below the untrained encoder's (the null line); ρ is about √P/(K·μ) for a μ-GDP budget, so ρ < 1 would need about P/ρ² weights or ρ times more clients (docs/RESULTS.md, \"FedSC's client-level curve\")",
		pr.planned, rho, pr.z, weights, s.k, q)})
}
