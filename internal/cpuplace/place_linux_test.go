//go:build linux

package cpuplace

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRoundTrip: on a machine with two CPUs a round trip takes a positive
// time below a millisecond (a cache line's trip is tens to hundreds of
// nanoseconds; a millisecond would mean the two threads did not spin at
// once), and the calling thread's affinity is the same afterwards (the
// test locks its goroutine to that thread, so that it reads both).
func TestRoundTrip(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	if before.Count() < 2 || runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("needs two CPUs; the process may run on %d", before.Count())
	}
	d, err := RoundTrip(4000)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 || d > time.Millisecond {
		t.Errorf("RoundTrip(4000) = %v, want within (0, 1ms]", d)
	}
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the affinity is %v after RoundTrip, was %v", after, before)
	}
}

// TestRoundTripBadN: n below 1 is an error, not a division by zero.
func TestRoundTripBadN(t *testing.T) {
	for _, n := range []int{0, -1} {
		if _, err := RoundTrip(n); err == nil {
			t.Errorf("RoundTrip(%d): no error", n)
		}
	}
}

// TestRoundTripOneProc: with GOMAXPROCS 1 the two spinning goroutines
// would take turns every scheduler slice; RoundTrip says so instead.
func TestRoundTripOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if _, err := RoundTrip(10); err == nil {
		t.Error("RoundTrip with GOMAXPROCS 1: no error")
	}
}

// BenchmarkRoundTrip reports the round trip of a cache line between the
// first two CPUs (roundtrip-ns), 4,000 trips an iteration.
func BenchmarkRoundTrip(b *testing.B) {
	var sum time.Duration
	for b.Loop() {
		d, err := RoundTrip(4000)
		if err != nil {
			b.Skip(err)
		}
		sum += d
	}
	b.ReportMetric(float64(sum.Nanoseconds())/float64(b.N), "roundtrip-ns")
	b.ReportMetric(0, "ns/op")
}
