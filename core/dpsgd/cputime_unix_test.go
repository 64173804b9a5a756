//go:build unix

package dpsgd

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) of the whole process
// so far, or 0 where getrusage fails.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
