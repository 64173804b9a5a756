package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's controller and its terminal end.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal end: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ctl, tty
}

// TestGuardRestoresRawModeAndScreen is issue 14 point 5: however the
// interface ends, the terminal comes back cooked, on the main screen, with
// a cursor.
func TestGuardRestoresRawModeAndScreen(t *testing.T) {
	_, tty := openPTY(t)
	canonical := func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return tio.Lflag&unix.ICANON != 0
	}
	if !canonical() {
		t.Skip("a new pseudo-terminal is not in canonical mode here")
	}
	var out bytes.Buffer
	restore := guardTerminal(tty, &out)
	if _, err := term.MakeRaw(tty.Fd()); err != nil { // what the interface does
		t.Fatal(err)
	}
	if canonical() {
		t.Fatal("MakeRaw left canonical mode on")
	}
	restore()
	if !canonical() {
		t.Error("after restore the terminal is still raw")
	}
	for _, seq := range []string{"\x1b[?1049l", "\x1b[?25h", "\x1b[?1000l", "\x1b[?2004l"} {
		if !strings.Contains(out.String(), seq) {
			t.Errorf("restore wrote %q, want it to contain %q", out.String(), seq)
		}
	}
}

func TestGuardIsANoOpOffATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var out bytes.Buffer
	guardTerminal(r, &out)()
	if out.Len() != 0 {
		t.Errorf("guard off a terminal wrote %q, want nothing", out.String())
	}
}
