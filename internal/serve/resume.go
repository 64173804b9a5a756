package serve

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"charm.land/ssh"
)

// A passphrase session has no key to be known by, so it is found again by a
// one-time token shown on its last line: `ssh -t -p PORT HOST resume TOKEN`
// (after the passphrase, as any login). The token is 12 symbols of an
// alphabet without look-alikes (about 59 bits), works once (the resumed
// session shows a new one), ends with its session at --keep, is compared in
// constant time against every kept token, and is never logged. A wrong token
// counts as a failed passphrase against the address's attempts.

// tokenAlphabet has no 0/o, 1/l/i: a token is read off a screen and typed.
const tokenAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// tokenLen is the number of symbols of a token.
const tokenLen = 12

// resumeKey finds, in an ssh.Context, the host a resume command found.
type resumeKey struct{}

// newTokenText returns a random token, in groups of four: "abcd-efgh-jkmn".
func newTokenText() string {
	var b strings.Builder
	buf := make([]byte, 1)
	for n := 0; n < tokenLen; {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on supported systems
		}
		// Rejection keeps every symbol equally likely.
		if int(buf[0]) >= 256/len(tokenAlphabet)*len(tokenAlphabet) {
			continue
		}
		if n > 0 && n%4 == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(tokenAlphabet[int(buf[0])%len(tokenAlphabet)])
		n++
	}
	return b.String()
}

// normalizeToken is the form tokens are compared in: lower case, without
// the dashes and spaces a user may type or leave out.
func normalizeToken(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			return -1
		case 'A' <= r && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, s)
}

// newToken gives h a fresh token and the banner line that shows it. Called
// with the keeper's lock held, or before h is registered.
func (k *keeper) newToken(h *host) {
	t := newTokenText()
	h.tokenSum = sha256.Sum256([]byte(normalizeToken(t)))
	line := fmt.Sprintf("disconnected? come back within %s: ssh -t -p %s HOST resume %s", fmtKeep(k.keep), k.srv.port(), t)
	h.token.Store(&line)
}

// lookupToken returns the kept passphrase session whose token is token, or
// nil, and gives it a new token: a token works once. Every kept token is
// compared, in constant time, whatever matches.
func (k *keeper) lookupToken(token string) *host {
	sum := sha256.Sum256([]byte(normalizeToken(token)))
	k.mu.Lock()
	defer k.mu.Unlock()
	var found *host
	for h := range k.hosts {
		match := subtle.ConstantTimeCompare(h.tokenSum[:], sum[:]) == 1
		if match && !h.byKey && !h.dead {
			found = h
		}
	}
	if found != nil {
		k.newToken(found)
	}
	return found
}

// isResume reports whether args are the resume command.
func isResume(args []string) bool { return len(args) > 0 && args[0] == "resume" }

// resume checks a `resume TOKEN` session and, when the token finds a kept
// session, records it for the interface and returns true; otherwise it
// tells the user why, sets the exit status and returns false.
func (s *Server) resume(sess ssh.Session, se *session, hasPty bool) bool {
	refuse := func(why string) bool {
		fmt.Fprintf(sess.Stderr(), "dpscope: %s\r\n", why)
		_ = sess.Exit(exitRefused)
		return false
	}
	args := sess.Command()
	switch {
	case sess.PublicKey() != nil:
		return refuse("a key session comes back by its key alone: connect without a command")
	case s.cfg.Keep <= 0:
		return refuse("this server keeps no session after a disconnect (--keep 0)")
	case len(args) != 2:
		return refuse("usage: resume TOKEN, the token your session showed on its last line")
	case !hasPty:
		return refuse(fmt.Sprintf("resume opens the interface, which needs a terminal: ssh -t -p %s HOST resume TOKEN", s.port()))
	}
	remote := hostOf(sess.RemoteAddr())
	if s.limit.blocked(remote) {
		s.log.Warn("resume refused unchecked: too many failures", "remote", remote, "session", logID(se.id))
		time.Sleep(s.cfg.FailDelay)
		return refuse("too many failed attempts from this address: try again later")
	}
	h := s.keep.lookupToken(args[1])
	if h == nil {
		blocked := s.limit.fail(remote)
		s.log.Warn("wrong resume token", "remote", remote, "session", logID(se.id), "now_blocked", blocked)
		time.Sleep(s.cfg.FailDelay)
		return refuse("no session has this token: it is mistyped, was used already, or its session was not resumed within --keep")
	}
	sess.Context().SetValue(resumeKey{}, h)
	return true
}
