package serve

import (
	"fmt"

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
	s.class = &classRoom{reg: class.NewRegistry()}
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
