package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
)

// TestExcessSpread: a gene's excess is its spread above the median of its
// neighbours in mean; genes like their neighbours score 0.
func TestExcessSpread(t *testing.T) {
	const g = 30
	mean, spread := make([]float64, g), make([]float64, g)
	for j := range g {
		mean[j] = float64(g - j) // decreasing: the order must not matter
		spread[j] = 0.2
	}
	spread[5] = 0.8
	spread[20] = 0.1
	ex := excessSpread(mean, spread)
	for j, e := range ex {
		want := map[int]float64{5: 0.6, 20: -0.1}[j]
		if math.Abs(e-want) > 1e-12 {
			t.Errorf("excess of gene %d = %g, want %g", j, e, want)
		}
	}
	// Fewer genes than the window: the median of all of them.
	if ex := excessSpread([]float64{1, 2, 3}, []float64{0.1, 0.5, 0.3}); math.Abs(ex[1]-0.2) > 1e-12 || math.Abs(ex[0]+0.2) > 1e-12 {
		t.Errorf("excessSpread on 3 genes = %v, want [-0.2 0.2 0]", ex)
	}
}

// addOptions sets in opts the options of list, "k=v,k=v" as the long
// measurements' variables give them; an item without "=" is passed over.
func addOptions(opts map[string]string, list string) {
	for _, kv := range strings.Split(list, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			opts[k] = v
		}
	}
}

// countBelow counts the genes kept whose index is below n: the markers,
// since the test sets put their markers first.
func countBelow(genes []int, n int) int {
	c := 0
	for _, j := range genes {
		if j < n {
			c++
		}
	}
	return c
}

// hkMarkers builds the failure of issue 16.2 in small: 400 cells of 4
// types; genes 0–39 markers of moderate mean (0.5–2.4 counts, six times
// more in their type), genes 40–79 housekeeping genes of high mean (about
// 200 counts in every cell, ±20 % per cell whatever its type), genes
// 80–279 background of means 0.1–3.1, the same in every type. Markers lie
// among background genes of like mean, as in a transcriptome: a block of
// markers all of one mean would share their window, and half of them
// would fall below its median.
func hkMarkers(seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 7))
	poisson := func(l float64) float32 {
		k, p := 0, rng.Float64()
		for lim := math.Exp(-l); p > lim; k++ {
			p *= rng.Float64()
		}
		return float32(k)
	}
	const n, g = 400, 280
	x := &datasets.CSR{Rows: n, Cols: g, Indptr: make([]int64, n+1)}
	labels := make([]int, n)
	for i := range n {
		typ := i % 4
		labels[i] = typ
		size := 1 + 0.2*rng.NormFloat64()
		for j := range g {
			var v float32
			switch {
			case j < 40:
				l := 0.5 + 0.1*float64(j%20)
				if j/10 == typ {
					l *= 6
				}
				v = poisson(l)
			case j < 80:
				v = float32(math.Round(max(0, 200*size*(1+0.05*rng.NormFloat64()))))
			default:
				v = poisson(0.1 + 3*float64(j-80)/200)
			}
			if v != 0 {
				x.Indices = append(x.Indices, int32(j))
				x.Data = append(x.Data, v)
			}
		}
		x.Indptr[i+1] = int64(len(x.Data))
	}
	ids := make([]string, g)
	for j := range ids {
		ids[j] = "g" + string(rune('A'+j%26)) + string(rune('A'+j/26))
	}
	bc := make([]string, n)
	for i := range bc {
		bc[i] = "c" + string(rune('A'+i%26)) + string(rune('A'+i/26%26))
	}
	return &datasets.Dataset{Name: "hk", X: x, GeneIDs: ids, GeneNames: ids, Barcodes: bc, Labels: labels, Classes: []string{"a", "b", "c", "d"}, ValueType: datasets.Counts}
}

// TestSelectExcessSkipsHousekeeping: on hkMarkers with h = 40, the genes of
// largest mean are the housekeeping ones (select=mean keeps them, at most
// 5 markers), while select=excess keeps markers: measured 22 of the 29
// among its 160 candidates without noise, 20 at ε = 8.
func TestSelectExcessSkipsHousekeeping(t *testing.T) {
	cl := newCellLog(hkMarkers(3), PublicTarget)
	for _, c := range []struct {
		sel     string
		private bool
		min     int // fewest markers among the 40 kept
		max     int // most markers among the 40 kept
	}{{"mean", false, 0, 5}, {"excess", false, 20, 40}, {"excess", true, 15, 40}} {
		o := mustParse(t, map[string]string{"genes": "40", "select": c.sel})
		pl, err := NewPlan(c.private, 8, 1e-5, o, 40, 3)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := privatePrep(cl, pl, rand.New(rand.NewPCG(1, 1)))
		markers := countBelow(m.Genes, 40)
		if markers < c.min || markers > c.max || m.H != 40 {
			t.Errorf("select=%s private=%v: %d of %d genes kept are markers, want %d to %d", c.sel, c.private, markers, m.H, c.min, c.max)
		}
	}
}

// TestSelectExcessPlan: select=excess releases the statistics of 4h
// candidates (sensitivities grow with √(4h)) and still composes to the
// target ε.
func TestSelectExcessPlan(t *testing.T) {
	o := mustParse(t, map[string]string{"select": "excess"})
	pl, err := NewPlan(true, 4, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Pool != 400 || pl.Select != SelectExcess {
		t.Errorf("plan pool %d select %q, want 400 and excess", pl.Pool, pl.Select)
	}
	for _, m := range pl.Mechanisms() {
		if m.Name == MechSpread && math.Abs(m.Sens-spreadClipPerGene*20) > 1e-12 {
			t.Errorf("spread sensitivity %g, want √400 = 20", m.Sens)
		}
	}
	got, err := EpsilonOf(ComposedMu(pl.Mechanisms()), 1e-5)
	if err != nil || got > 4 || got < 4*(1-1e-9) {
		t.Errorf("composed ε = %.12g, %v; want 4", got, err)
	}
}

// TestFloorKeep: floorKeep ranks by excess only candidates at or above the
// floor and fills from below it in ranking order.
func TestFloorKeep(t *testing.T) {
	const g, h = 40, 4
	mean, spread := make([]float64, g), make([]float64, g)
	for j := range g {
		mean[j] = 3 - 0.1*float64(j) // ranking order; j ≥ 21 below 1
		spread[j] = 0.3
	}
	spread[5], spread[10], spread[30], spread[35] = 0.5, 0.9, 1.5, 1.2
	got := floorKeep(mean, spread, h, 1)
	// Above the floor: 10 (0.6), 5 (0.2), then genes of excess 0 in
	// index order (0, 1); 30 and 35 lie below the floor.
	if want := []int{10, 5, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("floorKeep = %v, want %v", got, want)
	}
	// A floor below every mean lets the low-mean markers in first.
	if got, want := floorKeep(mean, spread, h, -1), []int{30, 35, 10, 5}; !slices.Equal(got, want) {
		t.Errorf("floorKeep(floor -1) = %v, want %v", got, want)
	}
}
