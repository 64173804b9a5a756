package dppca

import (
	"math"
	"math/rand/v2"
)

// ClipAuto is Options.Clip's "auto" (clip=auto): the row clip radius R is
// chosen per release from a private histogram of the scaled rows' norms
// (chooseClip), not fixed as c·√h.
const ClipAuto = -1

// ClipSub is Options.Clip's "subspace" (clip=subspace): clip=auto's
// histogram and proxy with the clip's distortion spread over the genes
// genes=auto keeps at ε = SubRefEpsilon instead of the h genes
// (chooseClip), so the radius can grow with ε under genes=auto. With a
// fixed gene count (h does not grow with ε, so clip=auto's c already
// can) and without noise it is clip=auto.
const ClipSub = -2

// SubRefEpsilon is clip=subspace's reference budget: the distortion is
// spread over genes=auto's h at this ε (for the same released count and
// δ), so clip=subspace is clip=auto at ε ≤ 4, where clip=auto's radius
// was level with the default's (dppca13's design draws).
const SubRefEpsilon = 4

// clipAuto reports whether the radius is read from the norm histogram
// (clip=auto or clip=subspace).
func (o Options) clipAuto() bool { return o.Clip == ClipAuto || o.Clip == ClipSub }

// ShareClip is the share of μ² of clip=auto's norm histogram, taken from
// the k-means share (as ShareMedian), fixed in advance: the rows fill a
// handful of bins with hundreds of cells each, far above the noise (σ =
// 10/μ per bin), and the empty bins are cut (normCut).
const ShareClip = 0.01

// Norm histogram of clip=auto: each row's norm in units of √h, c = ‖z‖/√h,
// falls into one of normBins bins of normBinsPerOctave per factor 2 from
// normLo to 4 (rows below into the first bin, rows above into the last).
// Public constants: z-scored rows have c about 1 (0.7 to 1.8 on every
// simulation looked at); the top is kept low because the proxy weighs a
// bin by c², so noise in empty high bins would weigh most.
const (
	normBinsPerOctave = 8
	normBins          = 48
	normLo            = 1.0 / 16
	// clipEdge0 is the bin whose lower edge is DefaultClip (1/16·2³ = 0.5):
	// the lowest radius clip=auto takes.
	clipEdge0 = 3 * normBinsPerOctave
	// normCut: released counts below normCut noise sds are read as 0
	// (post-processing), so empty bins add no mass.
	normCut = 2
)

// clipTooNoisy is the fallback's threshold: when the noise of the whole
// histogram (σ·√normBins) exceeds this fraction of the released cell
// count, or the bins above the cut hold less than half the cells, the
// radius stays DefaultClip·√h.
const clipTooNoisy = 0.1

// clipShare is the norm histogram's share of μ²: ShareClip under
// clip=auto, else 0.
func (o Options) clipShare() float64 {
	if o.clipAuto() {
		return ShareClip
	}
	return 0
}

// normEdge returns the lower edge of norm bin b in units of √h.
func normEdge(b int) float64 {
	return normLo * math.Exp2(float64(b)/normBinsPerOctave)
}

// normHistogram returns the histogram of the norms of the n rows of the
// n × h matrix z in units of √h over the public bins, each bin plus
// N(0, sigma²) (sigma 0: exact). Adding or removing a cell adds or removes
// one row, which moves one count by 1 (each scaled row depends on its own
// cell and on released statistics only): the Gaussian mechanism with
// Δ₂ = 1.
func normHistogram(z []float64, n, h int, sigma float64, rng *rand.Rand) []float64 {
	counts := make([]float64, normBins)
	sh := math.Sqrt(float64(h))
	for i := range n {
		var s float64
		for _, v := range z[i*h : (i+1)*h] {
			s += v * v
		}
		c := math.Sqrt(s) / sh
		b := 0
		if c > normLo {
			b = min(int(math.Floor(math.Log2(c/normLo)*normBinsPerOctave)), normBins-1)
		}
		counts[b]++
	}
	addNoise(counts, sigma, rng)
	return counts
}

