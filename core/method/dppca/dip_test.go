package dppca

import (
	"fmt"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// dipSets are the simulations of TestDipDiag: sim16, 16 types of
// mouse_bladder's sizes (2,700 cells, shares 1/(g+2)) at the simulator's
// usual depth (median library ≈ 4,500 after dropout); sim16low the same
// on 2,000 genes (mouse_bladder's selected genes) at a shallow depth
// (log-library location −1.5: median ≈ 900); sim14low sim14 at that depth.
func dipSets() map[string]datasets.SimConfig {
	c := datasets.DefaultSimConfig(2700, 4000, 16)
	for g := range c.Groups {
		c.Groups[g].Prob, c.Groups[g].DEProb = 1/float64(g+2), 0.1
	}
	c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
	c.Seed = 15
	low := c
	low.LibLoc -= 1.5
	low.Genes = 2000
	s14 := simSets()["sim14"]
	s14.LibLoc -= 1.5
	return map[string]datasets.SimConfig{"sim16": c, "sim16low": low, "sim14low": s14}
}

// TestDipDiag logs, per ε, dppca's ARI and what genes=auto and p=auto
// chose (h, p), the non-empty clusters and the over-clustering factor,
// with h free and with h fixed at its ε-4 value: the diagnosis of
// mouse_bladder's ε 4 → 8 step (docs/RESULTS.md, "dppca, fifth attempt")
// on simulations, not on that set's labels. Long: DPSCOPE_DPPCA_DIP=1.
// Simulation seeds +400 and noise seeds 20–24, draws no rule has used.
func TestDipDiag(t *testing.T) {
	if os.Getenv("DPSCOPE_DPPCA_DIP") == "" {
		t.Skip("long: set DPSCOPE_DPPCA_DIP=1 to log the per-ε choices on simulations")
	}
	sets := dipSets()
	for _, name := range []string{"sim16", "sim16low", "sim14low"} {
		c := sets[name]
		c.Seed += 400
		d, _, err := datasets.Simulate(c)
		if err != nil {
			t.Fatal(err)
		}
		g4 := 0
		for _, fixed := range []bool{false, true} {
			row := fmt.Sprintf("%-8s median %.0f fixed-h %v:", name, medianTotal(d, 0, nil, 0), fixed)
			for _, eps := range []float64{2, 4, 6, 8, 11, 16, 0} {
				opts := map[string]string{}
				if fixed {
					opts["genes"] = fmt.Sprint(g4)
				}
				o := mustParse(t, opts)
				src, err := NewSourceTarget(d, 0, o.sourceTarget())
				if err != nil {
					t.Fatal(err)
				}
				var aris []float64
				var h, p, ne, ov float64
				for s := uint64(20); s < 25; s++ {
					a, out := releaseARI(t, src, eps > 0, eps, o, s)
					aris = append(aris, a)
					h += float64(out.Plan.H) / 5
					p += float64(len(out.Eigen)) / 5
					ne += float64(out.NonEmpty) / 5
					ov += float64(out.Over) / 5
				}
				if eps == 4 && !fixed {
					g4 = int(h)
				}
				m, sd := sweep.Moments(aris)
				row += fmt.Sprintf(" ε%g %.3f±%.3f(h%.0f p%.0f ne%.1f ov%.1f)", eps, m, sd, h, p, ne, ov)
			}
			t.Log(row)
		}
	}
}
