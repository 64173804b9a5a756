//go:build !race

package compute

// raceReadRows does nothing without the race detector; see race.go.
func raceReadRows(s []float32, r, c, ld int) {}

// raceWriteRows does nothing without the race detector; see race.go.
func raceWriteRows(s []float32, r, c, ld int) {}