// chooseClip returns the clip factor c (R = c·√h) that clip=auto takes
// from the released norm histogram counts of ñ = nt cells (noise sigma per
// bin), for the covariance noise σ_PCA = a·R² (a: the plan's σ over R², 0
// without noise), and whether it fell back to DefaultClip. dim is the
// number of directions the clip's distortion is taken as spread over: h
// under clip=auto, min(h, h_ref) under clip=subspace (below).
//
// The rule, stated before it was measured (eleventh session, dppca13,
// issue 16 points 2 and 5). The PCA reads the top eigenvectors of the
// released M_R + E, M_R = Σ_i s_i² z_i z_iᵀ the clipped rows' second
// moment (s_i = min(1, R/‖z_i‖)) and E the Analyze-Gauss noise. A shrink
// common to every row does not move the eigenvectors: with s̄² = Σ_i
// s_i²‖z_i‖² / Σ_i ‖z_i‖² (the mean shrink, energy-weighted), M_R/s̄² =
// M + B + E/s̄², M the unclipped moment and B = Σ_i (s_i²/s̄² − 1) z_i z_iᵀ
// the clip's distortion. R minimises the error proxy
//
//	L(R) = ‖B‖ + ‖E‖/s̄²,  ‖B‖ ≈ Σ_i |s_i²/s̄² − 1|·‖z_i‖²/h,  ‖E‖ ≈ σ_PCA(R)·√(2h),
//
// both in operator norm, the scale eigenvectors are read at (Davis–Kahan:
// a perturbation moves them by its operator norm over the eigengap).
// ‖B‖ takes the rank-one terms as spread evenly over the h z-scored genes
// (unit variance each), their operator norm the trace over h; ‖E‖ is the
// noise's spectral edge (Plan.Edge without its Tracy–Widom margin), σ =
// R²/(μ·√share) by the plan's own calibration. In c = R/√h units, with
// c_i = ‖z_i‖/√h: L = Σ_i |s_i²/s̄² − 1|·c_i² + a·c²·h·√(2h)/s̄². Read
// from the released counts (bins below normCut noise sds as 0, each bin at
// its geometric centre) at the public bin edges from DefaultClip up to the
// top edge. Below the shortest row every radius gives the same release
// (all rows on the sphere: L does not depend on R there), so DefaultClip
// stands for them all; without noise (a = 0) L is 0 from the top occupied
// bin's edge up: no row clipped. Ties keep the smaller radius. For a fixed
// histogram only the second term depends on μ, falling as 1/μ, and it
// grows with R: the chosen R never falls as ε grows. The k-means sums'
// noise (Δ = R) is left out: zeroing it changed little on the design draws
// (FRESH=7, exact=kmeans), zeroing the covariance's more.
//
// Fallback: when the histogram's noise is too large to read (σ·√normBins >
// clipTooNoisy·ñ) or the bins above the cut hold less than ñ/2 rows,
// c = DefaultClip exactly.
//
// clip=subspace (stated before it was measured, eleventh session, dppca14,
// issue 16 points 2 and 5). Under genes=auto h grows as ñ·μ, so the noise
// term above (a·c²·h·√(2h), a ∝ 1/μ) grows as √μ against a distortion
// term that does not move with h, and the extra budget never reaches the
// radius (dppca13). That term's "spread evenly over the h genes" is the
// assumption changed: B = Σ_i (s_i²/s̄² − 1) z_i z_iᵀ has no part along
// the identity (Σ_i (s_i²/s̄² − 1)‖z_i‖² = 0 by the choice of s̄²), so what
// is left of it lies where the rows differ in a structured way, the cell
// types' span, whose dimension does not grow with the genes kept. That
// span is taken as at most h_ref directions, h_ref = genes=auto's h at
// ε = SubRefEpsilon for the same released count ñ and δ (post-processing
// of ñ and public constants; a design look at FRESH=7 with a fixed 50
// directions chose c ≈ 1.1 at every ε and lost up to −0.16, so the anchor
// keeps clip=auto's radius where it was measured level with 0.5): ‖B‖ ≈
// Σ_i |s_i²/s̄² − 1|·‖z_i‖²/dim, dim = min(h, h_ref), and in c units
//
//	L(c) = (h/dim)·Σ_i |s_i²/s̄² − 1|·c_i² + a·c²·h·√(2h)/s̄²,
//
// i.e. over h, the distortion over dim against a noise term a·c²·√(2h)
// that falls as 1/√μ under genes=auto above ε 4 (h ∝ ñ·μ): the radius
// grows with ε there, and is clip=auto's at ε ≤ 4. The same
// bins, edges, cut, ties and fallbacks as clip=auto; for a fixed
// histogram and h only the noise term depends on μ, so c never falls as ε
// grows at fixed h. Its bit-identical fallback is read before the
// histogram (Source.PlanFor): under genes=auto, when the released count
// says the histogram would be too noisy, none is released and the plan
// is clip=0.5's.
func chooseClip(counts []float64, nt, sigma, a float64, h, dim int) (float64, bool) {
	if histTooNoisy(nt, sigma) {
		return DefaultClip, true
	}
	kept := make([]float64, normBins)
	var total float64
	for b, c := range counts {
		if c > normCut*sigma && c > 0 {
			kept[b] = c
			total += c
		}
	}
	if !(total >= nt/2) {
		return DefaultClip, true
	}
	mid := make([]float64, normBins) // each bin's geometric centre, squared
	for b := range mid {
		mid[b] = normEdge(b) * normEdge(b+1)
	}
	hf := float64(h)
	// the distortion's weight: 1 when spread over the h genes (clip=auto)
	spread := hf / float64(dim)
	noise := a * hf * math.Sqrt(2*hf)
	best, bestL := DefaultClip, math.Inf(1)
	shrink := make([]float64, normBins)
	for e := clipEdge0; e <= normBins; e++ {
		c := normEdge(e)
		var energy, kept2 float64
		for b, w := range kept {
			shrink[b] = min(1, c*c/mid[b])
			energy += w * mid[b]
			kept2 += w * mid[b] * shrink[b]
		}
		mean := kept2 / energy // s̄²
		var l float64
		for b, w := range kept {
			l += w * mid[b] * math.Abs(shrink[b]/mean-1)
		}
		l *= spread
		l += noise * c * c / mean
		if l < bestL*(1-1e-9) { // a margin: below the shortest row L is the same up to rounding
			best, bestL = c, l
		}
	}
	return best, false
}

