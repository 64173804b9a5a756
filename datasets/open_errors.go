package datasets

import (
	"fmt"
	"strings"
)

// ParseError reports bad input found while loading a file: the file, the
// 1-based line number (0 when the problem concerns the file as a whole, such
// as a count mismatch found at its end) and what is wrong. Err, when not nil,
// is the underlying cause (an I/O or gzip error, or ErrEmpty) and is returned
// by Unwrap, so errors.Is(err, ErrEmpty) works through a ParseError.
type ParseError struct {
	File string // path or name of the file
	Line int    // 1-based line number, 0 if not tied to one line
	Msg  string // what is wrong, lowercase, no trailing period
	Err  error  // underlying cause, or nil
}

// Error returns "datasets: FILE:LINE: MSG", or "datasets: FILE: MSG" when
// Line is 0.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("datasets: %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("datasets: %s: %s", e.File, e.Msg)
}

// Unwrap returns the underlying cause, or nil.
func (e *ParseError) Unwrap() error { return e.Err }

// parseErrorf returns a *ParseError with a formatted message.
func parseErrorf(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// quoteField quotes a field from the input for an error message, cutting it
// to a readable length.
func quoteField(b []byte) string {
	const max = 40
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// firstFew joins up to n names for a report, with "…" when there are more.
func firstFew(names []string, total, n int) string {
	if len(names) > n {
		names = names[:n]
	}
	s := strings.Join(names, ", ")
	if total > len(names) {
		s += ", …"
	}
	return s
}
