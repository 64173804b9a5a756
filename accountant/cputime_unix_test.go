//go:build unix

package accountant

import "syscall"

// cpuSeconds returns the process's user + system CPU time, so that the
// benchmarks can report CPU per operation beside wall time: on the shared
// 2-core machine wall time swings with the other jobs' load.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
