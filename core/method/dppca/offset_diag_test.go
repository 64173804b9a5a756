package dppca

import (
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestOffsetDiag prints label-free facts of a release's scaled rows
// (twenty-second attempt): offset=dir's released length, whether it
// removed the direction and its predicted offset over R; the norm of
// the mean clipped row against the rms distance of the rows to it (an
// offset every row shares), the released eigenvalues over the noise
// edge, and the projected rows' mean norm and rms spread. Long: DPSCOPE_DPPCA_OFFSETDIAG=SET (as
// TestSpreadDiag, simulations seeds +700), DPSCOPE_DPPCA_EPS,
// DPSCOPE_DPPCA_VARIANTS.
func TestOffsetDiag(t *testing.T) {
	name := os.Getenv("DPSCOPE_DPPCA_OFFSETDIAG")
	if name == "" {
		t.Skip("long: set DPSCOPE_DPPCA_OFFSETDIAG=SET")
	}
	d := simOrSet(t, name, 700)
	for _, v := range splitVariants(os.Getenv("DPSCOPE_DPPCA_VARIANTS")) {
		opts := map[string]string{}
		addOptions(opts, v)
		o, src := optionSource(t, d, opts)
		for _, eps := range fixture.EnvFloats(t, "DPSCOPE_DPPCA_EPS", []float64{1}) {
			for s := uint64(0); s < 5; s++ {
				_, out := releaseARI(t, src, true, eps, o, s)
				m := out.Matrix
				mo, dev := rowOffset(m.Z, m.N, m.H)
				p := len(out.Eigen)
				po, pdev := rowOffset(out.Proj, m.N, p)
				edge := out.Plan.Edge()
				ev := ""
				for _, l := range out.Eigen {
					ev += " " + strconv.FormatFloat(l/edge, 'f', 2, 64)
				}
				t.Logf("%s %q ε%g seed %d: h %d R %.2f clipped %d off %.2f %v pred %.2f | mean row %.3f, rms to it %.3f | λ/edge%s | proj mean %.3f rms to it %.3f",
					name, v, eps, s, m.H, out.Plan.R, m.Clipped, m.OffsetLen, m.OffsetRemoved, m.OffsetPred, mo, dev, ev, po, pdev)
			}
		}
	}
}

// rowOffset is the norm of the mean of the n×d rows and the rms distance
// of the rows to that mean.
func rowOffset(z []float64, n, d int) (float64, float64) {
	mean := make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += z[i*d+j] / float64(n)
		}
	}
	ss, dv := 0.0, 0.0
	for j := range d {
		ss += mean[j] * mean[j]
	}
	for i := range n {
		for j := range d {
			e := z[i*d+j] - mean[j]
			dv += e * e
		}
	}
	return math.Sqrt(ss), math.Sqrt(dv / float64(n))
}
