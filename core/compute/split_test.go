package compute

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSplitRanges checks that split covers [0, n) exactly once, in two
// parts cut at a multiple of the unit when it splits.
func TestSplitRanges(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, tc := range []struct{ n, unit, cost, parts int }{
		{10, 1, 1, 1},              // too small
		{SplitMin, 8, 1, 2},        // just enough
		{SplitMin + 13, 8, 1, 2},   // a tail
		{100, 1, SplitMin / 50, 2}, // few costly rows
		{1, 1, SplitMin, 1},        // one row cannot split
		{SplitMin - 1, 1, 1, 1},    // just below
	} {
		// A split may run whole when the helper is still busy (a task of
		// an earlier call left in its queue): try a few times.
		var r *recordJob
		for try := 0; try < 100; try++ {
			r = &recordJob{seen: make([]int, tc.n)}
			Split(tc.n, tc.unit, tc.cost, r)
			for i, c := range r.seen {
				if c != 1 {
					t.Fatalf("Split(%d, %d, %d): index %d run %d times, want once", tc.n, tc.unit, tc.cost, i, c)
				}
			}
			if len(r.cuts) == tc.parts {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if len(r.cuts) != tc.parts {
			t.Errorf("Split(%d, %d, %d) ran %d parts %v, want %d", tc.n, tc.unit, tc.cost, len(r.cuts), r.cuts, tc.parts)
		}
		for _, c := range r.cuts {
			if c[0]%tc.unit != 0 {
				t.Errorf("Split(%d, %d, %d): a part starts at %d, not a multiple of the unit", tc.n, tc.unit, tc.cost, c[0])
			}
		}
	}
}

// recordJob records which indices ran and the parts it was given.
type recordJob struct {
	mu   sync.Mutex
	seen []int
	cuts [][2]int
}

func (r *recordJob) Run(lo, hi int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cuts = append(r.cuts, [2]int{lo, hi})
	for i := lo; i < hi; i++ {
		r.seen[i]++
	}
}

// blockJob blocks the part that starts at 0 until release is closed, and
// reports that it began on started.
type blockJob struct {
	started, release chan struct{}
}

func (b *blockJob) Run(lo, hi int) {
	if lo == 0 {
		close(b.started)
		<-b.release
	}
}

// TestSplitDoesNotWaitForABusyHelper checks that a caller whose first half
// the helper has not begun runs it itself: with the helper held by
// another job, a second Split still finishes and covers its range once.
func TestSplitDoesNotWaitForABusyHelper(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	b := &blockJob{started: make(chan struct{}), release: make(chan struct{})}
	first := make(chan struct{})
	go func() {
		defer close(first)
		Split(SplitMin, 1, 1, b)
	}()
	select {
	case <-b.started:
	case <-first:
	}
	// The helper (or the first caller) is now held in b's first half.
	r := &recordJob{seen: make([]int, SplitMin)}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		Split(SplitMin, 1, 1, r)
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("Split waited for a helper held by another job")
	}
	close(b.release)
	<-first
	for i, c := range r.seen {
		if c != 1 {
			t.Fatalf("index %d run %d times, want once", i, c)
		}
	}
}

// halvesMeet is a job whose two halves each wait, up to a second, for the
// other to begin: it finishes in time only if two goroutines run them at
// once. met reports whether they did.
type halvesMeet struct {
	mid        int
	first, sec chan struct{}
	waited     atomic.Int32 // halves that saw the other begin
	late       atomic.Bool  // a half waited a second in vain
}

// met reports whether each half saw the other begin while it waited.
func (h *halvesMeet) met() bool { return h.waited.Load() == 2 && !h.late.Load() }

func (h *halvesMeet) Run(lo, hi int) {
	mine, other := h.sec, h.first
	if lo == 0 && hi == h.mid {
		mine, other = h.first, h.sec
	} else if lo == 0 {
		return // the caller ran both halves in one call: not met
	}
	close(mine)
	select {
	case <-other:
		h.waited.Add(1)
	case <-time.After(time.Second):
		h.late.Store(true)
	}
}

// TestSplitHelperSpinsThenParks checks the hand-over both ways: a Split
// soon after another finds the helper polling, and one after SplitSpin
// has passed wakes it from its park; both run their halves at once.
func TestSplitHelperSpinsThenParks(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer SplitSpin.Store(SplitSpin.Load())
	defer SplitWaitSpin.Store(SplitWaitSpin.Load())
	SplitSpin.Store(int64(20 * time.Millisecond))
	SplitWaitSpin.Store(int64(20 * time.Millisecond))
	spinOffUntil.Store(0)
	split := func() bool {
		// A busy machine may leave the helper unscheduled for a second:
		// a few tries.
		for range 5 {
			h := &halvesMeet{mid: SplitMin / 2, first: make(chan struct{}), sec: make(chan struct{})}
			Split(SplitMin, 1, 1, h)
			if h.met() {
				return true
			}
		}
		return false
	}
	if !split() {
		t.Fatal("the halves of a Split never ran at once")
	}
	if !split() {
		t.Fatal("a Split right after another: the halves never ran at once")
	}
	SplitSpin.Store(int64(time.Millisecond))
	split() // the helper's next wait polls for 1 ms
	deadline := time.Now().Add(5 * time.Second)
	for !splitter.parked.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the helper did not park within 5 s of its last task (SplitSpin 1 ms)")
		}
		time.Sleep(time.Millisecond)
	}
	if !split() {
		t.Fatal("a Split after the helper parked: the halves never ran at once")
	}
}

