package dppca

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSeedGridComponents: neighbouring bins (diagonals included) join,
// a gap of one empty bin separates, and groups below a quarter of ñ/K
// do not count.
func TestSeedGridComponents(t *testing.T) {
	width := []float64{1, 1}
	// bins at (0,0), (1,1) joined diagonally; (3,0) apart; (0,5) a light bin
	pts := []float64{0, 0, 1, 1, 3, 0, 0, 5}
	w := []float64{20, 20, 30, 1}
	// ñ 200, K 4: floor 0.25·50 = 12.5; masses 40 + 2·cut, 30 + cut, 1 + cut
	if got := seedGridComponents(pts, w, 2, width, 2, 200, 4); got != 2 {
		t.Errorf("components %d, want 2", got)
	}
	// at a cut of 12 the light bin's mass 13 clears the floor
	if got := seedGridComponents(pts, w, 2, width, 12, 200, 4); got != 3 {
		t.Errorf("components %d, want 3", got)
	}
	// one bin closer: (2,0) touches (1,1), so all three heavy bins join
	pts[4] = 2
	if got := seedGridComponents(pts, w, 2, width, 2, 200, 4); got != 1 {
		t.Errorf("components %d, want 1", got)
	}
	if got := seedGridComponents(nil, nil, 2, width, 2, 200, 4); got != 0 {
		t.Errorf("components of nothing %d, want 0", got)
	}
}

// fourTypes returns n rows of p = 6 columns in four equal types. With
// deep = true they coincide on the first 3 columns and differ by ±a on
// columns 4 and 5 (the fixed grid sees one group, a 5-component grid
// four); otherwise they differ on columns 1 and 2.
func fourTypes(n int, a float64, deep bool) (proj, eigen []float64) {
	const p = 6
	proj = make([]float64, n*p)
	off := 3
	if !deep {
		off = 0
	}
	for i := range n {
		t := i % 4
		proj[i*p+off] = a * float64(2*(t%2)-1)
		proj[i*p+off+1] = a * float64(2*(t/2)-1)
	}
	eigen = make([]float64, p)
	for j := range eigen {
		eigen[j] = float64(n)
	}
	return proj, eigen
}

// TestSelectSeedGrid: the wide grid is kept only when it shows more
// types than the fixed one; with too much noise for any wide grid the
// seeding is the default's, draw for draw.
func TestSelectSeedGrid(t *testing.T) {
	const n = 4000
	proj, eigen := fourTypes(n, 1, true)
	_, w, q := selectSeedGrid(proj, n, 6, 4, eigen, n, 1, 0.5, rand.New(rand.NewPCG(1, 1)))
	if q != 6 || len(w) < 4 {
		t.Errorf("types apart on components 4–5: grid q %d with %d bins, want the wide q 6 and ≥ 4 bins", q, len(w))
	}
	proj, eigen = fourTypes(n, 1, false)
	if _, _, q := selectSeedGrid(proj, n, 6, 4, eigen, n, 1, 0.5, rand.New(rand.NewPCG(1, 1))); q != 3 {
		t.Errorf("types apart on components 1–2: grid q %d, want the fixed 3 (a tie keeps it)", q)
	}
	// σ 100: no wide grid at σ√2; the points are the default's histogram's
	pts, w, q := selectSeedGrid(proj, n, 6, 4, eigen, n, 1, 100, rand.New(rand.NewPCG(5, 6)))
	counts, centres, q3 := histogram(proj, n, 6, eigen, n, 1)
	addNoise(counts, 100, rand.New(rand.NewPCG(5, 6)))
	wantPts, wantW := histogramPoints(counts, centres, q3, 200)
	if q != 3 || len(w) != len(wantW) || len(pts) != len(wantPts) {
		t.Fatalf("σ 100: q %d, %d bins, want 3 and %d", q, len(w), len(wantW))
	}
	for i := range w {
		if w[i] != wantW[i] {
			t.Fatalf("σ 100: weight %d = %g, want the default's %g", i, w[i], wantW[i])
		}
	}
}

// TestSeedGridReason checks that a run with a wider seeding grid says in
// its guarantee how the grid keeps μ, and that the default says nothing
// more than its shares do.
func TestSeedGridReason(t *testing.T) {
	for _, tc := range []struct {
		grid SeedGrid
		init Init
		want string
	}{
		{SeedGridFixed, InitHistogram, ""},
		{SeedGridAuto, InitHistogram, "seedgrid=auto"},
		{SeedGridSelect, InitHistogram, "seedgrid=select"},
		{SeedGridSelect, InitPCAGaussian, ""},
	} {
		got := seedGridReason(Options{SeedGrid: tc.grid, Init: tc.init})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("seedGridReason(%s, %s) = %q, want a reason naming %q", tc.grid, tc.init, got, tc.want)
		}
	}
}
