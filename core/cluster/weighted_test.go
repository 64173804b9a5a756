package cluster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWeightedKMeans: three heavy points far apart among light ones are
// the centres weighted k-means++ and Lloyd find, and Nearest assigns to
// them; a point of weight zero never moves a centre.
func TestWeightedKMeans(t *testing.T) {
	pts := []float64{0, 0, 10, 0, 0, 10, 0.1, 0, 10.1, 0, 0, 10.1, 100, 100}
	w := []float64{5, 5, 5, 1, 1, 1, 0}
	c := WeightedPlusPlus(pts, w, 2, 3, rand.New(rand.NewPCG(1, 2)))
	if len(c) != 6 {
		t.Fatalf("%d values, want 3 centres of 2", len(c))
	}
	cost := WeightedLloyd(pts, w, 2, c, 10)
	want := [][2]float64{{0.1 / 6, 0}, {10 + 0.1/6, 0}, {0, 10 + 0.1/6}}
	for _, p := range want {
		j := Nearest(p[:], c, 2)
		if math.Abs(c[2*j]-p[0]) > 1e-9 || math.Abs(c[2*j+1]-p[1]) > 1e-9 {
			t.Errorf("centre near %v is %v", p, c[2*j:2*j+2])
		}
	}
	// Each group: 5·(1/60)² + 1·(5/60)², three groups.
	if wantCost := 3 * (5*math.Pow(0.1/6, 2) + math.Pow(0.5/6, 2)); math.Abs(cost-wantCost) > 1e-12 {
		t.Errorf("cost %v, want %v", cost, wantCost)
	}
}
