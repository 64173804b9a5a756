// Package errkind builds errors that read as one sentence and still wrap
// their package's error kind (a sentinel such as datasets.ErrBadSplit).
//
// The usual fmt.Errorf("pkg: x is 5, must be ≤ 3: %w", ErrKind) prints the
// kind's words after a sentence that already said them, and the words of
// every package an error passes through pile up ("core: fl: fed: datasets:
// clients is …: datasets: invalid client split"). Wrapf keeps the kind for
// errors.Is without printing it.
package errkind

import "fmt"

// Wrapf returns an error that reads as format says and wraps kind without
// appending kind's words. errors.Is finds kind, and any error format wraps
// with %w, as fmt.Errorf's would.
func Wrapf(kind error, format string, args ...any) error {
	return &kindError{err: fmt.Errorf(format, args...), kind: kind}
}

// kindError is Wrapf's error.
type kindError struct{ err, kind error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }
