package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/dpscope/dpscope/internal/class"
)

// classStub is an interface that shows its seat, pushes a message on "p",
// reads the board on "r" (saying how each went on said) and passes every
// push it receives to got.
type classStub struct {
	s      Session
	got    chan<- class.Push
	said   chan<- string // the answer to every p and r
	status string
}

func (m classStub) Init() tea.Cmd { return nil }

func (m classStub) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case class.Push:
		m.got <- msg
		m.status = "got " + msg.Message
	case tea.KeyPressMsg:
		switch msg.String() {
		case "p":
			n, err := m.s.Class.Push(class.Push{Message: "look at the board"})
			m.status = fmt.Sprintf("pushed to %d", n)
			if err != nil {
				m.status = "push refused: " + err.Error()
			}
		case "r":
			runs, err := m.s.Class.Runs()
			m.status = fmt.Sprintf("board of %d runs", len(runs))
			if err != nil {
				m.status = "board refused: " + err.Error()
			}
		default:
			return m, nil
		}
		m.said <- m.status
	}
	return m, nil
}

func (m classStub) View() tea.View {
	return tea.NewView(fmt.Sprintf("seat %s instructor=%v %s", m.s.Class.Name(), m.s.Class.Instructor(), m.status))
}

// text returns what the terminal received so far.
func (t *terminal) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.Clone(t.out))
}

// waitText waits up to a minute (a hang guard) for s on the terminal.
func (t *terminal) waitText(tb testing.TB, s string) {
	tb.Helper()
	end := time.Now().Add(time.Minute)
	for !strings.Contains(t.text(), s) {
		if time.Now().After(end) {
			tb.Fatalf("no %q on the screen; it shows %q", s, t.text())
		}
		t.waitOutput(time.Second)
	}
}

// TestInstructorPushReachesSessions: an instructor key (listed only in
// --instructor-keys) gets in with an instructor's seat and its push reaches
// both participants, a key one and a passphrase one, and then only the
// one still connected; a participant can neither push nor read the board.
func TestInstructorPushReachesSessions(t *testing.T) {
	teacher := newKey(t)
	got := make(chan class.Push, 8)
	said := make(chan string, 8)
	answer := func(want string) {
		t.Helper()
		select {
		case s := <-said:
			if !strings.HasPrefix(s, want) {
				t.Fatalf("answered %q, want %q", s, want)
			}
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("no answer %q", want)
		}
	}
	h := startHarness(t, func(c *Config) {
		ik := filepath.Join(filepath.Dir(c.AuthorizedKeys), "instructor_keys")
		if err := os.WriteFile(ik, gossh.MarshalAuthorizedKey(teacher.PublicKey()), 0o600); err != nil {
			t.Fatal(err)
		}
		c.InstructorKeys = ik
		c.UI = UI{NewModel: func(s Session) tea.Model { return classStub{s: s, got: got, said: said} }}
	})
	clients := map[*terminal]*gossh.Client{}
	open := func(auth gossh.AuthMethod, want string) *terminal {
		t.Helper()
		c, err := h.dial(auth)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		term, err := openTerminal(c, 80, 24)
		if err != nil {
			t.Fatal(err)
		}
		term.waitText(t, want)
		clients[term] = c
		return term
	}
	a := open(gossh.PublicKeys(h.key), "seat participant instructor=false")
	b := open(gossh.Password(testPassphrase), "seat participant-2 instructor=false")
	in := open(gossh.PublicKeys(teacher), "seat participant-3 instructor=true")

	// A participant is refused, and nobody hears of it.
	if _, err := a.stdin.Write([]byte("p")); err != nil {
		t.Fatal(err)
	}
	answer("push refused: only an instructor")
	if _, err := a.stdin.Write([]byte("r")); err != nil {
		t.Fatal(err)
	}
	answer("board refused: only an instructor")
	select {
	case p := <-got:
		t.Fatalf("a participant's push was delivered: %+v", p)
	default:
	}

	if _, err := in.stdin.Write([]byte("p")); err != nil {
		t.Fatal(err)
	}
	answer("pushed to 2")
	for range 2 {
		select {
		case p := <-got:
			if p.Message != "look at the board" || p.From != "participant-3" {
				t.Fatalf("delivered %+v", p)
			}
		case <-time.After(time.Minute): // a hang guard
			t.Fatal("a push did not arrive")
		}
	}
	a.waitText(t, "got look at the board")
	b.waitText(t, "got look at the board")
	// A participant that went away is no longer counted, and holds up
	// nobody.
	clients[a].Close()
	waitFor(t, "the closed session to stop listening", func() bool { return h.srv.class.reg.Listening() == 2 })
	if _, err := in.stdin.Write([]byte("p")); err != nil {
		t.Fatal(err)
	}
	answer("pushed to 1")
	select {
	case <-got:
	case <-time.After(time.Minute):
		t.Fatal("the second push did not arrive")
	}
	if !strings.Contains(h.logs.String(), "instructor=true") {
		t.Fatalf("the instructor's seat is not logged:\n%s", h.logs.String())
	}
}

// TestInstructorKeysFile: a bad --instructor-keys file is an error naming
// the flag.
func TestInstructorKeysFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ik")
	if err := os.WriteFile(bad, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing")} {
		_, err := New(Config{HostKeyPath: filepath.Join(dir, "hk"), PassphraseFile: writePass(t, dir), StateDir: dir, InstructorKeys: path, UI: stubUI()})
		if err == nil || !strings.Contains(err.Error(), "--instructor-keys") {
			t.Errorf("New with --instructor-keys %s: %v", path, err)
		}
	}
}

func writePass(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "pass")
	if err := os.WriteFile(p, []byte(testPassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
