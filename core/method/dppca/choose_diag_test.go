package dppca

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestChooseDiag is the diagnosis for choose=objective (twenty-fourth
// attempt): per seed, the final centres A of the default release and a
// second candidate B built from releases only (splitMerge: the final
// cluster whose over-clustered pieces split best, split into two, the
// Ward-closest pair of final centres merged), the exact objective gap
// D = Σ_i [min_j ‖x_i − a_j‖² − min_j ‖x_i − b_j‖²] (positive: B better),
// the noise σ = 4r²/(μ·√share) of its release at share 0.05, and, to
// name the seeds only, the ARI of A and of B (diagnosis; nothing is
// chosen by it). Long: DPSCOPE_DPPCA_CHOOSEDIAG=SET, DPSCOPE_DPPCA_EPS,
// DPSCOPE_DPPCA_VARIANTS=opts (one variant, e.g. choose=objective).
func TestChooseDiag(t *testing.T) {
	name := os.Getenv("DPSCOPE_DPPCA_CHOOSEDIAG")
	if name == "" {
		t.Skip("long: set DPSCOPE_DPPCA_CHOOSEDIAG=SET")
	}
	d := simOrSet(t, name, 700)
	opts := map[string]string{}
	addOptions(opts, os.Getenv("DPSCOPE_DPPCA_VARIANTS"))
	o, src := optionSource(t, d, opts)
	for _, eps := range fixture.EnvFloats(t, "DPSCOPE_DPPCA_EPS", []float64{8}) {
		for s := uint64(0); s < 5; s++ {
			r := releaseAfterPCA(t, src, eps, o, s)
			var pieces, pw []float64
			force := os.Getenv("DPSCOPE_DPPCA_FORCEB") != ""
			mergeHook = func(r *release, pc, w []float64) {
				pieces, pw = append([]float64(nil), pc...), append([]float64(nil), w...)
				p := len(r.out.Eigen)
				m1 := r.out.Centres
				m2 := splitMerge(m1, pieceWeights(m1, pc, w, p), pc, w, p)
				if m2 == nil {
					t.Logf("   merge: no second candidate")
					return
				}
				m := r.out.Matrix
				l1, w1 := assign(r.out.Proj, m.N, p, m1)
				l2, w2 := assign(r.out.Proj, m.N, p, m2)
				a1, _ := cluster.ARI(m.Labels, l1)
				a2, _ := cluster.ARI(m.Labels, l2)
				line := ""
				for _, f := range []float64{1, 0.25, 0.1} {
					c := f * r.pl.R * r.pl.R
					if f == 1 {
						c = 4 * r.pl.R * r.pl.R
					}
					dc := clippedGap(r.out.Proj, m.N, p, m1, m2, c)
					sc := c / (r.pl.Mu * math.Sqrt(0.05))
					line += fmt.Sprintf(" c=%.0f: D %.0f σ %.0f (%.2f σ);", c, dc, sc, dc/sc)
				}
				_, pairs := splitMergePairs(m1, pieceWeights(m1, pc, w, p), pc, w, p)
				sens := chooseSens(m1, m2, pairs, p, r.pl.R)
				s05 := sens / (r.pl.Mu * math.Sqrt(ShareChoose))
				line += fmt.Sprintf(" chooseSens %.0f: exact D %.0f σ %.0f (%.2f σ);", sens, w1-w2, s05, (w1-w2)/s05)
				t.Logf("   at merge: W1 %.4f W2 %.4f ARI1 %.3f ARI2 %.3f |%s", w1/float64(m.N), w2/float64(m.N), a1, a2, line)
				if force {
					copy(r.out.Centres, m2)
				}
			}
			defer func() { mergeHook = nil }()
			for i := 0; i < r.rounds(); i++ {
				if err := r.round(background); err != nil {
					t.Fatal(err)
				}
			}
			m, p := r.out.Matrix, len(r.out.Eigen)
			if r.over < 2 || pieces == nil {
				t.Logf("%s ε%g seed %d: over %d, no candidate", name, eps, s, r.over)
				continue
			}
			a := r.out.Centres
			b := splitMerge(a, r.counts, pieces, pw, p)
			la, wa := assign(r.out.Proj, m.N, p, a)
			lb, wb := assign(r.out.Proj, m.N, p, b)
			aa, _ := cluster.ARI(m.Labels, la)
			ab, _ := cluster.ARI(m.Labels, lb)
			sig := 4 * r.pl.R * r.pl.R / (r.pl.Mu * math.Sqrt(0.05))
			br := append([]float64(nil), b...)
			cluster.WeightedLloyd(pieces, pw, p, br, 20)
			_, wbr := assign(r.out.Proj, m.N, p, br)
			lbr, _ := assign(r.out.Proj, m.N, p, br)
			abr, _ := cluster.ARI(m.Labels, lbr)
			for _, f := range []float64{0.25, 0.1} {
				c := f * r.pl.R * r.pl.R
				dc, dcr := clippedGap(r.out.Proj, m.N, p, a, b, c), clippedGap(r.out.Proj, m.N, p, a, br, c)
				sc := c / (r.pl.Mu * math.Sqrt(0.05))
				t.Logf("   clip c=%.2f r²: σ %.1f  D_c(B) %.1f (%.2f σ)  D_c(Brefined) %.1f (%.2f σ)", f, sc, dc, dc/sc, dcr, dcr/sc)
			}
			t.Logf("   B refined on pieces: W %.4f D %.1f ARI %.3f", wbr/float64(m.N), wa-wbr, abr)
			t.Logf("   chose %d released gap %.0f", r.out.Chose, r.out.ChooseGap)
			t.Logf("%s ε%g seed %d: n %d p %d r %.2f  W_A %.4f W_B %.4f  D %.1f σ %.1f D/σ %.2f  ARI A %.3f B %.3f",
				name, eps, s, m.N, p, r.pl.R, wa/float64(m.N), wb/float64(m.N), wa-wb, sig, (wa-wb)/sig, aa, ab)
		}
	}
}

// clippedGap is Σ_i clamp(min_j ‖x_i − a_j‖² − min_j ‖x_i − b_j‖², −c, c).
func clippedGap(x []float64, n, p int, a, b []float64, c float64) float64 {
	var s float64
	for i := range n {
		row := x[i*p : (i+1)*p]
		da := cluster.SqDist(row, a[nearestRow(row, a, p)*p:])
		db := cluster.SqDist(row, b[nearestRow(row, b, p)*p:])
		s += max(-c, min(c, da-db))
	}
	return s
}
