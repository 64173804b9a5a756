package compute

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// splitTask is one half of a Split job, handed to the helper goroutine.
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
//
// A task is handed over in slot. After a task, the helper may poll slot
// (SplitSpin) before it parks on wake: waking a parked goroutine took
// 70–130 µs on this 2-vCPU Xeon under load (the Go scheduler wakes an idle
// thread, which then steals the goroutine), and a DP-SGD step hands over
// about 25 halves, most a few hundred µs to ms long. OpenBLAS's workers
// spin between products for the same reason. The caller may likewise poll
// for its helper's half to end before it parks (SplitWaitSpin).
var splitter struct {
	once   sync.Once
	slot   atomic.Pointer[splitTask] // the task handed over, nil when none
	parked atomic.Bool               // the helper is parked, or about to, on wake
	wake   chan struct{}             // cap 1: a caller wakes a parked helper
}

// SplitSpin is how long Split's idle helper goroutine polls for the next
// task before it parks, and SplitWaitSpin how long a caller that finished
// its half first polls for the helper's half to end before it parks, in
// ns. Polling applies only while GOMAXPROCS is at least 2, no
// SingleThreaded stretch is in force (then each core has its own worker,
// which a polling helper would hold up) and polling has not been turned
// off by a sign of a busy machine (spinOffUntil). 0 parks at once, as
// before they existed. Both are 1 ms by default, by a rule written before
// its measurement (docs/PERFORMANCE.md, "speed10"): on a quiet machine a
// DP-SGD epoch polling 1 ms was 1.02–1.08× as fast as one parking at once
// (median of three runs 1.049); with two other processes holding the
// cores it lost (0.81–0.96×). EnvSplitSpin and EnvSplitWaitSpin set them
// at start; they are read on every wait, so a benchmark may change them
// between products.
var SplitSpin, SplitWaitSpin atomic.Int64

// EnvSplitSpin and EnvSplitWaitSpin are the environment variables that set
// SplitSpin and SplitWaitSpin at start: Go durations ("1ms", "200us",
// "0" to park at once). Unset, empty or invalid, they are
// defaultSplitSpin.
const (
	EnvSplitSpin     = "DPSCOPE_SPLIT_SPIN"
	EnvSplitWaitSpin = "DPSCOPE_SPLIT_WAIT_SPIN"
)

func init() {
	SplitSpin.Store(int64(parseSplitSpin(os.Getenv(EnvSplitSpin))))
	SplitWaitSpin.Store(int64(parseSplitSpin(os.Getenv(EnvSplitWaitSpin))))
}

// parseSplitSpin returns the duration EnvSplitSpin's or EnvSplitWaitSpin's
// value v asks for.
func parseSplitSpin(v string) time.Duration {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < 0 {
		return defaultSplitSpin
	}
	return d
}

// defaultSplitSpin is the default of SplitSpin and SplitWaitSpin: longer
// than most gaps between the hand-offs of a DP-SGD step (the noise, about
// 1 ms, is the longest), short enough that an idle program's helper parks
// within a frame.
const defaultSplitSpin = time.Millisecond

// spinning reports whether waits should poll (SplitSpin) now.
func spinning() bool {
	return asmSingle.Load() == 0 && runtime.GOMAXPROCS(0) >= 2 && time.Now().UnixNano() >= spinOffUntil.Load()
}

// spinOffUntil is the time (Unix ns) before which waits park at once:
// with SplitGapBackoff on, a poller that finds it was not run for spinGap
// (another process had its core, it is presumed) turns polling off for
// spinBackoff. Before the pollers yielded, DP-SGD's epoch took 1.3× as
// long polling for 2 ms while another process held one of the two cores.
var spinOffUntil atomic.Int64

const (
	spinGap     = 50 * time.Microsecond
	spinBackoff = 100 * time.Millisecond
)

// SplitGapBackoff says whether a poller that finds it was off its core for
// more than spinGap turns polling off for spinBackoff. Off by default, by
// rule 2 of docs/PERFORMANCE.md's "lone gaps" section: on a quiet 2-core
// Zen 4 such gaps (51–164 µs, about one every 0.1–0.2 s of polling: an
// interrupt, a kernel thread, the hypervisor) kept polling off most of the
// time, 60–100 % of the halves of a DP-SGD epoch found the helper parked,
// and epochs never backing off were 1.03–1.14× as fast (median 1.07);
// beside a busy loop they were level (median 0.985). The pollers yield
// every 64 polls, so a poller beside another process gives its core up.
var SplitGapBackoff atomic.Bool

// spinUntil polls ready for up to d (SplitSpin or SplitWaitSpin) and
// reports whether it became true. It yields to other goroutines and threads every 64 polls,
// so that a spinning helper does not hold a processor another goroutine,
// or a core another thread, waits for.
func spinUntil(d time.Duration, ready func() bool) bool {
	if d <= 0 || !spinning() {
		return false
	}
	t0 := time.Now()
	last := t0
	for i := 1; ; i++ {
		if ready() {
			return true
		}
		spinPause()
		if i%64 == 0 {
			now := time.Now()
			if now.Sub(last) > spinGap && SplitGapBackoff.Load() {
				spinOffUntil.Store(now.Add(spinBackoff).UnixNano())
				return false
			}
			if now.Sub(t0) > d {
				return false
			}
			runtime.Gosched()
			osYield()
			last = time.Now()
		}
	}
}

