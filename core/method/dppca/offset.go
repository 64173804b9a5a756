package dppca

import (
	"math"
	"math/rand/v2"
)

// Offset names the option offset: whether the private preprocessing
// removes the direction every scaled row shares before the rows are
// clipped to R (OffsetDir, the default by rule G19) or not (OffsetOff).
type Offset string

const (
	// OffsetOff leaves the scaled rows as they are (the rule before G19;
	// library callers' "" reads as it).
	OffsetOff Offset = "off"
	// OffsetDir, when the noise of the released gene means alone would
	// put the rows beyond the clip radius (offsetFires: a prediction from
	// public σ and released statistics, before the release), releases the
	// sum of the scaled rows' unit directions (Δ = 1, ShareOffset of μ²
	// from the k-means share) and, when the released mean direction is
	// long (offsetMinCos), projects that direction out of every scaled
	// row before the clip to R. When the prediction does not fire nothing
	// is released, the share stays with the k-means and the release is
	// the default's bit for bit.
	//
	// Why (docs/RESULTS.md, dppca twenty-second attempt, a label-free
	// diagnosis): at a small n·μ the released gene means are off by more
	// than the genes' spreads (pollen at ε 1: σ_mean/ñ = 1.8 log units on
	// 299 cells), so every scaled row carries the same large offset
	// (z − m)/ŝ; the clip to R then keeps that offset and shrinks the
	// cells' own differences with it (pollen at ε 1: the mean clipped
	// row has norm 3.49 of R = 3.54, the rows' rms distance to it 0.54,
	// against 1.71 and 3.09 at ε 8), and the covariance's second
	// eigenvalue falls below the noise edge. A direction is cheap to
	// release where the offset dominates — each cell's unit direction
	// moves the sum by at most 1, against 2√h for the gene means — and
	// projecting it out needs no magnitude.
	OffsetDir Offset = "dir"
)

// DefaultOffset is the option offset's default, offset=dir: adopted by
// rule G19 (docs/RESULTS.md, dppca twenty-second attempt), stated before
// FRESH=20 was drawn; there it raised the mean ARI by +0.0023 ± 0.0005
// per cell over 15 families × ε 1–16, moving only the small families at
// ε 1–4 (simsmall ε 4 0.047 → 0.108, simpollen ε 4 0.098 → 0.150).
const DefaultOffset = OffsetDir

// ShareOffset is offset=dir's share of μ², taken from the k-means.
const ShareOffset = 0.05

// offsetMinCos is offset=dir's public switch: the direction is projected
// out only when the released mean of the rows' unit directions is at
// least this long, |Σ̃ u_i|/ñ ≥ 0.5 (rows within about 60° of one common
// direction on average); below it the rows are left as they are.
const offsetMinCos = 0.5

// offsetFires is offset=dir's switch, read before its release: the
// predicted norm of the offset the means' noise gives a scaled row,
// √Σ_j (σ_mean2/(ñ·ŝ_j))² over the h kept genes (ŝ_j the released,
// floored spreads), is at least offsetPredMin times the clip radius R.
// All of it is public σ and released statistics: post-processing.
func offsetFires(pl Plan, nt float64, spread []float64) bool {
	return offsetRatio(pl, nt, spread) >= offsetPredMin
}

// offsetPredMin is offsetFires' threshold on the predicted offset over R:
// 2, the noise alone predicted to carry a row to twice the clip radius.
// Why 2 and not 1 (the first form, amended once after the base draws'
// screen and before any fresh draw): the prediction counts the spreads'
// floor and overstates the offset by a factor of about 1.5 — on the
// development draws (seeds +700, label-free) the released direction was
// long enough to be removed (offsetMinCos) wherever the ratio was 1.5 or
// more and nowhere below 1.35, and where it fired without removing the
// release only cost the k-means its share (base draws: sim8 ε 1 −0.038,
// simpollen ε 8 −0.043, simsmall ε 16 −0.046).
const offsetPredMin = 2

// offsetRatio is the predicted offset norm over R (offsetFires).
func offsetRatio(pl Plan, nt float64, spread []float64) float64 {
	e := pl.Mean2 / max(nt, 1)
	ss := 0.0
	for _, s := range spread {
		ss += (e / s) * (e / s)
	}
	return math.Sqrt(ss) / pl.R
}

// withoutOffset is pl with offset=dir's share back with the k-means (its
// prediction did not fire): the k-means noise is the default's, computed
// from the same share.
func (pl Plan) withoutOffset() Plan {
	if pl.Offset == 0 {
		return pl
	}
	pl.Offset = 0
	pl.km = pl.kmNoOffset
	return pl.WithP(pl.P)
}

// offsetShare is the μ² share of offset=dir's release (private
// preprocessing only), else 0.
func (o Options) offsetShare() float64 {
	if o.Offset == OffsetDir && o.Prep == PrepPrivate {
		return ShareOffset
	}
	return 0
}

// removeOffset releases Σ_i z_i/‖z_i‖ over the n × h rows of z plus
// N(0, σ²) per coordinate (Δ = 1: a cell adds or removes one unit
// vector; a zero row adds nothing) and, when the released sum's norm over
// nt is at least offsetMinCos, replaces each row by its component
// orthogonal to the released direction. It returns that mean length
// |Σ̃|/nt and whether the direction was removed.
func removeOffset(z []float64, n, h int, nt, sigma float64, rng *rand.Rand) (float64, bool) {
	sum := make([]float64, h)
	for i := range n {
		row := z[i*h : (i+1)*h]
		nr := 0.0
		for _, v := range row {
			nr += v * v
		}
		if nr == 0 {
			continue
		}
		nr = math.Sqrt(nr)
		for j, v := range row {
			sum[j] += v / nr
		}
	}
	addNoise(sum, sigma, rng)
	norm := 0.0
	for _, v := range sum {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	length := norm / max(nt, 1)
	if length < offsetMinCos || norm == 0 {
		return length, false
	}
	for j := range sum {
		sum[j] /= norm
	}
	for i := range n {
		row := z[i*h : (i+1)*h]
		dot := 0.0
		for j, v := range row {
			dot += v * sum[j]
		}
		for j := range row {
			row[j] -= dot * sum[j]
		}
	}
	return length, true
}
