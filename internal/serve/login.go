package serve

import (
	"os"
	"path/filepath"
	"time"

	"charm.land/ssh"
)

// checkKey is the public-key login: the key must be in --authorized-keys.
// A refused key costs no delay: keys cannot be guessed, and a client tries
// each key of its agent in turn before the passphrase.
func (s *Server) checkKey(ctx ssh.Context, key ssh.PublicKey) bool {
	ok := s.keys.Has(key)
	if !ok {
		s.log.Debug("key refused", "remote", ctx.RemoteAddr().String(), "user", logID(ctx.User()))
	}
	return ok
}

// folderExists reports whether the state folder holds a session folder name.
func (s *Server) folderExists(name string) bool {
	info, err := os.Stat(filepath.Join(s.cfg.StateDir, name))
	return err == nil && info.IsDir()
}

// checkPassphrase is the passphrase login, compared in constant time. An
// address that failed MaxFailures times within FailWindow is refused
// unchecked; every failure waits FailDelay before its answer, which slows
// guessing on one connection to a crawl.
func (s *Server) checkPassphrase(ctx ssh.Context, guess string) bool {
	host := hostOf(ctx.RemoteAddr())
	if s.limit.blocked(host) {
		s.log.Warn("passphrase refused unchecked: too many failures", "remote", host, "user", logID(ctx.User()))
		time.Sleep(s.cfg.FailDelay)
		return false
	}
	what := "wrong passphrase"
	if s.pass.Matches(guess) {
		if !isPassID(ctx.User()) || s.folderExists(ctx.User()) {
			return true
		}
		// A session folder's name is a passphrase participant's download
		// secret against the others, who know the passphrase: naming one
		// that does not exist is a failed guess, delayed and counted as a
		// wrong passphrase is.
		what = "unknown session folder"
	}
	blocked := s.limit.fail(host)
	s.log.Warn(what, "remote", host, "user", logID(ctx.User()), "now_blocked", blocked)
	time.Sleep(s.cfg.FailDelay)
	return false
}
