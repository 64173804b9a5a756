package dpmd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
)

// TestPaperCanariesExactFit: with noise-free releases the attacker's
// least-squares fit recovers every inclusion (score within 1e-6 of 1 or
// 0), with three canaries per query and every query within h of several
// canaries (so a projection on each canary's own shift would be masked);
// a canary on no seen release would score ½. References in a ball in
// R^6, queries near them, d = 2, one query's release withheld.
func TestPaperCanariesExactFit(t *testing.T) {
	const n, M, D, d = 400, 12, 6, 2
	rng := rand.New(rand.NewPCG(3, 4))
	pr := &Problem{N: n, D: D, M: M, H: 1.2, Dim: d, Y: make([]float64, n*D), Z: make([]float64, M*D)}
	for i := range pr.Y {
		pr.Y[i] = rng.NormFloat64() * 0.5
	}
	for i := range pr.Z {
		pr.Z[i] = rng.NormFloat64() * 0.3
	}
	a, err := newPaperCanaries(core.Config{Seed: 9, Audit: &core.AuditSpec{}}, pr)
	if err != nil {
		t.Fatal(err)
	}
	// 10 % of the references, ⌊D/2⌋ = 3 per query: 36 at most, so 36.
	if len(a.in) != 36 {
		t.Fatalf("%d canaries, want min(12·3, 400/10) = 36", len(a.in))
	}
	rows, k := a.included(D)
	y := append(append([]float64(nil), pr.Y...), rows...)
	withheld := 5 // its release is not seen
	for q := range M {
		if q == withheld {
			continue
		}
		b := make([]float64, D)
		if _, ok := kernelMean(b, y, n+k, pr.Z[q*D:(q+1)*D], pr.H, d+2); ok {
			a.release(q, b)
		}
	}
	s := a.scores(pr.Y, n, pr.Z, M, D)
	h2 := pr.H * pr.H
	for j, in := range a.in {
		want := 0.0
		if in {
			want = 1
		}
		seen := false
		for q := range M {
			if a.got[q] && cluster.SqDist(pr.Z[q*D:(q+1)*D], a.y[j*D:(j+1)*D]) < h2 {
				seen = true
			}
		}
		if !seen {
			want = 0.5
		}
		if math.Abs(s[j]-want) > 1e-6 {
			t.Errorf("canary %d (in %v, home %d): score %g, want %g", j, in, a.home[j], s[j], want)
		}
	}
}
