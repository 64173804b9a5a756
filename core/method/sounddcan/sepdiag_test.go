package sounddcan

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestSepDiag (DPSCOPE_SOUNDDCAN_SEPDIAG: development draws or data:PATH;
// DPSCOPE_SOUNDDCAN_EPS, run seeds 0–2) is a label-free look at the
// trained mixture of the default's runs: the separation of every pair of
// non-empty components, s = ‖μ_j − μ_k‖/(2√v) (v the released shared
// variance; below 1 the two overlap by more than Φ(−1) ≈ 0.16 along the
// line between them), and the groups single-linkage at s < 1 and s < 1.5
// would leave, and s with the squared noise the steps leave on two means
// (2·MeanNoise², from the plan) taken off the squared distance, since
// that noise alone keeps two means apart in h genes. No label is read.
func TestSepDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_SEPDIAG")
	if env == "" {
		t.Skip("set DPSCOPE_SOUNDDCAN_SEPDIAG")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{8})
	ds := diagDatasets(t, env)
	for _, d := range ds {
		for _, eps := range epss {
			for s := range uint64(3) {
				e, _ := runTest(t, d, fixture.SoundConfig(eps, s, nil))
				out := e.Outcome()
				k := len(out.Weights)
				h := len(out.Centres) / k
				size := make([]int, k)
				for _, l := range out.Labels {
					size[l]++
				}
				var live []int
				for j := range k {
					if size[j] > 0 {
						live = append(live, j)
					}
				}
				sd := 2 * math.Sqrt(out.Variance)
				// the noise the steps leave on an average component's mean
				// (MeanNoise, as the run's noise message states it), whose
				// square, twice, inflates a squared distance between two means
				o := mustParse(t, nil)
				noise := MeanNoise(out.Plan.Z, o.GradClip, k, out.Plan.NoisyN, o.LR, out.Start.Matrix.H) * out.Plan.R
				var seps, net []float64
				parent := map[float64][]int{1: nil, 1.5: nil}
				for c := range parent {
					p := make([]int, k)
					for j := range p {
						p[j] = j
					}
					parent[c] = p
				}
				find := func(p []int, j int) int {
					for p[j] != j {
						j = p[j]
					}
					return j
				}
				for a, j := range live {
					for _, l := range live[a+1:] {
						var q float64
						for g := range h {
							x := float64(out.Centres[j*h+g] - out.Centres[l*h+g])
							q += x * x
						}
						sp := math.Sqrt(q) / sd
						seps = append(seps, sp)
						net = append(net, math.Sqrt(max(q-2*noise*noise, 0))/sd)
						for c, p := range parent {
							if sp < c {
								p[find(p, j)] = find(p, l)
							}
						}
					}
				}
				sort.Float64s(seps)
				sort.Float64s(net)
				groups := func(c float64) int {
					seen := map[int]bool{}
					for _, j := range live {
						seen[find(parent[c], j)] = true
					}
					return len(seen)
				}
				low := seps
				if len(low) > 5 {
					low = low[:5]
				}
				lows := make([]string, len(low))
				for i, v := range low {
					lows[i] = fmt.Sprintf("%.2f", v)
				}
				lown := make([]string, len(low))
				for i := range low {
					lown[i] = fmt.Sprintf("%.2f", net[i])
				}
				t.Logf("%s ε=%g s=%d: K %d, non-empty %d, h %d, v %.4g, steps %d, noise on a mean %.3g; smallest s %s; less the noise %s; groups at s<1 %d, s<1.5 %d", d.Name, eps, s, k, len(live), h, out.Variance, out.Plan.Steps, noise, strings.Join(lows, " "), strings.Join(lown, " "), groups(1), groups(1.5))
			}
		}
	}
}
