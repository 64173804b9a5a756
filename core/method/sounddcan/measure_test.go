package sounddcan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/fixture/baseline"
)

// openData loads a shared data set by name, a builtin one
// ("builtin:default"), or a fresh simulation of builtin:default's
// specification ("sim:21", simData with that simulator seed).
func openData(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	if s, ok := strings.CutPrefix(name, "sim:"); ok {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return simData(t, seed)
	}
	if b, ok := strings.CutPrefix(name, "builtin:"); ok {
		d, err := datasets.Builtin(b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d, err := datasets.Open(filepath.Join(fixture.SharedData(t), name), datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fitOnce plans and runs one fit at δ = 1e-5, its randomness from seed.
func fitOnce(t testing.TB, src *dppca.Source, private bool, eps float64, o Options, seed uint64) *Outcome {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := NewPlan(src, private, eps, 1e-5, o, rng)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Fit(context.Background(), src, pl, o, rng, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fitARI runs one fit and returns its ARI against the labels.
func fitARI(t testing.TB, src *dppca.Source, private bool, eps float64, o Options, seed uint64) (float64, *Outcome) {
	t.Helper()
	out := fitOnce(t, src, private, eps, o, seed)
	ari, err := cluster.ARI(out.Start.Matrix.Labels, out.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return ari, out
}

// dppcaARI runs dppca alone with its defaults (the comparison).
func dppcaARI(t testing.TB, src *dppca.Source, eps float64, seed uint64) float64 {
	ari, _ := dppcaRun(t, src, eps, seed)
	return ari
}

// dppcaRun runs dppca exactly as its engine does (dppca.Parse's defaults,
// the generator PCG(seed, 0)) and returns its ARI and outcome.
func dppcaRun(t testing.TB, src *dppca.Source, eps float64, seed uint64) (float64, *dppca.Outcome) {
	t.Helper()
	o, err := dppca.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := src.PlanFor(true, eps, 1e-5, o, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	out, err := dppca.Release(context.Background(), src, pl, o, rng)
	if err != nil {
		t.Fatal(err)
	}
	ari, err := cluster.ARI(out.Matrix.Labels, out.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return ari, out
}

// TestSharedSeeds measures dcan-sound's mean ± sd ARI over seeds 0–4 at
// each ε of DPSCOPE_SOUNDDCAN_EPS (default 1,2,4,8), beside dppca at the
// same ε and seeds, its paired gain over its own null (steps=0, the same
// total ε) and B1, with the throughput in cells/s. Long: set
// DPSCOPE_SOUNDDCAN_SEEDS=1 (pbmc_4k, mouse_bladder, builtin:default) or a
// comma list of sets. DPSCOPE_SOUNDDCAN_OPTS takes key=value;… options.
// It fails when a set misses issue 17's goal: at ε = 8 (or the largest ε
// measured), mean ARI ≥ max(dppca there, 0.8 × B1), graded (largest −
// smallest ε ≥ 0.1, no step down larger than one sd). Runs that end with
// fewer than K/2 non-empty clusters are counted (the engine explains each
// in a warning).
func TestSharedSeeds(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_SEEDS")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_SEEDS=1 (or pbmc_4k,mouse_bladder,builtin:default) to measure dcan-sound")
	}
	names := []string{"pbmc_4k", "mouse_bladder", "builtin:default"}
	if env != "1" {
		names = strings.Split(env, ",")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{1, 2, 4, 8})
	o := envOptions(t, "DPSCOPE_SOUNDDCAN_OPTS")
	null := o
	null.NoTrain = true
	t.Logf("options: %s", o)
	seeds := uint64(5)
	for _, name := range names {
		d := openData(t, name)
		var b1s []float64
		for s := range seeds {
			b1s = append(b1s, baseline.B1(t, d, s))
		}
		bm, bsd := sweep.Moments(b1s)
		src, err := dppca.NewSource(d, o.K)
		if err != nil {
			t.Fatal(err)
		}
		var means, sds, dpm []float64
		for _, eps := range epss {
			var aris, dps, gain []float64
			var dur time.Duration
			collapsed := 0
			for s := range seeds {
				t0 := time.Now()
				a, out := fitARI(t, src, true, eps, o, s)
				dur += time.Since(t0)
				aris = append(aris, a)
				if 2*out.NonEmpty < src.K {
					// The engine explains every such run in a warning
					// (TestCollapseIsExplained); here it is counted.
					collapsed++
				}
				dps = append(dps, dppcaARI(t, src, eps, s))
				an, _ := fitARI(t, src, true, eps, null, s)
				gain = append(gain, a-an)
			}
			gm, gsd := sweep.Moments(gain)
			m, sd := sweep.Moments(aris)
			pm, psd := sweep.Moments(dps)
			means, sds, dpm = append(means, m), append(sds, sd), append(dpm, pm)
			rate := float64(d.Cells()) * float64(seeds) / dur.Seconds()
			t.Logf("%s ε=%g: dcan-sound %.3f ± %.3f | dppca %.3f ± %.3f | gain over its null (steps=0) %+.3f (se %.3f) | %.0f cells/s (%.2f s/run) | %d of %d runs below K/2 non-empty clusters", name, eps, m, sd, pm, psd, gm, gsd/math.Sqrt(float64(len(gain))), rate, dur.Seconds()/float64(seeds), collapsed, seeds)
		}
		var np []float64
		for s := range seeds {
			a, _ := fitARI(t, src, false, 0, o, s)
			np = append(np, a)
		}
		nm, nsd := sweep.Moments(np)
		t.Logf("%s: nonprivate dcan-sound %.3f ± %.3f; B1 %.3f ± %.3f", name, nm, nsd, bm, bsd)
		last := len(epss) - 1
		at := last // the goal is at ε = 8 when it was measured
		for i, e := range epss {
			if e == 8 {
				at = i
			}
		}
		goal := max(dpm[at], 0.8*bm)
		msg := fmt.Sprintf("%s: at ε=%g mean %.3f, goal max(dppca %.3f, 0.8×B1 %.3f) = %.3f", name, epss[at], means[at], dpm[at], 0.8*bm, goal)
		if means[at] < goal {
			t.Errorf("%s: below the goal", msg)
		} else {
			t.Log(msg + ": met")
		}
		if last > 0 && means[last]-means[0] < 0.1 {
			t.Errorf("%s: not graded: ε=%g %.3f − ε=%g %.3f < 0.1", name, epss[last], means[last], epss[0], means[0])
		}
		for i := 1; i <= last; i++ {
			if means[i] < means[i-1]-sds[i-1] {
				t.Errorf("%s: step down from ε=%g (%.3f ± %.3f) to ε=%g (%.3f)", name, epss[i-1], means[i-1], sds[i-1], epss[i], means[i])
			}
		}
	}
}
