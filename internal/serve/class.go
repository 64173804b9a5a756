package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"charm.land/ssh"

	"github.com/dpscope/dpscope/internal/class"
)

// classRoom is the server's class: every interactive session has a seat in
// it; the keys of --instructor-keys get an instructor's.
type classRoom struct {
	reg         *class.Registry
	instructors KeySet
}

// openClass reads --instructor-keys and opens the class. Instructor keys
// get in like the authorized ones: a teacher lists a key once.
func (s *Server) openClass() error {
	reg, err := s.loadClass()
	if err != nil {
		return err
	}
	s.class = &classRoom{reg: reg}
	if s.cfg.InstructorKeys == "" {
		return nil
	}
	keys, err := LoadAuthorizedKeys(s.cfg.InstructorKeys)
	if err != nil {
		return fmt.Errorf("--instructor-keys: %w", err)
	}
	s.class.instructors = keys
	if s.keys == nil {
		s.keys = KeySet{}
	}
	for k, v := range keys {
		s.keys[k] = v
	}
	return nil
}

// classFile is where the class is saved at the drain and read at the
// start: a file, so it is never taken for a session's folder.
func (s *Server) classFile() string { return filepath.Join(s.cfg.StateDir, "class.json") }

// loadClass reads the class the last server saved in the state folder, so
// the board survives a restart. A file of a newer schema stops the start
// (a newer dpscope's board is not thrown away); one that cannot be read is
// reported, moved aside (kept for a look) and the class starts empty.
func (s *Server) loadClass() (*class.Registry, error) {
	path := s.classFile()
	reg, err := class.Load(path)
	switch {
	case err == nil:
		return reg, nil
	case errors.Is(err, class.ErrNewerSchema):
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	aside := fmt.Sprintf("%s.unreadable-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	if rerr := os.Rename(path, aside); rerr != nil {
		return nil, fmt.Errorf("--state-dir: %w; and it could not be moved aside: %v", err, rerr)
	}
	s.log.Warn("the saved class could not be read: moved aside, the class starts empty", "err", err, "moved_to", aside)
	return class.NewRegistry(), nil
}

// saveClass saves the class in the state folder (at the drain).
func (s *Server) saveClass() {
	if err := os.MkdirAll(s.cfg.StateDir, 0o700); err != nil {
		s.log.Error("class not saved", "err", err)
		return
	}
	if err := s.class.reg.Save(s.classFile(), s.cfg.Version); err != nil {
		s.log.Error("class not saved", "err", err)
		return
	}
	s.log.Info("class saved", "file", s.classFile())
}

// isInstructor reports whether sess logged in with a key of
// --instructor-keys. A passphrase session never does.
func (s *Server) isInstructor(sess ssh.Session) bool {
	key := sess.PublicKey()
	return key != nil && s.class.instructors.Has(key)
}

// seat joins the session to the class, named after its SSH user at first
// (the participant may change it). Nil when the class is full: the session
// goes on without the class. A kept interface (keep.go) keeps its seat,
// and so its name, across connections.
func (s *Server) seat(se *session) *class.Seat {
	user := se.user
	if isPassID(user) {
		user = "" // a folder's name (a download secret) never reaches the board
	}
	seat, err := s.class.reg.Join(se.id, user, se.instructor)
	if err != nil {
		s.log.Warn("no class seat", "session", logID(se.id), "err", err)
		return nil
	}
	s.log.Info("class seat", "session", logID(se.id), "name", seat.Name(), "instructor", se.instructor)
	return seat
}

// listenClass delivers the class's pushes (and an instructor's board
// changes) to h's model until h is dropped, whether or not a connection
// shows it. Each message is delivered on its own goroutine, so a slow
// interface holds up neither the instructor nor the class.
func (s *Server) listenClass(seat *class.Seat, h *host) {
	if seat == nil {
		return
	}
	stop := seat.Listen(func(m any) {
		if h.ctx.Err() != nil {
			return
		}
		go h.deliver(m)
	})
	go func() {
		<-h.ctx.Done()
		stop()
	}()
}
