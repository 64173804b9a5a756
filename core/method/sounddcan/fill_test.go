package sounddcan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestFillSplit: every weightless component is re-seeded by splitting the
// heaviest at the time (ties: the first), symmetrically about its centre
// at distance 2·fillScale·rms, the pair sharing its weight; without any
// weight nothing moves.
func TestFillSplit(t *testing.T) {
	p := 2
	c := []float64{1, 1, 7, 7, -3, 2, 9, 9}
	w := []float64{100, 0, 40, 0}
	if n := fillSplit(c, w, p, 4, rand.New(rand.NewPCG(1, 2))); n != 2 {
		t.Fatalf("filled %d, want 2", n)
	}
	if w[0] != 25 || w[1] != 50 || w[2] != 40 || w[3] != 25 {
		t.Errorf("weights %v, want [25 50 40 25]", w)
	}
	// Symmetric splits keep the heavy component's centre of mass:
	// c0 + c3 = 2·c0', c0' + c1 = 2·(1, 1), so c0 + c3 + 2·c1 = 4·(1, 1).
	for d := range p {
		if s := c[d] + c[3*p+d] + 2*c[p+d]; math.Abs(s-4) > 1e-12 {
			t.Errorf("coordinate %d: c0 + c3 + 2·c1 = %g, want 4", d, s)
		}
	}
	if c[2*p] != -3 || c[2*p+1] != 2 {
		t.Errorf("the weighted third moved: %v", c[2*p:3*p])
	}
	if d := math.Hypot(c[0]-c[3*p], c[1]-c[3*p+1]); math.Abs(d-2*fillScale*4) > 1e-12 {
		t.Errorf("second pair %g apart, want %g", d, 2*fillScale*4)
	}
	c0 := []float64{1, 2, 3, 4}
	if n := fillSplit(c0, []float64{0, 0}, p, 4, rand.New(rand.NewPCG(1, 2))); n != 0 || c0[0] != 1 || c0[3] != 4 {
		t.Errorf("no weight: filled %d, centres %v; want 0, unchanged", n, c0)
	}
	if r := codesRMS([]float64{8, 1, -1}, 1); r != 3 {
		t.Errorf("codesRMS = %g, want 3", r)
	}
}

// TestFillHoldOptions: fill defaults to off and hold to first, they parse their values
// and reach the fit: with start=dppca and hold=on the start is
// dppca.ReleaseHeld's (its centres differ from Release's on the same noise
// stream), and fill=split leaves no component of the start weightless.
func TestFillHoldOptions(t *testing.T) {
	o := mustParse(t, nil)
	if o.Fill != FillOff || o.Hold != HoldFirst {
		t.Fatalf("defaults fill=%s hold=%s, want off, first", o.Fill, o.Hold)
	}
	src := separatedSource(t)
	base := map[string]string{"start": "dppca", "net": "0.1", "genes": "100"}
	run := func(extra map[string]string) *Outcome {
		vals := map[string]string{}
		for k, v := range base {
			vals[k] = v
		}
		for k, v := range extra {
			vals[k] = v
		}
		_, out := fitARI(t, src, true, 2, mustParse(t, vals), 3)
		return out
	}
	plain, held := run(nil), run(map[string]string{"hold": "on"})
	same := true
	for i, v := range plain.Start.Centres {
		if held.Start.Centres[i] != v {
			same = false
		}
	}
	if same {
		t.Error("hold=on: the start's centres equal Release's")
	}
	zero := 0
	for _, v := range plain.StartWeights {
		if v == 0 {
			zero++
		}
	}
	if zero == 0 {
		t.Fatalf("the plain start has no weightless component (weights %v): the fixture no longer tests fill", plain.StartWeights)
	}
	filled := run(map[string]string{"fill": "split"})
	for j, v := range filled.StartWeights {
		if !(v > 0) {
			t.Errorf("fill=split: component %d starts with weight %g (weights %v)", j, v, filled.StartWeights)
		}
	}
}

// separatedSource is four well-separated populations split into K = 8:
// the start leaves some of the 8 components without cells.
func separatedSource(t *testing.T) *dppca.Source {
	t.Helper()
	src, err := dppca.NewSource(fixture.Separated(4, 100, 300, 1), 8)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
