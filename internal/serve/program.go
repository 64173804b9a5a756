package serve

import (
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	bm "charm.land/wish/v2/bubbletea"
)

// programFor builds the interface of an interactive session: its own model
// with the session's terminal size and colour profile (wish's options),
// ending with the session, reading keys through the idle watch.
func (s *Server) programFor(sess ssh.Session) *tea.Program {
	se, ok := sess.Context().Value(sessionKey{}).(*session)
	if !ok {
		return nil
	}
	info := se.info()
	info.Class = s.seat(sess, se)
	m := s.cfg.NewModel(info)
	if m == nil {
		return nil
	}
	opts := append(bm.MakeOptions(sess),
		// The server handles its own signals; a session's program must
		// not react to the server's SIGTERM or SIGINT.
		tea.WithoutSignalHandler(),
		// Later options win: keys are read through the idle watch.
		tea.WithInput(&inputWatch{r: sess, se: se}),
	)
	p := tea.NewProgram(guardModel{inner: m, log: s.log, id: se.id}, opts...)
	se.mu.Lock()
	se.program = p
	se.mu.Unlock()
	s.listenClass(info.Class, se, p)
	// The session's end (idle, drain) quits the program the way a user
	// does: the terminal is restored and Run returns without an error.
	go func() {
		<-se.ctx.Done()
		p.Quit()
	}()
	go s.watchIdle(se)
	se.notify(s.folderNote(se))
	return p
}

// inputWatch notes the time of every read from the user.
type inputWatch struct {
	r  io.Reader
	se *session
}

func (w *inputWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.se.lastInput.Store(time.Now().UnixNano())
	}
	return n, err
}

// watchIdle ends se when it had neither a keystroke nor a run for
// IdleTimeout.
func (s *Server) watchIdle(se *session) {
	period := min(s.cfg.IdleTimeout/4, time.Minute)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-se.ctx.Done():
			return
		case now := <-t.C:
			if se.activeRuns() > 0 {
				continue
			}
			idle := now.Sub(time.Unix(0, se.lastInput.Load()))
			if idle >= s.cfg.IdleTimeout {
				s.log.Info("idle session ended", "session", se.id, "idle", idle.Round(time.Second).String())
				se.end(fmt.Sprintf("closed after %v without a key or a run", s.cfg.IdleTimeout))
				return
			}
		}
	}
}

// folderNote tells a session where its files are and how to fetch them.
func (s *Server) folderNote(se *session) string {
	user := ""
	if strings.HasPrefix(se.id, "pass-") {
		user = se.id + "@"
	}
	if !s.cfg.AllowSFTP {
		return "your files: folder " + se.id + " on the server"
	}
	return fmt.Sprintf("your files: scp -P %s '%sHOST:FILE' .  (or sftp -P %s %sHOST)", s.port(), user, s.port(), user)
}
