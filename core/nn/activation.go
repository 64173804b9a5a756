package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpscope/dpscope/core/compute"
)

// Activation is an element-wise function applied to a dense layer's
// pre-activation Z. Every derivative is computed from the output Y = act(Z),
// so a layer keeps only Y.
type Activation int

// The activations. The clamps of ExpClamp and SoftplusClamp are those of the
// DP-DCAN mean and dispersion heads (docs/METHODS.md §1); where the clamp is
// active the derivative is 0.
const (
	// Identity is act(z) = z, act' = 1.
	Identity Activation = iota
	// ReLU is act(z) = max(z, 0), act' = 1 where y > 0, else 0.
	ReLU
	// Tanh is act(z) = tanh z, act' = 1 − y².
	Tanh
	// Sigmoid is act(z) = 1/(1 + e^{−z}), act' = y(1 − y).
	Sigmoid
	// ExpClamp is act(z) = clamp(e^z, 1e-5, 1e6), act' = y inside the clamp.
	ExpClamp
	// SoftplusClamp is act(z) = clamp(log(1 + e^z), 1e-4, 1e4),
	// act' = sigmoid(z) = 1 − e^{−y} inside the clamp.
	SoftplusClamp
)

// Clamp bounds of the ZINB heads.
const (
	MuMin, MuMax       = 1e-5, 1e6
	ThetaMin, ThetaMax = 1e-4, 1e4
)

var actNames = [...]string{"identity", "relu", "tanh", "sigmoid", "exp-clamp", "softplus-clamp"}

// String returns the activation's lowercase name, e.g. "tanh".
func (a Activation) String() string {
	if a >= 0 && int(a) < len(actNames) {
		return actNames[a]
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// ParseActivation returns the activation named s, as String writes it.
func ParseActivation(s string) (Activation, error) {
	for i, n := range actNames {
		if n == s {
			return Activation(i), nil
		}
	}
	return 0, configErr("activation", fmt.Sprintf("%q", s), fmt.Sprintf("one of %q", actNames[:]))
}

// apply sets y = act(y) in place.
func (a Activation) apply(y []float32) {
	if a.costly() {
		j := actJobs.Get().(*actJob)
		j.a, j.y, j.g = a, y, nil
		compute.Split(len(y), 8, 1, j)
		j.y = nil
		actJobs.Put(j)
		return
	}
	a.applyRange(y)
}

// costly reports whether a's function and derivative take a
// transcendental or a division per entry (about 1–5 ns), so that apply and
// mulDeriv split large slices over two goroutines (split).
func (a Activation) costly() bool {
	return a == Tanh || a == Sigmoid || a == ExpClamp || a == SoftplusClamp
}

// actJob is an apply (g nil) or a mulDeriv over parts of y (and g), for
// split. The parts are cut at multiples of 8, so the vector kernels see
// the same lanes and every entry the same arithmetic as in one call.
type actJob struct {
	a    Activation
	y, g []float32
}

// actJobs recycles actJob values, so a split activation does not allocate.
var actJobs = sync.Pool{New: func() any { return new(actJob) }}

func (j *actJob) Run(lo, hi int) {
	if j.g == nil {
		j.a.applyRange(j.y[lo:hi])
	} else {
		j.a.mulDerivRange(j.g[lo:hi], j.y[lo:hi])
	}
}

// applyRange is apply on one goroutine.
func (a Activation) applyRange(y []float32) {
	switch a {
	case Identity:
	case ReLU:
		// max compiles without a branch (a branch on the sign mispredicts
		// on half the entries and cost 5× as much) and keeps NaN.
		done := reluVector(y)
		for i, v := range y[done:] {
			y[done+i] = max(v, 0)
		}
	case Tanh:
		tanh32Slice(y)
	// The heads' functions are float32 (special.go): in float64 they were
	// a third of a DCAN step.
	case Sigmoid:
		sigmoid32Slice(y)
	case ExpClamp:
		exp32Slice(y, y)
		for i, v := range y {
			y[i] = min(max(v, MuMin), MuMax)
		}
	case SoftplusClamp:
		softplusClamp32Slice(y)
	default:
		panic(fmt.Sprintf("nn: unknown activation %d", int(a)))
	}
}

// mulDeriv sets g = g ⊙ act'(z) in place, given y = act(z).
func (a Activation) mulDeriv(g, y []float32) {
	y = y[:len(g)]
	if a.costly() {
		j := actJobs.Get().(*actJob)
		j.a, j.y, j.g = a, y, g
		compute.Split(len(g), 8, 1, j)
		j.y, j.g = nil, nil
		actJobs.Put(j)
		return
	}
	a.mulDerivRange(g, y)
}

// mulDerivRange is mulDeriv on one goroutine.
func (a Activation) mulDerivRange(g, y []float32) {
	y = y[:len(g)]
	switch a {
	case Identity:
	case ReLU:
		// Branch-free, as in apply: the mask keeps g where y's bits read
		// as a positive int32 (y > 0, or a NaN with a clear sign bit) and
		// zeroes it where y is ±0 or negative; -t & ^t has its sign bit
		// set exactly when t > 0, also for t = MinInt32 (−0).
		for i := reluDerivVector(g, y); i < len(y); i++ {
			t := int32(math.Float32bits(y[i]))
			keep := uint32((-t & ^t) >> 31)
			g[i] = math.Float32frombits(math.Float32bits(g[i]) & keep)
		}
	case Tanh:
		for i, v := range y {
			g[i] *= 1 - v*v
		}
	case Sigmoid:
		for i, v := range y {
			g[i] *= v * (1 - v)
		}
	case ExpClamp:
		for i, v := range y {
			if v <= MuMin || v >= MuMax {
				g[i] = 0
			} else {
				g[i] *= v
			}
		}
	case SoftplusClamp:
		softplusDeriv32Slice(g, y)
	default:
		panic(fmt.Sprintf("nn: unknown activation %d", int(a)))
	}
}
