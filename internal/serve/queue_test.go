package serve

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/datasets"
)

// acquired runs Acquire in a goroutine and returns a channel of its result.
func acquired(q *Queue, ctx context.Context, owner string, place func(int)) chan func() {
	ch := make(chan func(), 1)
	go func() {
		rel, err := q.Acquire(ctx, owner, place)
		if err != nil {
			rel = nil
		}
		ch <- rel
	}()
	return ch
}

// waitFor polls cond for up to 60 s (a hang guard, not a timing).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestQueueWorkersFIFOAndPlaces(t *testing.T) {
	q := NewQueue(2, 5)
	ctx := context.Background()
	r1, err := q.Acquire(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := q.Acquire(ctx, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	places := map[string][]int{}
	note := func(o string) func(int) {
		return func(n int) { mu.Lock(); places[o] = append(places[o], n); mu.Unlock() }
	}
	c3 := acquired(q, ctx, "c", note("c"))
	waitFor(t, "c queued", func() bool { _, w := q.Stats(); return w == 1 })
	c4 := acquired(q, ctx, "d", note("d"))
	waitFor(t, "d queued", func() bool { _, w := q.Stats(); return w == 2 })
	if run, wait := q.Stats(); run != 2 || wait != 2 {
		t.Fatalf("stats %d running %d waiting, want 2 and 2", run, wait)
	}
	// The waiter tells its first place after the queue's lock is released:
	// wait for it, or the freed worker's update may overtake it.
	waitFor(t, "d told its place", func() bool { mu.Lock(); defer mu.Unlock(); return len(places["d"]) == 1 })
	r1()
	r1() // a second call frees nothing more
	r3 := <-c3
	if r3 == nil {
		t.Fatal("c did not get the freed worker")
	}
	select {
	case <-c4:
		t.Fatal("d got a worker while 2 were busy")
	case <-time.After(20 * time.Millisecond):
	}
	waitFor(t, "d told it is next", func() bool { mu.Lock(); defer mu.Unlock(); p := places["d"]; return len(p) == 2 })
	mu.Lock()
	if got := places["d"]; got[0] != 1 || got[1] != 0 {
		t.Errorf("d's places %v, want [1 0]", got)
	}
	mu.Unlock()
	r2()
	if r4 := <-c4; r4 == nil {
		t.Fatal("d did not get a worker")
	} else {
		r4()
	}
	r3()
	if run, wait := q.Stats(); run != 0 || wait != 0 {
		t.Errorf("after all released: %d running %d waiting", run, wait)
	}
}

func TestQueueMaxRunsPerOwner(t *testing.T) {
	q := NewQueue(1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r1, err := q.Acquire(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	c2 := acquired(q, ctx, "a", nil) // queued: a's second
	waitFor(t, "a's second queued", func() bool { _, w := q.Stats(); return w == 1 })
	if _, err := q.Acquire(ctx, "a", nil); err == nil || !strings.Contains(err.Error(), "--max-runs 2") {
		t.Fatalf("a's third: error %v, want the --max-runs refusal", err)
	}
	// Another owner is not limited by a's runs.
	c3 := acquired(q, ctx, "b", nil)
	waitFor(t, "b queued", func() bool { _, w := q.Stats(); return w == 2 })
	r1()
	(<-c2)()
	(<-c3)()
	// Released runs count no more: a may queue again.
	r, err := q.Acquire(ctx, "a", nil)
	if err != nil {
		t.Fatalf("a after its runs ended: %v", err)
	}
	r()
}

func TestQueueCancelAndDrain(t *testing.T) {
	q := NewQueue(1, 3)
	r1, _ := q.Acquire(context.Background(), "a", nil)
	ctx, cancel := context.WithCancel(context.Background())
	c2 := acquired(q, ctx, "b", nil)
	waitFor(t, "b queued", func() bool { _, w := q.Stats(); return w == 1 })
	cancel()
	if r := <-c2; r != nil {
		t.Fatal("a cancelled wait got a worker")
	}
	if run, wait := q.Stats(); run != 1 || wait != 0 {
		t.Fatalf("after the cancel: %d running %d waiting, want 1 and 0", run, wait)
	}
	q.Drain()
	if _, err := q.Acquire(context.Background(), "c", nil); !errors.Is(err, ErrDraining) {
		t.Fatalf("Acquire while draining: %v, want ErrDraining", err)
	}
	r1()
	if run, _ := q.Stats(); run != 0 {
		t.Fatalf("%d running after the last release", run)
	}
}

// TestB1WaitsForWorker: with the one worker busy, a B1 reference line that
// is not cached waits in the queue (it cannot bypass --workers) and is
// computed once the run frees the worker; it does not count against the
// asking session's --max-runs, and it frees its worker when done.
func TestB1WaitsForWorker(t *testing.T) {
	q := NewQueue(1, 1)
	ctx := context.Background()
	run, err := q.Acquire(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	var places []int
	var mu sync.Mutex
	cache := reference.Cache{Dir: t.TempDir(), Admit: func(ctx context.Context) (func(), error) {
		return q.AcquireShared(ctx, func(n int) { mu.Lock(); places = append(places, n); mu.Unlock() })
	}}
	d := &datasets.Preprocessed{Cells: 6, Genes: 2, Classes: []string{"x", "y"}}
	for i := range d.Cells {
		d.Labels = append(d.Labels, i%2)
		d.X = append(d.X, float32(10*(i%2)), float32(i%3))
	}
	type result struct {
		l   reference.Line
		err error
	}
	got := make(chan result, 1)
	go func() { l, err := cache.B1(ctx, d); got <- result{l, err} }()
	waitFor(t, "the B1 queued", func() bool { _, w := q.Stats(); return w == 1 })
	select {
	case r := <-got:
		t.Fatalf("B1 computed with the only worker busy: %+v, %v", r.l, r.err)
	default:
	}
	mu.Lock()
	if len(places) != 1 || places[0] != 0 {
		t.Errorf("B1 told places %v, want [0] (next in line)", places)
	}
	mu.Unlock()
	run()
	r := <-got
	if r.err != nil || r.l.Seeds == 0 || r.l.ARI < 0.999 {
		t.Fatalf("B1 after the worker was freed: %+v, %v; want two separated groups, ARI 1", r.l, r.err)
	}
	if running, waiting := q.Stats(); running != 0 || waiting != 0 {
		t.Errorf("after the B1: %d running, %d waiting; want its worker freed", running, waiting)
	}
	// --max-runs 1 held by a run does not refuse the session's B1 work.
	run, err = q.Acquire(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	run()
	rel, err := q.AcquireShared(ctx, nil)
	if err != nil {
		t.Fatalf("shared work refused: %v", err)
	}
	c := acquired(q, ctx, "a", nil) // waits for the worker, not refused
	waitFor(t, "the run queued behind the shared work", func() bool { _, w := q.Stats(); return w == 1 })
	rel()
	if r := <-c; r == nil {
		t.Fatal("a run beside shared work was refused")
	} else {
		r()
	}
}