// TestSpinUntil checks spinUntil: it reports a condition that becomes
// true, gives up after its duration, does not poll with duration 0, and
// turns polling off for spinBackoff when it finds it was not run for
// spinGap.
func TestSpinUntil(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer SplitGapBackoff.Store(SplitGapBackoff.Load())
	SplitGapBackoff.Store(true)
	// On a loaded machine (CI runs packages in parallel, under -race) the
	// poller may itself be descheduled for more than spinGap; spinUntil then
	// gives up early by design and sets the backoff. Such tries say nothing
	// about the behaviour checked here, so they are repeated.
	stalled := func() bool { return spinOffUntil.Load() != 0 }
	for try := 0; ; try++ {
		spinOffUntil.Store(0)
		calls := 0
		ok := spinUntil(time.Second, func() bool { calls++; return calls == 1000 })
		if ok && calls == 1000 {
			break
		}
		if !stalled() || try == 50 {
			t.Fatalf("spinUntil returned %v after %d polls, want true after 1000", ok, calls)
		}
	}
	for try := 0; ; try++ {
		spinOffUntil.Store(0)
		t0 := time.Now()
		if spinUntil(2*time.Millisecond, func() bool { return false }) {
			t.Fatal("spinUntil reported a condition that never held")
		}
		d := time.Since(t0)
		if d >= 2*time.Millisecond {
			break
		}
		if !stalled() || try == 50 {
			t.Fatalf("spinUntil gave up after %v without a stall, want at least 2 ms", d)
		}
	}
	spinOffUntil.Store(0)
	calls := 0
	if spinUntil(0, func() bool { calls++; return false }) || calls != 0 {
		t.Fatalf("with duration 0, spinUntil polled %d times, want 0", calls)
	}
	// A poll that takes longer than spinGap looks like a core taken by
	// another process.
	calls = 0
	stall := func() bool {
		calls++
		if calls == 10 {
			time.Sleep(2 * spinGap)
		}
		return false
	}
	if spinUntil(time.Second, stall) || calls > 64 {
		t.Fatalf("after a stall spinUntil went on to %d polls, want to stop at the 64th", calls)
	}
	if spinning() {
		t.Fatal("after a stall, spinning() is true, want false for spinBackoff")
	}
	spinOffUntil.Store(0)
	if !spinning() {
		t.Fatal("spinning() is false with GOMAXPROCS 2 and no backoff")
	}
}

// TestSplitGapBackoffOff checks that with SplitGapBackoff off a stall
// neither ends a poll nor turns polling off.
func TestSplitGapBackoffOff(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer SplitGapBackoff.Store(SplitGapBackoff.Load())
	SplitGapBackoff.Store(false)
	spinOffUntil.Store(0)
	calls := 0
	ok := spinUntil(time.Hour, func() bool {
		calls++
		if calls == 10 {
			time.Sleep(2 * spinGap)
		}
		return calls == 200
	})
	if !ok || calls != 200 || !spinning() {
		t.Fatalf("with SplitGapBackoff off, after a stall spinUntil returned %v after %d polls, spinning() %v; want true after 200, polling on", ok, calls, spinning())
	}
}

// TestParseSplitSpin checks EnvSplitSpin's values.
func TestParseSplitSpin(t *testing.T) {
	for _, c := range []struct {
		v    string
		want time.Duration
	}{
		{"", defaultSplitSpin}, {"1ms", time.Millisecond}, {" 200us ", 200 * time.Microsecond},
		{"0", 0}, {"-1ms", defaultSplitSpin}, {"fast", defaultSplitSpin},
	} {
		if got := parseSplitSpin(c.v); got != c.want {
			t.Errorf("parseSplitSpin(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}
