package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpscope/dpscope/core/compute"
)

// Optimizer updates parameters from their gradients, in place. Step panics,
// wrapping compute.ErrShape, if len(params) or len(grads) differs from the
// size the optimizer was built for. Implementations keep their state in
// buffers sized at construction, allocate nothing in Step, and are not safe
// for concurrent use.
type Optimizer interface {
	Step(params, grads []float32)
	// SetLR changes the learning rate from the next step; it returns an
	// error wrapping ErrConfig if lr is not finite and > 0.
	SetLR(lr float64) error
	// LR returns the learning rate.
	LR() float64
}

func checkStep(name string, size int, params, grads []float32) {
	if len(params) != size || len(grads) != size {
		panic(fmt.Errorf("nn: %s.Step: len(params) is %d and len(grads) is %d, must be %d: %w",
			name, len(params), len(grads), size, compute.ErrShape))
	}
}

// AdamConfig configures Adam (Kingma & Ba 2015,
// https://arxiv.org/abs/1412.6980), as PyTorch's torch.optim.Adam.
type AdamConfig struct {
	// LR is the learning rate. Required.
	LR float64
	// Beta1 and Beta2 are the moment decay rates; 0 means 0.9 and 0.999.
	Beta1, Beta2 float64
	// Eps is added to the denominator; 0 means 1e-8.
	Eps float64
}

// Adam is the Adam optimizer: with g the gradient at step t,
//
//	m = β1·m + (1−β1)·g,  v = β2·v + (1−β2)·g²
//	p = p − (lr/(1−β1ᵗ))·m / (√v/√(1−β2ᵗ) + eps)
//
// exactly as PyTorch computes it.
type Adam struct {
	cfg  AdamConfig
	m, v []float32
	t    int
}

// NewAdam returns Adam for size parameters. It returns an error wrapping
// ErrConfig if a field of cfg is invalid.
func NewAdam(size int, cfg AdamConfig) (*Adam, error) {
	if cfg.Beta1 == 0 {
		cfg.Beta1 = 0.9
	}
	if cfg.Beta2 == 0 {
		cfg.Beta2 = 0.999
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-8
	}
	for _, err := range []error{checkPositive("LR", cfg.LR), checkUnit("Beta1", cfg.Beta1),
		checkUnit("Beta2", cfg.Beta2), checkPositive("Eps", cfg.Eps)} {
		if err != nil {
			return nil, fmt.Errorf("nn: NewAdam: %w", err)
		}
	}
	return &Adam{cfg: cfg, m: make([]float32, size), v: make([]float32, size)}, nil
}

// SetLR implements Optimizer.
func (a *Adam) SetLR(lr float64) error {
	if err := checkPositive("LR", lr); err != nil {
		return err
	}
	a.cfg.LR = lr
	return nil
}

// LR implements Optimizer.
func (a *Adam) LR() float64 { return a.cfg.LR }

// Step implements Optimizer.
func (a *Adam) Step(params, grads []float32) {
	checkStep("Adam", len(a.m), params, grads)
	a.t++
	b1, b2 := float32(a.cfg.Beta1), float32(a.cfg.Beta2)
	bc1 := 1 - math.Pow(a.cfg.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.cfg.Beta2, float64(a.t))
	k := adamConsts{b1: b1, c1: 1 - b1, b2: b2, c2: 1 - b2,
		step: float32(a.cfg.LR / bc1), inv: float32(1 / math.Sqrt(bc2)), eps: float32(a.cfg.Eps)}
	j := optJobs.Get().(*optJob)
	*j = optJob{p: params, g: grads[:len(params)], m: a.m[:len(params)], v: a.v[:len(params)], adam: k}
	compute.Split(len(params), 8, 1, j)
	*j = optJob{}
	optJobs.Put(j)
}

// optJob is an Adam (adadelta false) or Adadelta update over parts of the
// parameters, for split: the updates are elementwise, and the parts are cut
// at multiples of 8, so each entry gets the same operations as in one call.
// The 1.06 M parameters of the peers' autoencoder take 0.5–0.8 ms a step on
// one core (memory-bound: four streams).
type optJob struct {
	p, g, m, v []float32 // for Adadelta, m and v are s and a
	adam       adamConsts
	delta      adadeltaConsts
	adadelta   bool
}

// optJobs recycles optJob values, so a split step does not allocate.
var optJobs = sync.Pool{New: func() any { return new(optJob) }}

func (j *optJob) Run(lo, hi int) {
	p, g, m, v := j.p[lo:hi], j.g[lo:hi], j.m[lo:hi], j.v[lo:hi]
	if j.adadelta {
		done := adadeltaVector(p, g, m, v, &j.delta)
		adadeltaScalar(p[done:], g[done:], m[done:], v[done:], &j.delta)
		return
	}
	done := adamVector(p, g, m, v, &j.adam)
	adamScalar(p[done:], g[done:], m[done:], v[done:], &j.adam)
}

// adamScalar is Adam's update, one entry at a time; the vector kernel
// performs the same operations in the same order.
func adamScalar(params, grads, m, v []float32, k *adamConsts) {
	m, v, grads = m[:len(params)], v[:len(params)], grads[:len(params)]
	for i, g := range grads {
		mi := k.b1*m[i] + k.c1*g
		vi := k.b2*v[i] + k.c2*g*g
		m[i], v[i] = mi, vi
		params[i] -= k.step * mi / (sqrt32(vi)*k.inv + k.eps)
	}
}

