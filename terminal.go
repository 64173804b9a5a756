package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// resetSequence undoes what the interface turns on: the alternate screen,
// the hidden cursor, mouse reporting (every mode) and bracketed paste.
const resetSequence = "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\r\n"

// guardTerminal saves the state of the terminal on in (when it is one) and
// returns the function that puts it back and resets out's screen modes.
// Bubble Tea restores the terminal itself on a normal exit and on the
// panics it catches; the guard is for every other path (a panic outside its
// loop, a failed start): call it when the interface ended abnormally. On a
// normal exit it is not needed, and leaving the alternate screen twice could
// move the cursor.
func guardTerminal(in *os.File, out io.Writer) func() {
	fd := in.Fd()
	if !term.IsTerminal(fd) {
		return func() {}
	}
	state, err := term.GetState(fd)
	if err != nil {
		return func() {}
	}
	return func() {
		_ = term.Restore(fd, state)
		_, _ = io.WriteString(out, resetSequence)
	}
}
