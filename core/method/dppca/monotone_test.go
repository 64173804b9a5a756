package dppca

import (
	"os"
	"testing"

	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestMonotoneNoCollapse is issue 16 point 5 for dppca in the repository:
// with its defaults, the mean ARI over seeds 0–4 does not fall as ε grows
// beyond one standard deviation (the larger of the two neighbours'), and
// a release that ends with fewer than K/2 non-empty clusters says why (the
// engine's warning, collapseMessage); the curve crosses over=auto's switch
// (no over-clustering at ε = 1, over-clustering at ε = 16 on
// builtin:default). The short form runs builtin:default at ε = 1, 4, 16;
// DPSCOPE_LONG=1 runs ε = 0.5 … 16 on builtin:default and three real sets,
// pollen, pbmc_4k and mouse_bladder (the last was not monotone before
// genes=auto; see docs/RESULTS.md). DPSCOPE_DPPCA_OPTS=k=v,… runs it with
// other options.
func TestMonotoneNoCollapse(t *testing.T) {
	israce.SkipNumerics(t)
	sets, eps := []string{"builtin:default"}, []float64{1, 4, 16}
	if os.Getenv("DPSCOPE_LONG") != "" {
		sets, eps = []string{"builtin:default", "pollen", "pbmc_4k", "mouse_bladder"}, goalEps
	}
	// DPSCOPE_DPPCA_OPTS=k=v,… checks other options (a variant before a
	// flip) with the same test.
	opts := map[string]string{}
	addOptions(opts, os.Getenv("DPSCOPE_DPPCA_OPTS"))
	o, err := Parse(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sets {
		src, err := NewSourceTarget(loadSet(t, name), 0, o.sourceTarget())
		if err != nil {
			t.Fatal(err)
		}
		var prevM, prevSD float64
		collapsed := 0
		for k, e := range eps {
			var aris []float64
			overs := 0
			for seed := range uint64(5) {
				a, out := releaseARI(t, src, true, e, o, seed)
				aris = append(aris, a)
				if out.Over > 1 {
					overs++
				}
				if 2*out.NonEmpty < src.K {
					collapsed++
					if collapseMessage(out, src.K) == "" {
						t.Errorf("%s ε %g seed %d: %d non-empty clusters of %d and no reason given", name, e, seed, out.NonEmpty, src.K)
					}
				}
			}
			m, sd := sweep.Moments(aris)
			t.Logf("%s ε %g: ARI %.3f ± %.3f (%d of 5 releases over-clustered)", name, e, m, sd, overs)
			// The curve crosses over=auto's switch: on builtin:default the
			// relative centre noise at 2K clusters is about 0.5 at ε = 1
			// and 0.14 at ε = 16 (threshold 0.25).
			if name == "builtin:default" && ((e == 1 && overs != 0) || (e == 16 && overs != 5)) {
				t.Errorf("%s ε %g: %d of 5 releases over-clustered, want %d", name, e, overs, map[bool]int{true: 0, false: 5}[e == 1])
			}
			if k > 0 && m < prevM-max(sd, prevSD) {
				t.Errorf("%s: mean ARI falls from %.3f ± %.3f to %.3f ± %.3f as ε grows to %g", name, prevM, prevSD, m, sd, e)
			}
			prevM, prevSD = m, sd
		}
		t.Logf("%s: %d of %d releases ended with fewer than K/2 non-empty clusters (each explained)", name, collapsed, 5*len(eps))
	}
}
