// Package class is the class of a workshop served by `dpscope serve`: the
// participants' display names, the runs they finished, the instructor's
// leaderboard over them, and the presets and messages the instructor
// pushes to every session. It knows nothing of SSH or of the interface:
// the server joins each session to the Registry and hands the interface a
// Seat, which is all the interface may use.
package class

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Bounds of a Registry: a workshop has 20–40 participants who each finish
// tens of runs; the bounds keep a server that runs for days, or a client
// that reconnects in a loop, from growing without end.
const (
	// MaxMembers is how many distinct participants a class holds (a
	// passphrase login that does not name its folder is a new one).
	MaxMembers = 500
	// MaxRunsPerMember is how many runs of one participant are kept: the
	// oldest goes first.
	MaxRunsPerMember = 200
	// MaxRuns is how many runs the whole class keeps: the oldest goes first.
	MaxRuns = 10000
)

// Errors of a Seat.
var (
	// ErrNotInstructor refuses the board and pushes to a participant.
	ErrNotInstructor = errors.New("only an instructor key may see the class board or push to the class")
	// ErrFull refuses a new participant once MaxMembers joined.
	ErrFull = fmt.Errorf("the class is full (%d participants)", MaxMembers)
)

// Run is one finished private run of a participant, as the board draws it.
type Run struct {
	// Name is the participant's display name when the run was read
	// (Seat.Runs fills it with the current one).
	Name string
	// Member is the participant's id (the session's folder name).
	Member string
	Method string
	Mode   string
	// Epsilon is the ε spent, by Accountant ("RDP", "zCDP", …), for Unit
	// ("cell" or "client"): the run's headline figure.
	Epsilon    float64
	Accountant string
	Unit       string
	Delta      float64
	ARI, NMI   float64
	Seed       uint64
	// Data names the data set ("builtin:NAME" or its path on the server):
	// only runs on the same data set are compared.
	Data string
	// At is when the run was reported; set by the registry when zero.
	At time.Time
}

// Changed tells an instructor's interface that the board changed (a run was
// reported or a participant renamed); it reads it again with Seat.Runs.
type Changed struct{}

// member is one participant of the class.
type member struct {
	name string
	runs int // runs of the member in Registry.runs
}

// listener is one interface that receives pushes (and, for an instructor,
// Changed).
type listener struct {
	member     string
	instructor bool
	send       func(any)
}

// Registry is the class of one server. It is safe for concurrent use.
type Registry struct {
	mu        sync.Mutex
	members   map[string]*member // by id
	names     map[string]string  // folded name → member id
	runs      []Run              // oldest first
	listeners map[int]listener
	nextL     int
	pushes    int
	now       func() time.Time
}

// NewRegistry returns an empty class.
func NewRegistry() *Registry {
	return &Registry{members: map[string]*member{}, names: map[string]string{}, listeners: map[int]listener{}, now: time.Now}
}

// Join seats the session of participant id in the class. A participant
// seen before (the same key reconnecting) keeps its name; a new one gets
// want, sanitised (DefaultName when nothing is left of it) and made unique
// with a "-2", "-3", … suffix. An instructor is a member too (its runs are
// on the board); instructor gives its seat the rights of Seat.Runs and
// Seat.Push.
func (r *Registry) Join(id, want string, instructor bool) (*Seat, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.members[id]; !ok {
		if len(r.members) >= MaxMembers {
			return nil, ErrFull
		}
		name := r.unique(DefaultName(want))
		r.members[id] = &member{name: name}
		r.names[fold(name)] = id
	}
	return &Seat{reg: r, id: id, instructor: instructor}, nil
}

// unique returns name, or name with the first free "-N" suffix, cut so that
// the result stays within MaxNameLen.
func (r *Registry) unique(name string) string {
	if _, taken := r.names[fold(name)]; !taken {
		return name
	}
	for n := 2; ; n++ {
		suffix := fmt.Sprintf("-%d", n)
		base := []rune(name)
		if len(base)+len([]rune(suffix)) > MaxNameLen {
			base = base[:MaxNameLen-len([]rune(suffix))]
		}
		c := string(base) + suffix
		if _, taken := r.names[fold(c)]; !taken {
			return c
		}
	}
}

// report files run for member id, dropping the oldest runs past the bounds.
func (r *Registry) report(id string, run Run) error {
	r.mu.Lock()
	m, ok := r.members[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("class: no participant %q", id)
	}
	run.Member, run.Name = id, m.name
	if run.At.IsZero() {
		run.At = r.now()
	}
	if m.runs >= MaxRunsPerMember {
		for i := range r.runs {
			if r.runs[i].Member == id {
				r.runs = append(r.runs[:i], r.runs[i+1:]...)
				m.runs--
				break
			}
		}
	}
	if len(r.runs) >= MaxRuns {
		if old := r.members[r.runs[0].Member]; old != nil {
			old.runs--
		}
		r.runs = append(r.runs[:0], r.runs[1:]...)
	}
	r.runs = append(r.runs, run)
	m.runs++
	sends := r.sendersLocked(func(l listener) bool { return l.instructor })
	r.mu.Unlock()
	for _, send := range sends {
		send(Changed{})
	}
	return nil
}

// rename gives member id the name want, sanitised, unless another member
// holds it.
func (r *Registry) rename(id, want string) (string, error) {
	name := SanitizeName(want)
	if name == "" {
		return "", errors.New("a name needs at least one printable character")
	}
	r.mu.Lock()
	m, ok := r.members[id]
	if !ok {
		r.mu.Unlock()
		return "", fmt.Errorf("class: no participant %q", id)
	}
	if holder, taken := r.names[fold(name)]; taken && holder != id {
		r.mu.Unlock()
		return "", fmt.Errorf("the name %q is taken: choose another", name)
	}
	delete(r.names, fold(m.name))
	m.name = name
	r.names[fold(name)] = id
	sends := r.sendersLocked(func(l listener) bool { return l.instructor })
	r.mu.Unlock()
	for _, send := range sends {
		send(Changed{})
	}
	return name, nil
}

// snapshot copies the runs with their members' current names.
func (r *Registry) snapshot() []Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Run, len(r.runs))
	for i, run := range r.runs {
		if m := r.members[run.Member]; m != nil {
			run.Name = m.name
		}
		out[i] = run
	}
	return out
}

// sendersLocked returns the send functions of the listeners keep accepts;
// r.mu is held. They are called after it is released: a send may be slow
// and must never run under the registry's lock.
func (r *Registry) sendersLocked(keep func(listener) bool) []func(any) {
	var out []func(any)
	for _, l := range r.listeners {
		if keep(l) {
			out = append(out, l.send)
		}
	}
	return out
}

// Listening is the number of sessions listening for the class's pushes
// now. A session's listener goes when the server has finished ending it,
// which is after its connection closes, so a test that counts the sessions
// a push reaches waits on this rather than on the connections.
func (r *Registry) Listening() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.listeners)
}

// listen adds a listener and returns what removes it.
func (r *Registry) listen(l listener) (stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextL++
	k := r.nextL
	r.listeners[k] = l
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.listeners, k)
	}
}
