package sounddcan

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestMergeStartsOptions: mergestarts=N sets MergeStarts and nothing
// else; 20 (the head merge's own starts) is the default; under
// start=alone it is dppca's merge's mergestarts (ten without it); bad
// values are refused.
func TestMergeStartsOptions(t *testing.T) {
	checkStartsOption(t, "mergestarts", "20", func(o *Options) *int { return &o.MergeStarts }, "19", "0", "x", "100001", "-5")
	def := mustParse(t, nil)
	do, err := mustParse(t, map[string]string{"mergestarts": "1000"}).dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	dd, err := def.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(do, dd) {
		t.Errorf("mergestarts moves the stage's options under start=stage:\n%+v\nwant\n%+v", do, dd)
	}
	for want, opts := range map[int]map[string]string{dppca.MinMergeStarts: {"start": "alone"}, 500: {"start": "alone", "mergestarts": "500"}} {
		ao, err := mustParse(t, opts).dppcaOptions()
		if err != nil {
			t.Fatal(err)
		}
		if ao.MergeStarts != want {
			t.Errorf("%v: dppca's mergestarts %d, want %d", opts, ao.MergeStarts, want)
		}
	}
}

// TestMergeCentresStarts: with no extra starts the merge is mergeCentres
// bit for bit; with 980 extra the run's stream is read exactly as
// mergeCentres reads it (the next draw is the same), the merge's
// weighted inertia is never above the 20 starts' and, over 10 random
// weighted sets of 24 pieces into 8, it is strictly lower somewhere (so
// the search does something); the weights still sum to the pieces'.
func TestMergeCentresStarts(t *testing.T) {
	const m, p, k = 24, 5, 8
	lower := 0
	for s := range uint64(10) {
		g := rand.New(rand.NewPCG(s, 99))
		pts, w := make([]float64, m*p), make([]float64, m)
		for i := range pts {
			pts[i] = g.NormFloat64()
		}
		tot := 0.0
		for i := range w {
			if g.Float64() < 0.9 {
				w[i] = 1 + 100*g.Float64()
				tot += w[i]
			}
		}
		r0, r1, r2 := rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1)), rand.New(rand.NewPCG(s, 1))
		c0, w0 := mergeCentres(pts, w, p, k, r0)
		c1, w1 := mergeCentresStarts(pts, w, p, k, r1, 0)
		c2, w2 := mergeCentresStarts(pts, w, p, k, r2, 980)
		if !slices.Equal(c0, c1) || !slices.Equal(w0, w1) {
			t.Fatalf("draw %d: extra 0 differs from mergeCentres", s)
		}
		if a, b := r0.Uint64(), r2.Uint64(); a != b {
			t.Fatalf("draw %d: the run's stream moved (%d against %d)", s, b, a)
		}
		f0, f2 := mergeCost(pts, w, c0, p), mergeCost(pts, w, c2, p)
		if f2 > f0 {
			t.Errorf("draw %d: 1,000 starts' inertia %.6g above 20 starts' %.6g", s, f2, f0)
		}
		if f2 < f0*(1-1e-9) {
			lower++
		}
		sum := 0.0
		for _, v := range w2 {
			sum += v
		}
		if d := sum - tot; d > 1e-9*tot || d < -1e-9*tot {
			t.Errorf("draw %d: merged weights sum to %g, want %g", s, sum, tot)
		}
	}
	if lower == 0 {
		t.Errorf("1,000 starts never found a lower inertia than 20 on 10 sets")
	}
	t.Logf("1,000 starts lower than 20 on %d of 10 sets", lower)
}

// TestMergeStartsRun: a run with mergestarts=1000 has the default's plan
// (every σ) and records the default's ledger event for event, composing
// to at most the target within 1 %; on four separated populations at
// ε 4 and 8 the head's merge runs (3K pieces into K).
func TestMergeStartsRun(t *testing.T) {
	israce.SkipNumerics(t)
	merges := 0
	checkSameReleases(t, map[string]string{"mergestarts": "1000"}, func(eps float64, run func()) {
		merges = 0
		mergeProbe = func(_, _, _ []float64, _, _ int) { merges++ }
		defer func() { mergeProbe = nil }()
		run()
		if merges != 1 {
			t.Errorf("ε %g: the head merged %d times, want 1", eps, merges)
		}
	})
}

