//go:build linux

package compute

import (
	"math/rand/v2"
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
