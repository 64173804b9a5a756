package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdamReference checks three Adam steps against the update written out
// in float64 (torch.optim.Adam's algorithm, defaults β = (0.9, 0.999),
// eps = 1e-8).
func TestAdamReference(t *testing.T) {
	p := []float32{1, -2, 0.5}
	grads := [][]float32{{0.1, -0.3, 2}, {0.2, 0.1, -1}, {-0.05, 0.4, 0.3}}
	opt, err := NewAdam(3, AdamConfig{LR: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -2, 0.5}
	m, v := make([]float64, 3), make([]float64, 3)
	for k, g := range grads {
		opt.Step(p, g)
		tt := float64(k + 1)
		for i, gi := range g {
			gg := float64(gi)
			m[i] = 0.9*m[i] + 0.1*gg
			v[i] = 0.999*v[i] + 0.001*gg*gg
			mh, vh := m[i]/(1-math.Pow(0.9, tt)), v[i]/(1-math.Pow(0.999, tt))
			want[i] -= 0.01 * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	for i := range p {
		checkClose(t, "Adam p", float64(p[i]), want[i], 1e-6, 1e-6)
	}
}

// TestAdadeltaReference checks two Adadelta steps against the update written
// out in float64 (torch.optim.Adadelta's algorithm, lr 1, ρ 0.95,
// eps 1e-6).
func TestAdadeltaReference(t *testing.T) {
	p := []float32{1, -2}
	grads := [][]float32{{0.1, -3}, {0.2, 1}}
	opt, err := NewAdadelta(2, AdadeltaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -2}
	s, a := make([]float64, 2), make([]float64, 2)
	for _, g := range grads {
		opt.Step(p, g)
		for i, gi := range g {
			gg := float64(gi)
			s[i] = 0.95*s[i] + 0.05*gg*gg
			d := math.Sqrt(a[i]+1e-6) / math.Sqrt(s[i]+1e-6) * gg
			a[i] = 0.95*a[i] + 0.05*d*d
			want[i] -= d
		}
	}
	for i := range p {
		checkClose(t, "Adadelta p", float64(p[i]), want[i], 1e-6, 1e-5)
	}
}

// TestSGDReference checks SGD with momentum 0.9 and weight decay 0.1 over
// three steps against torch.optim.SGD's update written out in float64.
func TestSGDReference(t *testing.T) {
	p := []float32{1, -2}
	grads := [][]float32{{0.5, -1}, {0.25, 2}, {-1, 0}}
	opt, err := NewSGD(2, SGDConfig{LR: 0.1, Momentum: 0.9, WeightDecay: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -2}
	buf := make([]float64, 2)
	for k, g := range grads {
		opt.Step(p, g)
		for i, gi := range g {
			d := float64(gi) + 0.1*want[i]
			if k > 0 {
				d += 0.9 * buf[i]
			}
			buf[i] = d
			want[i] -= 0.1 * d
		}
	}
	for i := range p {
		checkClose(t, "SGD p", float64(p[i]), want[i], 1e-6, 1e-6)
	}
}

// TestOptimizersConverge minimises f(p) = Σ_i a_i (p_i − c_i)² with each
// optimizer from a fixed start and checks the distance to the minimum.
func TestOptimizersConverge(t *testing.T) {
	c := []float64{1, -2, 0.5, 3}
	a := []float64{1, 4, 0.5, 2}
	tests := []struct {
		desc  string
		make  func() (Optimizer, error)
		steps int
		tol   float64
	}{
		{"adam", func() (Optimizer, error) { return NewAdam(4, AdamConfig{LR: 0.05}) }, 2000, 1e-3},
		{"adadelta", func() (Optimizer, error) { return NewAdadelta(4, AdadeltaConfig{}) }, 5000, 1e-2},
		{"sgd momentum", func() (Optimizer, error) { return NewSGD(4, SGDConfig{LR: 0.02, Momentum: 0.9}) }, 1000, 1e-4},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			opt, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			p, g := make([]float32, 4), make([]float32, 4)
			for range tc.steps {
				for i := range p {
					g[i] = float32(2 * a[i] * (float64(p[i]) - c[i]))
				}
				opt.Step(p, g)
			}
			for i := range p {
				checkClose(t, tc.desc+" p", float64(p[i]), c[i], tc.tol, 0)
			}
		})
	}
}

func TestOptimizerConfigValidate(t *testing.T) {
	tests := []struct {
		desc    string
		make    func() error
		wantErr bool
	}{
		{"adam ok", func() error { _, err := NewAdam(1, AdamConfig{LR: 1e-3}); return err }, false},
		{"adam zero lr", func() error { _, err := NewAdam(1, AdamConfig{}); return err }, true},
		{"adam NaN lr", func() error { _, err := NewAdam(1, AdamConfig{LR: math.NaN()}); return err }, true},
		{"adam Inf lr", func() error { _, err := NewAdam(1, AdamConfig{LR: math.Inf(1)}); return err }, true},
		{"adam beta1 = 1", func() error { _, err := NewAdam(1, AdamConfig{LR: 1, Beta1: 1}); return err }, true},
		{"adam negative eps", func() error { _, err := NewAdam(1, AdamConfig{LR: 1, Eps: -1}); return err }, true},
		{"adadelta default", func() error { _, err := NewAdadelta(1, AdadeltaConfig{}); return err }, false},
		{"adadelta negative lr", func() error { _, err := NewAdadelta(1, AdadeltaConfig{LR: -1}); return err }, true},
		{"adadelta rho 1", func() error { _, err := NewAdadelta(1, AdadeltaConfig{Rho: 1}); return err }, true},
		{"sgd ok", func() error { _, err := NewSGD(1, SGDConfig{LR: 0.1, Momentum: 0.5, WeightDecay: 1e-4}); return err }, false},
		{"sgd negative decay", func() error { _, err := NewSGD(1, SGDConfig{LR: 0.1, WeightDecay: -1}); return err }, true},
		{"sgd momentum 1", func() error { _, err := NewSGD(1, SGDConfig{LR: 0.1, Momentum: 1}); return err }, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			err := tc.make()
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrConfig)) {
				t.Errorf("constructor error = %v, want error %v wrapping ErrConfig", err, tc.wantErr)
			}
		})
	}
	opt, _ := NewAdam(1, AdamConfig{LR: 1})
	if err := opt.SetLR(0); err == nil || opt.LR() != 1 {
		t.Errorf("SetLR(0) = %v with LR %g, want an error and LR 1", err, opt.LR())
	}
}

