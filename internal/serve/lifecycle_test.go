package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/dpscope/dpscope/core"
)

// stubModel is a minimal interface: it shows the last status note, starts
// a run through the session's queue on "s" and panics on "!".
type stubModel struct {
	s      Session
	status string
}

type runMsg struct {
	run *core.Run
	err error
}

func (m stubModel) Init() tea.Cmd { return nil }

func (m stubModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case statusText:
		m.status = string(msg)
	case runMsg:
		if msg.err != nil {
			m.status = "error: " + msg.err.Error()
		} else {
			m.status = "run started"
		}
	case tea.KeyPressMsg:
		m.status = "key " + msg.String()
		switch msg.String() {
		case "q":
			return m, tea.Quit
		case "!":
			panic("a bug in one session")
		case "s":
			s := m.s
			return m, func() tea.Msg {
				run, err := s.Start(s.Context, runCfg)
				return runMsg{run, err}
			}
		}
	}
	return m, nil
}

func (m stubModel) View() tea.View { return tea.NewView("stub " + m.status) }

// runCfg is a cheap valid run: dppca without noise on the built-in set.
var runCfg = core.Config{Data: "builtin:default", Method: "dppca", Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: 1}

// statusText is the stub's status message.
type statusText string

func stubUI() UI {
	return UI{
		NewModel:  func(s Session) tea.Model { return stubModel{s: s} },
		StatusMsg: func(text string) tea.Msg { return statusText(text) },
	}
}

// TestPanicEndsOnlyItsSession: a panic in one session's interface ends that
// session; another session and the server go on.
func TestPanicEndsOnlyItsSession(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI() })
	c := h.keyClient(t)
	a, err := openTerminal(c, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openTerminal(c, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	a.waitOutput(10 * time.Second)
	b.waitOutput(10 * time.Second)
	if _, err := a.stdin.Write([]byte("!")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the panicking session did not end")
	}
	if _, err := b.keyToFrame("x"); err != nil {
		t.Fatalf("the other session stopped answering: %v", err)
	}
	if out, code, err := output(h.keyClient(t), "budget"); err != nil || code != exitRefused {
		t.Fatalf("a new session after the panic: %q, status %d, %v (want the refusal of a server with no Exec)", out, code, err)
	}
}

// TestDrainStopsRunsAndTellsSessions: cancelling Serve's context stops the
// runs, tells the sessions and returns within DrainTimeout.
func TestDrainStopsRunsAndTellsSessions(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.Workers = 1 })
	c := h.keyClient(t)
	term, err := openTerminal(c, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	term.waitOutput(10 * time.Second)
	if _, err := term.stdin.Write([]byte("s")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run to start", func() bool {
		term.mu.Lock()
		defer term.mu.Unlock()
		return strings.Contains(string(term.out), "run started")
	})
	took := h.stop(t)
	if took > DrainTimeout {
		t.Errorf("drain took %v, more than %v", took, DrainTimeout)
	}
	select {
	case <-term.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the session was not closed by the drain")
	}
	term.mu.Lock()
	screen := string(term.out)
	term.mu.Unlock()
	if !strings.Contains(screen, "session the server stopped") {
		t.Errorf("the session was not told the server stopped: %q", screen[max(0, len(screen)-200):])
	}
	if r, w := h.srv.Queue().Stats(); r != 0 || w != 0 {
		t.Errorf("after the drain %d runs running, %d waiting", r, w)
	}
	logs := h.logs.String()
	for _, want := range []string{"draining sessions=1", "run ended", "msg=stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// TestIdleSessionEnds: an interface with no key and no run for IdleTimeout
// is closed.
func TestIdleSessionEnds(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.IdleTimeout = 200 * time.Millisecond })
	term, err := openTerminal(h.keyClient(t), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-term.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("an idle session was not closed")
	}
	term.mu.Lock()
	last := string(term.out)
	term.mu.Unlock()
	if !strings.Contains(last, "closed after 200ms without a key or a run") {
		t.Errorf("the idle session was not told why it ended: %q", last[max(0, len(last)-200):])
	}
	if !strings.Contains(h.logs.String(), "idle session ended") {
		t.Errorf("no idle line in the log:\n%s", h.logs.String())
	}
}

// TestQueueRefusalsReachTheSession: a run over --max-cells is refused with
// the limit named, and the key's folder is the same at every login.
func TestMaxCellsAndKeyFolder(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.MaxCells = 1000 })
	var seen []Session
	h.srv.cfg.UI.NewModel = func(s Session) tea.Model { seen = append(seen, s); return stubModel{s: s} }
	for range 2 {
		c, err := h.dial(gossh.PublicKeys(h.key))
		if err != nil {
			t.Fatal(err)
		}
		term, err := openTerminal(c, 80, 24)
		if err != nil {
			t.Fatal(err)
		}
		term.waitOutput(10 * time.Second)
		_, _ = term.stdin.Write([]byte("q"))
		<-term.ended
		c.Close()
	}
	if len(seen) != 2 || seen[0].StateDir != seen[1].StateDir || !strings.HasPrefix(seen[0].ID, "key-") {
		t.Fatalf("two logins with one key: %+v, want one key- folder", seen)
	}
	_, err := seen[0].Start(context.Background(), runCfg)
	if err == nil || !strings.Contains(err.Error(), "--max-cells") {
		t.Fatalf("2000 cells under --max-cells 1000: %v, want a refusal naming --max-cells", err)
	}
	_, err = seen[0].Start(context.Background(), core.Config{Data: "/etc/passwd", Method: "dppca"})
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("data outside --data-dir: %v, want a refusal", err)
	}
}
