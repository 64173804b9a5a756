package accountant

import (
	"fmt"
	"math"
)

// Budget is a target (ε, δ).
type Budget struct {
	Epsilon float64 // ε > 0, finite. Required.
	Delta   float64 // δ in (0, 1). Required.
}

// Validate returns an *InputError if ε is not finite and > 0 or δ is outside (0, 1).
func (b Budget) Validate() error {
	if err := checkEpsilon(b.Epsilon); err != nil {
		return err
	}
	return checkDelta(b.Delta)
}

// DefaultCalibrationTol is the relative tolerance on the noise multiplier
// used when a calibration is given tol = 0: the returned z satisfies the
// target and z·(1 − 1e-6) may not.
const DefaultCalibrationTol = 1e-6

// Noise multiplier search range of the calibrations.
const (
	minNoiseMultiplier = 1e-3
	maxNoiseMultiplier = 1e5
)

// calibrate returns the smallest z in [minNoiseMultiplier, maxNoiseMultiplier],
// to relative tolerance tol, with eps(z) ≤ target, for eps decreasing in z.
// The bracket [lo, hi] always has eps(lo) > target ≥ eps(hi); each iteration
// tries the secant point of log ε against log z (pinned from both sides by
// tol) and falls back to bisection in log z when the secant does not halve
// the bracket, so it converges in a handful of evaluations and never worse
// than bisection. It returns hi, which meets the target, or an error
// wrapping ErrTargetTooLoose when even minNoiseMultiplier meets it.
func calibrate(target, tol float64, eps func(z float64) (float64, error)) (float64, error) {
	return calibrateFrom(target, tol, 1, 4, false, eps)
}

// calibrateFrom is calibrate with the bracket grown from the guess z0 by
// factor step, squared after every step when grow is set, so that a poor
// guess costs a few evaluations more, never a search that crawls. A guess
// within a few per cent of the answer, as RDP's σ is for the PLD's, saves
// about half the evaluations of a search from z = 1. calibrate keeps a
// fixed factor: its bracket, and so the bits of every engine's σ, stay
// what they were.
func calibrateFrom(target, tol, z0, step float64, grow bool, eps func(z float64) (float64, error)) (float64, error) {
	if tol == 0 {
		tol = DefaultCalibrationTol
	}
	if nonFinite(tol) || tol < 1e-12 || tol >= 0.5 {
		return 0, inputErr("tolerance", tol, "0 (default) or in [1e-12, 0.5)")
	}
	hi := z0
	ehi, err := eps(hi)
	if err != nil {
		return 0, err
	}
	lo, elo := hi, ehi
	for ehi > target {
		lo, elo = hi, ehi
		hi *= step
		if grow {
			step *= step
		}
		if hi > maxNoiseMultiplier {
			return 0, fmt.Errorf("%w: ε ≤ %g needs a noise multiplier above %g", ErrUnreachable, target, maxNoiseMultiplier)
		}
		if ehi, err = eps(hi); err != nil {
			return 0, err
		}
	}
	if lo == hi {
		for elo <= target {
			hi, ehi = lo, elo
			lo /= step
			if grow {
				step *= step
			}
			if lo < minNoiseMultiplier {
				// Returning hi would call a σ "the smallest" that is only
				// the end of the search (0.0039 for ε ≤ 1e300).
				return 0, fmt.Errorf("%w: ε ≤ %g holds down to noise multiplier %g (ε = %.4g there), and the search stops at %g; such a target does not set σ: give a smaller target ε", ErrTargetTooLoose, target, hi, ehi, minNoiseMultiplier)
			}
			if elo, err = eps(lo); err != nil {
				return 0, err
			}
		}
	}
	lt := math.Log(target)
	// The two most recent points (log z, log ε − log target) drive the
	// secant; they start as the bracket ends.
	x0, f0 := math.Log(lo), math.Log(elo)-lt
	x1, f1 := math.Log(hi), math.Log(ehi)-lt
	bisect := false
	for hi-lo > tol*hi {
		width := hi - lo
		a, b := math.Log(lo), math.Log(hi)
		x := 0.5 * (a + b)
		if !bisect && f0 != f1 && !nonFinite(f0) && !nonFinite(f1) {
			if s := x1 - f1*(x1-x0)/(f1-f0); s > a && s < b {
				x = s
			}
		}
		z := math.Exp(x)
		// Evaluate just below and just above the trial point so that a good
		// secant step collapses the bracket to width < tol·hi at once.
		for _, zz := range []float64{z * (1 - 0.4*tol), z * (1 + 0.4*tol)} {
			if zz <= lo || zz >= hi {
				continue
			}
			e, err := eps(zz)
			if err != nil {
				return 0, err
			}
			x0, f0 = x1, f1
			x1, f1 = math.Log(zz), math.Log(e)-lt
			if e > target {
				lo, elo = zz, e
			} else {
				hi, ehi = zz, e
				break
			}
		}
		// Fall back to bisection when the bracket did not shrink enough.
		bisect = hi-lo > 0.7*width
	}
	return hi, nil
}