// autoRadius is clip=auto's step between the scaling and the row clip:
// it releases the norm histogram of the unclipped n × h rows z with the
// plan's noise (pl.Norms, drawn from pl.NormRng when set, else rng),
// chooses c (chooseClip) and returns the plan
// for R = c·√h (Plan.withRadius: the covariance's and the k-means sums'
// noise at the same shares, so μ is unchanged). A plan without AutoClip
// is returned as it is, drawing nothing.
func autoRadius(z []float64, n, h int, nt float64, pl Plan, rng *rand.Rand) Plan {
	if !pl.AutoClip {
		return pl
	}
	if pl.NormRng != nil {
		rng = pl.NormRng
	}
	counts := normHistogram(z, n, h, pl.Norms, rng)
	a := 0.0
	if pl.R > 0 {
		a = pl.PCA / (pl.R * pl.R)
	}
	dim := h
	if pl.SubDim > 0 {
		dim = min(h, pl.SubDim)
	}
	c, fell := chooseClip(counts, nt, pl.Norms, a, h, dim)
	pl.ClipChosen, pl.ClipFellBack = c, fell
	return pl.withRadius(c * math.Sqrt(float64(h)))
}

// withRadius returns the plan for row radius r: the covariance's noise
// scaled by (r/R)² and the k-means sums' by r/R (their Δ = R² and R at the
// same shares, so μ does not change), ClipFactor r/√H. The same radius
// returns pl unchanged, bit for bit.
func (pl Plan) withRadius(r float64) Plan {
	if r == pl.R || !(r > 0) {
		return pl
	}
	f := r / pl.R
	pl.R = r
	pl.PCA *= f * f
	pl.Sums *= f
	pl.ClipFactor = r / math.Sqrt(float64(pl.H))
	return pl.WithP(pl.P)
}

// histTooNoisy is chooseClip's first fallback: the noise of the whole
// histogram, sigma·√normBins, above clipTooNoisy of the ñ = nt cells.
func histTooNoisy(nt, sigma float64) bool { return sigma*math.Sqrt(normBins) > clipTooNoisy*nt }

// normStream is the PCG stream of the norm histogram's generator of
// release rel under a seed (Plan.NormRng): the top bit set, so it is never
// a release's own stream (rel − 1).
func normStream(rel int) uint64 { return uint64(rel-1) | 1<<63 }
