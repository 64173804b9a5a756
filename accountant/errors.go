package accountant

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidInput is matched (errors.Is) by every input validation error.
var ErrInvalidInput = errors.New("accountant: invalid input")

// ErrNonFinite is matched (errors.Is) by validation errors caused by NaN or ±Inf.
var ErrNonFinite = errors.New("accountant: non-finite input")

// ErrUnreachable is returned when a calibration target cannot be met by any
// parameter in the searched range, for example a target ε that no finite noise
// multiplier reaches.
var ErrUnreachable = errors.New("accountant: target cannot be reached")

// ErrTargetTooLoose is returned by the calibrations when a target ε is met
// by every noise multiplier down to the smallest searched (1e-3): the target
// does not determine σ (ε ≤ 1e300, for example).
var ErrTargetTooLoose = errors.New("accountant: target does not constrain the noise")

// ErrBudgetExceeded is returned by Filter.Spend when the event would take the
// composed privacy loss beyond the filter's target.
var ErrBudgetExceeded = errors.New("accountant: privacy budget exceeded")

// InputError reports one invalid input value. Its message has the shape
// "accountant: <name> is <value>, must be <constraint>".
type InputError struct {
	Name       string  // parameter name, e.g. "delta"
	Value      float64 // offending value
	Constraint string  // human-readable domain, e.g. "in (0, 1)"
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("accountant: %s is %v, must be %s", e.Name, e.Value, e.Constraint)
}

// Is reports whether target is ErrInvalidInput, or ErrNonFinite for a NaN or
// infinite value.
func (e *InputError) Is(target error) bool {
	switch target {
	case ErrInvalidInput:
		return true
	case ErrNonFinite:
		return math.IsNaN(e.Value) || math.IsInf(e.Value, 0)
	}
	return false
}

func inputErr(name string, v float64, constraint string) error {
	return &InputError{Name: name, Value: v, Constraint: constraint}
}

func nonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// checkPositive requires a finite v > 0.
func checkPositive(name string, v float64) error {
	if nonFinite(v) || v <= 0 {
		return inputErr(name, v, "finite and > 0")
	}
	return nil
}

// checkNonNegative requires a finite v ≥ 0.
func checkNonNegative(name string, v float64) error {
	if nonFinite(v) || v < 0 {
		return inputErr(name, v, "finite and ≥ 0")
	}
	return nil
}

// checkOpenUnit requires v in (0, 1).
func checkOpenUnit(name string, v float64) error {
	if nonFinite(v) || v <= 0 || v >= 1 {
		return inputErr(name, v, "in (0, 1)")
	}
	return nil
}

// checkRate requires v in (0, 1].
func checkRate(name string, v float64) error {
	if nonFinite(v) || v <= 0 || v > 1 {
		return inputErr(name, v, "in (0, 1]")
	}
	return nil
}

// checkCount requires n ≥ 0.
func checkCount(name string, n int) error {
	if n < 0 {
		return inputErr(name, float64(n), "≥ 0")
	}
	return nil
}

// checkEpsilon requires a finite ε > 0.
func checkEpsilon(eps float64) error { return checkPositive("epsilon", eps) }

// checkDelta requires δ in (0, 1).
func checkDelta(delta float64) error { return checkOpenUnit("delta", delta) }
