package class

import (
	"errors"
	"math"
)

// Seat is one session's place in the class: all its interface may do
// there. The rights of an instructor are checked here, on the server, not
// only by the interface that hides what a participant may not use.
type Seat struct {
	reg        *Registry
	id         string
	instructor bool
}

// Instructor reports whether the seat is an instructor's.
func (s *Seat) Instructor() bool { return s.instructor }

// Name returns the participant's display name.
func (s *Seat) Name() string {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	if m := s.reg.members[s.id]; m != nil {
		return m.name
	}
	return ""
}

// Rename changes the participant's display name to want, sanitised, and
// returns it; it fails when nothing printable is left or another
// participant holds the name (case aside).
func (s *Seat) Rename(want string) (string, error) { return s.reg.rename(s.id, want) }

// Report files a finished run of the participant. Runs with no finite ε or
// no ARI have no place on an ε–ARI board and are refused.
func (s *Seat) Report(r Run) error {
	if math.IsNaN(r.Epsilon) || math.IsInf(r.Epsilon, 0) || r.Epsilon < 0 || math.IsNaN(r.ARI) {
		return errors.New("class: a run needs a finite ε and an ARI to be on the board")
	}
	return s.reg.report(s.id, r)
}

// Runs returns every run of the class, oldest first, with the current
// names. Only an instructor may read them.
func (s *Seat) Runs() ([]Run, error) {
	if !s.instructor {
		return nil, ErrNotInstructor
	}
	return s.reg.snapshot(), nil
}

// Push is what an instructor sends to every session: a message, a preset
// of settings, or both.
type Push struct {
	// Seq numbers the pushes of the class, from 1.
	Seq int
	// From is the instructor's display name.
	From string
	// Message is shown in every session (sanitised, at most MaxMessageLen
	// characters); may be empty when a preset is pushed.
	Message string
	// Preset, when set, is a configuration a participant may load with one
	// key; it never replaces a participant's settings by itself.
	Preset *Preset
}

// Preset is a configuration the instructor pushes.
type Preset struct {
	// Summary says what it sets, in one line ("dppca sound · ε 4 · δ 1e-5").
	Summary string
	// Settings are the interface's own settings, opaque to the class. Every
	// session receives the same value: a receiver copies what it changes.
	Settings any
}

// Push sends p to every other session of the class (an instructor's own
// sessions included, the pushing one's member aside) and returns how many
// it reached. Only an instructor may push. Each send is the caller's
// (the server's) and must not block: a session that went away while its
// push is delivered must hold up neither the instructor nor the others.
func (s *Seat) Push(p Push) (int, error) {
	if !s.instructor {
		return 0, ErrNotInstructor
	}
	p.Message = SanitizeMessage(p.Message)
	if p.Message == "" && p.Preset == nil {
		return 0, errors.New("nothing to push: type a message or push a preset")
	}
	if p.Preset != nil {
		pr := *p.Preset
		pr.Summary = SanitizeMessage(pr.Summary)
		p.Preset = &pr
	}
	r := s.reg
	r.mu.Lock()
	r.pushes++
	p.Seq = r.pushes
	if m := r.members[s.id]; m != nil {
		p.From = m.name
	}
	sends := r.sendersLocked(func(l listener) bool { return l.member != s.id })
	r.mu.Unlock()
	for _, send := range sends {
		send(p)
	}
	return len(sends), nil
}

// Listen makes send receive the class's pushes (a Push value) and, on an
// instructor's seat, a Changed whenever the board changes. send must not
// block (the server sends to the session's program in a goroutine). The
// returned stop ends it; the server calls it when the session ends.
func (s *Seat) Listen(send func(any)) (stop func()) {
	return s.reg.listen(listener{member: s.id, instructor: s.instructor, send: send})
}
