package dppca

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
)

// simSets are the fresh simulations dppca's design choices are compared on
// (never the shared sets' labels): the Splatter-style simulator behind
// builtin:default with other seeds and shapes — a large set with 8 types
// of unequal size and few marker genes among many (a whole transcriptome),
// a large set with 14 types, a small one of 300 cells, and (on demand) a
// whole transcriptome of 20,000 genes.
func simSets() map[string]datasets.SimConfig {
	mk := func(cells, genes int, probs []float64, de float64, seed uint64) datasets.SimConfig {
		c := datasets.DefaultSimConfig(cells, genes, len(probs))
		for g, p := range probs {
			c.Groups[g].Prob, c.Groups[g].DEProb = p, de
		}
		c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
		c.Seed = seed
		return c
	}
	k14 := make([]float64, 14)
	for g := range k14 {
		k14[g] = 1 / float64(g+2)
	}
	return map[string]datasets.SimConfig{
		"sim8":     mk(3000, 4000, []float64{0.25, 0.18, 0.15, 0.12, 0.1, 0.08, 0.07, 0.05}, 0.1, 11),
		"sim14":    mk(2500, 4000, k14, 0.1, 12),
		"simsmall": mk(300, 2000, []float64{1, 1, 1, 1, 1, 1, 1, 1}, 0.1, 13),
		// a whole transcriptome: 20,000 genes, as mouse_bladder_2100 or
		// pollen (only with DPSCOPE_DPPCA_SIM=simwide).
		"simwide": mk(2000, 20000, k14, 0.1, 14),
	}
}

// TestSimDesign compares option sets on simSets (mean ARI of seeds 0–4
// against the simulation's truth). Long: DPSCOPE_DPPCA_SIM=1 (or a comma
// list of sims); DPSCOPE_DPPCA_VARIANTS=opts;opts with opts k=v,k=v (empty:
// the defaults).
func TestSimDesign(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_SIM")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_SIM=1 to compare designs on fresh simulations")
	}
	sets := simSets()
	names := []string{"sim8", "sim14", "simsmall"}
	if env != "1" {
		names = strings.Split(env, ",")
	}
	variants := strings.Split(os.Getenv("DPSCOPE_DPPCA_VARIANTS"), ";")
	for _, name := range names {
		d, _, err := datasets.Simulate(sets[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			opts := map[string]string{}
			for _, kv := range strings.Split(v, ",") {
				if k, val, ok := strings.Cut(kv, "="); ok {
					opts[k] = val
				}
			}
			o, err := Parse(opts)
			if err != nil {
				t.Fatal(err)
			}
			src, err := NewSource(d, 0)
			if err != nil {
				t.Fatal(err)
			}
			row := fmt.Sprintf("%-8s %-40s", name, v)
			epsList := append(append([]float64(nil), goalEps...), 0)
			if e := os.Getenv("DPSCOPE_DPPCA_EPS"); e != "" {
				epsList = nil
				for _, f := range strings.Split(e, ",") {
					v, err := strconv.ParseFloat(f, 64)
					if err != nil {
						t.Fatal(err)
					}
					epsList = append(epsList, v)
				}
			}
			for _, eps := range epsList {
				var aris []float64
				ps := 0
				rho := 0.0
				for s := range uint64(5) {
					a, out := releaseARI(t, src, eps > 0, eps, o, s)
					aris = append(aris, a)
					ps += len(out.Eigen)
					rho += centreNoise(out.Plan, out.Matrix.NoisyN, 2*src.K, out.Eigen) / 5
				}
				m, sd := meanSD(aris)
				row += fmt.Sprintf(" %.3f±%.3f(p%.0f,ρ%.2g)", m, sd, float64(ps)/5, rho)
			}
			t.Log(row)
		}
	}
}
