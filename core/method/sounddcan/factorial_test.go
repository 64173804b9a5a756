package sounddcan

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestStartFactorial decomposes the gap between dcan-sound's null
// (steps=0) and dppca at the same ε on fresh simulations (simulator seeds
// DPSCOPE_SOUNDDCAN_FACTORIAL, a comma list; the shape variables of
// simData apply): each variant of DPSCOPE_SOUNDDCAN_VARIANTS ("|"-separated
// option sets, as TestDesign) at each ε of DPSCOPE_SOUNDDCAN_EPS (default
// 8), run seeds 0–2, with its mean ARI, the paired difference against the
// first variant, and label-free facts of its runs: the mean h, p and
// non-empty clusters, and the ARI of the start's own nearest-centre labels
// (dppca's labels; meaningful where the start has K centres). dppca itself
// runs last, exactly as `--method dppca` (its defaults, its total 10³).
// Long; it asserts nothing beyond the runs.
func TestStartFactorial(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_FACTORIAL")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_FACTORIAL=251 to decompose the null's gap to dppca")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{8})
	variants := strings.Split(os.Getenv("DPSCOPE_SOUNDDCAN_VARIANTS"), "|")
	nseeds := uint64(fixture.EnvInt(t, "DPSCOPE_SOUNDDCAN_RUNSEEDS", 3))
	ds, srcs := drawSources(t, env)
	var own []*dppca.Source // dppca's own sources, at its default total
	for _, d := range ds {
		o, err := dppca.NewSourceTarget(d, 0, dppca.DefaultTarget)
		if err != nil {
			t.Fatal(err)
		}
		own = append(own, o)
	}
	for _, eps := range epss {
		var base []float64
		for vi, v := range append(variants, "(dppca)") {
			var aris, starts []float64
			h, p, ne := 0.0, 0.0, 0.0
			for si, src := range srcs {
				for s := range nseeds {
					var a, sa float64
					if v == "(dppca)" {
						a, h, p, ne = dppcaOwn(t, own[si], eps, s, h, p, ne)
						sa = a
					} else {
						vals := map[string]string{}
						for _, kv := range strings.Split(v, ";") {
							if k, val, ok := strings.Cut(kv, "="); ok {
								vals[k] = val
							}
						}
						var out *Outcome
						a, out = fitARI(t, src, true, eps, mustParse(t, vals), s)
						var err error
						if sa, err = cluster.ARI(out.Start.Matrix.Labels, out.Start.Labels); err != nil {
							t.Fatal(err)
						}
						h += float64(out.Start.Matrix.H)
						p += float64(len(out.Start.Eigen))
						ne += float64(out.NonEmpty)
					}
					aris, starts = append(aris, a), append(starts, sa)
				}
			}
			if vi == 0 {
				base = aris
			}
			d := make([]float64, len(aris))
			for i := range d {
				d[i] = aris[i] - base[i]
			}
			m, sd := sweep.Moments(aris)
			md, sdd := sweep.Moments(d)
			ms, _ := sweep.Moments(starts)
			nr := float64(len(aris))
			t.Logf("ε=%g %-70q %.3f±%.3f paired %+.4f (2SE %.4f) | start's labels %.3f | h %.0f p %.1f ne %.1f", eps, v, m, sd, md, 2*sdd/math.Sqrt(nr), ms, h/nr, p/nr, ne/nr)
		}
	}
}

// dppcaOwn runs dppca as its engine does (dppcaRun) and returns its ARI,
// adding its h, p and non-empty clusters to the running sums.
func dppcaOwn(t testing.TB, src *dppca.Source, eps float64, seed uint64, h, p, ne float64) (float64, float64, float64, float64) {
	t.Helper()
	ari, out := dppcaRun(t, src, eps, seed)
	return ari, h + float64(out.Matrix.H), p + float64(len(out.Eigen)), ne + float64(out.NonEmpty)
}
