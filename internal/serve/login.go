package serve

import (
	"time"

	"charm.land/ssh"
)

// checkKey is the public-key login: the key must be in --authorized-keys.
// A refused key costs no delay: keys cannot be guessed, and a client tries
// each key of its agent in turn before the passphrase.
func (s *Server) checkKey(ctx ssh.Context, key ssh.PublicKey) bool {
	ok := s.keys.Has(key)
	if !ok {
		s.log.Debug("key refused", "remote", ctx.RemoteAddr().String(), "user", ctx.User())
	}
	return ok
}

// checkPassphrase is the passphrase login, compared in constant time. An
// address that failed MaxFailures times within FailWindow is refused
// unchecked; every failure waits FailDelay before its answer, which slows
// guessing on one connection to a crawl.
func (s *Server) checkPassphrase(ctx ssh.Context, guess string) bool {
	host := hostOf(ctx.RemoteAddr())
	if s.limit.blocked(host) {
		s.log.Warn("passphrase refused unchecked: too many failures", "remote", host, "user", ctx.User())
		time.Sleep(s.cfg.FailDelay)
		return false
	}
	if s.pass.Matches(guess) {
		return true
	}
	blocked := s.limit.fail(host)
	s.log.Warn("wrong passphrase", "remote", host, "user", ctx.User(), "now_blocked", blocked)
	time.Sleep(s.cfg.FailDelay)
	return false
}
