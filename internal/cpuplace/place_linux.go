//go:build linux

package cpuplace

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// burst is the number of round trips timed together, and idleWait the
// pause before them (see RoundTrip).
const (
	burst    = 250
	idleWait = 5 * time.Millisecond
)

// line is one counter alone on its cache line (and its neighbour's, for
// the adjacent-line prefetcher), so that only the round trip is timed.
type line struct {
	_ [128]byte
	v atomic.Int64
	_ [128]byte
}

// RoundTrip returns the time for a cache line to go from the first CPU
// the process may run on to the second and back: it times n round trips
// in bursts of burst and returns the fastest burst's mean (n of a few
// thousand take 0.2–2.5 ms). Other threads only ever add to a burst: the
// process's own, such as compute.Split's helper, which polls for a
// millisecond after a product and put 300–1,000 ns on trips timed right
// after one where 60–80 ns was the placement's figure. So RoundTrip first
// sleeps idleWait, for them to go idle. It locks the calling goroutine
// and one other to OS threads pinned to the two CPUs, both spinning, and
// restores their affinity before it returns. It returns an error if n <
// 1, if Go may run fewer than two goroutines at once (GOMAXPROCS; the two
// would take turns at the scheduler's pace, milliseconds a trip), if the
// process may run on fewer than two CPUs, or if the affinity cannot be
// set.
func RoundTrip(n int) (time.Duration, error) {
	if n < 1 {
		return 0, fmt.Errorf("cpuplace: RoundTrip: n is %d, must be at least 1", n)
	}
	if p := runtime.GOMAXPROCS(0); p < 2 {
		return 0, fmt.Errorf("cpuplace: RoundTrip: GOMAXPROCS is %d, needs two", p)
	}
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		return 0, fmt.Errorf("cpuplace: reading the CPU affinity: %w", err)
	}
	cpus := make([]int, 0, 2)
	for c := 0; c < len(all)*64 && len(cpus) < 2; c++ {
		if all.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return 0, fmt.Errorf("cpuplace: the process may run on %d CPU, needs two", len(cpus))
	}
	time.Sleep(idleWait)
	var l line
	var wg sync.WaitGroup
	echo := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		unpin, err := pin(cpus[1], all)
		echo <- err
		if err != nil {
			return
		}
		defer unpin()
		for i := int64(0); i < int64(n); i++ {
			v := l.v.Load()
			for ; v != 2*i+1 && v >= 0; v = l.v.Load() {
			}
			if v < 0 { // the caller could not pin its thread
				return
			}
			l.v.Store(2*i + 2)
		}
	}()
	if err := <-echo; err != nil {
		wg.Wait()
		return 0, err
	}
	unpin, err := pin(cpus[0], all)
	if err != nil {
		l.v.Store(-1)
		wg.Wait()
		return 0, err
	}
	best := time.Duration(math.MaxInt64)
	for i0 := int64(0); i0 < int64(n); i0 += burst {
		i1 := min(i0+burst, int64(n))
		t0 := time.Now()
		for i := i0; i < i1; i++ {
			l.v.Store(2*i + 1)
			for l.v.Load() != 2*i+2 {
			}
		}
		best = min(best, time.Since(t0)/time.Duration(i1-i0))
	}
	unpin()
	wg.Wait()
	return best, nil
}

// pin locks the calling goroutine to its OS thread and that thread to
// cpu; the returned function gives the thread back the CPUs in all and
// unlocks it.
func pin(cpu int, all unix.CPUSet) (unpin func(), err error) {
	runtime.LockOSThread()
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("cpuplace: pinning a thread to CPU %d: %w", cpu, err)
	}
	return func() {
		// If restoring fails the thread stays pinned: keep it locked
		// so that Go ends it with its goroutine rather than reuse it.
		if unix.SchedSetaffinity(0, &all) == nil {
			runtime.UnlockOSThread()
		}
	}, nil
}
