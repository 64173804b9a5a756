package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/dpscope/dpscope/core"
)

// kept counts the hosts the server holds, attached or not.
func (k *keeper) kept() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.hosts)
}

// keepStub is an interface that starts a run on "s" through the session's
// queue, follows its events and shows how it ended: what a kept session
// must find again.
type keepStub struct {
	s      Session
	run    string // where the run is: queued, going, done
	note   string // the last other note
	events int
}

type keepStartedMsg struct {
	run *core.Run
	err error
}

type keepEventMsg struct {
	run *core.Run
	ok  bool
}

func nextEvent(run *core.Run) tea.Cmd {
	return func() tea.Msg {
		_, ok := <-run.Events()
		return keepEventMsg{run, ok}
	}
}

func (m keepStub) Init() tea.Cmd { return nil }

func (m keepStub) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case statusText:
		if msg == "panic" {
			panic("a bug in a kept session")
		}
		if strings.HasPrefix(string(msg), "run queued") {
			m.run = string(msg)
		} else {
			m.note = string(msg)
		}
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q":
			return m, tea.Quit
		case "s":
			s := m.s
			return m, func() tea.Msg {
				run, err := s.Start(s.Context, runCfg)
				return keepStartedMsg{run, err}
			}
		}
	case keepStartedMsg:
		if msg.err != nil {
			m.run = "run refused: " + msg.err.Error()
			return m, nil
		}
		m.run = "run going"
		return m, nextEvent(msg.run)
	case keepEventMsg:
		if !msg.ok {
			m.run = fmt.Sprintf("run done after %d events", m.events)
			return m, nil
		}
		m.events++
		return m, nextEvent(msg.run)
	}
	return m, nil
}

func (m keepStub) View() tea.View { return tea.NewView("keep [" + m.run + "] " + m.note) }

// keepHarness is a harness whose interfaces are keepStubs, counted as they
// are built, with a second authorized key.
type keepHarness struct {
	*harness
	other  gossh.Signer
	models atomic.Int32
}

func startKeepHarness(t *testing.T, keep time.Duration) *keepHarness {
	t.Helper()
	kh := &keepHarness{other: newKey(t)}
	kh.harness = startHarness(t, func(c *Config) {
		c.Keep, c.Workers, c.MaxRuns = keep, 1, 1
		c.UI = UI{
			NewModel: func(s Session) tea.Model {
				kh.models.Add(1)
				return keepStub{s: s}
			},
			StatusMsg: func(text string) tea.Msg { return statusText(text) },
		}
		// Both keys get in.
		raw, err := os.ReadFile(c.AuthorizedKeys)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, gossh.MarshalAuthorizedKey(kh.other.PublicKey())...)
		c.AuthorizedKeys = filepath.Join(t.TempDir(), "two_keys")
		if err := os.WriteFile(c.AuthorizedKeys, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	return kh
}

// screen returns what term received so far.
func (t *terminal) screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.out)
}

// waitScreen waits until term's output contains want.
func waitScreen(t *testing.T, term *terminal, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q on the screen", want), func() bool { return strings.Contains(term.screen(), want) })
}

// waitLog waits until the server's log holds n lines containing want.
func (kh *keepHarness) waitLog(t *testing.T, want string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d log lines %q", n, want), func() bool { return strings.Count(kh.logs.String(), want) >= n })
}

