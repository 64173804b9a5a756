package dppca

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestMeanLogFloor: the floor is the Poisson mean of log1p(k·T/L), checked
// against the first terms summed by hand, ≈ λ·log1p(T/L) for small λ,
// increasing in λ, and 0 for λ or depth ≤ 0.
func TestMeanLogFloor(t *testing.T) {
	l, tot, dep := 1.0, 1000.0, 900.0
	var want float64
	p := math.Exp(-l)
	for k := 1; k < 30; k++ {
		p *= l / float64(k)
		want += p * math.Log1p(float64(k)*tot/dep)
	}
	if got := meanLogFloor(l, tot, dep); math.Abs(got-want) > 1e-12 || got < 0.55 || got > 0.65 {
		t.Errorf("meanLogFloor(1, 1000, 900) = %g, want %g (about 0.6)", got, want)
	}
	if got, small := meanLogFloor(1e-4, tot, dep), 1e-4*math.Log1p(tot/dep); math.Abs(got-small) > 1e-3*small {
		t.Errorf("meanLogFloor(1e-4) = %g, want ≈ %g", got, small)
	}
	if a, b := meanLogFloor(1, tot, 4000), meanLogFloor(2, tot, 4000); !(b > a) {
		t.Errorf("floor not increasing in λ: %g then %g", a, b)
	}
	if meanLogFloor(0, tot, dep) != 0 || meanLogFloor(1, tot, 0) != 0 {
		t.Error("floor of λ = 0 or depth 0 is not 0")
	}
}

// TestDepthKeep: the genes of mean ≥ floor in their order, at least
// GenesAutoMin (the largest means), nil when every gene passes.
func TestDepthKeep(t *testing.T) {
	mean := make([]float64, 120)
	for j := range mean {
		mean[j] = float64(120-j) / 10 // 12.0 … 0.1
	}
	mean[3], mean[100] = 0.05, 11.95 // out of order: ranking ≠ mean
	keep := depthKeep(mean, 4)
	// means ≥ 4: j < 81 except 3, plus 100: 81 genes
	if len(keep) != 81 || keep[0] != 0 || keep[2] != 2 || keep[3] != 4 || keep[80] != 100 {
		t.Fatalf("keep = %v (len %d), want 0..80 without 3, with 100", keep, len(keep))
	}
	if k := depthKeep(mean, 11.5); len(k) != GenesAutoMin {
		t.Errorf("a floor above all but a few keeps %d, want the floor of %d", len(k), GenesAutoMin)
	}
	if k := depthKeep(mean, 0.01); k != nil {
		t.Errorf("a floor below every mean keeps %v, want nil (all)", k)
	}
}

// TestWithGenesKeepsMu: the plan for fewer genes shrinks R to c·√h and
// the PCA's and sums' noise with it, and its mechanisms still compose to
// exactly μ (the statistics of the first h genes stay in the ledger at
// their sensitivities).
func TestWithGenesKeepsMu(t *testing.T) {
	o := mustParse(t, map[string]string{"mincount": "1"})
	pl, err := NewPlan(true, 4, 1e-5, o, 400, 0.5*20)
	if err != nil {
		t.Fatal(err)
	}
	pl.ClipFactor = 0.5
	pl = pl.WithP(12)
	q := pl.withGenes(100)
	if q.H != 100 || math.Abs(q.R-5) > 1e-12 || math.Abs(q.PCA-pl.PCA/4) > 1e-12*pl.PCA || math.Abs(q.Sums-pl.Sums/2) > 1e-12*pl.Sums || q.P != 12 {
		t.Fatalf("withGenes(100): H %d R %g PCA %g (was %g) sums %g (was %g) p %d", q.H, q.R, q.PCA, pl.PCA, q.Sums, pl.Sums, q.P)
	}
	if mu := ComposedMu(q.Mechanisms()); math.Abs(mu-pl.Mu) > 1e-9 {
		t.Errorf("composed μ %g after the cap, want %g", mu, pl.Mu)
	}
	var medians int
	for _, m := range q.Mechanisms() {
		if m.Name == MechMedian {
			medians++
		}
		if m.Name == MechMeans && math.Abs(m.Sens-meanClipPerGene*20) > 1e-12 {
			t.Errorf("means' Δ %g after the cap, want the released 2·√400 = 40", m.Sens)
		}
	}
	if medians != 1 {
		t.Errorf("%d library-size histograms in the plan, want 1", medians)
	}
	pl.ClipFactor = 0 // an absolute radius stays
	if q := pl.withGenes(100); q.R != pl.R || q.PCA != pl.PCA || q.H != 100 {
		t.Errorf("absolute radius: R %g → %g, PCA %g → %g", pl.R, q.R, pl.PCA, q.PCA)
	}
}

