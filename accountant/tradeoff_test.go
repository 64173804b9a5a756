package accountant

import (
	"math"
	"testing"
)

// TestTradeoffGaussian: for k Gaussian releases (q = 1) the PLD trade-off
// must lie at or below the exact μ-GDP curve (pessimistic), within 2e-3
// absolute (discretisation 1e-3 of the loss), be convex and decreasing, and
// respect the (ε, δ) bound β ≥ 1 − δ − e^ε α with the PLD's own ε(δ).
func TestTradeoffGaussian(t *testing.T) {
	const z, k = 2.0, 4
	p, err := NewPLD(Event{1, z, k}, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := p.Tradeoff(60)
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(k) / z
	eps, _ := p.Epsilon(1e-5)
	for i, pt := range pts {
		exact, _ := GDPTradeoff(mu, pt.Alpha)
		if pt.Beta > exact+1e-9 || exact-pt.Beta > 2e-3 {
			t.Errorf("Tradeoff(μ=%g)(α=%g) = %g, want ≤ exact %g and within 2e-3", mu, pt.Alpha, pt.Beta, exact)
		}
		if lb := 1 - 1e-5 - math.Exp(eps)*pt.Alpha; pt.Beta < lb-1e-9 {
			t.Errorf("Tradeoff(α=%g) = %g, want ≥ 1 − δ − e^ε α = %g", pt.Alpha, pt.Beta, lb)
		}
		if i > 0 && pt.Beta > pts[i-1].Beta+1e-12 {
			t.Errorf("Tradeoff not decreasing at α=%g: %g > %g", pt.Alpha, pt.Beta, pts[i-1].Beta)
		}
	}
	g, err := GDPTradeoffCurve(mu, 60)
	if err != nil || len(g) != 60 || g[0].Beta != 1 {
		t.Errorf("GDPTradeoffCurve(%g, 60) = %v…, %v, want 60 points from (0, 1)", mu, g[:1], err)
	}
	if _, err := p.Tradeoff(2); err == nil {
		t.Errorf("Tradeoff(2) error = nil, want error")
	}
	if _, err := GDPTradeoffCurve(math.NaN(), 10); err == nil {
		t.Errorf("GDPTradeoffCurve(NaN) error = nil, want error")
	}
}
