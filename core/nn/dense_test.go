package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// TestDenseGrad checks DW, DB and DX of one dense layer against central
// finite differences of L = Σ_ij c_ij·y_ij, for every activation.
func TestDenseGrad(t *testing.T) {
	tests := []struct {
		desc   string
		act    Activation
		lo, hi float64 // range of the inputs
	}{
		{"identity", Identity, -1, 1},
		{"relu", ReLU, -1, 1},
		{"tanh", Tanh, -1, 1},
		{"sigmoid", Sigmoid, -1, 1},
		{"exp-clamp", ExpClamp, -1, 1},
		{"softplus-clamp", SoftplusClamp, -1, 1},
	}
	for k, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			const n, in, out = 5, 4, 3
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			net := newNet([]layerSpec{{in, out, 1, tc.act}}, n, InitGlorot, uint64(k))
			d := net.Layers[0]
			for i := range d.B {
				d.B[i] = float32(rng.Float64() - 0.5)
			}
			x := randMatrix(rng, n, in, tc.lo, tc.hi)
			c := randMatrix(rng, n, out, -1, 1)
			loss := func() float64 {
				d.Forward(x)
				s := 0.0
				for i, v := range d.Output().Data[:n*out] {
					s += float64(c.Data[i]) * float64(v)
				}
				return s
			}
			loss()
			compute.Copy(d.Signal(), c)
			d.ActGrad()
			dx := compute.NewMatrix(n, in, nil)
			d.BackInputTo(dx, 0)
			net.AccumulateGrads(0)
			maxBad := 0
			if tc.act == ReLU {
				maxBad = 1 // a pre-activation within h of the kink
			}
			grads := append([]float32(nil), net.Grads...)
			checkGradVector(t, "Grads", net.Params, grads, 1e-3, loss, 2e-3, 2e-3, 5e-3, maxBad)
			checkGradVector(t, "dX", x.Data, dx.Data, 1e-3, loss, 2e-3, 2e-3, 5e-3, maxBad)
		})
	}
}

// TestAccumulateGradBeta checks that beta = 1 adds the new gradient to the
// old one and that a skipped layer leaves its gradient unchanged.
func TestAccumulateGradBeta(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	net := newNet([]layerSpec{{3, 2, 1, Tanh}}, 4, InitPyTorch, 1)
	d := net.Layers[0]
	x := randMatrix(rng, 4, 3, -1, 1)
	d.Forward(x)
	compute.Copy(d.Signal(), randMatrix(rng, 4, 2, -1, 1))
	d.AccumulateGrad(0)
	once := append([]float32(nil), net.Grads...)
	d.AccumulateGrad(1)
	for i, v := range net.Grads {
		if !checkClose(t, "2×grad", float64(v), 2*float64(once[i]), 1e-6, 1e-6) {
			break
		}
	}
	d.Skip()
	d.AccumulateGrad(1)
	for i, v := range net.Grads {
		if !checkClose(t, "skipped grad", float64(v), 2*float64(once[i]), 1e-6, 1e-6) {
			break
		}
	}
}

// TestAccumulateGradWeighted checks the per-row weighted gradient against
// the plain one of a signal whose rows were scaled by hand, for a layer
// that widens (X is scaled, in scratch) and one that narrows (G is), with
// beta = 0 and 1, and that the input is left unchanged.
func TestAccumulateGradWeighted(t *testing.T) {
	const n = 21 // not a multiple of the kernels' 8 lanes
	for _, shape := range [][2]int{{5, 19}, {19, 5}} {
		in, out := shape[0], shape[1]
		rng := rand.New(rand.NewPCG(uint64(in), 9))
		net := newNet([]layerSpec{{in, out, 1, Tanh}}, n, InitPyTorch, 1)
		d := net.Layers[0]
		x := randMatrix(rng, n, in, -1, 1)
		xCopy := append([]float32(nil), x.Data...)
		sig := randMatrix(rng, n, out, -1, 1)
		f := make([]float32, n)
		for i := range f {
			f[i] = float32(rng.Float64())
		}
		for _, beta := range []float32{0, 1} {
			// the reference: rows of G scaled by hand, then AccumulateGrad
			start := randMatrix(rng, 1, len(net.Grads), -1, 1).Data
			d.Forward(x)
			copy(net.Grads, start)
			for r := range n {
				for j, v := range sig.RawRowView(r) {
					d.Signal().RawRowView(r)[j] = f[r] * v
				}
			}
			d.AccumulateGrad(beta)
			want := append([]float32(nil), net.Grads...)

			d.Forward(x)
			copy(net.Grads, start)
			compute.Copy(d.Signal(), sig)
			d.AccumulateGradWeighted(beta, f, make([]float32, n*in))
			for i, v := range net.Grads {
				if !checkClose(t, "weighted grad", float64(v), float64(want[i]), 1e-5, 1e-5) {
					t.Fatalf("%d→%d, beta %v: entry %d", in, out, beta, i)
				}
			}
			if sameBits(x.Data, xCopy) >= 0 {
				t.Fatalf("%d→%d: AccumulateGradWeighted changed the layer's input", in, out)
			}
		}
	}
}

func TestParseActivation(t *testing.T) {
	for a := Identity; a <= SoftplusClamp; a++ {
		got, err := ParseActivation(a.String())
		if err != nil || got != a {
			t.Errorf("ParseActivation(%q) = %v, %v, want %v, nil", a.String(), got, err, a)
		}
	}
	if _, err := ParseActivation("swish"); err == nil {
		t.Errorf("ParseActivation(%q) = nil error, want an error", "swish")
	}
}

// TestReLUEdgeCases pins the branch-free ReLU kernels on the values where
// a bit trick could go wrong: ±0, the smallest subnormal, ±Inf and NaN of
// either sign.
func TestReLUEdgeCases(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	negNaN := math.Float32frombits(math.Float32bits(nan) | 1<<31)
	sub := math.Float32frombits(1)
	inf := float32(math.Inf(1))
	z := []float32{-2, negZero, 0, sub, 3, inf, -inf, nan}
	wantY := []float32{0, 0, 0, sub, 3, inf, 0, nan}
	y := append([]float32(nil), z...)
	ReLU.apply(y)
	for i := range y {
		if math.Float32bits(y[i]) != math.Float32bits(wantY[i]) && !(isNaN32(y[i]) && isNaN32(wantY[i])) {
			t.Errorf("relu(%v) = %v, want %v", z[i], y[i], wantY[i])
		}
	}
	// mulDeriv sees outputs: the gradient passes where y > 0 only (a NaN
	// output keeps it when its sign bit is clear; the loss is NaN anyway).
	ys := []float32{0, negZero, sub, 3, inf, -1, nan, negNaN}
	want := []float32{0, 0, 5, 5, 5, 0, 5, 0}
	g := []float32{5, 5, 5, 5, 5, 5, 5, 5}
	ReLU.mulDeriv(g, ys)
	for i := range g {
		if g[i] != want[i] {
			t.Errorf("relu'(y = %v)·5 = %v, want %v", ys[i], g[i], want[i])
		}
	}
}

func isNaN32(v float32) bool { return v != v }
