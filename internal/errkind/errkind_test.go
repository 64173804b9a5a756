package errkind

import (
	"errors"
	"testing"
)

// TestWrapfSaysItOnce: the sentence alone, wrapping both the kind and any
// error the format wraps.
func TestWrapfSaysItOnce(t *testing.T) {
	kind := errors.New("m: invalid input")
	inner := errors.New("disk full")
	err := Wrapf(kind, "m: p is %d, must be ≤ 3: %w", 5, inner)
	if err.Error() != "m: p is 5, must be ≤ 3: disk full" {
		t.Errorf("Wrapf = %q, want the sentence alone", err)
	}
	if !errors.Is(err, kind) || !errors.Is(err, inner) {
		t.Errorf("Wrapf(%q) does not wrap both its kind and its inner error", err)
	}
	if other := errors.New("m: other"); errors.Is(err, other) {
		t.Error("Wrapf's error matches a kind it does not wrap")
	}
}
