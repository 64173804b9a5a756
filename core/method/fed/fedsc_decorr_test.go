package fed

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// TestDecorrGradient checks FedDecorr's loss against the batch correlation
// matrix K computed here independently, L = (n−1)²/n · Σ_{a≠b} K_ab² /
// (d(d−1)) (to 1e-6 relative: the code's ε = 1e-8 under the root moves
// it by about 1e-8), and its gradient against central finite differences
// in float64 (step 1e-6; tolerance 1e-6 relative plus 1e-8 absolute).
func TestDecorrGradient(t *testing.T) {
	const n, d = 7, 5
	rng := rand.New(rand.NewPCG(3, 4))
	z := make([]float64, n*d)
	for i := range n {
		shared := rng.NormFloat64()
		for j := range d {
			z[i*d+j] = rng.NormFloat64() + float64(j%3)*shared // correlated dimensions
		}
	}
	var r decorr
	grad := make([]float64, n*d)
	loss := r.lossGrad(z, n, d, grad)

	mean, sd := make([]float64, d), make([]float64, d)
	for j := range d {
		for i := range n {
			mean[j] += z[i*d+j] / n
		}
		for i := range n {
			sd[j] += (z[i*d+j] - mean[j]) * (z[i*d+j] - mean[j])
		}
		sd[j] = math.Sqrt(sd[j])
	}
	off := 0.0
	for a := range d {
		for b := range d {
			if a == b {
				continue
			}
			k := 0.0
			for i := range n {
				k += (z[i*d+a] - mean[a]) * (z[i*d+b] - mean[b])
			}
			k /= sd[a] * sd[b]
			off += k * k
		}
	}
	want := float64((n-1)*(n-1)) / n * off / (d * (d - 1))
	if math.Abs(loss-want) > 1e-6*want {
		t.Errorf("loss %.10g, from the correlation matrix %.10g", loss, want)
	}

	scratch := make([]float64, n*d)
	for i := range z {
		old := z[i]
		z[i] = old + 1e-6
		lp := r.lossGrad(z, n, d, scratch)
		z[i] = old - 1e-6
		lm := r.lossGrad(z, n, d, scratch)
		z[i] = old
		fd := (lp - lm) / 2e-6
		if math.Abs(fd-grad[i]) > 1e-6*math.Abs(fd)+1e-8 {
			t.Errorf("z[%d]: analytic %.9g, finite difference %.9g", i, grad[i], fd)
		}
	}
}

// TestDecorrHalf checks the FedDecorr term's place in FedSC's half loss:
// with Decorr = 0.5 the gradient of half/n with respect to every online
// parameter matches central finite differences of the whole loss (step
// 1e-2 in float32; tolerance 2e-2 relative plus 2e-3 absolute, as
// TestBYOLGradient), and the loss exceeds the β = 0 one by β·L of the
// encoder's output.
func TestDecorrHalf(t *testing.T) {
	const n, g = 6, 5
	rng := rand.New(rand.NewPCG(5, 6))
	x := normalMatrix(rng, n, g)
	tgt := normalMatrix(rng, n, 3)
	build := func(beta float64) *byolWorker { return decorrWorker(t, x, []int{4, 3}, beta, 2) }
	w, w0 := build(0.5), build(0)
	loss := func() float64 {
		clear(w.enc.grads)
		clear(w.pred.grads)
		return w.half(x, tgt) / n
	}
	got := loss()
	z := w0.enc.forward(x, true)
	zs := make([]float64, 0, n*3)
	for i := range n {
		for _, v := range z.RawRowView(i) {
			zs = append(zs, float64(v))
		}
	}
	var r decorr
	pen := r.lossGrad(zs, n, 3, make([]float64, n*3))
	if base := w0.half(x, tgt) / n; math.Abs(got-(base+0.5*pen)) > 1e-5 {
		t.Errorf("half/n with β = 0.5: %.7f, want %.7f + 0.5·%.7f", got, base, pen)
	}
	analytic := append(append([]float32(nil), w.enc.grads...), w.pred.grads...)
	idx := 0
	for _, ps := range [][]float32{w.enc.params, w.pred.params} {
		for i := range ps {
			old := ps[i]
			ps[i] = old + 1e-2
			lp := loss()
			ps[i] = old - 1e-2
			lm := loss()
			ps[i] = old
			fd := (lp - lm) / 2e-2
			if a := float64(analytic[idx]); math.Abs(fd-a) > 2e-2*math.Abs(fd)+2e-3 {
				t.Errorf("parameter %d: analytic %.5f, finite difference %.5f", idx, a, fd)
			}
			idx++
		}
	}
}

