package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// randMatrix returns an r×c matrix with entries uniform in [lo, hi).
func randMatrix(rng *rand.Rand, r, c int, lo, hi float64) compute.Matrix {
	m := compute.NewMatrix(r, c, nil)
	for i := range m.Data {
		m.Data[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return m
}

// fdGrad returns the central finite difference (f(p+h) − f(p−h)) / (p₊ − p₋)
// of loss with respect to *p, where p₊ and p₋ are the float32 values
// actually stored, so the rounding of p ± h does not bias the estimate.
func fdGrad(p *float32, h float32, loss func() float64) float64 {
	old := *p
	step := max(h, h*abs32(old))
	*p = old + step
	up, fUp := *p, loss()
	*p = old - step
	dn, fDn := *p, loss()
	*p = old
	return (fUp - fDn) / (float64(up) - float64(dn))
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// checkClose reports an error when got and want differ by more than
// atol + rtol·|want|.
func checkClose(t *testing.T, what string, got, want, atol, rtol float64) bool {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > atol+rtol*math.Abs(want) {
		t.Errorf("%s = %.8g, want %.8g (atol %g, rtol %g)", what, got, want, atol, rtol)
		return false
	}
	return true
}

// checkGradVector compares an analytic gradient with finite differences over
// every element of params: elementwise within atol + rtol·|want| for all but
// at most maxBad elements (kinks of ReLU), and within relErr in the norm of
// the difference relative to the norm of the finite differences.
func checkGradVector(t *testing.T, what string, params, analytic []float32, h float32, loss func() float64, atol, rtol, relErr float64, maxBad int) {
	t.Helper()
	var diff2, ref2 float64
	bad := 0
	for i := range params {
		want := fdGrad(&params[i], h, loss)
		got := float64(analytic[i])
		d := got - want
		diff2 += d * d
		ref2 += want * want
		if math.IsNaN(got) || math.Abs(d) > atol+rtol*math.Abs(want) {
			bad++
			if bad <= 3 && bad > maxBad {
				t.Errorf("%s[%d] = %.8g, want %.8g (finite differences)", what, i, got, want)
			}
		}
	}
	if bad > maxBad {
		t.Errorf("%s: %d of %d elements off, want at most %d", what, bad, len(params), maxBad)
	}
	if r := math.Sqrt(diff2 / ref2); !(r <= relErr) {
		t.Errorf("%s: ‖analytic − fd‖/‖fd‖ = %.3g, want <= %g", what, r, relErr)
	}
}
