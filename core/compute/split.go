package compute

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// RangeJob is work over the index range [lo, hi) whose parts may run on
// different goroutines: each index is written by exactly one part and no
// part reads what another writes.
type RangeJob interface {
	Run(lo, hi int)
}

// SplitMin is the least number of entries (of elementwise work with a
// transcendental, about 1–5 ns each) worth handing to another goroutine: a
// hand-off costs a few µs, the half of 1<<15 entries 40–80 µs.
const SplitMin = 1 << 15

// splitTask is one half of a Split job, sent to the helper goroutine.
// Whoever claims it first — the helper, or the caller once its own half is
// done — runs it: on a loaded machine the helper may not be scheduled for
// a while, and the caller then does the whole job instead of waiting.
type splitTask struct {
	job     RangeJob
	lo, hi  int
	claimed atomic.Bool
	done    chan struct{} // receives once when the helper ran the half
}

// splitter is the helper goroutine that runs the first half of Split jobs
// while the caller runs the second. Elementwise work between two GEMMs
// otherwise runs on one core while OpenBLAS's other thread waits for the
// next product (a DCAN step: half its time, docs/PERFORMANCE.md).
var splitter struct {
	once  sync.Once
	tasks chan *splitTask
}

// taskPool recycles the tasks and their channels, so a split does not
// allocate.
var taskPool = sync.Pool{New: func() any { return &splitTask{done: make(chan struct{}, 1)} }}

// Split runs job over [0, n), in two halves on two goroutines when n·cost
// is at least SplitMin and Go may use more than one processor, else in
// one call on the caller's goroutine. The halves are cut at a multiple of
// unit (a row length, or 8 for the vector kernels' lanes), so every entry
// sees the same arithmetic as in one call: the result is bit for bit the
// same. When the helper goroutine is busy with another caller's half,
// or has not started the first half when the caller finished the second,
// the caller runs it.
func Split(n, unit, cost int, job RangeJob) {
	if n*cost < SplitMin || n < 2*unit || runtime.GOMAXPROCS(0) < 2 {
		job.Run(0, n)
		return
	}
	splitter.once.Do(func() {
		splitter.tasks = make(chan *splitTask, 1)
		go func() {
			for t := range splitter.tasks {
				if t.claimed.CompareAndSwap(false, true) {
					t.job.Run(t.lo, t.hi)
					t.done <- struct{}{}
					continue
				}
				// The caller ran this half and no longer touches t:
				// recycle it here (on a loaded machine that is most
				// halves, and each lost task was an allocation).
				t.job = nil
				taskPool.Put(t)
			}
		}()
	})
	mid := (n / unit / 2) * unit
	t := taskPool.Get().(*splitTask)
	t.job, t.lo, t.hi = job, 0, mid
	t.claimed.Store(false)
	select {
	case splitter.tasks <- t:
	default:
		t.job = nil
		taskPool.Put(t)
		job.Run(0, n)
		return
	}
	job.Run(mid, n)
	if t.claimed.CompareAndSwap(false, true) {
		// The helper has not begun: run the first half here. The helper
		// will find the task claimed, skip it and recycle it; t must not
		// be touched from here on.
		job.Run(0, mid)
		return
	}
	<-t.done
	t.job = nil
	taskPool.Put(t)
}
