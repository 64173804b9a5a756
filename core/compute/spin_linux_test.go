//go:build linux

package compute

import (
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleSpin runs a two-thread product, then sleeps 50 ms, and
// reports the process's CPU time during the sleep as idle-cpu-ms: what
// OpenBLAS's idle worker spends spinning (EnvThreadTimeout) before it
// sleeps.
func BenchmarkIdleSpin(b *testing.B) {
	lib := requireOpenBLAS(b)
	lib.setThreads(2)
	defer lib.setThreads(defaultThreads())
	rng := rand.New(rand.NewPCG(1, 2))
	a, bm, c := randMatrix(rng, 512, 512, 0), randMatrix(rng, 512, 512, 0), NewMatrix(512, 512, nil)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var idle time.Duration
	for b.Loop() {
		mulTo(lib, c, a, false, bm, false, 1, 0)
		t0 := cpu()
		time.Sleep(50 * time.Millisecond)
		idle += cpu() - t0
	}
	b.ReportMetric(float64(idle.Microseconds())/1e3/float64(b.N), "idle-cpu-ms")
}

// TestSetThreadTimeout checks that OpenBLAS is loaded with ThreadTimeout
// only when the user did not set OPENBLAS_THREAD_TIMEOUT, and that the
// variable is removed again after the load.
func TestSetThreadTimeout(t *testing.T) {
	t.Setenv(EnvThreadTimeout, "7")
	restore := setThreadTimeout()
	if got := os.Getenv(EnvThreadTimeout); got != "7" {
		t.Fatalf("with %s=7 set by the user, it is %q during the load, want 7", EnvThreadTimeout, got)
	}
	restore()
	if got := os.Getenv(EnvThreadTimeout); got != "7" {
		t.Fatalf("after the load the user's %s is %q, want 7", EnvThreadTimeout, got)
	}
	os.Unsetenv(EnvThreadTimeout) // t.Setenv restores "7" at the end
	restore = setThreadTimeout()
	if got, want := os.Getenv(EnvThreadTimeout), strconv.Itoa(ThreadTimeout); got != want {
		t.Fatalf("unset, %s is %q during the load, want %q", EnvThreadTimeout, got, want)
	}
	restore()
	if v, ok := os.LookupEnv(EnvThreadTimeout); ok {
		t.Fatalf("after the load %s is still set (%q), want unset", EnvThreadTimeout, v)
	}
}