// shallowSim is a small simulation at a shallow depth (median library
// about 220 counts on 600 genes), where the cap binds without noise.
func shallowSim(t testing.TB) *datasets.Dataset {
	c := datasets.DefaultSimConfig(1500, 600, 3)
	c.LibLoc -= 3
	c.Seed = 7
	d, _, err := datasets.Simulate(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDepthCapRelease: on shallow counts genes=auto with mincount=1 keeps
// fewer genes than GenesRule, every kept gene's released mean at least
// the floor, its plan's R = c·√h' and the ledger still μ; mincount=0 and
// non-count values keep GenesRule's h.
func TestDepthCapRelease(t *testing.T) {
	israce.SkipNumerics(t)
	d := shallowSim(t)
	run := func(d *datasets.Dataset, opts map[string]string, private bool) (*Outcome, Plan) {
		o := mustParse(t, opts)
		src, err := NewSourceTarget(d, 0, o.sourceTarget())
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 0))
		pl, err := src.PlanFor(private, 16, 1e-5, o, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Release(context.Background(), src, pl, o, rng)
		if err != nil {
			t.Fatal(err)
		}
		return out, pl
	}
	for _, private := range []bool{false, true} {
		out, pl := run(d, map[string]string{"mincount": "1"}, private)
		if pl.Depth <= 0 || out.Plan.H >= pl.H || out.Matrix.H != out.Plan.H || out.Plan.H < GenesAutoMin {
			t.Fatalf("private %v: depth %g, h %d → %d (matrix %d): the cap did not bind", private, pl.Depth, pl.H, out.Plan.H, out.Matrix.H)
		}
		if want := DefaultClip * math.Sqrt(float64(out.Plan.H)); math.Abs(out.Plan.R-want) > 1e-12 {
			t.Errorf("private %v: R %g, want c·√h' = %g", private, out.Plan.R, want)
		}
		if private {
			if mu := ComposedMu(out.Plan.Mechanisms()); math.Abs(mu-pl.Mu) > 1e-9 {
				t.Errorf("composed μ %g, want %g", mu, pl.Mu)
			}
		}
		off, plOff := run(d, map[string]string{"mincount": "0"}, private)
		if plOff.Depth != 0 || off.Plan.H != plOff.H {
			t.Errorf("private %v, mincount=0: depth %g, h %d → %d", private, plOff.Depth, plOff.H, off.Plan.H)
		}
	}
	logged := *d
	logged.ValueType = datasets.NonCounts
	if out, pl := run(&logged, map[string]string{"mincount": "1"}, true); pl.Depth != 0 || out.Plan.H != pl.H {
		t.Errorf("non-counts: depth %g, h %d → %d, want no cap", pl.Depth, pl.H, out.Plan.H)
	}
}

// TestMinCountOption: absent reads DefaultMinCount, a number in [0, 100]
// parses, others are refused; Options built by a library caller keep 0;
// the histogram's share is taken under genes=auto with private
// preprocessing and select=mean only.
func TestMinCountOption(t *testing.T) {
	if o := mustParse(t, nil); o.MinCount != DefaultMinCount {
		t.Errorf("absent mincount: %g, want %g", o.MinCount, float64(DefaultMinCount))
	}
	if o, err := (Options{}).Resolve(); err != nil || o.MinCount != 0 || o.depthCap() {
		t.Errorf("Options{}.Resolve(): mincount %g, cap %v, err %v", o.MinCount, o.depthCap(), err)
	}
	on := mustParse(t, map[string]string{"mincount": "1"})
	off := mustParse(t, map[string]string{"mincount": "0"})
	if !on.depthCap() || off.depthCap() || math.Abs(off.kmShare()-on.kmShare()-ShareMedian) > 1e-15 {
		t.Errorf("cap on %v off %v, k-means shares %g / %g", on.depthCap(), off.depthCap(), on.kmShare(), off.kmShare())
	}
	for _, opts := range []map[string]string{{"mincount": "1", "genes": "200"}, {"mincount": "1", "prep": "public"}, {"mincount": "1", "select": "spread"}} {
		if o := mustParse(t, opts); o.depthCap() {
			t.Errorf("%v: the cap applies, want not", opts)
		}
	}
	if o := mustParse(t, map[string]string{"mincount": "1", "target": "median"}); o.prepShare() != ShareRanking+ShareCount+ShareMeans+ShareSpread+ShareMedian {
		t.Errorf("mincount and target=median take %g, want one histogram", o.prepShare())
	}
	for _, bad := range []string{"-1", "x", "101", "NaN"} {
		if _, err := Parse(map[string]string{"mincount": bad}); !errors.Is(err, ErrOptions) {
			t.Errorf("mincount=%s: err %v, want ErrOptions", bad, err)
		}
	}
}
