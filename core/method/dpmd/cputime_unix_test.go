//go:build unix

package dpmd

import "syscall"

// cpuSeconds returns the CPU time (user and system) of the whole process
// so far, in seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
