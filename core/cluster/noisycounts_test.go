package cluster

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDPKMeansNoisyCounts: the released counts are the denominators of the
// final centroids (with no sums noise and no clipping, centroid_j ·
// max(ñ_j, 1) is the exact sum of the rows assigned in the last
// iteration), they differ from the true sizes by the counts' noise, and
// adding them changes no draw (the centroids equal a run's without them:
// the same generator sequence).
func TestDPKMeansNoisyCounts(t *testing.T) {
	x, _, _ := blobs(200, 2, 3, 6, 5)
	init := []float64{6, 0, -6, 0, 0, 6}
	cfg := DPKMeansConfig{K: 3, Iterations: 1, ClipNorm: 1e6, SigmaSum: 0, SigmaCount: 2, Init: DPInitGiven, Centroids: init}
	res, err := DPKMeans(context.Background(), x, 200, 2, cfg, rand.New(rand.NewPCG(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NoisyCounts) != 3 {
		t.Fatalf("%d noisy counts, want 3", len(res.NoisyCounts))
	}
	sums, sizes := make([]float64, 6), make([]float64, 3)
	for i := range 200 {
		j := Nearest(x[2*i:2*i+2], init, 2)
		sizes[j]++
		sums[2*j] += x[2*i]
		sums[2*j+1] += x[2*i+1]
	}
	moved := false
	for j := range 3 {
		c := max(res.NoisyCounts[j], 1)
		for d := range 2 {
			if got := res.Centroids[2*j+d] * c; math.Abs(got-sums[2*j+d]) > 1e-9*(1+math.Abs(sums[2*j+d])) {
				t.Errorf("centroid %d·ñ = %g, want the sum %g", j, got, sums[2*j+d])
			}
		}
		if math.Abs(res.NoisyCounts[j]-sizes[j]) > 10 {
			t.Errorf("count %d released as %g, size %g: beyond 5σ", j, res.NoisyCounts[j], sizes[j])
		}
		moved = moved || res.NoisyCounts[j] != sizes[j]
	}
	if !moved {
		t.Error("no released count differs from its size: no noise was added")
	}
}
