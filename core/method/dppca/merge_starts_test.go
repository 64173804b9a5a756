package dppca

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestParseMergeStarts: mergestarts=N is read, 1000 the default (rule
// G23), named by String only off the default, and values below ten or
// malformed refused; library callers' zero Options keep ten starts.
func TestParseMergeStarts(t *testing.T) {
	o := mustParse(t, map[string]string{"mergestarts": "10"})
	if o.MergeStarts != 10 || !strings.Contains(o.String(), " mergestarts=10") {
		t.Errorf("mergestarts=10: %d, %q", o.MergeStarts, o.String())
	}
	if o := mustParse(t, nil); o.MergeStarts != 1000 || DefaultMergeStarts != 1000 || strings.Contains(o.String(), "mergestarts") {
		t.Errorf("default: %d, %q", o.MergeStarts, o.String())
	}
	if o, err := (Options{P: 4}).Resolve(); err != nil || o.MergeStarts != 0 || strings.Contains(o.String(), "mergestarts") {
		t.Errorf("library zero: %v, %v", o, err)
	}
	if MinMergeStarts != 10 {
		t.Errorf("MinMergeStarts %d, want the ten starts of before", MinMergeStarts)
	}
	for _, bad := range []string{"5", "x", "100001"} {
		if _, err := Parse(map[string]string{"mergestarts": bad}); err == nil || !strings.Contains(err.Error(), "mergestarts") {
			t.Errorf("mergestarts=%s: error %v, want one naming mergestarts", bad, err)
		}
	}
}

// TestMergeStartsMerge: the further starts read the release's stream
// exactly as the default merge does (the next draw after the merge is the
// same), never end at a larger weighted inertia than the default's ten,
// and on random pieces find a lower one at least once; with no further
// starts the merge is mergeCentresFloor's bit for bit.
func TestMergeStartsMerge(t *testing.T) {
	israce.SkipNumerics(t)
	const p, k, m = 5, 6, 16
	lower := 0
	for s := range uint64(30) {
		g := rand.New(rand.NewPCG(s, 7))
		c, w := make([]float64, m*p), make([]float64, m)
		for i := range c {
			c[i] = g.NormFloat64() * 3
		}
		for i := range w {
			w[i] = 1 + 500*g.Float64()
		}
		r1, r2, r3 := rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1))
		a := mergeCentresFloor(c, w, p, k, 0, "", r1)
		b := mergeCentresStarts(c, w, p, k, 0, "", r2, 990)
		z := mergeCentresStarts(c, w, p, k, 0, "", r3, 0)
		if !slices.Equal(a, z) {
			t.Fatalf("seed %d: extra 0 differs from mergeCentresFloor", s)
		}
		if x, y := r1.Uint64(), r2.Uint64(); x != y {
			t.Fatalf("seed %d: the release stream moved (%d vs %d)", s, x, y)
		}
		ca := cluster.WeightedLloyd(c, w, p, slices.Clone(a), 0)
		cb := cluster.WeightedLloyd(c, w, p, slices.Clone(b), 0)
		if cb > ca*(1+1e-12) {
			t.Errorf("seed %d: 1,000 starts cost %.3f above ten's %.3f", s, cb, ca)
		}
		if cb < ca*(1-1e-9) {
			lower++
		}
	}
	if lower == 0 {
		t.Errorf("1,000 starts never beat ten on 30 random piece sets")
	}
}

// TestMergeStartsRelease: a whole release under mergestarts=1000 spends
// what the default spends (the same ledger) and still separates four
// well-separated types.
func TestMergeStartsRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	var ledgers [2][]string
	for i, v := range []string{"10", "1000"} {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "mergestarts": v}), nil)
		ledgers[i] = e.Ledger().Components()
	}
	if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[1]) {
		t.Errorf("ledgers differ:\n%v\n%v", ledgers[0], ledgers[1])
	}
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"genes": "100", "over": "2", "mergestarts": "1000"})
	if ari, _ := releaseARI(t, src, true, 50, o, 1); ari <= 0.9 {
		t.Errorf("ARI %.3f, want > 0.9", ari)
	}
}
