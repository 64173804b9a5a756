//go:build !unix

package dpmd

// cpuSeconds returns 0: getrusage is a Unix call, and the benchmarks'
// CPU-time metrics then read 0.
func cpuSeconds() float64 { return 0 }
