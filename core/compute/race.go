//go:build race

package compute

import (
	"runtime"
	"unsafe"
)

// raceReadRows tells the race detector that C code reads the r×c row-major
// block of s with stride ld. Rows are reported one by one, so that disjoint
// column blocks of one matrix used by different goroutines are not reported
// as a race.
func raceReadRows(s []float32, r, c, ld int) {
	for i := range r {
		runtime.RaceReadRange(unsafe.Pointer(&s[i*ld]), c*4)
	}
}

// raceWriteRows tells the race detector that C code reads and writes the r×c
// row-major block of s with stride ld.
func raceWriteRows(s []float32, r, c, ld int) {
	for i := range r {
		runtime.RaceWriteRange(unsafe.Pointer(&s[i*ld]), c*4)
	}
}