// TestDecorrOffUnchanged checks that Decorr = 0 leaves FedSC's half loss
// bit for bit as it was before the option: its loss and gradients equal
// those of the plain chain encoder → predictor → NegCosine → backward,
// written out here; and that Decorr > 0 does change the gradients (the
// option reaches the loss).
func TestDecorrOffUnchanged(t *testing.T) {
	const n, g = 8, 6
	rng := rand.New(rand.NewPCG(7, 8))
	x := normalMatrix(rng, n, g)
	tgt := normalMatrix(rng, n, 3)
	build := func(beta float64) *byolWorker { return decorrWorker(t, x, []int{5, 3}, beta, 9) }
	w, ref, on := build(0), build(0), build(0.1)
	got := w.half(x, tgt)
	pr := ref.pred.forward(ref.enc.forward(x, true), true)
	dp, scr := compute.NewMatrix(n, 3, nil), compute.NewMatrix(n, 3, nil)
	neg := nn.NegCosine(dp, scr, pr, tgt, float32(2/float64(n)))
	ref.enc.backward(ref.pred.backward(dp))
	if want := 2*float64(n) + 2*neg; math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("half with Decorr = 0: %v, the plain chain %v", got, want)
	}
	same := func(a, b []float32) bool {
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				return false
			}
		}
		return true
	}
	if !same(w.enc.grads, ref.enc.grads) || !same(w.pred.grads, ref.pred.grads) {
		t.Error("Decorr = 0 changes the online gradients")
	}
	on.half(x, tgt)
	if same(on.enc.grads, ref.enc.grads) {
		t.Error("Decorr = 0.1 leaves the encoder's gradients as Decorr = 0")
	}
	if !same(on.pred.grads, ref.pred.grads) {
		t.Error("Decorr = 0.1 changes the predictor's gradients (the penalty is on the encoder's output)")
	}
}

// TestDecorrOption checks decorr's plumbing: the option sets
// Params.Decorr, 0 is the default, and values outside [0, MaxDecorr] are
// refused by the option spec and by Validate.
func TestDecorrOption(t *testing.T) {
	p, err := ParamsFromOptions(map[string]string{"decorr": "0.1"})
	if err != nil || p.Decorr != 0.1 {
		t.Errorf("ParamsFromOptions(decorr=0.1) = %v, %v; want 0.1", p.Decorr, err)
	}
	if p, err := ParamsFromOptions(nil); err != nil || p.Decorr != 0 {
		t.Errorf("default decorr = %v, %v; want 0", p.Decorr, err)
	}
	for _, v := range []string{"101", "-0.1", "NaN", "strong"} {
		if _, err := ParamsFromOptions(map[string]string{"decorr": v}); err == nil {
			t.Errorf("decorr=%s accepted", v)
		}
	}
	for _, b := range []float64{MaxDecorr + 1, -0.5, math.NaN(), math.Inf(1)} {
		if err := (Params{Decorr: b}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
			t.Errorf("Decorr %g validates: %v", b, err)
		}
	}
	if err := (Params{Decorr: 0.1}).withDefaults(FedSC).Validate(FedSC); err != nil {
		t.Errorf("Decorr 0.1: %v", err)
	}
}

// decorrWorker returns a FedSC BYOL worker on x (its rows one batch) with
// encoder widths enc, a 4-wide predictor, decorr β and learner seed.
func decorrWorker(t *testing.T, x compute.Matrix, enc []int, beta float64, seed uint64) *byolWorker {
	t.Helper()
	p := Params{Encoder: enc, PredictorHidden: 4, Batch: x.Rows, Decorr: beta}.withDefaults(FedSC)
	l, err := newBYOLLearner(x, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := l.newWorker()
	return wk.(*byolWorker)
}
