package dppca

import (
	"math"
	"math/rand/v2"
)

// seedComponentFloor is the share of an average type (ñ/K) a connected
// group of released bins must hold to count as structure in
// seedGridComponents: a quarter, so that the few noise bins that clear a
// cut, and a type's detached tail bins, do not count.
const seedComponentFloor = 0.25

// seedGridComponents counts the connected groups of the released bins
// above the cut (pts, m × q bin centres on a grid of bin widths width;
// w their released counts above the cut) whose released mass Σ(w + cut)
// is at least seedComponentFloor·ñ/K. Two bins are joined when they
// differ by at most one bin on every component (grid neighbours, the
// diagonals included). Post-processing of the release.
func seedGridComponents(pts, w []float64, q int, width []float64, cut, nt float64, k int) int {
	m := len(w)
	parent := make([]int, m)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			near := true
			for d := range q {
				// centres of neighbouring bins are one width apart; 1.5
				// widths separates neighbours from the next bin out
				if math.Abs(pts[i*q+d]-pts[j*q+d]) > 1.5*width[d] {
					near = false
					break
				}
			}
			if near {
				if a, b := find(i), find(j); a != b {
					parent[a] = b
				}
			}
		}
	}
	mass := make(map[int]float64)
	for i := range m {
		mass[find(i)] += w[i] + cut
	}
	floor := seedComponentFloor * nt / float64(max(k, 1))
	c := 0
	for _, v := range mass {
		if v >= floor {
			c++
		}
	}
	return c
}

// selectSeedGrid is SeedGridSelect's seeding, the rule stated before
// measuring (dppca12). The wide candidate is the grid of seedGridDims at
// noise σ√2. If there is none (q = 0), the seeding is the default's (one
// histogram on the fixed grid at σ). Otherwise two histograms are released,
// each with N(0, 2σ²) noise per bin: the fixed 3-component grid (cut at 2
// of its noise sds, as the default) and the wide q-component grid (cut at
// seedThreshold(q) of its noise sds, released sparsely but exactly as
// sparseSeedBins). One cell moves one count by 1 in each, so the pair is
// one Gaussian release of Δ = √2 at σ√2: μ = 1/σ, the default's seeding
// μ; the ledger and every other σ are unchanged. The wide grid is kept iff
// it shows more types than the fixed one, min(C_wide, K) > min(C_fixed,
// K), where C counts seedGridComponents (connected groups of bins above
// the cut holding at least a quarter of ñ/K); on a tie the fixed grid is
// kept. It returns the seeding points, their weights and the grid's q
// (3, or fewer when p < 3, for the fixed grid).
func selectSeedGrid(proj []float64, n, p, k int, eigen []float64, nt, r, sigma float64, rng *rand.Rand) (pts, w []float64, q int) {
	s2 := sigma * math.Sqrt2
	qw := seedGridDims(p, k, nt, s2)
	counts, centres, q3 := histogram(proj, n, p, eigen, nt, r)
	if qw == 0 {
		addNoise(counts, sigma, rng)
		pts, w = histogramPoints(counts, centres, q3, 2*sigma)
		return pts, w, q3
	}
	addNoise(counts, s2, rng)
	pts3, w3 := histogramPoints(counts, centres, q3, 2*s2)
	thr := seedThreshold(qw)
	ptsW, wW := sparseSeedBins(proj, n, p, qw, eigen, nt, r, s2, thr, rng)
	c3 := seedGridComponents(pts3, w3, q3, binWidths(q3, p, eigen, nt, r), 2*s2, nt, k)
	cW := seedGridComponents(ptsW, wW, qw, binWidths(qw, p, eigen, nt, r), thr*s2, nt, k)
	if min(cW, k) > min(c3, k) {
		return ptsW, wW, qw
	}
	return pts3, w3, q3
}

// histogramPoints returns the centres (m × q) of the bins whose released
// count clears cut, weighted by their count above it.
func histogramPoints(counts, centres []float64, q int, cut float64) (pts, w []float64) {
	for b, c := range counts {
		if v := c - cut; v > 0 {
			pts = append(pts, centres[b*q:(b+1)*q]...)
			w = append(w, v)
		}
	}
	return pts, w
}
