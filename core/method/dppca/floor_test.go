package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// floorPieces are released centres in 2-D: one population cut into four
// pieces at the corners of a unit square (weight 100 each), a second cut
// into two (100 each) five units away, and one far piece of weight 5 (a
// centre whose count is mostly noise). Weighted k-means into 3 keeps the
// far piece alone: absorbing it costs 5·~2·95², merging the populations
// far less.
var floorPieces = struct{ c, w []float64 }{
	c: []float64{0, 0, 1, 0, 0, 1, 1, 1, 5, 5, 6, 5, 100, 100},
	w: []float64{100, 100, 100, 100, 100, 100, 5},
}

// groupWeights returns the summed weights of the groups the centres s
// make of pts (nearest centre), sorted.
func groupWeights(pts, w []float64, p int, s []float64) []float64 {
	_, wt := weightedGroups(pts, w, p, s)
	slices.Sort(wt)
	return wt
}

// TestMergeFloor: the k-means merge leaves the far piece of weight 5 a
// group of its own (the premise, checked); with a floor of 20 every group
// weighs at least 20 (the far piece joins its nearest neighbour, the pair,
// and the heaviest population, the square, is cut in two); with the floor off the floored merge
// is the k-means merge bit for bit (the same draws).
func TestMergeFloor(t *testing.T) {
	c, w := floorPieces.c, floorPieces.w
	km := mergeCentres(c, w, 2, 3, rand.New(rand.NewPCG(3, 1)))
	if g := groupWeights(c, w, 2, km); g[0] != 5 {
		t.Fatalf("premise: the k-means merge's groups weigh %v, want one of 5", g)
	}
	fl := mergeCentresFloor(c, w, 2, 3, 20, FloorSplit, rand.New(rand.NewPCG(3, 1)))
	g := groupWeights(c, w, 2, fl)
	if len(g) != 3 || g[0] < 20 {
		t.Errorf("floor 20: groups weigh %v, want 3 groups, each ≥ 20", g)
	}
	if !slices.Contains(g, 205) || !slices.Contains(g, 400-g[0]) {
		t.Errorf("floor 20: groups weigh %v, want the square in two groups and the pair with the far piece, 205", g)
	}
	off := mergeCentresFloor(c, w, 2, 3, 0, FloorSplit, rand.New(rand.NewPCG(3, 1)))
	if !slices.Equal(off, km) {
		t.Errorf("floor 0: %v, want the k-means merge %v", off, km)
	}
}

// TestFloorRepairLimit: when the floor cannot be met (every piece lighter
// than it), floorRepair says how many groups stay below it and does not
// loop; a group of one piece is never split.
func TestFloorRepairLimit(t *testing.T) {
	pts := []float64{0, 0, 10, 0, 20, 0}
	w := []float64{3, 4, 5}
	s := []float64{0, 0, 10, 0, 20, 0}
	if _, low := floorRepair(pts, w, 2, s, 50, 0); low != 3 {
		t.Errorf("floor 50 on pieces of 3–5: %d groups below it, want 3", low)
	}
	if !slices.Equal(s, pts) {
		t.Errorf("centres moved to %v, want them left on their single pieces", s)
	}
	if _, low := floorRepair(pts, w, 2, s, 3, 0); low != 0 {
		t.Errorf("floor 3: %d groups below it, want 0", low)
	}
}

