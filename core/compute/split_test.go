package compute

import (
	"runtime"
	"sync"
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
