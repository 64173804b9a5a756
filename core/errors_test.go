package core

import (
	"errors"
	"fmt"
	"testing"
)

// TestErrorsSayItOnce: errorf names the method once, also around an
// error made by Wrapf (internal/errkind tests Wrapf itself), and an
// OptionError names the option and value.
func TestErrorsSayItOnce(t *testing.T) {
	kind := errors.New("m: invalid input")
	err := Wrapf(kind, "m: p is %d, must be ≤ 3: %w", 5, errors.New("disk full"))
	if got := errorf("m", err).Error(); got != "core: m: p is 5, must be ≤ 3: disk full" {
		t.Errorf("errorf of an error naming its method: %q", got)
	}
	if got := errorf("m", fmt.Errorf("p is 5")).Error(); got != "core: m: p is 5" {
		t.Errorf("errorf of an error without the method's name: %q", got)
	}
	oe := &OptionError{Key: "k", Value: "9", Reason: "k must be ≤ the 4 cells of builtin:toy", Kind: kind}
	if got := errorf("m", oe); got.Error() != "core: m: option k=9: k must be ≤ the 4 cells of builtin:toy" || !errors.Is(got, kind) || !errors.As(got, &oe) {
		t.Errorf("errorf of an OptionError: %q", got)
	}
}