// CalibrateRDP returns the smallest noise multiplier z, to relative
// tolerance tol (0 means DefaultCalibrationTol), such that steps steps of
// the sampled Gaussian mechanism with rate q satisfy target under RDP at
// orders with conversion conv. It returns an error wrapping ErrUnreachable
// when no z ≤ 1e5 meets the target (the order grid bounds ε from below; for
// example ε < 0.1 at δ = 1e-5 with Opacus' orders), one wrapping
// ErrTargetTooLoose when z = 1e-3 already meets it, and an *InputError for
// invalid inputs.
func CalibrateRDP(target Budget, q float64, steps int, orders []float64, conv Conversion, tol float64) (float64, error) {
	if err := target.Validate(); err != nil {
		return 0, err
	}
	if err := (Event{q, 1, steps}).Validate(); err != nil {
		return 0, err
	}
	if err := validateOrders(orders); err != nil {
		return 0, err
	}
	rdp := make([]float64, len(orders))
	return calibrate(target.Epsilon, tol, func(z float64) (float64, error) {
		clear(rdp)
		addRDPTo(rdp, Event{q, z, steps}, orders)
		e, _, err := EpsilonFromRDP(orders, rdp, target.Delta, conv)
		if err == errNoFiniteOrder {
			return math.Inf(1), nil
		}
		return e, err
	})
}

// OpacusNoiseMultiplier replicates Opacus' get_noise_multiplier(target_epsilon,
// target_delta, sample_rate=q, steps=steps, accountant="rdp",
// epsilon_tolerance=epsTol) step for step, with Opacus' default orders and
// the improved conversion: σ_high doubles from 10 until ε(σ_high) ≤ target,
// then bisects until target − ε(σ_high) ≤ epsTol, and returns σ_high. Its
// answer lies above the smallest σ meeting the target by up to ~1% at
// epsTol = 0.01; use CalibrateRDP for the tight value.
func OpacusNoiseMultiplier(target Budget, q float64, steps int, epsTol float64) (float64, error) {
	if err := target.Validate(); err != nil {
		return 0, err
	}
	if err := (Event{q, 1, steps}).Validate(); err != nil {
		return 0, err
	}
	if err := checkPositive("epsilon tolerance", epsTol); err != nil {
		return 0, err
	}
	orders := OrdersOpacus.Orders()
	eps := func(z float64) float64 {
		e, _, err := EpsilonRDP([]Event{{q, z, steps}}, target.Delta, orders, Improved)
		if err != nil {
			return math.Inf(1)
		}
		return e
	}
	lo, hi := 0.0, 10.0
	ehi := math.Inf(1)
	for ehi > target.Epsilon {
		hi *= 2
		if hi > maxNoiseMultiplier {
			return 0, fmt.Errorf("%w: ε ≤ %g needs σ above %g", ErrUnreachable, target.Epsilon, maxNoiseMultiplier)
		}
		ehi = eps(hi)
	}
	for target.Epsilon-ehi > epsTol {
		s := (lo + hi) / 2
		e := eps(s)
		if e < target.Epsilon {
			hi, ehi = s, e
		} else {
			lo = s
		}
	}
	return hi, nil
}

// SolveSigma returns the smallest noise multiplier σ in [lo, hi] with
// cost(σ) ≤ target, for a cost that does not increase with σ (the ε of a
// plan that is partly spent and partly to come, as an engine or the
// interface computes it). It bisects in log σ until the bracket is
// narrower than tol in log σ (a relative tolerance) and returns its upper
// end, so the result always meets the target. It returns lo when lo
// already meets it, and an error wrapping ErrUnreachable when hi does not.
func SolveSigma(target float64, cost func(sigma float64) (float64, error), lo, hi, tol float64) (float64, error) {
	if !(lo > 0) || !(hi > lo) || !(tol > 0) || math.IsNaN(target) {
		return 0, fmt.Errorf("accountant: SolveSigma with σ in [%g, %g], tolerance %g, target %g", lo, hi, tol, target)
	}
	if e, err := cost(hi); err != nil {
		return 0, err
	} else if e > target {
		return 0, fmt.Errorf("%w: ε = %g even at σ = %g, above the target %g", ErrUnreachable, e, hi, target)
	}
	if e, err := cost(lo); err != nil {
		return 0, err
	} else if e <= target {
		return lo, nil
	}
	l, h := math.Log(lo), math.Log(hi)
	for h-l > tol {
		mid := 0.5 * (l + h)
		e, err := cost(math.Exp(mid))
		if err != nil {
			return 0, err
		}
		if e > target {
			l = mid
		} else {
			h = mid
		}
	}
	return math.Exp(h), nil
}

// ProjectRDP returns ε at δ by RDP (improved conversion, at the best of
// orders) of the spent events followed by steps more steps of the sampled
// Gaussian mechanism at rate q and noise multiplier σ: the projection an
// interface shows while a setting is edited. About a millisecond.
func ProjectRDP(spent []Event, q, sigma float64, steps int, delta float64, orders []float64) (float64, error) {
	evs := append([]Event{}, spent...)
	if steps > 0 {
		ev, err := SampledGaussianEvent(q, sigma, steps)
		if err != nil {
			return 0, err
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		return 0, nil
	}
	eps, _, err := EpsilonRDP(evs, delta, orders, Improved)
	return eps, err
}
