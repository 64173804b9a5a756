//go:build race

package dpsgd

// raceEnabled is true in builds with the race detector, whose
// instrumentation of the cgo-free OpenBLAS calls in core/compute allocates;
// allocation tests are skipped there.
const raceEnabled = true
