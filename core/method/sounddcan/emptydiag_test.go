package sounddcan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dpscope/dpscope/core/cluster"
	"math"
	"os"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestEmptyDiag is the label-free diagnosis of why the DP-SGD steps empty
// components (sdcan20): on the draws of DPSCOPE_SOUNDDCAN_EMPTYDIAG (the
// design tests' shapes), at each ε of DPSCOPE_SOUNDDCAN_EPS (default 4),
// run seeds 0–2, it logs for every component its released weight π over
// the steps, the steps its mean was gated, its cells at the start and at
// the end under the π-weighted labels and under labels by the means alone,
// and, for a component that ends empty, where its start cells went and
// how far that component's mean is from its own (in units of the
// mixture's √(h·v)). Long and for reading only; it asserts that the runs
// succeed.
func TestEmptyDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_EMPTYDIAG")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_EMPTYDIAG=330 to diagnose")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{4})
	o := envOptions(t, "DPSCOPE_SOUNDDCAN_DIAGOPTS") // DIAGOPTS (key=value;…) changes the options
	_, srcs := drawSources(t, env)
	defer func() { stepProbe, headProbe = nil, nil }()
	for di, src := range srcs {
		for _, eps := range epss {
			for s := range uint64(3) {
				var pis [][]float64
				var gated []int
				var last *mixture
				stepProbe = func(step int, m *mixture) {
					lp := make([]float64, m.k)
					m.logWeights(lp)
					row := make([]float64, m.k)
					for j, v := range lp {
						row[j] = math.Exp(v)
					}
					pis = append(pis, row)
					if gated == nil {
						gated = make([]int, m.k)
					}
					for j, f := range m.frozen {
						if f {
							gated[j]++
						}
					}
					last = m
				}
				headProbe = func(c []float64, sg float64) {
					sc := slices.Sorted(slices.Values(c))
					slices.Reverse(sc)
					t.Logf("draw %d ε=%g s=%d: head counts (σ %.1f, bar %.1f) %.0f", di, eps, s, sg, 3*sg, sc)
				}
				out := fitOnce(t, src, true, eps, o, s)
				stepProbe, headProbe = nil, nil
				k := src.K
				if last == nil {
					t.Logf("draw %d ε=%g s=%d: network off (ρ %.3f)", di, eps, s, out.Plan.Rho)
					continue
				}
				x, n, h := out.Start.Matrix.Z, out.Start.Matrix.N, last.h
				plain := last.plainLabels(x, n)
				c0, c1, c2 := make([]int, k), make([]int, k), make([]int, k)
				for i := range n {
					c0[out.StartLabels[i]]++
					c1[out.Labels[i]]++
					c2[plain[i]]++
				}
				v := math.Exp(-2 * last.b)
				scale := math.Sqrt(float64(h) * v)
				// the same start with noise-free steps (the plan's z set to 0,
				// the same noise stream before it), and the null (steps=0)
				rng := rand.New(rand.NewPCG(s, 0))
				pl0, _ := NewPlan(src, true, eps, 1e-5, o, rng)
				pl0.Z = 0
				out0, err := Fit(context.Background(), src, pl0, o, rng, Hooks{})
				if err != nil {
					t.Fatal(err)
				}
				on := o
				on.NoTrain = true
				null := fitOnce(t, src, true, eps, on, s)
				lab := out.Start.Matrix.Labels
				a, _ := cluster.ARI(lab, out.Labels)
				ap, _ := cluster.ARI(lab, plain)
				as, _ := cluster.ARI(lab, out.StartLabels)
				a0, _ := cluster.ARI(lab, out0.Labels)
				an, _ := cluster.ARI(lab, null.Labels)
				t.Logf("draw %d ε=%g s=%d: ρ %.3f ñ %.0f non-empty start %d end %d plain %d noisefree %d null %d (null start weights>0: %d); √(hv) %.3g; ARI end %.3f plain %.3f start %.3f noisefree %.3f null %.3f", di, eps, s, out.Plan.Rho, out.Start.Matrix.NoisyN, nonEmpty(c0), nonEmpty(c1), nonEmpty(c2), out0.NonEmpty, null.NonEmpty, positive(null.StartWeights), scale, a, ap, as, a0, an)
				c3 := make([]int, k)
				for _, l := range out0.Labels {
					c3[l]++
				}
				t.Logf("  noise-free steps' cells %v, weights %.3f", c3, out0.Weights)
				for j := range k {
					line := fmt.Sprintf("  comp %d: π start %.3f s10 %.3f s25 %.3f end %.3f gated %2d cells start %4d end %4d plain %4d", j, out.StartWeights[j]/sum(out.StartWeights), pis[9][j], pis[24][j], pis[len(pis)-1][j], gated[j], c0[j], c1[j], c2[j])
					// the nearest other mean and where the start cells went
					dmin, jmin := math.Inf(1), -1
					for l := range k {
						if l == j {
							continue
						}
						var d float64
						for g := range h {
							e := last.mu[j*h+g] - last.mu[l*h+g]
							d += e * e
						}
						if d < dmin {
							dmin, jmin = d, l
						}
					}
					line += fmt.Sprintf(" nearest %d at %.2f", jmin, math.Sqrt(dmin)/scale)
					if c1[j] == 0 {
						to := make([]int, k)
						for i := range n {
							if out.StartLabels[i] == j {
								to[out.Labels[i]]++
							}
						}
						line += fmt.Sprintf(" EMPTY; start cells went to %v", to)
					}
					t.Log(line)
				}
			}
		}
	}
}

func nonEmpty(c []int) int {
	ne := 0
	for _, v := range c {
		if v > 0 {
			ne++
		}
	}
	return ne
}

func positive(w []float64) int {
	c := 0
	for _, v := range w {
		if v > 0 {
			c++
		}
	}
	return c
}

func sum(w []float64) float64 {
	var s float64
	for _, v := range w {
		s += v
	}
	return s
}
