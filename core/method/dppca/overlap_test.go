package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// splitBlob is a mixture's 2K = 8 centres (p = 2) where weighted k-means
// into K = 4 and the overlap merge disagree: one large population (1,000
// cells, sd 1) cut into two halves at (±0.8, 0), and three small
// populations (30 cells each) at (−3, 5), (0, 5), (3, 5), each cut into
// two pieces 0.3 apart. Merging the halves costs k-means 250·1.6² = 640,
// merging two small populations only 15·3² = 135, so k-means keeps the
// halves apart; as Gaussians of sd 1 the halves overlap most (Φ(−0.8) ≈
// 0.21 against Φ(−1.5) ≈ 0.07 for two small neighbours).
func splitBlob() (c, w []float64) {
	c = []float64{-0.8, 0, 0.8, 0}
	w = []float64{500, 500}
	for _, x := range []float64{-3, 0, 3} {
		c = append(c, x-0.15, 5, x+0.15, 5)
		w = append(w, 15, 15)
	}
	return c, w
}

// near reports whether some centre of c (rows of 2) lies within tol of (x, y).
func near(c []float64, x, y, tol float64) bool {
	for j := 0; j < len(c); j += 2 {
		if math.Hypot(c[j]-x, c[j+1]-y) < tol {
			return true
		}
	}
	return false
}

// TestOverlapMergeSplitBlob: on splitBlob the overlap merge joins the two
// halves of the large population and keeps the three small ones apart,
// where the weighted k-means merge into the same K keeps the halves
// apart and joins small ones.
func TestOverlapMergeSplitBlob(t *testing.T) {
	c, w := splitBlob()
	km := mergeCentres(c, w, 2, 4, rand.New(rand.NewPCG(1, 2)))
	if !near(km, -0.8, 0, 0.1) || !near(km, 0.8, 0, 0.1) {
		t.Fatalf("k-means merge %v: want the two halves kept apart (the test's premise)", km)
	}
	ov := overlapMerge(c, w, 2, 4, 1, 1)
	if !near(ov, 0, 0, 0.05) {
		t.Errorf("overlap merge %v: no centre at the large population's (0, 0)", ov)
	}
	for _, x := range []float64{-3, 0, 3} {
		if !near(ov, x, 5, 0.05) {
			t.Errorf("overlap merge %v: no centre at the small population (%g, 5)", ov, x)
		}
	}
	// Centres of count below nmin are not components, wherever they lie.
	c2 := append(append([]float64(nil), c...), 40, 40, -30, 10)
	w2 := append(append([]float64(nil), w...), 0.5, 9)
	if got := overlapMerge(c2, w2, 2, 4, 1, 10); !slices.Equal(got, ov) {
		t.Errorf("an empty centre changed the merge: %v, want %v", got, ov)
	}
}

// TestOverlapVariance: s² is (Σλ/ñ − Σπ_i‖m_i‖²)/p, floored at
// overlapFloor of Σλ/ñ over p, and ignores centres of count below one.
func TestOverlapVariance(t *testing.T) {
	c := []float64{1, 0, -1, 0, 9, 9}
	w := []float64{50, 50, 0.2}
	// Σλ/ñ = 300/100 = 3; between = 1; s² = (3 − 1)/2 = 1
	if got := overlapVariance(c, w, 2, []float64{200, 100}, 100, 1); math.Abs(got-1) > 1e-12 {
		t.Errorf("s² %g, want 1", got)
	}
	// Σλ/ñ = 1 = between: the floor 0.05/2
	if got := overlapVariance(c, w, 2, []float64{60, 40, -5}, 100, 1); math.Abs(got-0.025) > 1e-12 {
		t.Errorf("floored s² %g, want 0.025", got)
	}
}

// TestOverlapMergeFew: with no more components than k, the components
// are kept and the heaviest other centres fill the rest.
func TestOverlapMergeFew(t *testing.T) {
	c := []float64{0, 0, 1, 1, 2, 2, 3, 3}
	w := []float64{50, 3, 8, 40}
	if got := overlapMerge(c, w, 2, 3, 1, 10); !slices.Equal(got, []float64{0, 0, 3, 3, 2, 2}) {
		t.Errorf("got %v, want [0 0 3 3 2 2]", got)
	}
}

// TestPairMiss: equal weights give Φ(−d/2s); a lighter component is
// misclassified more, a heavier less; coincident centres fully.
func TestPairMiss(t *testing.T) {
	if got, want := pairMiss(1.6, 1, 1, 1), 0.5*math.Erfc(0.8/math.Sqrt2); math.Abs(got-want) > 1e-12 {
		t.Errorf("pairMiss %g, want %g", got, want)
	}
	if !(pairMiss(2, 1, 1, 10) > pairMiss(2, 1, 1, 1) && pairMiss(2, 1, 10, 1) < pairMiss(2, 1, 1, 1)) {
		t.Error("weights do not move the misclassification as the Bayes rule does")
	}
	if pairMiss(0, 1, 1, 2) != 1 {
		t.Error("coincident centres")
	}
}

// TestOverlapParse: merge=overlap is refused when misspelt and shows in
// run records (its rounds, result and ledger: TestLateUnionRelease).
func TestOverlapParse(t *testing.T) {
	for _, bad := range []string{"overlaps", "Overlap", "demp"} {
		if _, err := Parse(map[string]string{"merge": bad}); err == nil {
			t.Errorf("merge=%q accepted", bad)
		}
	}
	if mustParse(t, map[string]string{"merge": "overlap"}).String() == mustParse(t, nil).String() {
		t.Error("merge=overlap does not show in run records")
	}
}
