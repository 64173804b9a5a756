package dppca

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestMergeHeldFill: with fewer weighted pieces than k, every weighted
// piece is a centre and the rest are the heaviest other pieces by
// released count (not the first pieces); with enough, it is
// mergeCentres.
func TestMergeHeldFill(t *testing.T) {
	// six pieces in one dimension; pieces 4 and 1 at the bar
	c := []float64{0, 1, 2, 3, 4, 5}
	counts := []float64{0.5, 40, 7, -2, 50, 9}
	w := []float64{0, 40, 0, 0, 50, 0}
	got := mergeHeldFill(c, w, counts, 1, 3, rand.New(rand.NewPCG(1, 2)))
	if want := []float64{1, 4, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("centres %v, want %v (pieces 1 and 4 kept, then piece 5, the heaviest of the rest)", got, want)
	}
	w2 := []float64{10, 40, 5, 0, 50, 9}
	a := mergeHeldFill(c, w2, counts, 1, 3, rand.New(rand.NewPCG(1, 2)))
	b := mergeCentres(c, w2, 1, 3, rand.New(rand.NewPCG(1, 2)))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("with enough weighted pieces %v, want mergeCentres' %v", a, b)
	}
}
