//go:build race

package methodtest

// raceEnabled: under the race detector (10× slower) the suite runs one
// variant per engine family.
const raceEnabled = true
