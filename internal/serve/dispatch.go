package serve

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"charm.land/ssh"
)

// Exit statuses of refused sessions, as a shell would give them.
const (
	exitRefused  = 126 // a command that is not served
	exitInternal = 1
)

// dispatch is the session handler: a command goes to Exec, a session with
// a terminal to the interface (next, wish's Bubble Tea middleware), as does
// `resume TOKEN` once its token found a kept session (resume.go); any other
// is refused with a message. A panic anywhere in the session ends
// that session only, logged with its stack.
func (s *Server) dispatch(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		se, err := s.open(sess)
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "dpscope: %v\r\n", err)
			_ = sess.Exit(exitInternal)
			return
		}
		defer s.close(se)
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in session", "session", logID(se.id), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				fmt.Fprint(sess.Stderr(), "dpscope: internal error; this session ends (the server goes on)\r\n")
				_ = sess.Exit(exitInternal)
			}
		}()
		_, _, hasPty := sess.Pty()
		kind := "tui"
		switch {
		case isResume(sess.Command()):
			kind = "resume" // the interface of a kept session; its token is never logged
		case len(sess.Command()) > 0 || sess.RawCommand() != "":
			kind = "exec"
		}
		s.log.Info("session opened", "session", logID(se.id), "user", logID(se.user), "remote", se.remote, "kind", kind,
			"auth", map[bool]string{true: "key", false: "passphrase"}[sess.PublicKey() != nil])
		switch {
		case kind == "exec":
			_ = sess.Exit(s.exec(sess, se))
		case kind == "resume" && !s.resume(sess, se, hasPty):
			// refused, with the reason told
		case !hasPty:
			fmt.Fprint(sess.Stderr(), "dpscope: the interface needs a terminal: connect with ssh -t\r\n")
			_ = sess.Exit(exitRefused)
		default:
			next(sess)
			if why := se.ending.Load(); why != nil {
				fmt.Fprintf(sess, "dpscope: session %s\r\n", *why)
			}
			s.log.Info("interface ended", "session", logID(se.id), "took", time.Since(start).Round(time.Second).String())
		}
	}
}

// allowedCommands are the subcommands served remotely.
var allowedCommands = []string{"run", "budget"}

// exec runs the session's command if it is one of allowedCommands and
// returns its exit status.
func (s *Server) exec(sess ssh.Session, se *session) int {
	args := sess.Command()
	if len(args) == 0 || !contains(allowedCommands, args[0]) || s.cfg.Exec == nil {
		s.log.Warn("command refused", "session", logID(se.id), "command", sess.RawCommand())
		fmt.Fprintf(sess.Stderr(), "dpscope: %q is not served here; connect without a command for the interface, or run: %s\r\n",
			sess.RawCommand(), strings.Join(allowedCommands, ", "))
		return exitRefused
	}
	s.log.Info("command", "session", logID(se.id), "args", strings.Join(args, " "))
	return s.cfg.Exec(se.ctx, ExecRequest{
		Args: args, DataRoot: s.cfg.DataDir, StateDir: se.dir,
		Stdout: sess, Stderr: sess.Stderr(),
		Admit: se.admit,
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
