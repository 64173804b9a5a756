package dpsgd

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrConfig is wrapped by the errors of invalid configurations.
var ErrConfig = errors.New("dpsgd: invalid configuration")

// ErrNonFinite is wrapped by the error of a step whose loss or per-sample
// gradient norm is NaN or ±Inf; no parameter changed.
var ErrNonFinite = errors.New("dpsgd: non-finite value")

// Batching is the batch sampling scheme.
type Batching int

const (
	// Poisson includes each record independently with probability q, so
	// batch sizes vary around q·N. It is the zero value and the scheme the
	// accountant's subsampled-Gaussian analysis assumes.
	Poisson Batching = iota
	// Shuffled cuts a random permutation into batches of round(q·N)
	// records, dropping the remainder, like the usual data loader. NOT
	// COVERED BY THE ACCOUNTANT: the Poisson analysis does not apply to it.
	Shuffled
)

// String returns "poisson" or "shuffled (not covered by the accountant)".
func (b Batching) String() string {
	switch b {
	case Poisson:
		return "poisson"
	case Shuffled:
		return "shuffled (not covered by the accountant)"
	}
	return fmt.Sprintf("Batching(%d)", int(b))
}

// ClipMode says how per-sample gradients are clipped.
type ClipMode int

const (
	// ClipGroups clips the perturbed layers' share and the rest's share of
	// each sample's gradient to C separately (DP-DCAN Algorithm 2). It is
	// the zero value.
	ClipGroups ClipMode = iota
	// ClipJoint clips each sample's whole gradient to C (the DP-DCAN
	// authors' code).
	ClipJoint
)

// String returns "groups" or "joint".
func (c ClipMode) String() string {
	switch c {
	case ClipGroups:
		return "groups"
	case ClipJoint:
		return "joint"
	}
	return fmt.Sprintf("ClipMode(%d)", int(c))
}

// LayerRange is the contiguous range First..Last of layer numbers (1-based,
// inclusive) whose gradients receive noise.
type LayerRange struct {
	First, Last int
}

// String returns the range as "First-Last".
func (r LayerRange) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last) }

// Config configures DP-SGD. Not safe for concurrent use.
type Config struct {
	// SampleRate is q, the probability that a record is in a batch, in
	// (0, 1]. Required.
	SampleRate float64
	// NoiseMultiplier is σ ≥ 0: the noise on the perturbed layers has
	// standard deviation σ·C per coordinate. σ = 0 clips without noise.
	NoiseMultiplier float64
	// ClipNorm is C > 0, the bound on each sample's (group's) gradient
	// norm. Required.
	ClipNorm float64
	// Perturbed is the range of layer numbers that receive noise, within
	// 1..NumLayers of the network. Required.
	Perturbed LayerRange
	// Clipping is ClipGroups (the default) or ClipJoint.
	Clipping ClipMode
	// Batching is Poisson (the default) or Shuffled.
	Batching Batching
	// Views is the number of rows each sample occupies in a chunk (two
	// augmented views of a cell: 2); 0 means 1.
	Views int
	// Seed seeds the sampling and noise streams unless Secure is set.
	Seed uint64
	// Secure draws sampling and noise from ChaCha8 keyed by crypto/rand;
	// Seed is then ignored and runs do not reproduce.
	Secure bool
}

func (c Config) views() int { return max(c.Views, 1) }

// Validate returns an error wrapping ErrConfig for the first invalid field,
// for a network with numLayers layer numbers.
func (c Config) Validate(numLayers int) error {
	bad := func(name string, v any, constraint string) error {
		return errkind.Wrapf(ErrConfig, "dpsgd: %s is %v, must be %s", name, v, constraint)
	}
	q := c.SampleRate
	switch {
	case math.IsNaN(q) || q <= 0 || q > 1:
		return bad("SampleRate", q, "in (0, 1]")
	case math.IsNaN(c.NoiseMultiplier) || math.IsInf(c.NoiseMultiplier, 0) || c.NoiseMultiplier < 0:
		return bad("NoiseMultiplier", c.NoiseMultiplier, "finite and >= 0")
	case math.IsNaN(c.ClipNorm) || math.IsInf(c.ClipNorm, 0) || c.ClipNorm <= 0:
		return bad("ClipNorm", c.ClipNorm, "finite and > 0")
	case c.Perturbed.First < 1 || c.Perturbed.Last > numLayers || c.Perturbed.First > c.Perturbed.Last:
		return bad("Perturbed", c.Perturbed, fmt.Sprintf("a range within 1-%d", numLayers))
	case c.Clipping != ClipGroups && c.Clipping != ClipJoint:
		return bad("Clipping", c.Clipping, "ClipGroups or ClipJoint")
	case c.Batching != Poisson && c.Batching != Shuffled:
		return bad("Batching", c.Batching, "Poisson or Shuffled")
	case c.Views < 0:
		return bad("Views", c.Views, ">= 0")
	}
	return nil
}

// Covered reports whether the accountant's Poisson-subsampled Gaussian
// analysis applies to the sampling (it does not for Shuffled batches).
func (c Config) Covered() bool { return c.Batching == Poisson }
