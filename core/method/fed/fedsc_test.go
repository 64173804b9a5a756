package fed

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// TestBYOLGradient checks the gradient of FedSC's half loss
// Σ_i (2 − 2cos(q(f(v)_i), t_i))/n with respect to every parameter of the
// online encoder f (Linear, BatchNorm in training mode, ReLU, L2
// normalisation) and the predictor q against central finite differences
// (step 1e-2 in float32; tolerance 2e-2 relative plus 2e-3 absolute).
func TestBYOLGradient(t *testing.T) {
	const n, g = 6, 5
	rng := rand.New(rand.NewPCG(1, 1))
	x := normalMatrix(rng, n, g)
	p := Params{Encoder: []int{4, 3}, PredictorHidden: 4, Batch: n}.withDefaults(FedSC)
	l, err := newBYOLLearner(x, p, 2)
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := l.newWorker()
	w := wk.(*byolWorker)
	tgt := normalMatrix(rng, n, 3)
	loss := func() float64 {
		clear(w.enc.grads)
		clear(w.pred.grads)
		return w.half(x, tgt) / n
	}
	loss()
	analytic := append(append([]float32(nil), w.enc.grads...), w.pred.grads...)
	params := [][]float32{w.enc.params, w.pred.params}
	idx := 0
	for _, ps := range params {
		for i := range ps {
			old := ps[i]
			ps[i] = old + 1e-2
			lp := loss()
			ps[i] = old - 1e-2
			lm := loss()
			ps[i] = old
			fd := (lp - lm) / 2e-2
			a := float64(analytic[idx])
			if math.Abs(fd-a) > 2e-2*math.Abs(fd)+2e-3 {
				t.Errorf("parameter %d: analytic %.5f, finite difference %.5f", idx, a, fd)
			}
			idx++
		}
	}
}

