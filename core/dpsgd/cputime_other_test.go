//go:build !unix

package dpsgd

import "time"

// processCPU returns 0: getrusage is a Unix call, and the benchmarks'
// CPU-time metrics then read 0.
func processCPU() time.Duration { return 0 }
