package audit

import (
	"math"
	"testing"
)

// FuzzEpsilonLowerBound: for any game the bound is finite, in [0, ceiling],
// and an invalid game is an error, never a panic.
func FuzzEpsilonLowerBound(f *testing.F) {
	f.Add(100, 100, 100, 0.0, 0.05)
	f.Add(1000, 100, 90, 1e-5, 0.05)
	f.Add(10, 2, 1, 0.5, 0.5)
	f.Fuzz(func(t *testing.T, m, r, v int, delta, beta float64) {
		if m > 5000 {
			m = m % 5000 // keep each case fast: the tail sums are O(v)
		}
		eps, err := EpsilonLowerBound(m, r, v, delta, beta)
		if err != nil {
			return
		}
		ceil, err := Ceiling(m, r, delta, beta)
		if err != nil {
			t.Fatalf("Ceiling(%d, %d, %g, %g) failed after the bound succeeded: %v", m, r, delta, beta, err)
		}
		if math.IsNaN(eps) || eps < 0 || eps > maxEpsilon || eps > ceil+1e-6 {
			t.Errorf("EpsilonLowerBound(%d, %d, %d, %g, %g) = %g, want in [0, ceiling %g]", m, r, v, delta, beta, eps, ceil)
		}
	})
}
