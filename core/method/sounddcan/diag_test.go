package sounddcan

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestDiag is the diagnosis behind the staged split and the gate (issue
// 16.5): for each set of DIAG (comma list) and ε of DIAG_EPS, run seeds
// 0–2 with the defaults, it logs the ARI of the dppca stage's 3K centres,
// of the merged start, of the trained mixture and of noise-free steps from
// the same start (the plan's z set to 0, the same noise stream before it),
// the start's and the end's non-empty clusters, the variance, the loss and
// the released count. DIAG_OPTS (key=value;…) changes the options (e.g.
// gate=off). Long and for reading only: it asserts that the runs succeed.
func TestDiag(t *testing.T) {
	env := os.Getenv("DIAG")
	if env == "" {
		t.Skip("long: set DIAG=pbmc_4k,mouse_bladder DIAG_EPS=4,8,16 to diagnose")
	}
	epss := fixture.EnvFloats(t, "DIAG_EPS", []float64{4, 8, 16})
	o := envOptions(t, "DIAG_OPTS")
	for _, name := range strings.Split(env, ",") {
		d := openData(t, name)
		src, err := dppca.NewSource(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range epss {
			for s := range uint64(3) {
				t0 := time.Now()
				rng := rand.New(rand.NewPCG(s, 0))
				pl, _ := NewPlan(src, true, eps, 1e-5, o, rng)
				out, err := Fit(context.Background(), src, pl, o, rng, Hooks{})
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Losses) == 0 {
					out.Losses = []float64{0}
				}
				rng = rand.New(rand.NewPCG(s, 0))
				pl0, _ := NewPlan(src, true, eps, 1e-5, o, rng)
				pl0.Z = 0
				out0, _ := Fit(context.Background(), src, pl0, o, rng, Hooks{})
				if len(out0.Losses) == 0 {
					out0.Losses = []float64{0}
				}
				lab := out.Start.Matrix.Labels
				a, _ := cluster.ARI(lab, out.Labels)
				as, _ := cluster.ARI(lab, out.StartLabels)
				a0, _ := cluster.ARI(lab, out0.Labels)
				ad, _ := cluster.ARI(lab, out.Start.Labels)
				startNE := map[int]bool{}
				for _, l := range out.StartLabels {
					startNE[l] = true
				}
				dpNE := map[int]bool{}
				for _, l := range out.Start.Labels {
					dpNE[l] = true
				}
				edge := 0.0
				if pl.Private() {
					edge = out.Start.Plan.Edge()
				}
				t.Logf("%s ε=%g s=%d: released eigenvalues %.3g, noise edge %.3g", name, eps, s, out.Start.Eigen, edge)
				t.Logf("%s ε=%g s=%d: dppca over %d, labels non-empty %d, head weights %.0f", name, eps, s, out.Start.Over, len(dpNE), out.StartWeights)
				t.Logf("%s ε=%g s=%d: dppca-stage(3K) %.3f start %.3f trained %.3f noisefree-steps %.3f nonempty start %d end %d/%d var %.4g (cV %.4g) loss %.4f→%.4f noisefree %.4f ñ=%.0f z=%.3g h=%d %.1fs",
					name, eps, s, ad, as, a, a0, len(startNE), out.NonEmpty, src.K, out.Variance, pl.CV, out.Losses[0], out.Losses[len(out.Losses)-1], out0.Losses[len(out0.Losses)-1], out.Start.Matrix.NoisyN, pl.Z, out.Start.Matrix.H, time.Since(t0).Seconds())
			}
		}
	}
}
