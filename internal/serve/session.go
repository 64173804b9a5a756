package serve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"

	"github.com/dpscope/dpscope/core"
)

// session is the server's record of one SSH session.
type session struct {
	srv    *Server
	id     string
	owner  string // the queue's owner: one per SSH session, even for one key
	user   string
	remote string
	dir    string
	// instructor: logged in with a key of --instructor-keys.
	instructor bool
	ctx        context.Context
	cancel     context.CancelFunc

	mu      sync.Mutex
	program *tea.Program
	// lastInput is when the user last typed (unix nanoseconds).
	lastInput atomic.Int64
	// ending says why the server ended the session, for its last line.
	ending atomic.Pointer[string]
}

// end ends se and records why, for the user's last line.
func (se *session) end(why string) {
	se.ending.CompareAndSwap(nil, &why)
	se.cancel()
}

// sessionSeq numbers the sessions of the process.
var sessionSeq atomic.Int64

// sessionKey finds a session's record in its ssh.Context.
type sessionKey struct{}

// sessionID names the folder of a session: the SHA-256 of the public key
// for a key login, so the same key finds the same folder again, or random
// bytes for a passphrase login.
func sessionID(key ssh.PublicKey) string {
	if key != nil {
		sum := sha256.Sum256(key.Marshal())
		return "key-" + hex.EncodeToString(sum[:8])
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "pass-" + hex.EncodeToString(b[:])
}

// isPassID reports whether user has the form of a passphrase session's
// folder name: "pass-" and 16 lowercase hexadecimal digits.
func isPassID(user string) bool {
	hexPart, ok := strings.CutPrefix(user, "pass-")
	if !ok || len(hexPart) != 16 {
		return false
	}
	for _, c := range hexPart {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// logID is how a session's folder name (or a user name) appears in the
// logs: a passphrase session's folder name is its 64-bit download secret
// (its SFTP login name), so it is logged as "pass#" and the first 8 hex
// digits of its SHA-256, which still tells one session's lines from
// another's but cannot be used to log in. Anything else is logged as is.
func logID(id string) string {
	if !isPassID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "pass#" + hex.EncodeToString(sum[:4])
}

// open records sess and creates its folder (0700). It fails when the server
// is draining or the folder cannot be made.
func (s *Server) open(sess ssh.Session) (*session, error) {
	ctx, cancel := context.WithCancel(sess.Context())
	id := sessionID(sess.PublicKey())
	if sess.PublicKey() == nil && isPassID(sess.User()) {
		// A passphrase login that names its earlier session's folder as
		// the user (the folder's name is shown in that session, and is
		// 64 random bits) finds it again: how its exports are fetched.
		// checkPassphrase refused such a name without a folder.
		if info, err := os.Stat(filepath.Join(s.cfg.StateDir, sess.User())); err == nil && info.IsDir() {
			id = sess.User()
		}
	}
	se := &session{srv: s, id: id, user: sess.User(), remote: sess.RemoteAddr().String(),
		ctx: ctx, cancel: cancel}
	se.owner = fmt.Sprintf("%s#%d", se.id, sessionSeq.Add(1))
	se.lastInput.Store(time.Now().UnixNano())
	se.dir = filepath.Join(s.cfg.StateDir, se.id)
	if err := os.MkdirAll(se.dir, 0o700); err != nil {
		cancel()
		return nil, fmt.Errorf("session folder: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		cancel()
		return nil, ErrDraining
	}
	s.sessions[se] = struct{}{}
	sess.Context().SetValue(sessionKey{}, se)
	return se, nil
}

// close forgets se and ends what it still holds.
func (s *Server) close(se *session) {
	se.cancel()
	s.mu.Lock()
	delete(s.sessions, se)
	n := len(s.sessions)
	s.mu.Unlock()
	s.log.Info("session closed", "session", logID(se.id), "remote", se.remote, "sessions", n)
}

// info is what the interface of se may use.
func (se *session) info() Session {
	return Session{Context: se.ctx, ID: se.id, User: se.user, DataRoot: se.srv.cfg.DataDir, StateDir: se.dir}
}

// admit checks cfg's data and waits for a worker, telling the user the
// run's place while it waits.
func (se *session) admit(ctx context.Context, cfg *core.Config) (release func(), err error) {
	if err := se.srv.checkData(cfg); err != nil {
		se.srv.log.Info("run refused", "session", logID(se.id), "err", err)
		return nil, err
	}
	return se.srv.queue.Acquire(ctx, se.owner, func(ahead int) {
		if ahead == 0 {
			se.notify("run queued: next in line for a worker")
		} else {
			se.notify(fmt.Sprintf("run queued: %d runs ahead of it", ahead))
		}
	})
}

// notify shows text in the session's interface, if it has one.
func (se *session) notify(text string) {
	se.mu.Lock()
	p := se.program
	se.mu.Unlock()
	if p != nil && se.srv.cfg.StatusMsg != nil {
		// Send blocks until the program takes the message: never under
		// a lock, and never after the program ended (it returns then).
		go p.Send(se.srv.cfg.StatusMsg(text))
	}
}
