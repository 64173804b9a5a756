package dppca

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// diagRun is one configuration of TestStepDiag: a release at ε (0: no
// noise) with options opts(seed) and an optional plan edit.
type diagRun struct {
	label string
	eps   float64
	opts  func(seed uint64) map[string]string
	tweak func(*Plan)
}

// diagStats are the per-seed outcomes of a diagRun.
type diagStats struct {
	ari, km10, h, p, over, ne []float64
}

// TestStepDiag is the diagnosis of mouse_bladder's ε 4 → 8 step
// (docs/RESULTS.md, "dppca, seventh attempt"): it runs ε 8 with each
// ε-dependent choice held at the value it takes at ε 4 (h, p, over; per
// seed), ε 8 with one stage's noise raised to its ε-4 level (h held, so
// the radius and the sensitivities are ε 4's), and the noiseless pipeline
// with each choice set as B1 sets it. Every row also gives km10: B1's
// clustering (k-means++ with 10 inits, no noise) on that release's own
// projection, which separates the representation from the private
// clustering. It reads labels, so it is a diagnosis only: nothing is
// chosen by it. Long: DPSCOPE_DPPCA_STEPDIAG=SET (a shared set's name or
// builtin:NAME; "1" for mouse_bladder); DPSCOPE_DPPCA_STEPEPS=a,b the two
// ε (default 4,8); DPSCOPE_DPPCA_STEPVARIANTS=opts;opts only those option
// sets at the two ε and without noise. Simulations may be named too
// (TestSimDesign's names; seeds +700).
func TestStepDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_STEPDIAG")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_STEPDIAG=1 (or a set's name) for the ε-step diagnosis")
	}
	name := env
	if env == "1" {
		name = "mouse_bladder"
	}
	e4, e8 := 4.0, 8.0
	if s := os.Getenv("DPSCOPE_DPPCA_STEPEPS"); s != "" {
		if _, err := fmt.Sscanf(s, "%g,%g", &e4, &e8); err != nil {
			t.Fatalf("DPSCOPE_DPPCA_STEPEPS=%q: %v", s, err)
		}
	}
	// Simulations (TestSimDesign's names) are drawn with seeds +700, draws
	// no rule is judged on.
	d := simOrSet(t, name, 700)
	if v := os.Getenv("DPSCOPE_DPPCA_STEPVARIANTS"); v != "" {
		// Only the given option sets (k=v,k=v;…) at ε lo, hi and without
		// noise.
		defer func() { planTweak = nil }()
		for _, opts := range strings.Split(v, ";") {
			m := map[string]string{}
			addOptions(m, opts)
			for _, e := range []float64{e4, e8, 0} {
				stepRow(t, d, name, diagRun{label: fmt.Sprintf("ε%g %s", e, opts), eps: e, opts: func(uint64) map[string]string { return m }}, map[float64]*Source{})
			}
		}
		return
	}
	stepDiag(t, d, name, e4, e8)
}

