package dppca

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestFamilyFacts logs the label-free facts a simulation family is
// matched to a shared set by (the twenty-first session, builtin:pollenshape):
// cells, genes, the log library's mean and sd, the zero fraction, and the
// noise-free pipeline's scaled covariance spectrum (top eigenvalues over
// the trace) at h = 50 (the floor ε 1 keeps), 200 and 1,000, with the
// noise-free k-means' largest and smallest shares at K (K the public
// number of types). No label is read. Long:
// DPSCOPE_DPPCA_FAMFACTS=pollen,simpollen,builtin:pollenshape;
// DPSCOPE_DPPCA_SHIFT shifts the simulations' seeds.
func TestFamilyFacts(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_FAMFACTS")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_FAMFACTS=pollen,… to log label-free family facts")
	}
	shift := uint64(fixture.EnvFloats(t, "DPSCOPE_DPPCA_SHIFT", []float64{0})[0])
	for _, name := range strings.Split(env, ",") {
		d := simOrSet(t, name, shift)
		cf := countFactsOf(d)
		lm, ls := logLibMoments(d)
		k := len(d.Classes)
		t.Logf("%-22s cells %d genes %d K %d median %.0f log-lib mean %.2f sd %.2f zero %.3f low %.3f",
			name, cf.Cells, cf.Genes, k, cf.Median, lm, ls, cf.Zero, cf.Low)
		for _, h := range []int{50, 200, 1000} {
			f := shapeFactsOf(t, d, k, h)
			sp := make([]string, len(f.Spec))
			for i, v := range f.Spec {
				sp[i] = fmt.Sprintf("%.3f", v)
			}
			t.Logf("%-22s h %4d spectrum/trace %s | above %d topK %.3f decay %.3f maxK %.3f minK %.3f W2K/WK %.3f bi %.2f libcor %+.2f part %.2f",
				name, f.H, strings.Join(sp, " "), f.Above, f.TopK, f.Decay, f.MaxK, f.MinK, f.W2, f.Bi, f.LibCor, f.Part)
		}
	}
}

// logLibMoments is the mean and sd of the cells' log library sizes.
func logLibMoments(d *datasets.Dataset) (float64, float64) {
	v := make([]float64, d.Cells())
	for i := range v {
		_, c := d.X.Row(i)
		for _, x := range c {
			v[i] += float64(x)
		}
		v[i] = math.Log(v[i] + 1)
	}
	return stat.MeanStdDev(v, nil)
}

// TestFamilyPrivateFacts logs, for the default release (or variants) at
// the given ε on seeds 0–4, label-free facts of what the private pipeline
// sees: h, p, the released eigenvalues over the noise edge, whether the
// offset was removed, and how many clusters hold cells and their sizes.
// No label is read (for a shared set this is allowed reading). Long:
// DPSCOPE_DPPCA_PRIVFACTS=pollen,builtin:pollenshape, DPSCOPE_DPPCA_EPS,
// DPSCOPE_DPPCA_VARIANTS, DPSCOPE_DPPCA_SHIFT.
func TestFamilyPrivateFacts(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_PRIVFACTS")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_PRIVFACTS=pollen,… to log label-free private facts")
	}
	shift := uint64(fixture.EnvFloats(t, "DPSCOPE_DPPCA_SHIFT", []float64{0})[0])
	for _, name := range strings.Split(env, ",") {
		d := simOrSet(t, name, shift)
		for _, v := range splitVariants(os.Getenv("DPSCOPE_DPPCA_VARIANTS")) {
			opts := map[string]string{}
			addOptions(opts, v)
			o, src := optionSource(t, d, opts)
			for _, eps := range fixture.EnvFloats(t, "DPSCOPE_DPPCA_EPS", []float64{1}) {
				filled := 0.0
				for s := uint64(0); s < 5; s++ {
					_, out := releaseARI(t, src, true, eps, o, s)
					edge := out.Plan.Edge()
					ev := make([]string, len(out.Eigen))
					for i, l := range out.Eigen {
						ev[i] = fmt.Sprintf("%.2f", l/edge)
					}
					sizes := make([]int, out.K)
					for _, l := range out.Labels {
						sizes[l]++
					}
					slices.Sort(sizes)
					slices.Reverse(sizes)
					nz := 0
					for _, c := range sizes {
						if c > 0 {
							nz++
						}
					}
					filled += float64(nz) / 5
					t.Logf("%-22s %q ε%g seed %d: h %d p %d off %v λ/edge %s | clusters holding cells %d, sizes %v",
						name, v, eps, s, out.Plan.H, len(out.Eigen), out.Matrix.OffsetRemoved, strings.Join(ev, " "), nz, sizes)
				}
				t.Logf("%-22s %q ε%g: mean clusters holding cells %.1f", name, v, eps, filled)
			}
		}
	}
}
