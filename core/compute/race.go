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
func raceReadRows[T float32 | float64](s []T, r, c, ld int) {
	size := int(unsafe.Sizeof(s[0]))
	for i := range r {
		runtime.RaceReadRange(unsafe.Pointer(&s[i*ld]), c*size)
	}
}

// raceWriteRows tells the race detector that C code reads and writes the r×c
// row-major block of s with stride ld.
func raceWriteRows[T float32 | float64](s []T, r, c, ld int) {
	size := int(unsafe.Sizeof(s[0]))
	for i := range r {
		runtime.RaceWriteRange(unsafe.Pointer(&s[i*ld]), c*size)
	}
}