// TestHeadMergeDiag (DPSCOPE_SOUNDDCAN_HEADMERGEDIAG: development draws
// or data:PATH; DPSCOPE_SOUNDDCAN_EPS, default 8; run seeds 0–4) is a
// label-free look at the head's merge in the default's runs: the
// weighted inertia of the 3K released pieces at the merge's K centres
// (20 starts) against the best of 1,000 starts on the same pieces
// (mergeCentresStarts, extra starts from the pieces' own stream), and the
// pieces the two merges group differently (by weight). No label is read.
func TestHeadMergeDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_HEADMERGEDIAG")
	if env == "" {
		t.Skip("set DPSCOPE_SOUNDDCAN_HEADMERGEDIAG")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{8})
	ds := diagDatasets(t, env)
	for _, d := range ds {
		for _, eps := range epss {
			for s := range uint64(5) {
				var line string
				mergeProbe = func(c, w, merged []float64, p, k int) {
					f20 := mergeCost(c, w, merged, p)
					best, _ := mergeCentresStarts(c, w, p, k, rand.New(rand.NewPCG(0, 0)), 980)
					f1k := mergeCost(c, w, best, p)
					la, lb := make([]int, len(w)), make([]int, len(w))
					for i := range w {
						la[i] = cluster.Nearest(c[i*p:(i+1)*p], merged, p)
						lb[i] = cluster.Nearest(c[i*p:(i+1)*p], best, p)
					}
					moved, tot := 0.0, 0.0 // weighted pairs of pieces the two merges group differently
					for i := range w {
						for j := i + 1; j < len(w); j++ {
							if w[i] <= 0 || w[j] <= 0 {
								continue
							}
							tot += w[i] * w[j]
							if (la[i] == la[j]) != (lb[i] == lb[j]) {
								moved += w[i] * w[j]
							}
						}
					}
					line = fmt.Sprintf("inertia 20 starts %.6g, best of 1,000 %.6g (ratio %.4f); weighted piece pairs grouped differently %.1f %%", f20, f1k, f20/f1k, 100*moved/tot)
				}
				e, _ := runTest(t, d, fixture.SoundConfig(eps, s, nil))
				mergeProbe = nil
				if e.Outcome() == nil {
					t.Fatalf("%s ε %g seed %d: no outcome", d.Name, eps, s)
				}
				t.Logf("%s ε %g seed %d: %s; non-empty %d", d.Name, eps, s, line, e.Outcome().NonEmpty)
			}
		}
	}
}

// checkStartsOption checks a count-of-starts option key: key=1000 sets
// its field (field) and nothing else and is named in String; key=def, the
// search's own count, resolves to the default Options and is not named;
// every bad value is refused.
func checkStartsOption(t *testing.T, key, def string, field func(*Options) *int, bad ...string) {
	t.Helper()
	defOpts := mustParse(t, nil)
	o := mustParse(t, map[string]string{key: "1000"})
	if *field(&o) != 1000 || !strings.Contains(o.String(), key+"=1000") {
		t.Fatalf("%s=1000 resolves to %s (%d)", key, o, *field(&o))
	}
	back := o
	*field(&back) = 0
	if !reflect.DeepEqual(back, defOpts) {
		t.Errorf("%s=1000 changes more than its field:\n%+v\nwant\n%+v", key, back, defOpts)
	}
	if d := mustParse(t, map[string]string{key: def}); !reflect.DeepEqual(d, defOpts) || strings.Contains(d.String(), key) {
		t.Errorf("%s=%s resolves to %s, want the default %s", key, def, d, defOpts)
	}
	for _, b := range bad {
		if _, err := Parse(map[string]string{key: b}); err == nil {
			t.Errorf("%s=%s: no error", key, b)
		}
	}
}
