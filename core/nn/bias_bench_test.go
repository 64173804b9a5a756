package nn

import (
	"slices"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/compute"
)

// BenchmarkBiasRowsAlt alternates Dense.Forward's copy of the bias into
// the output rows of the peers' 2000-wide layer (427 rows) on one
// goroutine and split by compute.Split as Forward does, and reports each
// side's median in µs and the median of the per-round ratios one / split
// (above 1 the split wins).
func BenchmarkBiasRowsAlt(b *testing.B) {
	y := compute.NewMatrix(427, 2000, nil)
	bias := make([]float32, 2000)
	for i := range bias {
		bias[i] = float32(i)
	}
	r := &biasRows{y: y, b: bias}
	var t [2][]float64
	var ratios []float64
	for b.Loop() {
		var d [2]float64
		for side := range 2 {
			t0 := time.Now()
			if side == 0 {
				r.Run(0, y.Rows)
			} else {
				compute.Split(y.Rows, 1, biasCost(y.Cols), r)
			}
			d[side] = time.Since(t0).Seconds() * 1e6
			t[side] = append(t[side], d[side])
		}
		ratios = append(ratios, d[0]/d[1])
	}
	med := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		return x[len(x)/2]
	}
	b.ReportMetric(med(t[0]), "one-med-us")
	b.ReportMetric(med(t[1]), "split-med-us")
	b.ReportMetric(med(ratios), "med-ratio")
	b.ReportMetric(0, "ns/op")
}
