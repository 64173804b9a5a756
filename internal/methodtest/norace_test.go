//go:build !race

package methodtest

const raceEnabled = false
