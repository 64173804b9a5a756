package dppca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/fixture/baseline"
	"github.com/dpscope/dpscope/internal/israce"
)

// openShared loads one shared data set.
func openShared(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	d, err := datasets.Open(filepath.Join(fixture.SharedData(t), name), datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// releaseARI runs one release of mode private (or not) and returns its ARI
// against the labels of the cells it kept.
// planTweak, when set, edits each plan releaseARI makes before the
// release: TestSimDesign's DPSCOPE_DPPCA_EXACT zeroes the noise of named
// preprocessing releases to tell which costs the most (a diagnostic
// only: such a release is not private).
var planTweak func(*Plan)

func releaseARI(t testing.TB, src *Source, private bool, eps float64, o Options, seed uint64) (float64, *Outcome) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := src.PlanFor(private, eps, 1e-5, o, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	if pl.AutoClip {
		// clip=auto: the norm histogram's own stream, as the engine has it
		pl.NormRng = rand.New(rand.NewPCG(seed, normStream(1)))
	}
	if planTweak != nil {
		planTweak(&pl)
	}
	out, err := Release(context.Background(), src, pl, o, rng)
	if err != nil {
		t.Fatal(err)
	}
	if postRelease != nil {
		postRelease(out, rng)
	}
	ari, err := cluster.ARI(out.Matrix.Labels, out.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return ari, out
}

// releaseAfterPCA plans a private release of src at ε with seed's
// streams, as releaseARI does, and runs it through its preprocessing and
// private PCA: where the diagnoses that look inside the rounds start.
func releaseAfterPCA(t testing.TB, src *Source, eps float64, o Options, seed uint64) *release {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := src.PlanFor(true, eps, 1e-5, o, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	if pl.AutoClip {
		pl.NormRng = rand.New(rand.NewPCG(seed, normStream(1)))
	}
	r := newRelease(src, pl, o, rng)
	if err := r.prep(); err != nil {
		t.Fatal(err)
	}
	if err := r.pca(); err != nil {
		t.Fatal(err)
	}
	return r
}

// optionSource parses the options opts and builds d's source at their
// public total (k from d's labels): the first step of every measurement
// of a list of option sets.
func optionSource(t testing.TB, d *datasets.Dataset, opts map[string]string) (Options, *Source) {
	t.Helper()
	o := mustParse(t, opts)
	src, err := NewSourceTarget(d, 0, o.sourceTarget())
	if err != nil {
		t.Fatal(err)
	}
	return o, src
}

// anchor is issue 16's reference pipeline (mean ARI of seeds 0–4 at
// ε = 1, 2, 4, 8) with B1.
var anchor = map[string][5]float64{
	"pbmc_4k":       {0.36, 0.49, 0.54, 0.70, 0.67},
	"mouse_bladder": {0.20, 0.36, 0.40, 0.48, 0.60},
	"pollen":        {0.00, 0.01, 0.04, 0.21, 0.88},
}

// loadSet loads a shared set by name, or a builtin ("builtin:NAME").
func loadSet(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	if strings.HasPrefix(name, "builtin:") {
		d, _, err := datasets.Load(name, datasets.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return openShared(t, name)
}

// goalEps are the ε of the long measurement: the curve view's span, with
// the anchor's 1, 2, 4, 8.
var goalEps = []float64{0.5, 1, 2, 4, 8, 16}

// TestSharedSeeds measures dppca's mean ARI over seeds 0–4 at ε = 0.5 to 16
// (δ = 1e-5) on the three anchored sets and builtin:default, with the
// default options and with prep=public, beside the anchor and B1. Long:
// set DPSCOPE_DPPCA_SEEDS=1 (or a comma list of sets);
// DPSCOPE_DPPCA_OPTS=k=v,… changes options. It fails on every goal of
// issue 16 the default (prep=private) misses: the anchor met (DECISIONS.md:
// mean ≥ anchor − 0.03) on every anchored set and ε; ≥ 0.8 × B1 at ε = 8
// on every set of ≥ 2,000 cells; monotone in ε (no step down between
// neighbouring ε larger than one sd, the larger of the two); and on
// builtin:default (16.6) a rise ≥ 0.3 from ε = 0.5 to 8.
func TestSharedSeeds(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_SEEDS")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_SEEDS=1 (or pbmc_4k,pollen,…) to measure dppca on the shared sets")
	}
	names := []string{"pbmc_4k", "mouse_bladder", "pollen", "builtin:default"}
	if env != "1" {
		names = strings.Split(env, ",")
	}
	fmtE := func(e float64) string { return strconv.FormatFloat(e, 'g', -1, 64) }
	for _, name := range names {
		d := loadSet(t, name)
		var b1s []float64
		for s := range uint64(5) {
			b1s = append(b1s, baseline.B1(t, d, s))
		}
		bm, bsd := sweep.Moments(b1s)
		if a, ok := anchor[name]; ok {
			t.Logf("%s: B1 (dpscope) %.3f ± %.3f; anchor B1 %.2f", name, bm, bsd, a[4])
		} else {
			t.Logf("%s: B1 (dpscope) %.3f ± %.3f (no anchor)", name, bm, bsd)
		}
		for _, prep := range []Prep{PrepPrivate, PrepPublic} {
			opts := map[string]string{"prep": string(prep)}
			// DPSCOPE_DPPCA_OPTS=k=v,k=v measures other options (e.g.
			// init=random-ball) with the same table.
			addOptions(opts, os.Getenv("DPSCOPE_DPPCA_OPTS"))
			o, src := optionSource(t, d, opts)
			row := name + " " + o.String() + ":"
			means, sds := make([]float64, len(goalEps)), make([]float64, len(goalEps))
			for k, eps := range goalEps {
				var aris []float64
				var dur time.Duration
				var ps []string
				for s := range uint64(5) {
					t0 := time.Now()
					a, out := releaseARI(t, src, true, eps, o, s)
					dur += time.Since(t0)
					aris = append(aris, a)
					ps = append(ps, strconv.Itoa(len(out.Eigen))+fmt.Sprintf("/ρ%.2g", centreNoise(out.Plan, out.Matrix.NoisyN, 2*src.K, out.Eigen)))
				}
				m, sd := sweep.Moments(aris)
				means[k], sds[k] = m, sd
				row += " ε=" + fmtE(eps) + " " + strconv.FormatFloat(m, 'f', 3, 64) + "±" + strconv.FormatFloat(sd, 'f', 3, 64) + " (p " + strings.Join(ps, ",") + ")"
				if k == len(goalEps)-1 {
					row += " (" + (dur / 5).Round(time.Millisecond).String() + "/run)"
				}
			}
			var np []float64
			for s := range uint64(5) {
				a, _ := releaseARI(t, src, false, 0, o, s)
				np = append(np, a)
			}
			m, sd := sweep.Moments(np)
			row += " nonprivate " + strconv.FormatFloat(m, 'f', 3, 64) + "±" + strconv.FormatFloat(sd, 'f', 3, 64)
			t.Log(row)
			if prep == PrepPrivate {
				checkGoals(t, name, d.Cells(), bm, means, sds)
			}
		}
	}
}

// checkGoals reports every issue-16 goal the means (and sds) of goalEps
// miss on set name of n cells with B1 mean b1m.
func checkGoals(t *testing.T, name string, n int, b1m float64, means, sds []float64) {
	t.Helper()
	at := func(eps float64) int {
		for k, e := range goalEps {
			if e == eps {
				return k
			}
		}
		t.Fatalf("ε = %g not measured", eps)
		return -1
	}
	if a, ok := anchor[name]; ok {
		for j, eps := range []float64{1, 2, 4, 8} {
			if m := means[at(eps)]; m < a[j]-0.03 {
				t.Errorf("GOAL MISSED: %s ε=%g: mean ARI %.3f below the anchor %.2f − 0.03", name, eps, m, a[j])
			}
		}
	}
	if m8 := means[at(8)]; n >= 2000 && m8 < 0.8*b1m {
		t.Errorf("GOAL MISSED: %s ε=8: mean ARI %.3f below 0.8 × B1 = %.3f", name, m8, 0.8*b1m)
	}
	if n >= 200 {
		for k := 1; k < len(goalEps); k++ {
			if drop := means[k-1] - means[k]; drop > max(sds[k-1], sds[k]) {
				t.Errorf("GOAL MISSED: %s not monotone: mean ARI %.3f at ε=%g falls to %.3f at ε=%g (more than one sd, %.3f)", name, means[k-1], goalEps[k-1], means[k], goalEps[k], max(sds[k-1], sds[k]))
			}
		}
	}
	if name == "builtin:default" {
		if rise := means[at(8)] - means[at(0.5)]; rise < 0.3 {
			t.Errorf("GOAL MISSED: builtin:default rises by %.3f from ε=0.5 to 8, want ≥ 0.3", rise)
		}
	}
}

// TestSharedShort is TestSharedSeeds's short form for CI: one sound release
// on pbmc_4k at ε = 8 (seed 0) clusters far above chance.
func TestSharedShort(t *testing.T) {
	israce.SkipNumerics(t)
	if testing.Short() {
		t.Skip("loads pbmc_4k")
	}
	o := mustParse(t, nil)
	src, err := NewSourceTarget(openShared(t, "pbmc_4k"), 0, o.sourceTarget())
	if err != nil {
		t.Fatal(err)
	}
	ari, out := releaseARI(t, src, true, 8, o, 0)
	t.Logf("pbmc_4k ε=8 seed 0: ARI %.3f, %d non-empty clusters", ari, out.NonEmpty)
	if ari < 0.4 || out.NonEmpty < 4 {
		t.Errorf("pbmc_4k ε=8 seed 0: ARI %.3f with %d non-empty clusters, want ≥ 0.4 and ≥ 4 (measured 0.63 mean over seeds 0–4)", ari, out.NonEmpty)
	}
}
