package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// testPassphrase is the workshop passphrase of every test server.
const testPassphrase = "correct horse battery"

// harness is a server on a free loopback port with one authorized key and
// a passphrase.
type harness struct {
	srv      *Server
	addr     string
	key      gossh.Signer
	dataDir  string
	stateDir string
	logs     *syncBuffer
	cancel   context.CancelFunc
	done     chan error
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// startHarness starts a server whose Config mod adjusts (NewModel must be
// set by mod), and stops it at the end of the test.
func startHarness(t testing.TB, mod func(*Config)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{key: newKey(t), dataDir: filepath.Join(dir, "data"), stateDir: filepath.Join(dir, "state"), logs: &syncBuffer{}}
	if err := os.MkdirAll(h.dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(h.key.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(dir, "passphrase")
	if err := os.WriteFile(pf, []byte(testPassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		HostKeyPath: filepath.Join(dir, "host_key"), AuthorizedKeys: ak, PassphraseFile: pf,
		DataDir: h.dataDir, StateDir: h.stateDir, Workers: 2, MaxRuns: 1,
		FailDelay: 10 * time.Millisecond, MaxFailures: 3,
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	mod(&cfg)
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.srv, h.addr, h.cancel, h.done = srv, l.Addr().String(), cancel, make(chan error, 1)
	go func() { h.done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

// stop drains the server and waits for Serve to return.
func (h *harness) stop(t testing.TB) time.Duration {
	t.Helper()
	start := time.Now()
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		h.done <- nil // later stops return at once
	case <-time.After(3 * DrainTimeout):
		t.Fatal("the server did not stop")
	}
	return time.Since(start)
}

// dial logs in with auth, checking the host key.
func (h *harness) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", h.addr, &gossh.ClientConfig{
		User: "participant", Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(h.srv.HostKey()),
		Timeout:         10 * time.Second,
	})
}

// keyClient logs in with the authorized key.
func (h *harness) keyClient(t testing.TB) *gossh.Client {
	t.Helper()
	c, err := h.dial(gossh.PublicKeys(h.key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// output runs cmd in a new session of c and returns its output and exit
// status (-1 when the session ended without one).
func output(c *gossh.Client, cmd string) (string, int, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", -1, err
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return string(out), 0, nil
	case errors.As(err, &ee):
		return string(out), ee.ExitStatus(), nil
	default:
		return string(out), -1, err
	}
}

// terminal is one interactive session of a test client.
type terminal struct {
	sess  *gossh.Session
	stdin io.WriteCloser
	mu    sync.Mutex
	out   []byte
	got   chan struct{} // signalled after each read
	ended chan struct{}
}

// ptySession opens a session with a w×h terminal and its stdin.
func ptySession(c *gossh.Client, w, h int) (*gossh.Session, io.WriteCloser, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, nil, err
	}
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		return nil, nil, err
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	return s, stdin, nil
}

// openTerminal opens an interactive session with a w×h terminal.
func openTerminal(c *gossh.Client, w, h int) (*terminal, error) {
	s, stdin, err := ptySession(c, w, h)
	if err != nil {
		return nil, err
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		return nil, err
	}
	term := &terminal{sess: s, stdin: stdin, got: make(chan struct{}, 1), ended: make(chan struct{})}
	if err := s.Shell(); err != nil {
		return nil, err
	}
	go func() {
		defer close(term.ended)
		buf := make([]byte, 32*1024)
		for {
			n, err := stdout.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.out = append(term.out, buf[:n]...)
				term.mu.Unlock()
				select {
				case term.got <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return term, nil
}

// waitOutput waits for any output, up to d.
func (t *terminal) waitOutput(d time.Duration) bool {
	select {
	case <-t.got:
		return true
	case <-time.After(d):
		return false
	}
}

// settle waits until no output arrived for quiet, or max passed, so that
// the tail of an earlier frame is not taken for the answer to a key.
func (t *terminal) settle(quiet, max time.Duration) {
	end := time.Now().Add(max)
	for time.Now().Before(end) {
		select {
		case <-t.got:
		case <-time.After(quiet):
			return
		}
	}
}

// keyToFrame sends key and returns how long the first output after it took
// to arrive: the frame that answers it, or, while a run draws, possibly the
// run's next frame (at most a frame interval, 1/15 s, later than the key).
func (t *terminal) keyToFrame(key string) (time.Duration, error) {
	t.settle(50*time.Millisecond, time.Second)
	// Forget output that arrived before the key.
	select {
	case <-t.got:
	default:
	}
	start := time.Now()
	if _, err := t.stdin.Write([]byte(key)); err != nil {
		return 0, err
	}
	// A hang guard only: 40 sessions opening the Planner at once on two
	// busy cores took over 10 s to draw it.
	if !t.waitOutput(time.Minute) {
		return 0, errors.New("no frame within a minute of a key")
	}
	return time.Since(start), nil
}
