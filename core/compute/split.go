package compute

import (
	"runtime"
	"sync"
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
type splitTask struct {
	job    RangeJob
	lo, hi int
	done   chan struct{}
}

// splitter is the helper goroutine that runs the first half of Split jobs
// while the caller runs the second. Elementwise work between two GEMMs
// otherwise runs on one core while OpenBLAS's other thread waits for the
// next product (a DCAN step: half its time, docs/PERFORMANCE.md).
var splitter struct {
	once  sync.Once
	tasks chan splitTask
}

// donePool recycles the completion channels, so a split does not allocate.
var donePool = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// Split runs job over [0, n), in two halves on two goroutines when n·cost
// is at least SplitMin and Go may use more than one processor, else in
// one call on the caller's goroutine. The halves are cut at a multiple of
// unit (a row length, or 8 for the vector kernels' lanes), so every entry
// sees the same arithmetic as in one call: the result is bit for bit the
// same. When the helper goroutine is busy with another caller's half,
// the job runs whole on the caller's goroutine.
func Split(n, unit, cost int, job RangeJob) {
	if n*cost < SplitMin || n < 2*unit || runtime.GOMAXPROCS(0) < 2 {
		job.Run(0, n)
		return
	}
	splitter.once.Do(func() {
		splitter.tasks = make(chan splitTask, 1)
		go func() {
			for t := range splitter.tasks {
				t.job.Run(t.lo, t.hi)
				t.done <- struct{}{}
			}
		}()
	})
	mid := (n / unit / 2) * unit
	done := donePool.Get().(chan struct{})
	select {
	case splitter.tasks <- splitTask{job: job, lo: 0, hi: mid, done: done}:
	default:
		donePool.Put(done)
		job.Run(0, n)
		return
	}
	job.Run(mid, n)
	<-done
	donePool.Put(done)
}
