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

// programFor builds the interface of an interactive session: a program
// with the session's terminal size and colour profile (wish's options),
// reading keys through the idle watch, that shows the session's host
// (host.go): a kept one found again (keep.go) or a new one. The program
// ends with the connection; the host is then kept for --keep.
func (s *Server) programFor(sess ssh.Session) *tea.Program {
	se, ok := sess.Context().Value(sessionKey{}).(*session)
	if !ok {
		return nil
	}
	resumed, _ := sess.Context().Value(resumeKey{}).(*host)
	se.instructor = s.isInstructor(sess)
	opts := append(bm.MakeOptions(sess),
		// The server handles its own signals; a session's program must
		// not react to the server's SIGTERM or SIGINT.
		tea.WithoutSignalHandler(),
		// Later options win: keys are read through the idle watch.
		tea.WithInput(&inputWatch{r: sess, se: se}),
	)
	// The program exists before the host can send it anything.
	px := &proxy{a: &attachment{}}
	p := tea.NewProgram(px, opts...)
	px.a.prog = p
	h, first := s.keep.attach(se, resumed, px.a)
	if h == nil {
		return nil
	}
	px.h, px.first = h, first
	a := px.a
	se.mu.Lock()
	se.program = p
	se.mu.Unlock()
	// The session's end (idle, drain, a new connection taking the host
	// over) quits the program the way a user does: the terminal is
	// restored and Run returns without an error. The host stays.
	go func() {
		<-se.ctx.Done()
		p.Quit()
		s.keep.detach(h, se, a)
	}()
	go s.watchIdle(se, h)
	if first {
		se.notify(s.folderNote(h.id))
	}
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

// watchIdle ends se when it had neither a keystroke nor a run of its own
// or of the interface it shows (h) for IdleTimeout.
func (s *Server) watchIdle(se *session, h *host) {
	period := min(s.cfg.IdleTimeout/4, time.Minute)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-se.ctx.Done():
			return
		case now := <-t.C:
			if h.runs.active() > 0 {
				continue
			}
			idle := now.Sub(time.Unix(0, se.lastInput.Load()))
			if idle >= s.cfg.IdleTimeout {
				s.log.Info("idle session ended", "session", logID(se.id), "idle", idle.Round(time.Second).String())
				se.end(fmt.Sprintf("closed after %v without a key or a run", s.cfg.IdleTimeout))
				return
			}
		}
	}
}

// folderNote tells a session whose folder is id where its files are and
// how to fetch them.
func (s *Server) folderNote(id string) string {
	user := ""
	if strings.HasPrefix(id, "pass-") {
		user = id + "@"
	}
	if !s.cfg.AllowSFTP {
		return "your files: folder " + id + " on the server"
	}
	return fmt.Sprintf("your files: scp -P %s '%sHOST:FILE' .  (or sftp -P %s %sHOST)", s.port(), user, s.port(), user)
}
