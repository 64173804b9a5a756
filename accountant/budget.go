package accountant

import (
	"errors"
	"math"
)

// The functions in this file give one call per mode of the `dpscope budget`
// calculator; their JSON field names are the calculator's --json fields.

// Summarize returns ε at δ of the composition of events by RDP (improved and
// classic conversion, with optimal orders) and by PLD: the fields
// epsilon_rdp, best_order, epsilon_rdp_classic, best_order_classic,
// epsilon_pld and pld_interval_used. A schedule whose q and σ change is a
// slice of several events. Where the PLD refuses (ErrPLDRange: the loss is
// beyond its grids; ErrUnreachable: no finite ε at δ) that is the error, or
// with opts.KeepRDPIfPLDRefuses the RDP figures are returned with the
// reason in pld_refused and no epsilon_pld.
func Summarize(events []Event, delta float64, opts LedgerOptions) (Spent, error) {
	if err := validateEvents(events); err != nil {
		return Spent{}, err
	}
	rdpOnly := opts
	rdpOnly.SkipPLD = true
	s, err := spend(events, delta, rdpOnly)
	if err != nil || opts.SkipPLD || s.Steps == 0 {
		return s, err
	}
	p, err := NewPLDSequence(events, opts.PLDInterval)
	if err == nil {
		s.EpsilonPLD, err = p.Epsilon(delta)
	}
	switch {
	case err == nil:
		s.PLDIntervalUsed = p.Interval()
	case opts.KeepRDPIfPLDRefuses && (errors.Is(err, ErrPLDRange) || errors.Is(err, ErrUnreachable)):
		s.EpsilonPLD, s.PLDRefused = 0, err.Error()
	default:
		return Spent{}, err
	}
	return s, nil
}

// SigmaSummary holds the noise multipliers that meet a target (ε, δ).
type SigmaSummary struct {
	SigmaRDP float64 `json:"sigma_rdp"`
	SigmaPLD float64 `json:"sigma_pld,omitempty"` // 0 when skipped or refused
	// PLDRefused says why the PLD calibration gave no σ; σ by RDP stands.
	PLDRefused string `json:"pld_refused,omitempty"`
}

// CalibratePLD returns the smallest noise multiplier z, to relative tolerance
// tol (0 means DefaultCalibrationTol), such that steps steps of the sampled
// Gaussian mechanism with rate q meet target under the PLD accountant with
// interval h (0 means DefaultPLDInterval). Each evaluation builds a PLD, so
// this takes about ten times EpsilonPLD.
func CalibratePLD(target Budget, q float64, steps int, h, tol float64) (float64, error) {
	if err := target.Validate(); err != nil {
		return 0, err
	}
	if err := (Event{q, 1, steps}).Validate(); err != nil {
		return 0, err
	}
	// RDP's σ costs a few per cent of one PLD and lies just above the
	// PLD's (RDP is the looser bound), so the search starts there.
	guess, err := CalibrateRDP(target, q, steps, DefaultOrders.Orders(), Improved, 1e-3)
	if err != nil {
		guess = 0
	}
	return calibratePLD(target, q, steps, h, tol, guess)
}

// calibratePLD is CalibratePLD with the search started at guess (0: no
// guess; a search from z = 1 by factors of 4).
func calibratePLD(target Budget, q float64, steps int, h, tol, guess float64) (float64, error) {
	if _, err := NewPLDSequence(nil, h); err != nil {
		return 0, err
	}
	z0, step, grow := 1.0, 4.0, false
	if guess > 0 {
		z0, step, grow = guess, 1.1, true
	}
	return calibrateFrom(target.Epsilon, tol, z0, step, grow, func(z float64) (float64, error) {
		e, err := EpsilonPLD([]Event{{q, z, steps}}, target.Delta, h)
		if err != nil {
			return math.Inf(1), nil // infinite-loss mass above δ: not enough noise
		}
		return e, nil
	})
}

// CalibrateSummary returns σ for target by RDP (improved conversion at
// opts.Orders, default DefaultOrders) and by PLD (skipped when
// opts.SkipPLD): the fields sigma_rdp and sigma_pld. A PLD failure after
// RDP succeeded goes to pld_refused with opts.KeepRDPIfPLDRefuses, and is
// the error otherwise.
func CalibrateSummary(target Budget, q float64, steps int, opts LedgerOptions) (SigmaSummary, error) {
	orders := opts.Orders
	if orders == nil {
		orders = DefaultOrders.Orders()
	}
	var s SigmaSummary
	var err error
	if s.SigmaRDP, err = CalibrateRDP(target, q, steps, orders, Improved, 0); err != nil {
		return SigmaSummary{}, err
	}
	if !opts.SkipPLD {
		if s.SigmaPLD, err = calibratePLD(target, q, steps, opts.PLDInterval, 0, s.SigmaRDP); err != nil {
			if !opts.KeepRDPIfPLDRefuses {
				return SigmaSummary{}, err
			}
			s.SigmaPLD, s.PLDRefused = 0, err.Error()
		}
	}
	return s, nil
}

// GaussianSummary holds the Gaussian mechanism's σ for (ε, δ, Δ).
type GaussianSummary struct {
	SigmaAnalytic float64 `json:"sigma_analytic"`
	SigmaClassic  float64 `json:"sigma_classic"`
	ClassicValid  bool    `json:"classic_valid"` // ε < 1: the classic theorem applies
}

// GaussianMechanismSummary returns the analytic and classic σ of the Gaussian
// mechanism for (ε, δ) and ℓ2 sensitivity Δ.
func GaussianMechanismSummary(eps, delta, sensitivity float64) (GaussianSummary, error) {
	a, err := AnalyticGaussianSigma(eps, delta, sensitivity)
	if err != nil {
		return GaussianSummary{}, err
	}
	c, ok, err := ClassicGaussianSigma(eps, delta, sensitivity)
	if err != nil {
		return GaussianSummary{}, err
	}
	return GaussianSummary{SigmaAnalytic: a, SigmaClassic: c, ClassicValid: ok}, nil
}

// ZCDPSummary holds ρ-zCDP converted to ε at δ.
type ZCDPSummary struct {
	EpsilonZCDPClassic float64 `json:"epsilon_zcdp_classic"`
	EpsilonZCDPCKS     float64 `json:"epsilon_zcdp_cks"`
}

// ZCDPConversionSummary converts ρ to ε at δ, classic (Bun & Steinke) and
// Canonne–Kamath–Steinke.
func ZCDPConversionSummary(rho, delta float64) (ZCDPSummary, error) {
	c, err := ZCDPToDPClassic(rho, delta)
	if err != nil {
		return ZCDPSummary{}, err
	}
	k, err := ZCDPToDPCKS(rho, delta)
	if err != nil {
		return ZCDPSummary{}, err
	}
	return ZCDPSummary{EpsilonZCDPClassic: c, EpsilonZCDPCKS: k}, nil
}
