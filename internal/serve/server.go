package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"
)

// DrainTimeout is how long a stopping server gives its sessions: runs are
// stopped, sessions told and closed, and Serve returns within it.
const DrainTimeout = 10 * time.Second

// handshakeTimeout bounds a connection that never finishes logging in.
const handshakeTimeout = 30 * time.Second

// Server is a running `dpscope serve`.
type Server struct {
	cfg     Config
	log     *slog.Logger
	ssh     *ssh.Server
	hostKey gossh.PublicKey
	queue   *Queue
	keys    KeySet
	pass    *Passphrase
	limit   *limiter
	class   *classRoom // class.go
	keep    *keeper    // the interfaces, kept across connections (keep.go)

	mu       sync.Mutex
	addr     net.Addr // the listener's, once serving
	sessions map[*session]struct{}
	draining bool
}

// New checks cfg, reads (or creates) the host key and the credentials, and
// returns a server ready to Serve. Errors name the flag or file at fault.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, queue: NewQueue(cfg.Workers, cfg.MaxRuns),
		limit: newLimiter(cfg.MaxFailures, cfg.FailWindow), sessions: map[*session]struct{}{}}
	s.keep = newKeeper(s, cfg.Keep)
	if cfg.AuthorizedKeys != "" {
		if s.keys, err = LoadAuthorizedKeys(cfg.AuthorizedKeys); err != nil {
			return nil, err
		}
	}
	if err := s.openClass(); err != nil {
		return nil, err
	}
	if cfg.PassphraseFile != "" {
		if s.pass, err = LoadPassphrase(cfg.PassphraseFile); err != nil {
			return nil, err
		}
	}
	if cfg.DataDir != "" {
		if _, err := Confine(cfg.DataDir, "."); err != nil {
			return nil, fmt.Errorf("--data-dir: %w", err)
		}
	}
	signer, created, err := LoadOrCreateHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	s.hostKey = signer.PublicKey()
	if created {
		s.log.Info("host key created", "path", cfg.HostKeyPath, "fingerprint", gossh.FingerprintSHA256(s.hostKey))
	}
	opts := []ssh.Option{
		wish.WithAddress(cfg.Addr),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		// The outermost middleware is the last: dispatch decides between a
		// command and the interface, which wish's Bubble Tea middleware
		// serves with a program from programFor.
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.programFor), s.dispatch),
		func(srv *ssh.Server) error {
			srv.HandshakeTimeout = handshakeTimeout
			// A connection silent both ways for twice the interface's idle
			// time holds nothing (a session with a run or a queued one
			// draws or is told its place): cut it, and a client that
			// opens no session at all with it.
			srv.IdleTimeout = 2 * cfg.IdleTimeout
			// Only "shell" (the interface), "exec" (run, budget) and, with
			// AllowSFTP, the read-only "sftp" subsystem are served; any other
			// subsystem is refused before a handler runs.
			srv.SessionRequestCallback = func(sess ssh.Session, kind string) bool {
				return kind == "shell" || kind == "exec" || (kind == "subsystem" && cfg.AllowSFTP && sess.Subsystem() == "sftp")
			}
			// No forwarding of any kind: nil callbacks deny, and only the
			// "session" channel type is handled (direct-tcpip is refused).
			srv.LocalPortForwardingCallback = nil
			srv.ReversePortForwardingCallback = nil
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": sessionWithoutAgent}
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
			if cfg.AllowSFTP {
				srv.SubsystemHandlers["sftp"] = s.sftpHandler
			}
			srv.ConnectionFailedCallback = func(c net.Conn, err error) {
				s.log.Info("connection failed", "remote", c.RemoteAddr().String(), "err", err)
			}
			return nil
		},
	}
	if s.keys != nil {
		opts = append(opts, wish.WithPublicKeyAuth(s.checkKey))
	}
	if s.pass != nil {
		opts = append(opts, wish.WithPasswordAuth(s.checkPassphrase))
	}
	if s.ssh, err = wish.NewServer(opts...); err != nil {
		return nil, err
	}
	return s, nil
}

// HostKey returns the server's public host key.
func (s *Server) HostKey() gossh.PublicKey { return s.hostKey }

// Queue returns the server's run queue.
func (s *Server) Queue() *Queue { return s.queue }

// ListenAndServe listens on Config.Addr and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context) error {
	l, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, l)
}

// Serve accepts connections on l until ctx ends, then drains: no new runs,
// every session is told and its runs stopped, every connection closed,
// all within DrainTimeout. It returns nil after a drain, or the listener's
// error.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.log.Info("serving", "addr", l.Addr().String(), "host_key", gossh.FingerprintSHA256(s.hostKey),
		"workers", s.cfg.Workers, "max_runs", s.cfg.MaxRuns, "max_cells", s.cfg.MaxCells,
		"data_dir", s.cfg.DataDir, "state_dir", s.cfg.StateDir, "keep", s.cfg.Keep.String())
	s.mu.Lock()
	s.addr = l.Addr()
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- s.ssh.Serve(l) }()
	select {
	case err := <-errc:
		if errors.Is(err, ssh.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	s.drain()
	// Closing the listener as well ends a Serve that had not yet started
	// accepting when the drain closed the server (a stop right after the
	// start), which would otherwise wait on the listener for ever.
	_ = l.Close()
	<-errc
	return nil
}

// port is the port the server listens on ("2222" before Serve).
func (s *Server) port() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr == nil {
		return "2222"
	}
	_, p, err := net.SplitHostPort(s.addr.String())
	if err != nil {
		return "2222"
	}
	return p
}

// openSessions counts the sessions still open.
func (s *Server) openSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// queueBusy reports whether a run still holds a worker (one whose start
// was loading its data when the drain began ends once it sees its
// cancelled context).
func (s *Server) queueBusy() bool {
	r, _ := s.queue.Stats()
	return r > 0
}

// drain stops the server within DrainTimeout.
func (s *Server) drain() {
	start := time.Now()
	deadline := start.Add(DrainTimeout)
	s.queue.Drain()
	s.mu.Lock()
	s.draining = true
	live := make([]*session, 0, len(s.sessions))
	for se := range s.sessions {
		live = append(live, se)
	}
	s.mu.Unlock()
	s.log.Info("draining", "sessions", len(live))
	// Stop every interface's run first (attached or kept), so that each
	// ends with its result recorded (a stopped run still reports how far
	// it got), then end the sessions; a `run` command ends with its
	// session's context.
	for _, se := range live {
		se.notify("the server is stopping: your run is stopped and this session ends in a few seconds")
	}
	s.keep.drain(time.Until(deadline) / 2)
	for _, se := range live {
		se.end("the server stopped")
	}
	s.keep.dropAll("the server stopped")
	// Wait for the sessions' handlers to return (their last words reach
	// the users), then cut every connection: a client that keeps its
	// connection open after its session ended holds nothing worth
	// waiting for.
	for time.Now().Before(deadline.Add(-time.Second)) && (s.openSessions() > 0 || s.queueBusy()) {
		time.Sleep(10 * time.Millisecond)
	}
	_ = s.ssh.Close()
	s.saveClass() // after the runs stopped: every finished run is on the board
	s.log.Info("stopped", "took", time.Since(start).Round(time.Millisecond).String())
}
