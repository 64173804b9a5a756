//go:build race

package dcan

// raceEnabled is true in builds with the race detector, whose
// instrumentation of the BLAS calls in core/compute allocates; allocation
// tests are skipped there.
const raceEnabled = true
