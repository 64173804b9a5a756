package dppca

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// splitMerge is splitMergePairs' candidate without the pairs.
func splitMerge(a, w, pieces, pw []float64, p int) []float64 {
	b, _ := splitMergePairs(a, w, pieces, pw, p)
	return b
}

// TestSplitMerge checks the second candidate on a worked example: three
// final centres, the first holding two far pieces and the other two close
// to each other; the candidate splits the first and merges the other two,
// and the partner pairs are the split's and the merge's.
func TestSplitMerge(t *testing.T) {
	a := []float64{0, 0, 10, 0, 10, 1}
	w := []float64{100, 50, 50}
	pieces := []float64{-3, 0, 3, 0, 10, 0, 10, 1}
	pw := []float64{50, 50, 50, 50}
	b, pairs := splitMergePairs(a, w, pieces, pw, 2)
	want := []float64{-3, 0, 10, 0.5, 3, 0}
	if len(b) != len(want) {
		t.Fatalf("candidate %v, want %v", b, want)
	}
	for i := range b {
		if math.Abs(b[i]-want[i]) > 1e-12 {
			t.Fatalf("candidate %v, want %v", b, want)
		}
	}
	if len(pairs) != 4 || pairs[0] != [2]int{0, 0} || pairs[1] != [2]int{0, 2} || pairs[2] != [2]int{1, 1} || pairs[3] != [2]int{2, 1} {
		t.Errorf("pairs %v", pairs)
	}
	// no cluster with two weighted pieces: no candidate
	if b := splitMerge(a, w, pieces, []float64{50, 0.5, 50, 50}, 2); b != nil {
		t.Errorf("candidate %v from one piece per cluster", b)
	}
}

// TestChooseSens checks chooseSens against the gap's change for random
// cells in the ball: adding any one cell never moves the gap by more.
func TestChooseSens(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p, R := 3, 2.0
	a := make([]float64, 4*p)
	for j := range 4 {
		ballPoint(a[j*p:(j+1)*p], R, rng)
	}
	pieces := make([]float64, 8*p)
	pw := make([]float64, 8)
	for j := range 8 {
		ballPoint(pieces[j*p:(j+1)*p], R, rng)
		pw[j] = 10
	}
	b, pairs := splitMergePairs(a, pieceWeights(a, pieces, pw, p), pieces, pw, p)
	if b == nil {
		t.Fatal("no candidate")
	}
	s := chooseSens(a, b, pairs, p, R)
	worst := 0.0
	x := make([]float64, p)
	for range 20000 {
		ballPoint(x, R, rng)
		worst = max(worst, math.Abs(objectiveGap(x, 1, p, a, b, R)))
	}
	if worst > s || worst < s/20 || s <= 0 {
		t.Errorf("largest change %g, bound %g", worst, s)
	}
}

// TestChooseLedger: choose=objective's plan takes ShareChoose from the
// k-means, every mechanism that ran is in the ledger once at its σ/Δ, and
// when the scalar was released (Chose > 0) the ledger's μ is the target
// within 1e-9; the default is off and leaves the plan as it was; a bad
// value is refused.
func TestChooseLedger(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	for _, eps := range []float64{2, 8} {
		cfg := map[string]string{"genes": "100", "over": "2", "choose": "objective"}
		e, _ := runTest(t, d, fixture.SoundConfig(eps, 1, cfg), nil)
		out := e.Outcomes()[0]
		if out.Chose == 0 {
			t.Fatalf("ε %g: no choice made", eps)
		}
		for _, m := range out.Plan.Mechanisms() {
			evs := e.Ledger().Events("release 1: " + m.Name)
			if len(evs) != 1 || evs[0].Steps != m.Count || math.Abs(evs[0].NoiseMultiplier-m.Sigma/m.Sens) > 1e-12 {
				t.Errorf("ε %g: ledger events of %q %+v, want %d steps of σ/Δ %g", eps, m.Name, evs, m.Count, m.Sigma/m.Sens)
			}
		}
		want, _ := muOf(eps, 1e-5)
		if mu := SpentMu(e.Ledger()); math.Abs(mu-want) > 1e-9 {
			t.Errorf("ε %g: spent μ %.12g, want %.12g", eps, mu, want)
		}
		if got := out.Plan.ChooseMu; math.Abs(got-want*math.Sqrt(ShareChoose)) > 1e-12 {
			t.Errorf("ε %g: ChooseMu %g, want %g", eps, got, want*math.Sqrt(ShareChoose))
		}
		e0, _ := runTest(t, d, fixture.SoundConfig(eps, 1, map[string]string{"genes": "100", "over": "2"}), nil)
		if o0 := e0.Outcomes()[0]; o0.Chose != 0 || o0.Plan.ChooseMu != 0 || !(o0.Plan.Sums < out.Plan.Sums) {
			t.Errorf("ε %g: default chose %d ChooseMu %g σ_sums %g (choose: %g)", eps, o0.Chose, o0.Plan.ChooseMu, o0.Plan.Sums, out.Plan.Sums)
		}
	}
	if o := mustParse(t, map[string]string{}); o.Choose == ChooseObjective || o.String() != mustParse(t, map[string]string{"choose": "off"}).String() {
		t.Errorf("default choose %q", o.Choose)
	}
	if _, err := Parse(map[string]string{"choose": "yes"}); err == nil {
		t.Error("choose=yes accepted")
	}
}