// sqrt32 is √x in float32; the compiler emits one SQRTSS.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// AdadeltaConfig configures Adadelta (Zeiler 2012,
// https://arxiv.org/abs/1212.5701), as PyTorch's torch.optim.Adadelta.
type AdadeltaConfig struct {
	// LR is the learning rate; 0 means 1.0.
	LR float64
	// Rho is the decay rate; 0 means 0.95 (DP-DCAN's stage 2; PyTorch's
	// default is 0.9).
	Rho float64
	// Eps is added inside the square roots; 0 means 1e-6.
	Eps float64
}

// Adadelta is the Adadelta optimizer:
//
//	s = ρ·s + (1−ρ)·g²,  Δ = √(a + eps)/√(s + eps)·g
//	a = ρ·a + (1−ρ)·Δ²,  p = p − lr·Δ
type Adadelta struct {
	cfg  AdadeltaConfig
	s, a []float32
}

// NewAdadelta returns Adadelta for size parameters. It returns an error
// wrapping ErrConfig if a field of cfg is invalid.
func NewAdadelta(size int, cfg AdadeltaConfig) (*Adadelta, error) {
	if cfg.LR == 0 {
		cfg.LR = 1
	}
	if cfg.Rho == 0 {
		cfg.Rho = 0.95
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-6
	}
	for _, err := range []error{checkPositive("LR", cfg.LR), checkUnit("Rho", cfg.Rho), checkPositive("Eps", cfg.Eps)} {
		if err != nil {
			return nil, fmt.Errorf("nn: NewAdadelta: %w", err)
		}
	}
	return &Adadelta{cfg: cfg, s: make([]float32, size), a: make([]float32, size)}, nil
}

// SetLR implements Optimizer.
func (o *Adadelta) SetLR(lr float64) error {
	if err := checkPositive("LR", lr); err != nil {
		return err
	}
	o.cfg.LR = lr
	return nil
}

// LR implements Optimizer.
func (o *Adadelta) LR() float64 { return o.cfg.LR }

// Step implements Optimizer.
func (o *Adadelta) Step(params, grads []float32) {
	checkStep("Adadelta", len(o.s), params, grads)
	rho := float32(o.cfg.Rho)
	k := adadeltaConsts{rho: rho, c: 1 - rho, eps: float32(o.cfg.Eps), lr: float32(o.cfg.LR)}
	j := optJobs.Get().(*optJob)
	*j = optJob{p: params, g: grads[:len(params)], m: o.s[:len(params)], v: o.a[:len(params)], delta: k, adadelta: true}
	compute.Split(len(params), 8, 2, j)
	*j = optJob{}
	optJobs.Put(j)
}

// adadeltaScalar is Adadelta's update, one entry at a time; the vector
// kernel performs the same operations in the same order.
func adadeltaScalar(params, grads, s, a []float32, k *adadeltaConsts) {
	s, a, grads = s[:len(params)], a[:len(params)], grads[:len(params)]
	for i, g := range grads {
		si := float32(k.rho*s[i]) + float32(float32(k.c*g)*g)
		d := float32(sqrt32(a[i]+k.eps)/sqrt32(si+k.eps)) * g
		s[i] = si
		a[i] = float32(k.rho*a[i]) + float32(float32(k.c*d)*d)
		params[i] -= float32(k.lr * d)
	}
}

// SGDConfig configures SGD with momentum and weight decay, as PyTorch's
// torch.optim.SGD (no dampening, no Nesterov).
type SGDConfig struct {
	// LR is the learning rate. Required.
	LR float64
	// Momentum μ in [0, 1); 0 is plain SGD.
	Momentum float64
	// WeightDecay λ ≥ 0 adds λ·p to the gradient (L2 penalty λ/2·‖p‖²).
	WeightDecay float64
}

// SGD is stochastic gradient descent:
//
//	d = g + λ·p,  b = μ·b + d (b = d at the first step),  p = p − lr·b
type SGD struct {
	cfg   SGDConfig
	buf   []float32
	begun bool
}

// NewSGD returns SGD for size parameters. It returns an error wrapping
// ErrConfig if a field of cfg is invalid.
func NewSGD(size int, cfg SGDConfig) (*SGD, error) {
	err := checkPositive("LR", cfg.LR)
	if err == nil {
		err = checkUnit("Momentum", cfg.Momentum)
	}
	if err == nil && (math.IsNaN(cfg.WeightDecay) || math.IsInf(cfg.WeightDecay, 0) || cfg.WeightDecay < 0) {
		err = configErr("WeightDecay", cfg.WeightDecay, "finite and >= 0")
	}
	if err != nil {
		return nil, fmt.Errorf("nn: NewSGD: %w", err)
	}
	return &SGD{cfg: cfg, buf: make([]float32, size)}, nil
}

// SetLR implements Optimizer.
func (o *SGD) SetLR(lr float64) error {
	if err := checkPositive("LR", lr); err != nil {
		return err
	}
	o.cfg.LR = lr
	return nil
}

// LR implements Optimizer.
func (o *SGD) LR() float64 { return o.cfg.LR }

// Step implements Optimizer.
func (o *SGD) Step(params, grads []float32) {
	checkStep("SGD", len(o.buf), params, grads)
	lr, mom, wd := float32(o.cfg.LR), float32(o.cfg.Momentum), float32(o.cfg.WeightDecay)
	b := o.buf[:len(params)]
	grads = grads[:len(params)]
	for i, g := range grads {
		d := g + wd*params[i]
		if mom != 0 {
			if o.begun {
				d += mom * b[i]
			}
			b[i] = d
		}
		params[i] -= lr * d
	}
	o.begun = true
}
