package dppca

import (
	"math"
)

// Centre names the option centre (twenty-eighth attempt, dppca30): whether
// the private projection is recentred and clipped again before the
// k-means at small n·ε.
type Centre string

const (
	// CentreOff runs the k-means on the projected rows as they are, with
	// the rows' radius R as the sums' sensitivity: the rule before G21,
	// prep=public's and library callers' ("").
	CentreOff Centre = "off"
	// CentreAuto, when projAutoRule fires (the covariance's noise edge is
	// at least ñ·R²/K, read from the plan and the released count before
	// the covariance), releases the sum of the projected rows (Δ = R, a
	// row's norm; ShareCentre of μ² taken from the Lloyd rounds),
	// subtracts the released mean (the sum over ñ) from every projected
	// row and clips the rows again to Rc = projClip·R·√(p/h), the radius
	// proj=random uses; the k-means sums' sensitivity falls from R to Rc.
	//
	// Why: at pollen ε 1 the gene means' noise adds one vector to every
	// scaled row, offset=dir removes most of it but not all (its released
	// direction is itself noisy), and the rows, clipped to R, then
	// project to a clump at about 0.9·R from the origin with an rms
	// spread of 0.13–0.6 (TestOffsetDiag, seeds 0–4): the k-means pays
	// noise for sums of norm R to find a spread a quarter of that. The
	// k-means is translation-invariant, so the centre costs nothing but
	// its own release; the clip then matches the spread.
	//
	// Adopted by rule G21 (docs/RESULTS.md, dppca twenty-eighth attempt)
	// on FRESH=21: G19's 15 families and builtin:pollenshape, ε 1–16, D
	// +0.0019 ± 0.0006 per cell; it fired only on the three 300-cell
	// families at ε 1–2 (pollenshape ε 2 0.112 → 0.166, simsmall ε 1 0.001
	// → 0.024) and left every other cell bit for bit.
	CentreAuto Centre = "auto"
)

// DefaultCentre is the option centre's default under prep=private:
// centre=auto, adopted by rule G21.
const DefaultCentre = CentreAuto

// ShareCentre is centre=auto's share of μ² when it fires, taken from the
// Lloyd rounds (as offset=dir's ShareOffset and the seeding histogram's
// ShareSeed: 0.05, the house value, not tuned).
const ShareCentre = 0.05

// MechCentre is centre=auto's release: the sum of the projected rows.
const MechCentre = "projected rows' sum (centre)"

// recentre is centre=auto's step after the projection (pca): when
// projAutoRule fires it moves ShareCentre of μ² from the rounds to one
// Gaussian on Σ_i proj_i (Δ = R), subtracts the released mean from the
// rows, clips them to Rc and plans the rounds at radius Rc. The
// covariance's radius is kept in PCAR for the ledger. Otherwise nothing
// is released and the plan is unchanged.
func (r *release) recentre() {
	m := r.out.Matrix
	p := len(r.out.Eigen)
	if r.o.Centre != CentreAuto || p == 0 || !projAutoRule(r.pl, m.NoisyN, r.src.K) {
		return
	}
	R := r.pl.R
	per := ShareCentre / float64(r.o.T)
	r.pl.km -= per
	r.pl.kmNoOffset -= per
	r.pl.Centre = R / (r.pl.Mu * math.Sqrt(ShareCentre))
	sum := make([]float64, p)
	for i := range m.N {
		for j, v := range r.out.Proj[i*p : (i+1)*p] {
			sum[j] += v
		}
	}
	nt := max(m.NoisyN, 1)
	for j := range sum {
		sum[j] = (sum[j] + r.pl.Centre*r.rng.NormFloat64()) / nt
	}
	rc := min(R, projClip*R*math.Sqrt(float64(p)/float64(m.H)))
	for i := range m.N {
		row := r.out.Proj[i*p : (i+1)*p]
		for j := range row {
			row[j] -= sum[j]
		}
		ClipTo(row, rc)
	}
	r.pl.PCAR = R
	r.pl.R = rc
	r.pl = r.pl.WithP(p)
	r.out.Plan = r.pl
	r.out.CentreFired = true
}

// pcaR is the radius the covariance was released at: PCAR once
// centre=auto has clipped the projection to a smaller R, else R.
func (pl Plan) pcaR() float64 {
	if pl.PCAR > 0 {
		return pl.PCAR
	}
	return pl.R
}
