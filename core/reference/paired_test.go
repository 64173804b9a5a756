package reference

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// TestPaired checks the paired comparison against figures worked by hand
// and the verdict it gives, including the cases where the one-run
// approximation and the paired test disagree.
func TestPaired(t *testing.T) {
	null := Line{ARI: 0.28, ARISD: 0.066, Seeds: 5, SeedARI: []float64{0.276, 0.270, 0.313, 0.364, 0.185}}
	// Each seed 0.10 above its null, give or take 0.01: a clear gain that
	// one run (0.39 against 0.28 ± 0.066) cannot show.
	self := Line{Seeds: 5, SeedARI: []float64{0.386, 0.360, 0.413, 0.474, 0.285}}
	l, ok := Paired(self, null)
	if !ok {
		t.Fatal("Paired: not ok")
	}
	// d = 0.110 0.090 0.100 0.110 0.100: mean 0.102, sd 0.008367, SE 0.003742.
	if math.Abs(l.Gain-0.102) > 1e-12 || math.Abs(l.SE-0.0083666/math.Sqrt(5)) > 1e-6 || l.Seeds != 5 || l.NoBetter {
		t.Errorf("Paired = %+v, want gain 0.102, SE 0.00374, learning", l)
	}
	if RunVerdict(true, 0.39, &null) != NoLearning {
		t.Error("the one-run approximation should not see this gain (the test's premise)")
	}
	if v, got := Verdict(true, 0.39, &null, &self); v != "" || got == nil || got.Gain != l.Gain {
		t.Errorf("Verdict with self = %q, %+v; want learning, the paired figures", v, got)
	}

	// The same mean gain with a spread: not beyond two standard errors.
	noisy := Line{Seeds: 5, SeedARI: []float64{0.576, 0.170, 0.513, 0.264, 0.285}}
	if l, _ := Paired(noisy, null); !l.NoBetter {
		t.Errorf("a gain of %.3f with SE %.3f counted as learning", l.Gain, l.SE)
	}
	if v, _ := Verdict(true, 0.6, &null, &noisy); v != NoLearning {
		t.Errorf("Verdict = %q, want %q: the paired test, not the run's own ARI, decides", v, NoLearning)
	}
	// A gain beyond 2 SE but below MinLearning is no learning either.
	tiny := Line{Seeds: 5, SeedARI: []float64{0.286, 0.280, 0.323, 0.374, 0.195}}
	if l, _ := Paired(tiny, null); !l.NoBetter {
		t.Errorf("a gain of %.3f counted as learning (MinLearning %v)", l.Gain, MinLearning)
	}

	// Without per-seed figures, or of different lengths: the one-run
	// approximation, and no Learning.
	if _, ok := Paired(Line{Seeds: 5}, null); ok {
		t.Error("Paired without per-seed ARIs: ok")
	}
	if _, ok := Paired(Line{Seeds: 4, SeedARI: []float64{1, 1, 1, 1}}, null); ok {
		t.Error("Paired over different seeds: ok")
	}
	if v, got := Verdict(true, 0.39, &null, &Line{Seeds: 5}); v != NoLearning || got != nil {
		t.Errorf("Verdict without per-seed self = %q, %v; want the one-run verdict", v, got)
	}
	if v, got := Verdict(false, 0.39, &null, &self); v != "" || got != nil {
		t.Errorf("a non-private run: %q, %v", v, got)
	}
	if v, got := Verdict(true, 0.39, nil, &self); v != "" || got != nil {
		t.Errorf("no null: %q, %v", v, got)
	}
}