// TestBatchNormEval checks evaluation mode against the formula with the
// running statistics, and that training mode moves them by momentum 0.1.
func TestBatchNormEval(t *testing.T) {
	s := &netSpec{maxRows: 4}
	s.batchNorm(2)
	net := s.done(1)
	bn := net.ops[0].(*batchNormOp)
	x := compute.NewMatrix(4, 2, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	net.forward(x, true)
	// column 0: mean 4, unbiased variance 20/3
	if math.Abs(float64(bn.rmean[0])-0.4) > 1e-6 || math.Abs(float64(bn.rvar[0])-(0.9+0.1*20.0/3)) > 1e-5 {
		t.Errorf("running stats (%v, %v), want (0.4, %v)", bn.rmean[0], bn.rvar[0], 0.9+0.1*20.0/3)
	}
	bn.gamma[1], bn.beta[1] = 2, 1
	y := net.forward(x, false)
	want := 2*(2-float64(bn.rmean[1]))/math.Sqrt(float64(bn.rvar[1])+bnEps) + 1
	if math.Abs(float64(y.At(0, 1))-want) > 1e-5 {
		t.Errorf("eval output %v, want %v", y.At(0, 1), want)
	}
}

func TestDivergenceMu(t *testing.T) {
	var lambda float64
	// FedEMA: first update μ = α (λ = α/d₀), then λ·d.
	if mu := divergenceMu(DivergenceFedEMA, 0.7, &lambda, 2); math.Abs(mu-0.7) > 1e-12 || lambda != 0.35 {
		t.Errorf("first FedEMA μ = %v, λ = %v, want 0.7, 0.35", mu, lambda)
	}
	if mu := divergenceMu(DivergenceFedEMA, 0.7, &lambda, 1); math.Abs(mu-0.35) > 1e-12 {
		t.Errorf("FedEMA μ at d = 1 = %v, want 0.35", mu)
	}
	if mu := divergenceMu(DivergenceFedEMA, 0.7, &lambda, 10); mu != 1 {
		t.Errorf("FedEMA μ at d = 10 = %v, want 1 (capped)", mu)
	}
	if mu := divergenceMu(DivergencePrinted, 0.7, new(float64), 0.5); mu != 1 {
		t.Errorf("printed μ at small d = %v, want 1", mu)
	}
	if mu := divergenceMu(DivergencePrinted, 0.7, new(float64), 7); math.Abs(mu-0.1) > 1e-12 {
		t.Errorf("printed μ at d = 7 = %v, want 0.1", mu)
	}
	if mu := divergenceMu(DivergenceOff, 0.7, new(float64), 7); mu != 0 {
		t.Errorf("off μ = %v, want 0", mu)
	}
	// Calibrated: d = 0 leaves λ unset and μ = 1; the first d > 0 sets
	// λ = α·d₀ and gives μ = α; then μ = λ/d, capped at 1 below λ.
	var cal float64
	if mu := divergenceMu(DivergenceCalibrated, 0.7, &cal, 0); mu != 1 || cal != 0 {
		t.Errorf("calibrated μ at d = 0: %v (λ %v), want 1 with λ unset", mu, cal)
	}
	if mu := divergenceMu(DivergenceCalibrated, 0.7, &cal, 0.25); math.Abs(mu-0.7) > 1e-12 || math.Abs(cal-0.175) > 1e-12 {
		t.Errorf("first calibrated μ = %v, λ = %v, want 0.7, 0.175", mu, cal)
	}
	if mu := divergenceMu(DivergenceCalibrated, 0.7, &cal, 0.875); math.Abs(mu-0.2) > 1e-12 {
		t.Errorf("calibrated μ at d = 0.875 = %v, want 0.2", mu)
	}
	if mu := divergenceMu(DivergenceCalibrated, 0.7, &cal, 0.1); mu != 1 {
		t.Errorf("calibrated μ at d = 0.1 < λ = %v, want 1", mu)
	}
	if mu := divergenceMu(DivergenceCalibrated, 1, new(float64), 3); mu != 1 {
		t.Errorf("calibrated μ with α = 1 = %v, want 1 (the client keeps itself)", mu)
	}
}

// TestDivergenceParse checks that every rule's name parses back to it
// through the option map, and that an unknown one is a config error.
func TestDivergenceParse(t *testing.T) {
	for _, d := range []Divergence{DivergencePrinted, DivergenceFedEMA, DivergenceOff, DivergenceCalibrated} {
		p, err := ParamsFromOptions(map[string]string{"divergence": d.String()})
		if err != nil || p.Divergence != d {
			t.Errorf("divergence=%s: %v, %v", d, p.Divergence, err)
		}
	}
	if _, err := ParamsFromOptions(map[string]string{"divergence": "scaled"}); !errors.Is(err, ErrConfig) {
		t.Errorf("divergence=scaled: %v, want ErrConfig", err)
	}
	if err := (Params{Divergence: 9}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("Divergence(9) validates: %v", err)
	}
}

// TestMaskMatchesFloat64 checks that the masks drawn from the PCG directly
// are those of the definition, entry kept when rand.Rand.Float64() ≥ p on
// the same stream, to the bit (dropped entries +0), for several p.
func TestMaskMatchesFloat64(t *testing.T) {
	const n, g = 7, 33
	rng := rand.New(rand.NewPCG(3, 4))
	x := normalMatrix(rng, n, g)
	rows := []int{6, 0, 3, 3, 1}
	for _, p := range []float64{0, 0.1, 0.5, 0.9, 0.999} {
		l := &byolLearner{x: x, p: Params{MaskProb: p}}
		w := &byolWorker{l: l}
		got := compute.NewMatrix(len(rows), g, nil)
		w.mask(got, rows, rand.NewPCG(5, 6))
		ref := rand.New(rand.NewPCG(5, 6))
		scale := float32(1 / (1 - p))
		for r, i := range rows {
			for j := range g {
				want := float32(0)
				if ref.Float64() >= p {
					want = x.At(i, j) * scale
				}
				if math.Float32bits(got.At(r, j)) != math.Float32bits(want) {
					t.Fatalf("p = %v, row %d, gene %d: %v, want %v", p, r, j, got.At(r, j), want)
				}
			}
		}
	}
}

// TestStartClientCalibrated checks the calibrated rule where a client
// takes it: at its first divergence-aware update a client keeps α of
// itself (μ = α), and at every later one it starts within λ = α·d₀ of the
// global model, however far it drifted.
func TestStartClientCalibrated(t *testing.T) {
	l := &byolLearner{p: Params{Divergence: DivergenceCalibrated, DivergenceAlpha: 0.7}, encNP: 2, predNP: 1, encS: 1}
	l.server = []float32{1, 1, 0, 0}
	l.resetClients(1)
	l.startClient(0, 2) // first round: the global model whole
	st := &l.clients[0]
	for i, v := range l.server {
		if st.online[i] != v {
			t.Fatalf("first round online[%d] = %v, want the global %v", i, st.online[i], v)
		}
	}
	dist := func() float64 {
		a, b := float64(st.online[0]-l.server[0]), float64(st.online[1]-l.server[1])
		return math.Hypot(a, b)
	}
	st.online[0], st.online[1] = 1.3, 1.4 // d₀ = 0.5
	l.startClient(0, 2)
	if math.Abs(st.lambda-0.35) > 1e-6 || math.Abs(dist()-0.35) > 1e-6 {
		t.Fatalf("after the first update: λ = %v, distance %v, want 0.35, 0.35 (μ = α)", st.lambda, dist())
	}
	if math.Abs(float64(st.online[0])-(0.7*1.3+0.3)) > 1e-6 {
		t.Errorf("online[0] = %v, want 0.7·1.3 + 0.3·1", st.online[0])
	}
	st.online[0], st.online[1] = 4, 5 // d = 5
	l.startClient(0, 2)
	if math.Abs(dist()-0.35) > 1e-5 {
		t.Errorf("after a drift of 5 the client starts %v from the global model, want λ = 0.35", dist())
	}
	st.online[0], st.online[1] = 1.1, 1 // d = 0.1 < λ: kept whole
	l.startClient(0, 2)
	if math.Abs(dist()-0.1) > 1e-6 {
		t.Errorf("inside the radius the client moved: distance %v, want 0.1", dist())
	}
}

// TestStartClientWarmup checks the FedAvg warm-up: up to round Warmup a
// client starts from the global model whole however far it drifted, and
// the calibrated rule takes its d_k⁰ at the first round after it (μ = α
// there), not in the warm-up.
func TestStartClientWarmup(t *testing.T) {
	l := &byolLearner{p: Params{Divergence: DivergenceCalibrated, DivergenceAlpha: 0.7, Warmup: 3}, encNP: 2, predNP: 1, encS: 1}
	l.server = []float32{1, 1, 0, 0}
	l.resetClients(1)
	l.startClient(0, 1)
	st := &l.clients[0]
	for round := 2; round <= 3; round++ {
		st.online[0], st.online[1], st.online[2], st.online[3] = 4, 5, 6, 7
		l.startClient(0, round)
		for i, v := range l.server {
			if st.online[i] != v {
				t.Fatalf("warm-up round %d: online[%d] = %v, want the global %v", round, i, st.online[i], v)
			}
		}
		if st.lambda != 0 {
			t.Fatalf("warm-up round %d calibrated λ = %v, want none yet", round, st.lambda)
		}
	}
	st.online[0], st.online[1] = 1.3, 1.4 // d₀ = 0.5 at round 4
	l.startClient(0, 4)
	if math.Abs(st.lambda-0.35) > 1e-6 || math.Abs(float64(st.online[0])-(0.7*1.3+0.3)) > 1e-6 {
		t.Errorf("round 4: λ = %v, online[0] = %v; want 0.35 and 0.7·1.3 + 0.3·1 (μ = α)", st.lambda, st.online[0])
	}
}

// TestStartClientTarget checks what the target takes at a download: under
// TargetLocal nothing, under TargetMix the online encoder's μ-mix
// (μ = α at the calibrated rule's first update), its statistics as
// BNStats treats the online ones', and the online model the same as
// under TargetLocal.
func TestStartClientTarget(t *testing.T) {
	for _, c := range []struct {
		target TargetSync
		bn     BNStats
		want   []float32 // the target after the download
	}{
		{TargetLocal, BNMix, []float32{2, 3, 5}},
		{TargetMix, BNMix, []float32{0.7*2 + 0.3*1, 0.7*3 + 0.3*1, 0.7*5 + 0.3*0.5}},
		{TargetMix, BNGlobal, []float32{0.7*2 + 0.3*1, 0.7*3 + 0.3*1, 0.5}},
		{TargetMix, BNLocal, []float32{0.7*2 + 0.3*1, 0.7*3 + 0.3*1, 5}},
	} {
		l := &byolLearner{p: Params{Divergence: DivergenceCalibrated, DivergenceAlpha: 0.7, Target: c.target, BNStats: c.bn}, encNP: 2, predNP: 1, encS: 1}
		l.server = []float32{1, 1, 0, 0.5}
		l.resetClients(1)
		l.startClient(0, 1)
		st := &l.clients[0]
		copy(st.online, []float32{1.3, 1.4, 9, 4}) // d₀ = 0.5, so μ = α
		copy(st.target, []float32{2, 3, 5})
		l.startClient(0, 2)
		for i, w := range c.want {
			if math.Abs(float64(st.target[i]-w)) > 1e-6 {
				t.Errorf("target=%v bn=%v: target[%d] = %v, want %v", c.target, c.bn, i, st.target[i], w)
			}
		}
		if math.Abs(float64(st.online[0])-(0.7*1.3+0.3)) > 1e-6 || math.Abs(float64(st.online[2])-0.7*9) > 1e-6 {
			t.Errorf("target=%v bn=%v: online = %v, want the μ-mix 0.7·client + 0.3·global", c.target, c.bn, st.online)
		}
	}
}

// TestServerMomentum checks FedSC's server step over two rounds of the
// same uploads against hand values: plain FedAvg at β = 0, and at β = 0.5
// a velocity on the weights (v = 2, then 0.5·2 + 2 = 3) while the
// BatchNorm statistic after them takes the plain step (10 + 4 + 4). It
// fails when the velocity is skipped, kept across rounds wrongly, or
// applied to the statistics.
func TestServerMomentum(t *testing.T) {
	for _, tc := range []struct {
		beta float64
		want []float32
	}{
		{0, []float32{4, 4, 4, 18}},
		{0.5, []float32{5, 5, 5, 18}},
	} {
		l := &byolLearner{encNP: 2, predNP: 1, encS: 1, server: []float32{0, 0, 0, 10}}
		s := &sim{e: &Engine{v: FedSC, p: Params{ServerMomentum: tc.beta}}, l: l, k: 2,
			upd: [][]float32{{1, 2, 3, 4}, {1, 0, -1, 0}}, sum: make([]float32, 4)}
		for r := 1; r <= 2; r++ {
			if err := s.serverStep(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
		for i, w := range tc.want {
			if l.server[i] != w {
				t.Errorf("β = %g: server state %v, want %v", tc.beta, l.server, tc.want)
				break
			}
		}
	}
}
