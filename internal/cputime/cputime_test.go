//go:build unix

package cputime

import "testing"

// TestProcessGrows: the CPU time read after some work is positive and
// not below the time read before it.
func TestProcessGrows(t *testing.T) {
	before := Process()
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i % 7)
	}
	after := Process()
	if after <= 0 || after < before || x == 0 {
		t.Errorf("Process: %v before, %v after some work; want a positive, growing time", before, after)
	}
}
