package audit

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// sgd is plain gradient descent, enough to run canaries through.
type sgd struct{ lr float32 }

func (o *sgd) Step(params, grads []float32) {
	for i := range params {
		params[i] -= o.lr * grads[i]
	}
}
func (o *sgd) SetLR(lr float64) error { o.lr = float32(lr); return nil }
func (o *sgd) LR() float64            { return float64(o.lr) }

// runCanaries runs steps of noisy "DP-SGD" on P parameters whose data
// gradient is zero: each step's released gradient is the canaries' plus
// N(0, (σC·scale)²) per coordinate.
func runCanaries(t *testing.T, cfg CanaryConfig, p, steps int, sigma float64) *GradientCanaries {
	t.Helper()
	g, err := NewGradientCanaries(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt := g.Wrap(&sgd{lr: 0.1})
	params, grads := make([]float32, p), make([]float32, p)
	rng := rand.New(rand.NewPCG(9, 9))
	for range steps {
		for i := range grads {
			grads[i] = float32(sigma * cfg.ClipNorm * cfg.Scale * rng.NormFloat64())
		}
		opt.Step(params, grads)
	}
	return g
}

func TestGradientCanariesNoNoise(t *testing.T) {
	for _, obs := range []Observation{EveryGradient, FinalWeights} {
		cfg := CanaryConfig{Canaries: 400, Lo: 100, Hi: 5000, SampleRate: 0.1, ClipNorm: 1, Scale: 0.01, Observe: obs, Seed: 3}
		g := runCanaries(t, cfg, 5000, 50, 0)
		res, err := g.Audit(1e-5, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		// An included canary takes part in 50 steps at q = 0.1 with
		// probability 1 − 0.9⁵⁰ = 0.995, so a handful of the ~200 look out.
		if res.EpsilonLower < 2.5 {
			t.Errorf("%v: audit with no noise = %+v, want a bound ≥ 2.5 (ceiling %.3g)", obs, res, res.Ceiling)
		}
		if g.Steps() != 50 {
			t.Errorf("Steps() = %d, want 50", g.Steps())
		}
		seen := map[int]bool{}
		for _, c := range g.coord {
			if c < 100 || c >= 5000 || seen[c] {
				t.Fatalf("coordinate %d repeated or outside [100, 5000)", c)
			}
			seen[c] = true
		}
	}
}

// TestGradientCanariesNoisy: at σ = 4 with q = 0.1 over 50 steps (a few
// ε at most) the bound stays small.
func TestGradientCanariesNoisy(t *testing.T) {
	cfg := CanaryConfig{Canaries: 400, Lo: 0, Hi: 5000, SampleRate: 0.1, ClipNorm: 1, Scale: 0.01, Seed: 4}
	g := runCanaries(t, cfg, 5000, 50, 4)
	res, err := g.Audit(1e-5, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if res.EpsilonLower > 1 {
		t.Errorf("audit at σ = 4 = %+v, want a bound ≤ 1", res)
	}
}

func TestCanaryConfigValidate(t *testing.T) {
	ok := CanaryConfig{Canaries: 10, Lo: 0, Hi: 10, SampleRate: 1, ClipNorm: 1, Scale: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v, want nil", ok, err)
	}
	for _, tc := range []struct {
		desc string
		edit func(*CanaryConfig)
	}{
		{"no canaries", func(c *CanaryConfig) { c.Canaries = 0 }},
		{"range too small", func(c *CanaryConfig) { c.Hi = 9 }},
		{"negative lo", func(c *CanaryConfig) { c.Lo = -1 }},
		{"q zero", func(c *CanaryConfig) { c.SampleRate = 0 }},
		{"q above 1", func(c *CanaryConfig) { c.SampleRate = 1.5 }},
		{"clip zero", func(c *CanaryConfig) { c.ClipNorm = 0 }},
		{"scale negative", func(c *CanaryConfig) { c.Scale = -1 }},
		{"bad observation", func(c *CanaryConfig) { c.Observe = 7 }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			if _, err := NewGradientCanaries(c); !errors.Is(err, ErrInput) {
				t.Errorf("NewGradientCanaries(%+v) error = %v, want ErrInput", c, err)
			}
		})
	}
}

// TestSumCanaries: against a Gaussian release N(sum, σ²) with sensitivity
// w, the bound stays below the mechanism's ε, and without noise it is
// large.
func TestSumCanaries(t *testing.T) {
	cand := make([]int, 3000)
	w := make([]float64, 3000)
	for i := range cand {
		cand[i], w[i] = i, 2 // sensitivity 2
	}
	for _, tc := range []struct {
		sigma   float64
		lo, hi  float64
		explain string
	}{
		{0, 4, 100, "no noise: every guess right"},
		// σ = 2·AnalyticGaussianSigma(ε = 4, δ = 1e-5, 1) = 2·1.081: an
		// exact (4, 1e-5) Gaussian mechanism per canary.
		{2 * 1.0807, 0, 4, "(4, 1e-5)-DP per canary"},
	} {
		s, err := NewSumCanaries(1000, cand, w, 5)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		sum := make([]float64, 3000)
		for i := range sum {
			sum[i] = rng.NormFloat64() * 100 // the data: unknown scale, known to the attacker
		}
		s.Before(sum)
		for i := range sum {
			sum[i] += tc.sigma * rng.NormFloat64()
		}
		s.After(sum)
		res, err := s.Audit(1e-5, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if res.EpsilonLower < tc.lo || res.EpsilonLower > tc.hi || s.Releases() != 1 {
			t.Errorf("%s: audit = %+v, want a bound in [%g, %g]", tc.explain, res, tc.lo, tc.hi)
		}
	}
	if _, err := NewSumCanaries(10, []int{1, 2}, []float64{1, 1}, 1); !errors.Is(err, ErrInput) {
		t.Errorf("NewSumCanaries(10 canaries on 2 coordinates) error = %v, want ErrInput", err)
	}
	if _, err := NewSumCanaries(1, []int{1, 2}, []float64{1, 0}, 1); !errors.Is(err, ErrInput) {
		t.Errorf("NewSumCanaries(weight 0) error = %v, want ErrInput", err)
	}
	if _, err := NewSumCanaries(1, []int{1, 2}, []float64{1}, 1); !errors.Is(err, ErrInput) {
		t.Errorf("NewSumCanaries(lengths 2, 1) error = %v, want ErrInput", err)
	}
}
