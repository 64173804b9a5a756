package dppca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestMergeDiag is the twenty-ninth attempt's diagnosis of pbmc_4k's seed
// spread at ε 8 (docs/RESULTS.md): per seed, at the merge, the
// over-clustered pieces' released counts, the weighted inertia (over the
// pieces, weights their released counts) of the default merge (best of
// seedRestarts weighted k-means++ starts) against the best of 1,000
// starts, and at the end the private objective W, the released counts
// and, to name the seeds only, the ARI (reading labels: diagnosis,
// nothing is chosen by it). Long: DPSCOPE_DPPCA_MERGEDIAG=SET,
// DPSCOPE_DPPCA_EPS, DPSCOPE_DPPCA_VARIANTS=opts (one variant).
func TestMergeDiag(t *testing.T) {
	name := os.Getenv("DPSCOPE_DPPCA_MERGEDIAG")
	if name == "" {
		t.Skip("long: set DPSCOPE_DPPCA_MERGEDIAG=SET")
	}
	d := simOrSet(t, name, 700)
	opts := map[string]string{}
	addOptions(opts, os.Getenv("DPSCOPE_DPPCA_VARIANTS"))
	o, src := optionSource(t, d, opts)
	for _, eps := range fixture.EnvFloats(t, "DPSCOPE_DPPCA_EPS", []float64{8}) {
		for s := uint64(0); s < 5; s++ {
			r := releaseAfterPCA(t, src, eps, o, s)
			line := ""
			mergeHook = func(r *release, pc, w []float64) {
				p := len(r.out.Eigen)
				ww := make([]float64, len(w))
				for i, v := range w {
					if v >= 1 {
						ww[i] = v
					}
				}
				cost := func(c []float64) float64 {
					cc := append([]float64(nil), c...)
					return cluster.WeightedLloyd(pc, ww, p, cc, 0)
				}
				_, gw := weightedGroups(pc, ww, p, r.out.Centres)
				sort.Sort(sort.Reverse(sort.Float64Slice(gw)))
				lr := rand.New(rand.NewPCG(s, 31))
				best := 1e300
				var bc []float64
				for range 1000 {
					c := cluster.WeightedPlusPlus(pc, ww, p, len(r.out.Centres)/p, lr)
					v := cluster.WeightedLloyd(pc, ww, p, c, 30)
					if v < best {
						best, bc = v, c
					}
				}
				_, bw := weightedGroups(pc, ww, p, bc)
				sort.Sort(sort.Reverse(sort.Float64Slice(bw)))
				ps := append([]float64(nil), w...)
				sort.Sort(sort.Reverse(sort.Float64Slice(ps)))
				m := r.out.Matrix
				_, w1 := assign(r.out.Proj, m.N, p, r.out.Centres)
				_, w2 := assign(r.out.Proj, m.N, p, bc)
				line = fmt.Sprintf("\n   pieces %.0f\n   merge cost %.0f groups %.0f W %.4f\n   best1000 %.0f groups %.0f W %.4f", ps, cost(r.out.Centres), gw, w1/float64(m.N), best, bw, w2/float64(m.N))
				if os.Getenv("DPSCOPE_DPPCA_FORCEBEST") != "" {
					r.out.Centres = bc
				}
			}
			for i := 0; i < r.rounds(); i++ {
				if err := r.round(background); err != nil {
					t.Fatal(err)
				}
			}
			mergeHook = nil
			m := r.out.Matrix
			a, _ := cluster.ARI(m.Labels, r.out.Labels)
			cs := append([]float64(nil), r.counts...)
			sort.Sort(sort.Reverse(sort.Float64Slice(cs)))
			in := r.out.Inertia
			t.Logf("%s ε%g seed %d: p %d over %d k %d W %.4f nonempty %d counts %.0f (ARI %.3f)%s", name, eps, s, len(r.out.Eigen), r.over, r.k, in[len(in)-1], r.out.NonEmpty, cs, a, line)
			if os.Getenv("DPSCOPE_DPPCA_GROUPDIAG") != "" {
				groupDiag(t, r, r.pl)
			}
		}
	}
}

// groupDiag prints, per final group of a release (label-free): its
// released count, the sd of its released centre's noise per coordinate
// (σ_sum/count) and its norm over p coordinates, the distance to the
// nearest other centre, and the private objective's gain of keeping it
// (N·W with the group's centre removed minus N·W with it), against the
// plan's count noise σ_count, the floor 3·σ_count and R.
func groupDiag(t *testing.T, r *release, pl Plan) {
	m, p := r.out.Matrix, len(r.out.Eigen)
	c := r.out.Centres
	k := len(c) / p
	_, full := assign(r.out.Proj, m.N, p, c)
	t.Logf("   σ_count %.2f floor %.1f σ_sum %.2f R %.3f N %d", pl.Counts, 3*pl.Counts, pl.Sums, pl.R, m.N)
	for j := range k {
		near := 1e300
		for i := range k {
			if i != j {
				near = min(near, cluster.SqDist(c[j*p:(j+1)*p], c[i*p:(i+1)*p]))
			}
		}
		rest := append(append([]float64(nil), c[:j*p]...), c[(j+1)*p:]...)
		_, wr := assign(r.out.Proj, m.N, p, rest)
		n := r.counts[j]
		sd := pl.Sums / max(n, 1)
		t.Logf("   group %d: count %.0f centre noise sd %.4f (norm %.4f) nearest %.4f gain %.2f", j, n, sd, sd*math.Sqrt(float64(p)), math.Sqrt(near), wr-full)
	}
}
