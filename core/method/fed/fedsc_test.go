package fed

import (
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
