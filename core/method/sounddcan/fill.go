package sounddcan

import (
	"math"
	"math/rand/v2"
)

// Option fill's values: off keeps the merged start as it is; split
// re-seeds every component the head's round left without released
// weight (fillSplit).
const (
	FillOff   = "off"
	FillSplit = "split"
	// DefaultFill is option fill's default.
	DefaultFill = FillOff
)

// Option hold's values (Options.Hold).
const (
	HoldOff = "off"
	HoldOn  = "on"
	// HoldSeen holds only a centre whose released count reached the bar
	// in an earlier round (dppca.ReleaseHeldSeen).
	HoldSeen = "seen"
	// HoldFirst holds only in the start's first round
	// (dppca.ReleaseHeldFirst).
	HoldFirst = "first"
	// DefaultHold is option hold's default.
	DefaultHold = HoldFirst
)

// fillScale is the half-distance of a split pair as a fraction of the
// codes' rms norm √(Σλ/ñ) (released eigenvalues and count), fixed in
// advance: far enough apart that each half of the heavy component's cells
// is nearer one of them, near enough that both stay inside its cells.
const fillScale = 0.25

// fillSplit re-seeds, in place, every component of the K centres c (K × p,
// code units) whose released weight w is zero — the head's round released
// a count below its bar, so the component holds no cells worth a mean and
// the mixture would keep it empty — by splitting the heaviest component:
// its centre c_a moves to c_a − s·u and the empty one takes c_a + s·u, u a
// uniformly random unit direction of the codes, and the two share its
// weight. Every split pair divides the heavy component's cells by a
// hyperplane through c_a, so both halves hold cells, and the mixture's
// steps then carry them towards the two densest parts. Post-processing of
// released centres, weights, eigenvalues (rms) and count only; u is drawn
// from rng. It returns the number of components re-seeded.
func fillSplit(c, w []float64, p int, rms float64, rng *rand.Rand) int {
	k := len(w)
	s := fillScale * rms
	if !(s > 0) || math.IsInf(s, 0) {
		return 0
	}
	u := make([]float64, p)
	filled := 0
	for j := range k {
		if w[j] > 0 {
			continue
		}
		a := -1
		for i := range k {
			if w[i] > 0 && (a < 0 || w[i] > w[a]) {
				a = i
			}
		}
		if a < 0 {
			return filled // no released weight anywhere: nothing to split
		}
		var norm float64
		for norm == 0 {
			for t := range u {
				u[t] = rng.NormFloat64()
			}
			norm = 0
			for _, v := range u {
				norm += v * v
			}
		}
		f := s / math.Sqrt(norm)
		for t := range p {
			d := f * u[t]
			c[j*p+t] = c[a*p+t] + d
			c[a*p+t] -= d
		}
		w[a] /= 2
		w[j] = w[a]
		filled++
	}
	return filled
}

// codesRMS is the codes' rms norm √(Σλ/ñ) from the released eigenvalues
// and cell count (as dppca's centreNoise reads it): +Inf without a count.
func codesRMS(eigen []float64, nt float64) float64 {
	var s float64
	for _, l := range eigen {
		s += max(l, 0)
	}
	if !(nt > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(s / nt)
}
