//go:build !unix

package accountant

// cpuSeconds is 0 where getrusage is not available: the benchmarks then
// report wall time only.
func cpuSeconds() float64 { return 0 }
