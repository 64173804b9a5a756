package dppca

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// SeedGrid names how many components the seeding histogram's grid spans
// (init=histogram).
type SeedGrid string

const (
	// SeedGridFixed is today's grid: the first seedDims = 3 components,
	// every bin released, bins above 2 noise sds kept (dppca's default).
	SeedGridFixed SeedGrid = "fixed"
	// SeedGridAuto spans up to seedDimsMax components when the released
	// noise allows it (seedGridDims); otherwise it is SeedGridFixed.
	SeedGridAuto SeedGrid = "auto"
	// SeedGridSelect releases the fixed grid and seedGridDims' wide grid
	// at σ√2 each (the same seeding μ) and keeps the one showing more
	// types (selectSeedGrid); with no wide grid it is SeedGridFixed.
	SeedGridSelect SeedGrid = "select"
)

// seedDimsMax caps the grid of SeedGridAuto: 10^8 bins, indexed as uint64.
const seedDimsMax = 8

// seedThreshold is the cut of SeedGridAuto in noise sds for a grid of 10^q
// bins: the (1 − 10^−q) quantile of the standard normal, so that the
// expected number of empty bins whose noise alone clears it is below 1
// (3.09 for q = 3, 4.26 for q = 5, 5.61 for q = 8).
func seedThreshold(q int) float64 {
	return -distuv.UnitNormal.Quantile(math.Pow(10, -float64(q)))
}

// seedGridDims is SeedGridAuto's rule, stated before measuring (dppca11):
// a type of ñ/K cells is taken to spread over about 2 bins of every grid
// component (a bin is 0.6 of the component's total sd, wider than a
// type's own spread on a separating component, narrower on the others),
// so its densest bin holds about ñ/(K·2^q) cells. The grid spans the
// largest q in [4, min(p, seedDimsMax)] at which that count clears the
// cut seedThreshold(q)·σ; if none does, it returns 0 (today's grid). ñ is
// the released cell count and σ the seeding noise, so the choice is
// post-processing. Without noise (σ = 0) every q passes.
func seedGridDims(p, k int, nt, sigma float64) int {
	for q := min(p, seedDimsMax); q >= seedDims+1; q-- {
		if nt/(float64(k)*math.Pow(2, float64(q))) >= seedThreshold(q)*sigma {
			return q
		}
	}
	return 0
}

// sparseSeedBins is the released, thresholded seeding histogram on the grid
// of the first q components (seedBins bins each, as histogram): the points
// are the centres of the bins whose noisy count clears thr·σ, weighted by
// their count above it. It is exactly the release of every one of the
// 10^q bins with N(0, σ²) noise followed by the cut (post-processing), but
// samples only what the cut keeps: the occupied bins get their noise; of
// the E empty bins, each clears the cut independently with probability
// P = Φ̄(thr), so their positions are Bernoulli(P) trials, drawn by
// geometric gaps, and their noise is the normal's tail above thr·σ, drawn
// by inversion. One cell moves one count by 1 (Δ = 1) whatever q is, so
// the ledger is the fixed grid's.
func sparseSeedBins(proj []float64, n, p, q int, eigen []float64, nt, r, sigma, thr float64, rng *rand.Rand) (pts, w []float64) {
	width := binWidths(q, p, eigen, nt, r)
	counts := map[uint64]float64{}
	for i := range n {
		counts[binIndex(proj[i*p:i*p+q], width)]++
	}
	cut := thr * sigma
	total := uint64(1)
	for range q {
		total *= seedBins
	}
	centre := func(b uint64) []float64 {
		c := make([]float64, q)
		binCentre(c, b, width)
		return c
	}
	// Occupied bins in a fixed order, so the draw depends on the seed only.
	bins := make([]uint64, 0, len(counts))
	for b := range counts {
		bins = append(bins, b)
	}
	slices.Sort(bins)
	for _, b := range bins {
		c := counts[b] + sigma*rng.NormFloat64()
		if c > cut {
			pts = append(pts, centre(b)...)
			w = append(w, c-cut)
		}
	}
	if !(sigma > 0) {
		return pts, w
	}
	tail := 1 - distuv.UnitNormal.CDF(thr)
	empty := total - uint64(len(counts))
	// Bernoulli(tail) trials over the empty bins by geometric gaps; the
	// i-th success is mapped to a uniformly drawn empty bin not yet drawn,
	// which gives the same law for the set of bins (exchangeable).
	drawn := map[uint64]bool{}
	for pos := uint64(0); ; pos++ {
		// pos is the next trial; the gap before the next success is
		// geometric: ⌊ln U / ln(1 − P)⌋ failures.
		gap := math.Floor(math.Log(1-rng.Float64()) / math.Log1p(-tail))
		if gap >= float64(empty-pos) {
			break
		}
		pos += uint64(gap)
		var b uint64
		for {
			b = rng.Uint64N(total)
			if _, occ := counts[b]; !occ && !drawn[b] {
				break
			}
		}
		drawn[b] = true
		// noise given it clears thr: Φ̄(x) = U·Φ̄(thr)
		x := -distuv.UnitNormal.Quantile((1 - rng.Float64()) * tail)
		pts = append(pts, centre(b)...)
		w = append(w, sigma*x-cut)
	}
	return pts, w
}
