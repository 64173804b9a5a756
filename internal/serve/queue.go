package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrDraining is what a run gets when the server is shutting down.
var ErrDraining = errors.New("the server is shutting down: no new runs")

// Queue is the server's one queue of runs: at most workers run at once, the
// rest wait in arrival order, and each owner (a session) holds at most
// maxRuns queued or running. Safe for concurrent use.
type Queue struct {
	mu       sync.Mutex
	workers  int
	maxRuns  int
	running  int
	waiting  []*ticket
	perOwner map[string]int
	draining bool
}

// ticket is one run waiting for a worker.
type ticket struct {
	owner string
	ready chan struct{} // closed when the ticket is handed a worker
	// place is called, outside the lock, with the number of runs ahead
	// of this one each time it changes.
	place func(ahead int)
}

// NewQueue returns a queue of workers workers (at least 1) that lets each
// owner hold at most maxRuns (at least 1) runs.
func NewQueue(workers, maxRuns int) *Queue {
	return &Queue{workers: max(workers, 1), maxRuns: max(maxRuns, 1), perOwner: map[string]int{}}
}

// Acquire waits for a worker for one run of owner and returns the function
// that frees it (call it once, when the run has ended). place, if not nil,
// is told how many runs are ahead each time that changes while the run
// waits. It fails at once when owner already holds maxRuns runs or the
// queue is draining, and with ctx's error when ctx ends first.
func (q *Queue) Acquire(ctx context.Context, owner string, place func(ahead int)) (release func(), err error) {
	return q.acquire(ctx, owner, true, place)
}

// AcquireShared is Acquire for work that is not one owner's run but serves
// every session (a B1 reference line, computed once per data set in the
// process): it waits in the same line for the same workers, so a room asking
// for reference lines cannot bypass --workers, but it does not count against
// the owner's --max-runs. Its number is bounded without that: one
// computation per data set under --data-dir, each shared by whoever asks.
func (q *Queue) AcquireShared(ctx context.Context, place func(ahead int)) (release func(), err error) {
	return q.acquire(ctx, "", false, place)
}

// acquire is Acquire, counting against owner's maxRuns when limited.
func (q *Queue) acquire(ctx context.Context, owner string, limited bool, place func(ahead int)) (release func(), err error) {
	q.mu.Lock()
	if q.draining {
		q.mu.Unlock()
		return nil, ErrDraining
	}
	if limited {
		if n := q.perOwner[owner]; n >= q.maxRuns {
			q.mu.Unlock()
			return nil, fmt.Errorf("you have %d runs queued or running, the most this server allows (--max-runs %d): wait for one to end", n, q.maxRuns)
		}
		q.perOwner[owner]++
	}
	if q.running < q.workers && len(q.waiting) == 0 {
		q.running++
		q.mu.Unlock()
		return q.releaser(owner, limited), nil
	}
	t := &ticket{owner: owner, ready: make(chan struct{}), place: place}
	q.waiting = append(q.waiting, t)
	ahead := len(q.waiting) - 1
	q.mu.Unlock()
	if place != nil {
		place(ahead)
	}
	select {
	case <-t.ready:
		return q.releaser(owner, limited), nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	select {
	case <-t.ready:
		// Handed a worker while giving up: pass it on.
		q.mu.Unlock()
		q.releaser(owner, limited)()
		return nil, ctx.Err()
	default:
	}
	i := q.indexOf(t)
	q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
	if limited {
		q.perOwner[owner]--
	}
	notify := q.places(i)
	q.mu.Unlock()
	notify()
	return nil, ctx.Err()
}

// releaser returns the once-only function that frees owner's worker (and,
// when limited, one of owner's runs): it goes to the first waiting run, if
// any.
func (q *Queue) releaser(owner string, limited bool) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			if limited {
				q.perOwner[owner]--
				if q.perOwner[owner] == 0 {
					delete(q.perOwner, owner)
				}
			}
			if len(q.waiting) == 0 {
				q.running--
				q.mu.Unlock()
				return
			}
			next := q.waiting[0]
			q.waiting = q.waiting[1:]
			close(next.ready)
			notify := q.places(0)
			q.mu.Unlock()
			notify()
		})
	}
}

// indexOf returns t's place in the waiting line. Called with mu held.
func (q *Queue) indexOf(t *ticket) int {
	for i, w := range q.waiting {
		if w == t {
			return i
		}
	}
	return -1
}

// places returns a function that tells every waiting run from index from
// on its new place. Called with mu held; the returned function runs after
// the lock is released, since place may block.
func (q *Queue) places(from int) func() {
	type note struct {
		place func(int)
		ahead int
	}
	var notes []note
	for i := from; i < len(q.waiting); i++ {
		if p := q.waiting[i].place; p != nil {
			notes = append(notes, note{p, i})
		}
	}
	return func() {
		for _, n := range notes {
			n.place(n.ahead)
		}
	}
}

// Stats returns the runs running and waiting now.
func (q *Queue) Stats() (running, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running, len(q.waiting)
}

// Drain refuses every later Acquire; runs already queued keep their place
// (their sessions' contexts end them).
func (q *Queue) Drain() {
	q.mu.Lock()
	q.draining = true
	q.mu.Unlock()
}
