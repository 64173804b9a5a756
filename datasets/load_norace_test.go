//go:build !race

package datasets

// raceEnabled reports whether the tests run under the race detector, which
// slows the loaders about tenfold.
const raceEnabled = false
