package serve

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/dpscope/dpscope/tui"
)

// tuiState returns the run state and status line of the dpscope interface
// a host shows, read under the host's lock (the model shares its state
// through pointers).
func tuiState(h *host) (tui.RunState, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.model.(guardModel).inner.(recModel).Model.(tui.Model)
	return m.RunState(), m.Status()
}

// TestKeptTUIRun: with dpscope's own interface, a run started on the Run
// screen goes on after its connection drops, the kept interface takes its
// events to the end, and the same key comes back to the finished run.
func TestKeptTUIRun(t *testing.T) {
	rec := newRecorder(1)
	rec.cheap = true
	h := startHarness(t, func(c *Config) { c.UI = rec.ui(); c.Keep = time.Minute })
	c, err := h.dial(gossh.PublicKeys(h.key))
	if err != nil {
		t.Fatal(err)
	}
	term, err := openTerminal(c, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	term.waitOutput(30 * time.Second)
	if _, err := term.stdin.Write([]byte("s")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rec.started:
	case <-time.After(time.Minute):
		t.Fatal("the interface asked for no run")
	}
	c.Close() // as soon as the run is asked for: it may be loading, going or done
	waitFor(t, "the session to be kept", func() bool { return strings.Contains(h.logs.String(), "session kept") })

	h.srv.keep.mu.Lock()
	var kept *host
	for k := range h.srv.keep.hosts {
		kept = k
	}
	h.srv.keep.mu.Unlock()
	if kept == nil {
		t.Fatal("no interface kept")
	}
	waitFor(t, "the kept interface to see its run end", func() bool { st, _ := tuiState(kept); return st == tui.RunFinished })
	_, status := tuiState(kept)
	if !strings.HasPrefix(status, "run ") {
		t.Fatalf("the kept interface's status after its run: %q", status)
	}

	c2, err := h.dial(gossh.PublicKeys(h.key))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	back, err := openTerminal(c2, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run's end on the screen", func() bool { return strings.Contains(back.screen(), status) })
	if len(rec.runs) != 1 {
		t.Errorf("%d runs, want 1", len(rec.runs))
	}
}
