//go:build !linux

package compute

// osYield does nothing here: the polls yield to other goroutines only.
func osYield() {}