// TestAdamVectorMatchesScalar checks that Adam.Step (the vector kernel
// where the CPU has one, then the scalar loop for the tail) equals the
// scalar loop bit for bit, for lengths around the vector width and for
// gradients of every scale, zeros and a NaN.
func TestAdamVectorMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{1, 7, 8, 9, 31, 1000} {
		params := make([]float32, n)
		grads := make([]float32, n)
		for i := range params {
			params[i] = float32(rng.NormFloat64())
		}
		a, _ := NewAdam(n, AdamConfig{LR: 1e-3})
		want := append([]float32(nil), params...)
		m, v := make([]float32, n), make([]float32, n)
		for step := 1; step <= 3; step++ {
			for i := range grads {
				grads[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-8)))
				if rng.IntN(10) == 0 {
					grads[i] = 0
				}
			}
			if n == 1000 && step == 3 {
				grads[500] = float32(math.NaN())
			}
			a.Step(params, grads)
			bc1 := 1 - math.Pow(0.9, float64(step))
			bc2 := 1 - math.Pow(0.999, float64(step))
			adamScalar(want, grads, m, v, &adamConsts{b1: 0.9, c1: 1 - float32(0.9), b2: 0.999, c2: 1 - float32(0.999),
				step: float32(1e-3 / bc1), inv: float32(1 / math.Sqrt(bc2)), eps: 1e-8})
			for i := range params {
				if math.Float32bits(params[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n = %d, step %d, entry %d: %v, scalar loop %v", n, step, i, params[i], want[i])
				}
			}
		}
	}
}

// TestAdadeltaVectorMatchesScalar checks that Adadelta.Step, with its AVX
// kernel where the CPU has one, gives the scalar loop's bits over three
// steps, at lengths around the 8 lanes, with gradients over 13 orders of
// magnitude, zeros and a NaN.
func TestAdadeltaVectorMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 7, 8, 9, 1000} {
		params, grads := make([]float32, n), make([]float32, n)
		for i := range params {
			params[i] = float32(rng.NormFloat64())
		}
		o, _ := NewAdadelta(n, AdadeltaConfig{LR: 0.7, Rho: 0.9})
		want := append([]float32(nil), params...)
		s, a := make([]float32, n), make([]float32, n)
		for step := 1; step <= 3; step++ {
			for i := range grads {
				grads[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-8)))
				if rng.IntN(10) == 0 {
					grads[i] = 0
				}
			}
			if n == 1000 && step == 3 {
				grads[500] = float32(math.NaN())
			}
			o.Step(params, grads)
			adadeltaScalar(want, grads, s, a, &adadeltaConsts{rho: 0.9, c: 1 - float32(0.9), eps: 1e-6, lr: 0.7})
			for i := range params {
				if math.Float32bits(params[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n = %d, step %d, entry %d: %v, scalar loop %v", n, step, i, params[i], want[i])
				}
			}
		}
	}
}

// BenchmarkAdamStep times one Adam step on the peers' autoencoder's
// 1,063,536 parameters.
func BenchmarkAdamStep(b *testing.B) {
	const n = 1063536
	params, grads := make([]float32, n), make([]float32, n)
	for i := range grads {
		grads[i] = float32(i%7) * 0.01
	}
	a, _ := NewAdam(n, AdamConfig{LR: 1e-3})
	for b.Loop() {
		a.Step(params, grads)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/param")
}