// TestSelfLine checks that Cache.Self runs the config itself at seeds
// 0–4, keeps each seed's ARI in seed order, hits its cache, and computes a
// cached line without per-seed ARIs (an older cache's) again.
func TestSelfLine(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 0.1, Seed: 9}
	c := Cache{Dir: t.TempDir()}
	nullCalls = 0
	l, err := c.Self(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.01, 0.02, 0.03, 0.04} // seeded: ARI = seed/100
	if len(l.SeedARI) != len(want) || l.Seeds != len(want) {
		t.Fatalf("Self = %+v, want %d seeds", l, len(want))
	}
	for i := range want {
		if math.Abs(l.SeedARI[i]-want[i]) > 1e-12 {
			t.Errorf("seed %d ARI %v, want %v", i, l.SeedARI[i], want[i])
		}
	}
	if _, err := c.Self(context.Background(), cfg); err != nil || nullCalls != 5 {
		t.Errorf("second Self: %d runs in all (err %v), want the 5 of the first", nullCalls, err)
	}
	// The same line without SeedARI, as a cache written before it existed.
	files, err := filepath.Glob(filepath.Join(c.Dir, "self-*"))
	if err != nil || len(files) != 1 {
		t.Fatalf("cache files %v (err %v), want one", files, err)
	}
	key := strings.TrimSuffix(filepath.Base(files[0]), filepath.Ext(files[0]))
	if err := c.write(key, Line{ARI: l.ARI, ARISD: l.ARISD, Seeds: l.Seeds}); err != nil {
		t.Fatal(err)
	}
	if l2, err := c.Self(context.Background(), cfg); err != nil || nullCalls != 10 || len(l2.SeedARI) != 5 {
		t.Errorf("a line without per-seed ARIs: %d runs in all, %+v (err %v); want it computed again", nullCalls, l2, err)
	}
}

// TestJudge: a sweep's group shares seeds 0–2 with a null line of seeds
// 0–4 and is judged by the paired test over those three; with fewer than
// two shared seeds the unpaired NoBetter decides.
func TestJudge(t *testing.T) {
	// A null whose seeds spread widely (sd 0.13) and a group 0.08 above it
	// at each seed, give or take 0.005: learning the paired test sees and
	// the unpaired one (both spreads) cannot.
	null := Line{Seeds: 5, SeedARI: []float64{0.10, 0.40, 0.20, 0.35, 0.15}}
	null.ARI, null.ARISD = sweep.Moments(null.SeedARI)
	self := map[uint64]float64{0: 0.185, 1: 0.475, 2: 0.28}
	vals := []float64{self[0], self[1], self[2]}
	mean, sd := sweep.Moments(vals)
	if !NoBetter(mean, sd, 3, null) {
		t.Fatal("the unpaired test sees the gain: the test's premise fails")
	}
	noBetter, l := Judge(self, mean, sd, 3, null, null.BySeed())
	if l == nil || noBetter || l.NoBetter || l.Seeds != 3 || math.Abs(l.Gain-0.08) > 1e-12 || math.Abs(l.SE-0.005/math.Sqrt(3)) > 1e-12 {
		t.Errorf("Judge = %v, %+v; want learning, paired over 3 seeds, gain 0.08, SE 0.005/√3", noBetter, l)
	}
	// The paired test also finds no learning where there is none.
	flat := map[uint64]float64{0: 0.105, 1: 0.395, 2: 0.20}
	if noBetter, l := Judge(flat, 0.233, 0.15, 3, null, null.BySeed()); !noBetter || l == nil || !l.NoBetter {
		t.Errorf("no gain: Judge = %v, %+v; want no better, paired", noBetter, l)
	}
	// Seeds 0 and 7: one shared seed, no spread of differences: unpaired.
	for _, s := range []map[uint64]float64{{0: 0.185, 7: 0.5}, {5: 0.185, 6: 0.5}, nil} {
		noBetter, l := Judge(s, 0.34, 0.22, 2, null, null.BySeed())
		if l != nil || noBetter != NoBetter(0.34, 0.22, 2, null) {
			t.Errorf("seeds %v: Judge = %v, %+v; want the unpaired verdict and no paired figures", s, noBetter, l)
		}
	}
	// A null without per-seed ARIs (cached before they were kept): unpaired.
	if _, l := Judge(self, mean, sd, 3, Line{ARI: null.ARI, ARISD: null.ARISD, Seeds: 5}, nil); l != nil {
		t.Errorf("a null without seeds paired: %+v", l)
	}
}
