package nn

import (
	"errors"
	"math"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrNonFinite is wrapped by the errors of values that must be finite and
// are NaN or ±Inf, for example a loss after a step that diverged.
var ErrNonFinite = errors.New("nn: non-finite value")

// ErrConfig is wrapped by the errors of invalid configurations.
var ErrConfig = errors.New("nn: invalid configuration")

// CheckFinite returns nil if v is finite, and otherwise an error that names
// the value and wraps ErrNonFinite.
func CheckFinite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errkind.Wrapf(ErrNonFinite, "nn: %s is %v, must be finite", name, v)
	}
	return nil
}

// configErr formats "nn: <name> is <value>, must be <constraint>" wrapping
// ErrConfig.
func configErr(name string, value any, constraint string) error {
	return errkind.Wrapf(ErrConfig, "nn: %s is %v, must be %s", name, value, constraint)
}

// checkPositive returns an error unless v is finite and > 0.
func checkPositive(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return configErr(name, v, "finite and > 0")
	}
	return nil
}

// checkUnit returns an error unless 0 <= v < 1.
func checkUnit(name string, v float64) error {
	if math.IsNaN(v) || v < 0 || v >= 1 {
		return configErr(name, v, "in [0, 1)")
	}
	return nil
}
