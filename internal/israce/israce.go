// Package israce tells a test whether it runs under the race detector, so
// that a long, single-threaded numerical test can leave that build to the
// tests that exercise goroutines and run once more without it.
//
// CI runs the whole suite with -race, which slows arithmetic five- to
// tenfold. A test that spends minutes in one goroutine's numerics (a
// monotonicity sweep, an audit's training runs) finds no race the engine's
// own tests do not, and its minutes made CI's race step the longest. Such a
// test calls SkipNumerics; .ci/run runs every one of them without -race,
// and internal/archtest checks that none is missing from that list.
package israce

import "testing"

// SkipNumerics skips t when the test binary was built with -race. Call it
// only from a test CI runs again without -race (.ci/run, "numerical tests
// skipped under -race").
func SkipNumerics(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("numerics only: skipped under -race; CI runs it without -race (.ci/run)")
	}
}
