//go:build !race

package compute

// raceReadRows does nothing without the race detector; see race.go.
func raceReadRows[T float32 | float64](s []T, r, c, ld int) {}

// raceWriteRows does nothing without the race detector; see race.go.
func raceWriteRows[T float32 | float64](s []T, r, c, ld int) {}
