package core

import (
	"fmt"
	"strings"

	"github.com/dpscope/dpscope/internal/errkind"
)

// Wrapf returns an error that reads as format says and wraps kind (a
// package's sentinel, e.g. dppca.ErrInput) without appending kind's
// words: "dppca: k is 5, must be ≤ …: dppca: invalid input" said the
// package's name twice and what kind of error it was after the sentence
// that already said it. errors.Is finds kind, and any error format wraps
// with %w, as before. (errkind.Wrapf, for the methods' packages.)
func Wrapf(kind error, format string, args ...any) error {
	return errkind.Wrapf(kind, format, args...)
}

// OptionError is an error in the value of one of a method's options
// (Config.Options) that only the data shows, e.g. k larger than the
// cells. It names the option and the value given, so that a face can
// point at the input the user typed (the CLI: "--opt k=100000: …").
type OptionError struct {
	Key   string // the option, e.g. "k"
	Value string // its value as given
	// Flag says Key is a field of Config the faces set directly (the
	// CLI's --clients), not one of Config.Options.
	Flag bool
	// Reason says what is wrong in a few words, starting with the key,
	// e.g. "k must be ≤ the 2000 cells of builtin:default".
	Reason string
	// Kind is the sentinel the error wraps (a method's ErrInput or
	// ErrConfig), for errors.Is.
	Kind error
}

// Error implements error: "option k=100000: k must be ≤ …".
func (e *OptionError) Error() string {
	return fmt.Sprintf("option %s=%s: %s", e.Key, e.Value, e.Reason)
}

// Unwrap returns the sentinel Kind.
func (e *OptionError) Unwrap() error { return e.Kind }

// errorf wraps a method's error with its name, unless the error starts
// with that name already ("core: dppca: dppca: k is …" said it twice).
func errorf(method string, err error) error {
	if strings.HasPrefix(err.Error(), method+": ") {
		return fmt.Errorf("core: %w", err)
	}
	return fmt.Errorf("core: %s: %w", method, err)
}
