package dppca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEdgeOfPureNoise: with no data (Z = 0) the largest eigenvalue of the
// released matrix is the noise's own: just below the rule's threshold (the
// spectrum's edge σ·√(2h) plus its Tracy–Widom margin), within 8 %.
func TestEdgeOfPureNoise(t *testing.T) {
	const h, sigma = 200, 3.0
	pl := Plan{H: h, PCA: sigma}
	z := make([]float64, 10*h)
	for seed := range uint64(5) {
		vals, _, err := analyzeGauss(z, 10, h, 1, sigma, rand.New(rand.NewPCG(seed, 7)))
		if err != nil {
			t.Fatal(err)
		}
		if r := vals[0] / pl.Edge(); r < 0.92 || r >= 1 {
			t.Errorf("seed %d: top noise eigenvalue %.4g = %.3f × the threshold %.4g, want in [0.92, 1)", seed, vals[0], r, pl.Edge())
		}
	}
}

// TestEdgeKeepsPlantedDirections: rows that vary along 3 planted
// directions well above the edge give p = 3 under the edge rule, and the
// rule's bounds hold.
func TestEdgeKeepsPlantedDirections(t *testing.T) {
	const n, h = 2000, 100
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, n*h)
	for i := range n {
		for k := range 3 {
			z[i*h+k*10] = 3 * rng.NormFloat64() // variance 9n = 18,000 along each
		}
		for j := range h {
			z[i*h+j] += 0.1 * rng.NormFloat64() // variance 0.01n = 20: below the edge
		}
	}
	sigma := 100.0 // edge = 100·√200 ≈ 1,414
	pl := Plan{H: h, PCA: sigma}
	vals, _, err := analyzeGauss(z, n, h, 20, sigma, rng)
	if err != nil {
		t.Fatal(err)
	}
	if p := edgeP(vals, pl.Edge(), 20); p != 3 {
		t.Errorf("p = %d for eigenvalues %.4g, edge %.4g; want 3", p, vals[:5], pl.Edge())
	}
	for _, c := range []struct {
		vals       []float64
		edge       float64
		pmax, want int
	}{
		{[]float64{5, 4, 3}, 10, 3, MinAutoP}, // nothing above: the floor
		{[]float64{5, 4, 3}, 0, 3, 3},         // no noise: the cap
		{[]float64{5, 4, 3, 2}, 3.5, 4, 2},
		{[]float64{5}, 10, 1, 1}, // the floor never exceeds the cap
	} {
		if got := edgeP(c.vals, c.edge, c.pmax); got != c.want {
			t.Errorf("edgeP(%v, %g, %d) = %d, want %d", c.vals, c.edge, c.pmax, got, c.want)
		}
	}
	b := []float64{1, 2, 3, 4, 5, 6} // 2 × 3
	if got := firstColumns(b, 2, 3, 2); got[0] != 1 || got[1] != 2 || got[2] != 4 || got[3] != 5 {
		t.Errorf("firstColumns = %v, want [1 2 4 5]", got)
	}
}

// TestWithPKeepsMu: choosing p after the plan re-splits the k-means share
// between sums and counts and leaves the composed μ where it was.
func TestWithPKeepsMu(t *testing.T) {
	o := mustParse(t, nil)
	pl, err := NewPlan(true, 2, 1e-5, o, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{2, 7, 20} {
		q := pl.WithP(p)
		if got := ComposedMu(q.Mechanisms()); math.Abs(got-pl.Mu) > 1e-9*pl.Mu {
			t.Errorf("p = %d: composed μ %.12g, want %.12g", p, got, pl.Mu)
		}
		if q.P != p {
			t.Errorf("p = %d: plan P = %d", p, q.P)
		}
	}
	if a, b := pl.WithP(2), pl.WithP(20); !(a.Sums > b.Sums && a.Counts < b.Counts) {
		t.Errorf("p = 2 sums/counts σ %.4g/%.4g, p = 20 %.4g/%.4g: want more of the share to the sums as p grows", a.Sums, a.Counts, b.Sums, b.Counts)
	}
	if np, _ := NewPlan(false, 0, 0, o, 200, 7); np.Edge() != 0 || np.WithP(5).Sums != 0 {
		t.Errorf("nonprivate plan: edge %g, sums σ %g; want 0, 0", np.Edge(), np.WithP(5).Sums)
	}
}
