package accountant

import (
	"fmt"
	"math"
)

// Event is Steps repetitions of the Poisson-subsampled Gaussian mechanism
// SG_{q,z}: each record is included independently with probability
// SampleRate q, the included records' contributions (ℓ2 sensitivity Δ) are
// summed and Gaussian noise N(0, z²Δ²) is added, z = NoiseMultiplier. One
// DP-SGD step is one such repetition. SampleRate 1 is the Gaussian mechanism
// without subsampling. The zero value is not valid; see Validate.
type Event struct {
	// SampleRate is the Poisson sampling probability q in (0, 1]. Required.
	SampleRate float64
	// NoiseMultiplier is z = σ/Δ > 0, the noise standard deviation in units of
	// the ℓ2 sensitivity. Required.
	NoiseMultiplier float64
	// Steps is the number of identical repetitions, ≥ 0 (0 costs nothing).
	Steps int
}

// GaussianEvent returns one release of the Gaussian mechanism that adds
// N(0, σ²) noise to a query of ℓ2 sensitivity Δ: Event{1, σ/Δ, 1}.
// It returns an error if sigma or sensitivity is not finite and > 0.
func GaussianEvent(sigma, sensitivity float64) (Event, error) {
	if err := checkPositive("sigma", sigma); err != nil {
		return Event{}, err
	}
	if err := checkPositive("sensitivity", sensitivity); err != nil {
		return Event{}, err
	}
	z := sigma / sensitivity
	if err := checkPositive("noise multiplier sigma/sensitivity", z); err != nil {
		return Event{}, err
	}
	return Event{SampleRate: 1, NoiseMultiplier: z, Steps: 1}, nil
}

// SampledGaussianEvent returns steps repetitions of the Poisson-subsampled
// Gaussian mechanism with sampling rate q and noise multiplier z, after
// validating them (see Event.Validate).
func SampledGaussianEvent(q, z float64, steps int) (Event, error) {
	ev := Event{SampleRate: q, NoiseMultiplier: z, Steps: steps}
	return ev, ev.Validate()
}

// Repeat returns the event repeated k more times as a whole: Steps·k steps.
// It returns an error if k < 0 or the product overflows.
func (e Event) Repeat(k int) (Event, error) {
	if err := checkCount("repetitions", k); err != nil {
		return Event{}, err
	}
	if k > 0 && e.Steps > math.MaxInt32/k {
		return Event{}, inputErr("steps × repetitions", float64(e.Steps)*float64(k), "≤ 2147483647")
	}
	e.Steps *= k
	return e, e.Validate()
}

// Validate returns an *InputError if SampleRate is outside (0, 1],
// NoiseMultiplier is not finite and > 0, or Steps is negative.
func (e Event) Validate() error {
	if err := checkRate("sample rate q", e.SampleRate); err != nil {
		return err
	}
	if err := checkPositive("noise multiplier", e.NoiseMultiplier); err != nil {
		return err
	}
	return checkCount("steps", e.Steps)
}

// String formats the event as "q:z:steps", the phase syntax of dpscope budget.
func (e Event) String() string {
	return fmt.Sprintf("%g:%g:%d", e.SampleRate, e.NoiseMultiplier, e.Steps)
}

// validateEvents validates every event of a sequence, naming its index.
func validateEvents(events []Event) error {
	for i, ev := range events {
		if err := ev.Validate(); err != nil {
			return fmt.Errorf("accountant: event %d: %w", i, err)
		}
	}
	return nil
}
