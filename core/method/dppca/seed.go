package dppca

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/cluster"
)

// Grid of the private seeding: the first seedDims private components, each
// cut into seedBins equal bins over ±seedSpan released standard deviations.
const (
	seedDims     = 3
	seedBins     = 10
	seedSpan     = 3.0
	seedRestarts = 10 // weighted k-means++ starts on the histogram
	seedLloyd    = 30 // weighted Lloyd iterations per start
)

// histogram returns the bin of every row of the n × p projection on the
// grid of its first q = min(seedDims, p) components, with the grid's bin
// centres (bins^q × q). Each row falls in exactly one bin, so adding or
// removing a cell changes one count by 1: Δ = 1.
func histogram(proj []float64, n, p int, eigen []float64, nt, r float64) (counts []float64, centres []float64, q int) {
	q = min(seedDims, p)
	width := binWidths(q, p, eigen, nt, r)
	nb := 1
	for range q {
		nb *= seedBins
	}
	counts = make([]float64, nb)
	for i := range n {
		counts[binIndex(proj[i*p:i*p+q], width)]++
	}
	centres = make([]float64, nb*q)
	for b := range nb {
		binCentre(centres[b*q:(b+1)*q], uint64(b), width)
	}
	return counts, centres, q
}

// binIndex returns the grid bin of a projected row's first len(width)
// coordinates: seedBins bins a component, the outer ones open-ended, the
// first component the most significant digit.
func binIndex(row, width []float64) uint64 {
	var b uint64
	for j, wd := range width {
		k := int(math.Floor(row[j]/wd + seedBins/2))
		b = b*seedBins + uint64(max(0, min(seedBins-1, k)))
	}
	return b
}

// binCentre writes the centre of grid bin b (binIndex's numbering) into c,
// one coordinate a component of width.
func binCentre(c []float64, b uint64, width []float64) {
	for j := len(width) - 1; j >= 0; j-- {
		c[j] = (float64(b%seedBins) + 0.5 - seedBins/2) * width[j]
		b /= seedBins
	}
}

// binWidths returns the grid's bin width on each of the first q of p
// components: seedBins bins over ±seedSpan released standard deviations.
func binWidths(q, p int, eigen []float64, nt, r float64) []float64 {
	width := make([]float64, q)
	for j := range q {
		s := math.Sqrt(max(eigen[j], 0) / max(nt, 1))
		if s == 0 {
			s = r / math.Sqrt(float64(p))
		}
		width[j] = 2 * seedSpan * s / seedBins
	}
	return width
}

// seedFromHistogram returns k centres in p dimensions from the released
// (noisy) counts of the grid bins: bins below two noise standard deviations
// are dropped, the rest weighted by their count above it, and the best of
// seedRestarts weighted k-means++ + Lloyd runs on them is kept (its
// coordinates beyond the grid's q are 0). Post-processing of the release.
// Missing centres (fewer usable bins than k) come from fill.
func seedFromHistogram(counts, centres []float64, q, p, k int, sigma float64, rng *rand.Rand, fill []float64, extra int) []float64 {
	pts, w := histogramPoints(counts, centres, q, 2*sigma)
	return seedFromPoints(pts, w, q, p, k, rng, fill, extra)
}

// seedFromPoints returns k centres in p dimensions from weighted bin
// centres pts (m × q): the best of seedRestarts weighted k-means++ + Lloyd
// runs, its coordinates beyond q set to 0; missing centres (m < k) come
// from fill. With extra > 0 (Options.SeedStarts), extra further starts
// follow, drawn from binsRng(pts, w), so rng is read exactly as without
// them and every later noise draw is the same; a further start is kept
// only at a strictly lower weighted inertia. With extra ≤ 0 it is the
// ten starts' choice bit for bit.
func seedFromPoints(pts, w []float64, q, p, k int, rng *rand.Rand, fill []float64, extra int) []float64 {
	m := len(w)
	out := append([]float64(nil), fill...)
	if m == 0 {
		return out
	}
	kk := min(k, m)
	var xr *rand.Rand
	if extra > 0 {
		xr = binsRng(pts, w)
	}
	best, _ := cluster.BestOfStarts(pts, w, q, kk, seedLloyd, cluster.Starts{Rng: rng, N: seedRestarts, More: xr, Extra: extra})
	for i := range kk {
		clear(out[i*p : (i+1)*p])
		copy(out[i*p:i*p+q], best[i*q:(i+1)*q])
	}
	return out
}

// binsRng is a stream seeded by the bits of the released seeding bins pts
// and their weights w (a deterministic function of releases, so
// post-processing): seedstarts' further starts draw from it, as
// mergestarts' draw from piecesRng.
func binsRng(pts, w []float64) *rand.Rand {
	return cluster.ValuesRng(0x73656564, pts, w) // "seed"
}
