package safe

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// PanicError is a recovered panic: its value, where it happened and the
// goroutine's stack at that moment.
type PanicError struct {
	Value any    // what was passed to panic
	Where string // the function and line that panicked, e.g. "fftpack.go:120 (gonum.org/v1/gonum/dsp/fourier/internal/fftpack.cfftf1)"
	Stack []byte // the goroutine's stack, for logs
}

// Error says that the code panicked, with the value and the place, in one
// line: it is shown to users, who can quote it in a bug report.
func (e *PanicError) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("internal error (panic): %v", e.Value)
	}
	return fmt.Sprintf("internal error (panic at %s): %v", e.Where, e.Value)
}

// Unwrap returns the panic value when it is an error (a runtime.Error such
// as an index out of range), so errors.As finds it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Call runs f and returns its error, or a *PanicError when f panics.
// runtime.Goexit is not a panic and is not caught.
func Call(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			// A panic raised again from a worker's recovered one keeps
			// the worker's place and stack.
			if pe, ok := r.(*PanicError); ok {
				err = pe
				return
			}
			err = &PanicError{Value: r, Where: panicSite(), Stack: debug.Stack()}
		}
	}()
	return f()
}

// Func wraps f so that it runs through Call: g.Go(safe.Func(work)).
func Func(f func() error) func() error {
	return func() error { return Call(f) }
}

// IsPanic reports whether err is, or wraps, a recovered panic.
func IsPanic(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe)
}

// panicSite returns the first frame below the runtime's panic machinery,
// called from Call's deferred function: that is where the panic started.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.Function != "" {
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return fmt.Sprintf("%s:%d (%s)", file, f.Line, f.Function)
		}
		if !more {
			return ""
		}
	}
}