// TestFloorOption: floor=3 sets Options.Floor (mode split) and shows in
// String; floor=3:restart and floor=3:drop set their modes; absent, it is
// the default floor=3:drop (rule G17) and the default's String has no
// floor; floor=0 is off and shown; values outside
// 0..MaxFloor, non-numbers and floor with merge=ward or overlap are
// refused; σ_count times the floor is the least weight (0 nonprivate).
func TestFloorOption(t *testing.T) {
	o := mustParse(t, map[string]string{"floor": "3"})
	if o.Floor != 3 || !strings.Contains(o.String(), " floor=3") {
		t.Errorf("floor=3: Floor %g, String %q", o.Floor, o.String())
	}
	if d := mustParse(t, nil); d.Floor != 3 || d.FloorMode != FloorDrop || strings.Contains(d.String(), "floor") {
		t.Errorf("default: Floor %g %q, String %q, want 3, drop and no floor shown", d.Floor, d.FloorMode, d.String())
	}
	// An explicit floor=0 is off and shows, so the record is not read back
	// as the default; a library caller's zero Options has no floor and
	// shows none.
	if z := mustParse(t, map[string]string{"floor": "0"}); z.Floor != 0 || z.FloorMode != FloorOff || !strings.Contains(z.String(), " floor=0") || strings.Contains(z.String(), "floor=0:") {
		t.Errorf("floor=0: %g %q, String %q", z.Floor, z.FloorMode, z.String())
	}
	if z, err := (Options{}).Resolve(); err != nil || z.Floor != 0 || strings.Contains(z.String(), "floor") {
		t.Errorf("zero Options: %v, floor %g, String %q", err, z.Floor, z.String())
	}
	// The default floor is not read by ward or overlap, and not refused
	// with them; an explicit one is.
	if _, err := Parse(map[string]string{"merge": "ward"}); err != nil {
		t.Errorf("merge=ward with the default floor: %v", err)
	}
	for _, bad := range []map[string]string{{"floor": "-1"}, {"floor": "11"}, {"floor": "x"}, {"floor": "NaN"}, {"floor": "3", "merge": "ward"}, {"floor": "3", "merge": "overlap"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%v) accepted", bad)
		}
	}
	if mustParse(t, map[string]string{"floor": "3", "merge": "late"}).Floor != 3 {
		t.Error("floor=3 merge=late refused")
	}
	if o.FloorMode != FloorSplit || strings.Contains(o.String(), "floor=3:") {
		t.Errorf("floor=3: mode %q, String %q; want split, not shown", o.FloorMode, o.String())
	}
	for _, m := range []FloorMode{FloorRestart, FloorDrop} {
		r := mustParse(t, map[string]string{"floor": "3:" + string(m)})
		shown := m != DefaultFloorMode // floor=3:drop is the default: not shown
		if r.Floor != 3 || r.FloorMode != m || strings.Contains(r.String(), " floor=3:"+string(m)) != shown {
			t.Errorf("floor=3:%s: %g %q, String %q", m, r.Floor, r.FloorMode, r.String())
		}
	}
	if r := mustParse(t, map[string]string{"floor": "2:drop"}); !strings.Contains(r.String(), " floor=2:drop") {
		t.Errorf("floor=2:drop: String %q", r.String())
	}
	if _, err := Parse(map[string]string{"floor": "3:later"}); err == nil {
		t.Error("floor=3:later accepted")
	}
	if w := o.floorWeight(Plan{Counts: 17.9}); math.Abs(w-53.7) > 1e-9 {
		t.Errorf("floor weight %g, want 3·17.9", w)
	}
	if w := o.floorWeight(Plan{}); w != 0 {
		t.Errorf("nonprivate floor weight %g, want 0", w)
	}
}

// TestFloorRelease: floor=3 is post-processing: its ledger, in each
// mode, is the default's, and without noise (σ_count 0, so no floor) its release is
// the default's label for label.
func TestFloorRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	var ledgers [4][]string
	modes := []string{"0", "3", "3:restart", "3:drop"}
	for i, f := range modes {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "floor": f}), nil)
		ledgers[i] = e.Ledger().Components()
	}
	for i := range modes[1:] {
		if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[i+1]) {
			t.Errorf("ledgers differ:\nfloor=0 %v\nfloor=%s %v", ledgers[0], modes[i+1], ledgers[i+1])
		}
	}
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	var labels [2][]int
	for i, f := range []string{"0", "3"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": "2", "floor": f})
		_, out := releaseARI(t, src, false, 0, o, 1)
		labels[i] = out.Labels
	}
	if !slices.Equal(labels[0], labels[1]) {
		t.Error("nonprivate: floor=3 changed the labels")
	}
}

// TestFloorModes: floor=F:drop removes the far piece's group and keeps
// two centres (the square, 400, and the pair with the far piece, 205),
// without re-splitting the square; floor=F:restart keeps a restart whose
// groups all meet the floor when one exists (some seeds' k-means++ starts
// leave the far piece with the pair), else the k-means merge's choice.
func TestFloorModes(t *testing.T) {
	c, w := floorPieces.c, floorPieces.w
	dr := mergeCentresFloor(c, w, 2, 3, 20, FloorDrop, rand.New(rand.NewPCG(3, 1)))
	if g := groupWeights(c, w, 2, dr); len(dr) != 4 || !slices.Equal(g, []float64{205, 400}) {
		t.Errorf("drop: %d centres, groups %v; want 2 and [205 400]", len(dr)/2, g)
	}
	met, kept := 0, 0
	for seed := range uint64(20) {
		km := mergeCentres(c, w, 2, 3, rand.New(rand.NewPCG(seed, 1)))
		rs := mergeCentresFloor(c, w, 2, 3, 20, FloorRestart, rand.New(rand.NewPCG(seed, 1)))
		switch {
		case groupsBelow(c, w, 2, rs, 20) == 0:
			met++
		case slices.Equal(rs, km):
			kept++
		default:
			t.Errorf("seed %d: restart chose %v, neither meeting the floor nor the k-means merge's %v", seed, rs, km)
		}
	}
	t.Logf("restart: %d of 20 seeds met the floor, %d kept the k-means merge", met, kept)
	if met == 0 || kept == 0 {
		t.Errorf("restart met the floor on %d of 20 seeds and kept the k-means merge on %d, want some of each", met, kept)
	}
}