// splitHelper is the helper goroutine's loop.
func splitHelper() {
	hasTask := func() bool { return splitter.slot.Load() != nil }
	for {
		t := splitter.slot.Swap(nil)
		for t == nil && idlePiece() {
			t = splitter.slot.Swap(nil)
		}
		if t == nil && spinUntil(time.Duration(SplitSpin.Load()), hasTask) {
			t = splitter.slot.Swap(nil)
		}
		for t == nil {
			// Park: a caller that hands over a task after it sees parked
			// sends on wake. Either it sees parked set, or the helper
			// sees its task here (sequentially consistent atomics).
			splitter.parked.Store(true)
			if t = splitter.slot.Swap(nil); t == nil {
				<-splitter.wake
				t = splitter.slot.Swap(nil)
			}
			splitter.parked.Store(false)
		}
		if t.claimed.CompareAndSwap(false, true) {
			t.job.Run(t.lo, t.hi)
			t.done <- struct{}{}
			continue
		}
		// The caller ran this half and no longer touches t: recycle it
		// here.
		t.job = nil
		taskPool.Put(t)
	}
}

// IdleWork is work that Split's helper goroutine may do, piece by piece,
// while it has no half to run and would otherwise poll (work that does not
// depend on what the caller is doing, such as drawing a DP-SGD step's
// noise ahead of the step). A piece must be short, a few µs: a half handed
// over meanwhile waits for it to end.
type IdleWork interface {
	// IdlePiece does one piece of the work and reports whether any is
	// left. It runs on the helper goroutine, concurrently with the
	// goroutine that set the work.
	IdlePiece() bool
}

// IdleTask carries an IdleWork for SetIdleWork. Its owner keeps it
// (setting the same task again allocates nothing: a DP-SGD run sets its
// own every step).
type IdleTask struct{ Work IdleWork }

var idleWork atomic.Pointer[IdleTask]

// SetIdleWork makes t's work the helper goroutine's idle work, replacing
// any other (nil: none; EndIdleWork removes only its own). The helper
// does its pieces only while it would poll (SplitSpin, and not during a
// SingleThreaded stretch), and drops the task once IdlePiece reports that
// none is left. After SetIdleWork(nil), or another task, the helper may
// still be inside one last piece of the previous work.
func SetIdleWork(t *IdleTask) { idleWork.Store(t) }

// EndIdleWork removes t if it is the idle work in force (another task set
// since stays), with SetIdleWork(nil)'s caveat.
func EndIdleWork(t *IdleTask) { idleWork.CompareAndSwap(t, nil) }

// idlePiece runs one piece of the idle work in force and reports whether
// it ran one.
func idlePiece() bool {
	t := idleWork.Load()
	if t == nil || !spinning() || SplitSpin.Load() <= 0 {
		return false
	}
	if !t.Work.IdlePiece() {
		idleWork.CompareAndSwap(t, nil)
	}
	return true
}

// parkedHandoffs counts the halves handed to a parked helper: each waits
// for the helper's wake-up (70–130 µs), or is run by its caller.
var parkedHandoffs atomic.Int64

// ParkedHandoffs reports how many halves Split has handed to a parked
// helper goroutine since the program started (a diagnostic for the
// polling rules: SplitSpin, SplitGapBackoff).
func ParkedHandoffs() int64 { return parkedHandoffs.Load() }

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
		splitter.wake = make(chan struct{}, 1)
		go splitHelper()
	})
	mid := (n / unit / 2) * unit
	t := taskPool.Get().(*splitTask)
	t.job, t.lo, t.hi = job, 0, mid
	t.claimed.Store(false)
	if !splitter.slot.CompareAndSwap(nil, t) {
		// Another caller's task waits for the helper.
		t.job = nil
		taskPool.Put(t)
		job.Run(0, n)
		return
	}
	if splitter.parked.Load() {
		parkedHandoffs.Add(1)
		select {
		case splitter.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	job.Run(mid, n)
	// The helper has not taken the task from the slot, or has taken it
	// but not begun: run the first half here. In the second case the
	// helper finds it claimed and recycles it; t must not be touched
	// from here on.
	if splitter.slot.CompareAndSwap(t, nil) {
		job.Run(0, mid)
		t.job = nil
		taskPool.Put(t)
		return
	}
	if t.claimed.CompareAndSwap(false, true) {
		job.Run(0, mid)
		return
	}
	spinUntil(time.Duration(SplitWaitSpin.Load()), func() bool { return len(t.done) > 0 })
	<-t.done
	t.job = nil
	taskPool.Put(t)
}
