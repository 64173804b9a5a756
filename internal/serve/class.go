package serve

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
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

// seat joins the session to the class, named after its SSH user at first
// (the participant may change it). A passphrase session is never an
// instructor's. Nil when the class is full: the session goes on without
// the class.
func (s *Server) seat(sess ssh.Session, se *session) *class.Seat {
	key := sess.PublicKey()
	instructor := key != nil && s.class.instructors.Has(key)
	seat, err := s.class.reg.Join(se.id, se.user, instructor)
	if err != nil {
		s.log.Warn("no class seat", "session", se.id, "err", err)
		return nil
	}
	s.log.Info("class seat", "session", se.id, "name", seat.Name(), "instructor", instructor)
	return seat
}

// listenClass delivers the class's pushes (and an instructor's board
// changes) to p until the session ends. Each message is sent in its own
// goroutine: Send blocks until the program takes it, and returns at once
// once the program has ended, so a slow or gone session holds up neither
// the instructor nor the class.
func (s *Server) listenClass(seat *class.Seat, se *session, p *tea.Program) {
	if seat == nil {
		return
	}
	stop := seat.Listen(func(m any) {
		if se.ctx.Err() != nil {
			return
		}
		go p.Send(m)
	})
	go func() {
		<-se.ctx.Done()
		stop()
	}()
}
