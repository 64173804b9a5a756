package fed

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/sweep"
)

// whitenScales scales every input of the network to unit variance, as the
// preprocessing scales genes: component k's variance is its released
// eigenvalue over the public cell count (post-processing of the release);
// a component released at or below a thousandth of the top one is scaled
// as that floor, so noise directions are not blown up without bound.
func whitenScales(vals []float64, cells int) []float64 {
	scale := make([]float64, len(vals))
	for k := range vals {
		scale[k] = 1
		if v := max(vals[k], vals[0]*1e-3) / float64(cells); v > 0 {
			scale[k] = 1 / math.Sqrt(v)
		}
	}
	return scale
}

func oldFrontInput(s *sim) compute.Matrix {
	d := s.d
	if d.RawCounts == nil || len(d.SizeFactors) != d.Cells || d.Genes <= frontGenes {
		return s.x
	}
	lg := make([]float32, len(d.RawCounts))
	mean := make([]float64, d.Genes)
	for i := range d.Cells {
		sf := d.SizeFactors[i]
		if sf <= 0 {
			sf = 1
		}
		for j := range d.Genes {
			v := float32(math.Log1p(float64(d.RawCounts[i*d.Genes+j]) / sf))
			lg[i*d.Genes+j] = v
			mean[j] += float64(v)
		}
	}
	idx := make([]int, d.Genes)
	for j := range idx {
		idx[j] = j
	}
	sort.SliceStable(idx, func(a, b int) bool { return mean[idx[a]] > mean[idx[b]] })
	out := compute.NewMatrix(d.Cells, frontGenes, nil)
	for i := range d.Cells {
		row := out.RawRowView(i)
		for k, j := range idx[:frontGenes] {
			row[k] = lg[i*d.Genes+j]
		}
	}
	return out
}

// TestG39Judgement judges rule G39: arm "old" (today) against "g39".
func TestG39Judgement(t *testing.T) {
	spec := os.Getenv("DPSCOPE_G39")
	if spec == "" {
		t.Skip()
	}
	epss := []float64{0, 2, 4, 8, 16}
	for _, fam := range strings.Split(spec, ";") {
		name, list, _ := strings.Cut(fam, "=")
		for i, ds := range strings.Split(list, ",") {
			d := diagData(t, ds)
			seed := uint64(i + 1)
			for _, arm := range []string{"old", "g39"} {
				if arm == "old" {
					scratchOldInput, frontScaleRule = oldFrontInput, whitenScales
				}
				var row []string
				for _, e := range epss {
					row = append(row, fmt.Sprintf("%.4f", diagRun(t, d, e, 0, -1, 0, seed)))
				}
				scratchOldInput, frontScaleRule = nil, spectrumScales
				fmt.Printf("ROW %s %s %d %s %s\n", name, ds, seed, arm, strings.Join(row, " "))
			}
		}
	}
	_ = sweep.Moments
	_ = math.Sqrt
	_ = sort.Ints
	_ = compute.NewMatrix
}
