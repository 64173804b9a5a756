//go:build unix

package cluster

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process so far, which
// the benchmarks report beside wall time because the shared 2-core machine
// is often oversubscribed.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