// holdWorker takes the server's only worker, so that a session's run waits
// in the queue, and returns its release.
func (kh *keepHarness) holdWorker(t *testing.T) func() {
	t.Helper()
	release, err := kh.srv.Queue().Acquire(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return release
}

// connect logs in with auth and opens the interface.
func (kh *keepHarness) connect(t *testing.T, auth gossh.AuthMethod) (*gossh.Client, *terminal) {
	t.Helper()
	c, err := kh.dial(auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	term, err := openTerminal(c, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "keep")
	return c, term
}

// startQueued starts a run on term that waits for the held worker.
func startQueued(t *testing.T, term *terminal) {
	t.Helper()
	if _, err := term.stdin.Write([]byte("s")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "run queued")
}

// TestKeptRunFoundByKey: a session disconnects with a run in the queue; the
// run starts and finishes while no one is connected; the same key finds the
// interface again with the run's end on it, a different key does not.
func TestKeptRunFoundByKey(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	release := kh.holdWorker(t)
	c, term := kh.connect(t, gossh.PublicKeys(kh.key))
	startQueued(t, term)
	c.Close()
	kh.waitLog(t, "msg=\"session kept\"", 1)
	release() // the kept session's run gets the worker now
	kh.waitLog(t, "msg=\"run ended\"", 1)

	_, other := kh.connect(t, gossh.PublicKeys(kh.other))
	other.settle(100*time.Millisecond, 2*time.Second)
	if s := other.screen(); strings.Contains(s, "run") {
		t.Errorf("another key's session shows the kept run: %q", s[max(0, len(s)-200):])
	}

	_, back := kh.connect(t, gossh.PublicKeys(kh.key))
	waitScreen(t, back, "run done after")
	if n := kh.models.Load(); n != 2 {
		t.Errorf("%d interfaces built, want 2 (one per key; the reconnection reuses its own)", n)
	}
	if r, w := kh.srv.Queue().Stats(); r != 0 || w != 0 {
		t.Errorf("after the run: %d running, %d waiting", r, w)
	}
}

// TestKeyTakesOver: a second connection with the same key takes the
// interface over and closes the first, as after a connection that dropped
// without the server knowing.
func TestKeyTakesOver(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	release := kh.holdWorker(t)
	defer release()
	_, first := kh.connect(t, gossh.PublicKeys(kh.key))
	startQueued(t, first)
	_, second := kh.connect(t, gossh.PublicKeys(kh.key))
	waitScreen(t, second, "run queued")
	select {
	case <-first.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the first connection was not closed")
	}
	if s := first.screen(); !strings.Contains(s, "taken over by a new connection") {
		t.Errorf("the first connection was not told why it ended: %q", s[max(0, len(s)-200):])
	}
	if n := kh.models.Load(); n != 1 {
		t.Errorf("%d interfaces built, want 1", n)
	}
}

// TestKeepExpires: a session not resumed within --keep is dropped: its
// queued run leaves the queue without starting, and the same key then gets
// a new interface. A quit is not kept at all.
func TestKeepExpires(t *testing.T) {
	kh := startKeepHarness(t, 200*time.Millisecond)
	release := kh.holdWorker(t)
	c, term := kh.connect(t, gossh.PublicKeys(kh.key))
	startQueued(t, term)
	c.Close()
	kh.waitLog(t, "msg=\"kept session dropped\"", 1)
	waitFor(t, "the queue to empty", func() bool { _, w := kh.srv.Queue().Stats(); return w == 0 })
	release()
	if logs := kh.logs.String(); strings.Contains(logs, "run started") || !strings.Contains(logs, "not resumed within --keep 200ms") {
		t.Errorf("the dropped session's run started, or the drop is not explained:\n%s", logs)
	}
	if n := kh.srv.keep.kept(); n != 0 {
		t.Errorf("%d interfaces kept after --keep", n)
	}

	_, again := kh.connect(t, gossh.PublicKeys(kh.key))
	if _, err := again.stdin.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	<-again.ended
	if s := again.screen(); strings.Contains(s, "run queued") {
		t.Errorf("the session after --keep shows the dropped run: %q", s)
	}
	kh.waitLog(t, "why=quit", 1)
	_, third := kh.connect(t, gossh.PublicKeys(kh.key))
	third.settle(100*time.Millisecond, 2*time.Second)
	if n := kh.models.Load(); n != 3 {
		t.Errorf("%d interfaces built, want 3 (expired, quit, new)", n)
	}
	if !strings.Contains(kh.logs.String(), "why=quit") || strings.Count(kh.logs.String(), "kept session resumed") != 0 {
		t.Error("a quit session was resumed")
	}
}

// tokenPattern finds the resume token on a passphrase session's screen.
var tokenPattern = regexp.MustCompile(`resume ([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})`)

// resumeWith runs `resume token` on a new passphrase connection with a
// terminal, returning the terminal (whose connection ends with the test).
func (kh *keepHarness) resumeWith(t *testing.T, token string) *terminal {
	t.Helper()
	_, term := kh.resumeConn(t, token)
	return term
}

// resumeConn is resumeWith that returns the connection too.
func (kh *keepHarness) resumeConn(t *testing.T, token string) (*gossh.Client, *terminal) {
	t.Helper()
	c, err := kh.dial(gossh.Password(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	term, err := openCommand(c, 100, 30, "resume "+token)
	if err != nil {
		t.Fatal(err)
	}
	return c, term
}

// refused waits for term to end and returns its exit status.
func refused(t *testing.T, term *terminal) int {
	t.Helper()
	err := term.sess.Wait()
	var ee *gossh.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the resume was not refused: %v, screen %q", err, term.screen())
	}
	return ee.ExitStatus()
}

// TestResumeToken: a passphrase session shows a token; with it a new
// connection finds the session once; a wrong or used token is refused and
// counts as a failed login; the token is never logged.
func TestResumeToken(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	release := kh.holdWorker(t)
	defer release()
	c, term := kh.connect(t, gossh.Password(testPassphrase))
	waitFor(t, "a token on the screen", func() bool { return tokenPattern.MatchString(term.screen()) })
	token := tokenPattern.FindStringSubmatch(term.screen())[1]
	startQueued(t, term)
	c.Close()
	kh.waitLog(t, "msg=\"session kept\"", 1)

	wrong := kh.resumeWith(t, "2345-6789-abcd")
	if code := refused(t, wrong); code != exitRefused || !strings.Contains(wrong.screen(), "no session has this token") {
		t.Errorf("a wrong token: status %d, %q", code, wrong.screen())
	}

	bc, back := kh.resumeConn(t, strings.ToUpper(token)) // typed in capitals: still the token
	waitScreen(t, back, "run queued")
	waitFor(t, "a new token", func() bool {
		m := tokenPattern.FindStringSubmatch(back.screen())
		return m != nil && m[1] != token
	})
	if n := kh.models.Load(); n != 1 {
		t.Errorf("%d interfaces built, want 1", n)
	}
	bc.Close()
	kh.waitLog(t, "msg=\"session kept\"", 2)

	again := kh.resumeWith(t, token)
	if code := refused(t, again); code != exitRefused {
		t.Errorf("a used token: status %d, %q", code, again.screen())
	}
	logs := kh.logs.String()
	if strings.Count(logs, "wrong resume token") != 2 {
		t.Errorf("want 2 failed resumes in the log:\n%s", logs)
	}
	if strings.Contains(logs, token) || strings.Contains(logs, strings.ReplaceAll(token, "-", "")) {
		t.Errorf("the token is in the log:\n%s", logs)
	}

	// The harness allows 3 failures: a third wrong token locks the
	// address out, passphrase included.
	refused(t, kh.resumeWith(t, "zzzz-zzzz-zzzz"))
	if _, err := kh.dial(gossh.Password(testPassphrase)); err == nil {
		t.Error("the passphrase still gets in after 3 wrong tokens")
	}
}

// TestResumeRefusals: resume is for passphrase sessions of a server that
// keeps them, with a terminal.
func TestResumeRefusals(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	for _, tc := range []struct {
		name string
		auth gossh.AuthMethod
		pty  bool
		want string
	}{
		{"key", gossh.PublicKeys(kh.key), true, "comes back by its key"},
		{"no terminal", gossh.Password(testPassphrase), false, "needs a terminal"},
	} {
		c, err := kh.dial(tc.auth)
		if err != nil {
			t.Fatal(err)
		}
		var out string
		var code int
		if tc.pty {
			term, err := openCommand(c, 80, 24, "resume abcd-efgh-jkmn")
			if err != nil {
				t.Fatal(err)
			}
			code = refused(t, term)
			out = term.screen()
		} else {
			out, code, err = output(c, "resume abcd-efgh-jkmn")
			if err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		if code != exitRefused || !strings.Contains(out, tc.want) {
			t.Errorf("%s: status %d, %q; want %d and %q", tc.name, code, out, exitRefused, tc.want)
		}
	}
	if strings.Contains(kh.logs.String(), "wrong resume token") {
		t.Error("a refusal before any token was checked counted as a failure")
	}
}

// TestDrainStopsKeptRuns: a drain stops the runs of sessions kept without a
// connection, and drops them.
func TestDrainStopsKeptRuns(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	release := kh.holdWorker(t)
	c, term := kh.connect(t, gossh.PublicKeys(kh.key))
	startQueued(t, term)
	c.Close()
	kh.waitLog(t, "msg=\"session kept\"", 1)
	release()
	kh.waitLog(t, "msg=\"run started\"", 1)
	kh.stop(t)
	if n := kh.srv.keep.kept(); n != 0 {
		t.Errorf("%d interfaces kept after the drain", n)
	}
	if r, w := kh.srv.Queue().Stats(); r != 0 || w != 0 {
		t.Errorf("after the drain %d runs running, %d waiting", r, w)
	}
}

// TestPanicInKeptSession: a panic in an interface kept without a
// connection drops that interface; the server goes on.
func TestPanicInKeptSession(t *testing.T) {
	kh := startKeepHarness(t, time.Minute)
	c, _ := kh.connect(t, gossh.PublicKeys(kh.key))
	c.Close()
	kh.waitLog(t, "msg=\"session kept\"", 1)
	kh.srv.keep.mu.Lock()
	kept := kh.srv.keep.byID[sessionID(kh.key.PublicKey())]
	kh.srv.keep.mu.Unlock()
	if kept == nil {
		t.Fatal("the key's interface is not kept")
	}
	kept.notify("panic")
	kh.waitLog(t, "why=failed", 1)
	if !strings.Contains(kh.logs.String(), "a bug in a kept session") {
		t.Errorf("the panic is not logged:\n%s", kh.logs.String())
	}
	kh.connect(t, gossh.PublicKeys(kh.key)) // a new interface is drawn
	if n := kh.models.Load(); n != 2 {
		t.Errorf("%d interfaces built, want 2 (the failed one is not resumed)", n)
	}
}

// openCommand opens a session with a w×h terminal that runs cmd.
func openCommand(c *gossh.Client, w, h int, cmd string) (*terminal, error) {
	s, stdin, err := ptySession(c, w, h)
	if err != nil {
		return nil, err
	}
	// ended is never closed: such a session is waited for with its
	// sess.Wait (refused) or closed by the test.
	term := &terminal{sess: s, stdin: stdin, got: make(chan struct{}, 1), ended: make(chan struct{})}
	sink := writerFunc(func(p []byte) (int, error) {
		term.mu.Lock()
		term.out = append(term.out, p...)
		term.mu.Unlock()
		select {
		case term.got <- struct{}{}:
		default:
		}
		return len(p), nil
	})
	s.Stdout, s.Stderr = sink, sink
	if err := s.Start(cmd); err != nil {
		return nil, err
	}
	return term, nil
}

// writerFunc is a function as an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
