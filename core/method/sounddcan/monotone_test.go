package sounddcan

import (
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/core/sweep"

	"github.com/dpscope/dpscope/internal/israce"
)

// TestMonotoneNoCollapse is issue 16 point 5 for dcan-sound in the
// repository: with its defaults, the mean ARI over seeds 0–4 does not fall
// as ε grows by more than one standard deviation (the larger of the two
// neighbours', as dppca's test), and every run that ends with fewer than
// K/2 non-empty clusters has the engine's explanation, which names where
// the clusters were lost (the network left out, or the noise left on its
// means). The short form runs builtin:default at ε = 1, 4, 16 (the staged
// split leaves the network out at ε = 1 there and runs it at 4 and 16);
// DPSCOPE_LONG=1 runs ε = 0.5 … 16 on builtin:default, pollen, pbmc_4k,
// mouse_bladder and mouse_bladder_2100. mouse_bladder's step from ε = 2 to
// 4 (0.525 ± 0.052 → 0.474 ± 0.021) is within ε 2's sd: there fewer filled
// clusters score higher than all K = 16 (docs/RESULTS.md says why).
func TestMonotoneNoCollapse(t *testing.T) {
	israce.SkipNumerics(t)
	sets, eps := []string{"builtin:default"}, []float64{1, 4, 16}
	if os.Getenv("DPSCOPE_LONG") != "" {
		sets, eps = []string{"builtin:default", "pollen", "pbmc_4k", "mouse_bladder", "mouse_bladder_2100"}, []float64{0.5, 1, 2, 4, 8, 16}
	}
	o := mustParse(t, nil)
	for _, name := range sets {
		src, err := dppca.NewSource(openData(t, name), 0)
		if err != nil {
			t.Fatal(err)
		}
		var prevM, prevSD float64
		for k, e := range eps {
			var aris []float64
			off := 0
			for seed := range uint64(5) {
				a, out := fitARI(t, src, true, e, o, seed)
				aris = append(aris, a)
				if out.Plan.NetOff {
					off++
				}
				if 2*out.NonEmpty < src.K {
					r := &runner{e: &Engine{o: o}, src: src, pl: out.Plan}
					msg := r.collapseMessage(out)
					want := "noise left on each mixture mean"
					if out.Plan.Steps == 0 {
						want = "no DP-SGD step ran (the staged split left the network out"
					}
					if !strings.Contains(msg, want) {
						t.Errorf("%s ε %g seed %d: %d of %d clusters non-empty, explanation %q lacks %q", name, e, seed, out.NonEmpty, src.K, msg, want)
					}
				}
			}
			m, sd := sweep.Moments(aris)
			t.Logf("%s ε %g: ARI %.3f ± %.3f (network left out in %d of 5 runs)", name, e, m, sd, off)
			if name == "builtin:default" && ((e == 1 && off != 5) || (e >= 4 && off != 0)) {
				t.Errorf("%s ε %g: network left out in %d of 5 runs, want %d", name, e, off, map[bool]int{true: 5, false: 0}[e == 1])
			}
			if k > 0 && m < prevM-max(sd, prevSD) {
				t.Errorf("%s: mean ARI falls from %.3f ± %.3f to %.3f ± %.3f as ε grows to %g", name, prevM, prevSD, m, sd, e)
			}
			prevM, prevSD = m, sd
		}
	}
}
