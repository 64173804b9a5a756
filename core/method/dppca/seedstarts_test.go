package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSeedFromPointsStarts: with no extra starts (extra ≤ 0) the seeding
// is the same bit for bit; with 190 extra the run's stream is read
// exactly as with none (its next draw is the same), the seeds' weighted
// inertia on the bins is never above the ten starts' and, over 5 random
// weighted sets of 200 bins into 24 centres, it is strictly lower
// somewhere (so the search does something); coordinates beyond q stay 0.
func TestSeedFromPointsStarts(t *testing.T) {
	const m, q, p, k = 200, 3, 6, 24
	lower := 0
	for s := range uint64(5) {
		g := rand.New(rand.NewPCG(s, 7))
		pts, w := make([]float64, m*q), make([]float64, m)
		for i := range pts {
			pts[i] = g.NormFloat64()
		}
		for i := range w {
			w[i] = 1 + 50*g.Float64()
		}
		fill := make([]float64, k*p)
		r0, r1, r2 := rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1))
		c0 := seedFromPoints(pts, w, q, p, k, r0, fill, 0)
		c1 := seedFromPoints(pts, w, q, p, k, r1, fill, -seedRestarts)
		c2 := seedFromPoints(pts, w, q, p, k, r2, fill, 190)
		if !slices.Equal(c0, c1) {
			t.Fatalf("set %d: extra 0 and −10 differ", s)
		}
		if a, b := r0.Uint64(), r2.Uint64(); a != b {
			t.Fatalf("set %d: the run's stream moved (%d against %d)", s, b, a)
		}
		f0, f2 := seedCost(pts, w, c0, q, p, k), seedCost(pts, w, c2, q, p, k)
		if f2 > f0*(1+1e-12) {
			t.Errorf("set %d: 200 starts' inertia %.6g above ten starts' %.6g", s, f2, f0)
		}
		if f2 < f0*(1-1e-9) {
			lower++
		}
		for i := range k {
			for j := q; j < p; j++ {
				if c2[i*p+j] != 0 {
					t.Fatalf("set %d: centre %d coordinate %d is %g, want 0 beyond q", s, i, j, c2[i*p+j])
				}
			}
		}
	}
	if lower == 0 {
		t.Errorf("200 starts never found a lower inertia than ten on 5 sets")
	}
	t.Logf("200 starts lower than ten on %d of 5 sets", lower)
}

// seedCost is the weighted inertia of the bins pts (rows of q) at the
// first q coordinates of the k seeds c (rows of p).
func seedCost(pts, w, c []float64, q, p, k int) float64 {
	cost := 0.0
	for b := range w {
		d := math.Inf(1)
		for i := range k {
			e := 0.0
			for j := range q {
				v := pts[b*q+j] - c[i*p+j]
				e += v * v
			}
			d = min(d, e)
		}
		cost += w[b] * d
	}
	return cost
}