// stepDiag runs TestStepDiag's rows on d between ε lo and hi.
func stepDiag(t *testing.T, d *datasets.Dataset, name string, lo, hi float64) {
	defer func() { planTweak = nil }()
	base := func(uint64) map[string]string { return map[string]string{} }
	src := map[float64]*Source{}
	run := func(r diagRun) diagStats { return stepRow(t, d, name, r, src) }
	fe := func(e float64) string { return strconv.FormatFloat(e, 'g', -1, 64) }
	s4 := run(diagRun{label: "ε" + fe(lo) + " default", eps: lo, opts: base})
	s8 := run(diagRun{label: "ε" + fe(hi) + " default", eps: hi, opts: base})
	_ = s8
	held := func(keys ...string) func(uint64) map[string]string {
		return func(s uint64) map[string]string {
			m := map[string]string{}
			for _, k := range keys {
				switch k {
				case "genes":
					m["genes"] = strconv.Itoa(int(s4.h[s]))
				case "p":
					m["p"] = strconv.Itoa(int(s4.p[s]))
				case "over":
					m["over"] = strconv.Itoa(int(s4.over[s]))
				}
			}
			return m
		}
	}
	at := "ε" + fe(hi) + " "
	for _, keys := range [][]string{{"genes"}, {"p"}, {"over"}, {"genes", "p", "over"}} {
		run(diagRun{label: fmt.Sprintf("%s%v held at ε%s", at, keys, fe(lo)), eps: hi, opts: held(keys...)})
	}
	// One stage's noise at its ε-lo level, h held at ε lo's (so R and the
	// sensitivities are the same): σ scales as 1/μ, the k-means share's
	// σ through its μ² share (WithP re-derives sums and counts from it).
	mlo, err := muOf(lo, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	mhi, err := muOf(hi, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	f := mhi / mlo
	stages := []struct {
		label string
		tw    func(*Plan)
	}{
		{"prep noise", func(pl *Plan) { pl.Rank *= f; pl.Mean *= f; pl.Mean2 *= f; pl.Spread *= f }},
		{"PCA noise", func(pl *Plan) { pl.PCA *= f }},
		{"k-means noise", func(pl *Plan) { pl.km /= f * f; pl.Seed *= f; *pl = pl.WithP(pl.P) }},
	}
	run(diagRun{label: at + "[genes] held (again, stream of the rows below)", eps: hi, opts: held("genes"), tweak: func(*Plan) {}})
	for _, s := range stages {
		run(diagRun{label: at + "[genes] held, " + s.label + " at ε" + fe(lo), eps: hi, opts: held("genes"), tweak: s.tw})
	}
	// The noiseless pipeline, then each choice as B1 makes it.
	np := func(m map[string]string) func(uint64) map[string]string {
		return func(uint64) map[string]string { return m }
	}
	all := strconv.Itoa(min(d.Genes(), 5000))
	for _, r := range []struct {
		label string
		opts  map[string]string
	}{
		{"no noise default", map[string]string{}},
		{"no noise genes=ε-lo h", map[string]string{"genes": strconv.Itoa(int(math.Round(mean(s4.h))))}},
		{"no noise genes=50", map[string]string{"genes": "50"}},
		{"no noise genes=all", map[string]string{"genes": all}},
		{"no noise p=50", map[string]string{"p": "50"}},
		{"no noise p=ε-lo p", map[string]string{"p": strconv.Itoa(int(math.Round(mean(s4.p))))}},
		{"no noise over=1", map[string]string{"over": "1"}},
		{"no noise init=kmeans++", map[string]string{"init": "kmeans++"}},
		{"no noise clip=100", map[string]string{"clip": "100"}},
		{"no noise T=50", map[string]string{"T": "50"}},
		{"no noise prep=public", map[string]string{"prep": "public"}},
		{"no noise B1-like (public, all genes, p=50, clip 100, over 1)", map[string]string{"prep": "public", "genes": all, "p": "50", "clip": "100", "over": "1"}},
	} {
		run(diagRun{label: r.label, eps: 0, opts: np(r.opts)})
	}
}

func mean(v []float64) float64 { m, _ := sweep.Moments(v); return m }

// stepRow runs r on d over seeds 0–4 and logs its row; src caches the
// sources by total and k (option k: that many clusters).
func stepRow(t *testing.T, d *datasets.Dataset, name string, r diagRun, src map[float64]*Source) diagStats {
	var st diagStats
	for s := range uint64(5) {
		o := mustParse(t, r.opts(s))
		key := o.sourceTarget() + 1e9*float64(o.K) // by total and k
		sc, ok := src[key]
		if !ok {
			var err error
			if sc, err = NewSourceTarget(d, o.K, o.sourceTarget()); err != nil {
				t.Fatal(err)
			}
			src[key] = sc
		}
		planTweak = r.tweak
		a, out := releaseARI(t, sc, r.eps > 0, r.eps, o, s)
		planTweak = nil
		km, err := cluster.KMeans(context.Background(), out.Proj, out.Matrix.N, len(out.Eigen), cluster.KMeansConfig{K: sc.K, NInit: 10, Seed: s})
		if err != nil {
			t.Fatal(err)
		}
		k10, err := cluster.ARI(out.Matrix.Labels, km.Labels)
		if err != nil {
			t.Fatal(err)
		}
		st.ari = append(st.ari, a)
		st.km10 = append(st.km10, k10)
		st.h = append(st.h, float64(out.Plan.H))
		st.p = append(st.p, float64(len(out.Eigen)))
		st.over = append(st.over, float64(out.Over))
		st.ne = append(st.ne, float64(out.NonEmpty))
	}
	m, sd := sweep.Moments(st.ari)
	km, kmsd := sweep.Moments(st.km10)
	mh, _ := sweep.Moments(st.h)
	mp, _ := sweep.Moments(st.p)
	mo, _ := sweep.Moments(st.over)
	mn, _ := sweep.Moments(st.ne)
	t.Logf("%s | %-44s | %.3f±%.3f | km10 %.3f±%.3f | h %.0f p %.1f over %.1f ne %.1f", name, r.label, m, sd, km, kmsd, mh, mp, mo, mn)
	return st
}
