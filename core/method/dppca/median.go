package dppca

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/datasets"
)

// TargetMedian is Options.Target's value for target=median: each cell is
// normalised to a private median library size (medianTotal) instead of a
// public constant, as scanpy normalises to the median. Why an option:
// droplet libraries (median 1,598 counts on mouse_bladder_2100) sit far
// from plate libraries, and one public constant fits neither.
const TargetMedian = -1

// ShareMedian is the share of μ² of the library-size histogram
// (target=median, private preprocessing), fixed in advance: a median is
// one number, read from cumulative counts whose noise grows only as the
// square root of the bins below it.
const ShareMedian = 0.01

// Library-size histogram of target=median: medianBinsPerDecade bins per
// decade from 1 to 10^(medianBins/medianBinsPerDecade) counts (a bin is
// 26 % wide, finer than any effect of the total on log1p), totals outside
// clamped into the end bins. Public constants: the bins do not depend on
// the data.
const (
	medianBinsPerDecade = 10
	medianBins          = 70
)

// sourceTarget is the total the Source is built with: Target, or for
// target=median DefaultTarget (what a release falls back to when the
// released histogram is all noise; Plan.Target carries each release's own).
func (o Options) sourceTarget() float64 {
	if o.Target == TargetMedian {
		return DefaultTarget
	}
	return o.Target
}

// medianTotal returns the median library size of d read from a histogram
// of each cell's total over the log-spaced bins, each bin plus
// N(0, sigma²) (sigma 0: exact). Adding or removing one cell changes one
// bin by 1, so the release is the Gaussian mechanism with Δ₂ = 1; the
// median is post-processing: the first bin whose noisy cumulative count
// reaches half the noisy total, at its geometric centre. Negative bins are
// kept as drawn (clamping them would bias the total upward by about
// 0.4·sigma per empty bin). When the noisy total is not positive it
// returns fallback.
func medianTotal(d *datasets.Dataset, sigma float64, rng *rand.Rand, fallback float64) float64 {
	counts := make([]float64, medianBins)
	x := d.X
	for i := range x.Rows {
		var t float64
		for _, v := range x.Data[x.Indptr[i]:x.Indptr[i+1]] {
			t += float64(v)
		}
		b := 0
		if t >= 1 {
			b = min(int(math.Floor(math.Log10(t)*medianBinsPerDecade)), medianBins-1)
		}
		counts[b]++
	}
	var total float64
	for b := range counts {
		if sigma > 0 {
			counts[b] += sigma * rng.NormFloat64()
		}
		total += counts[b]
	}
	if !(total > 0) {
		return fallback
	}
	var cum float64
	for b, c := range counts {
		cum += c
		if cum >= total/2 {
			return math.Pow(10, (float64(b)+0.5)/medianBinsPerDecade)
		}
	}
	return fallback
}

// logFor returns the cells' log values normalised to target (0: the
// Source's own), computed once per total.
func (s *Source) logFor(target float64) cellLog {
	if target == 0 || target == s.Target {
		return s.cl
	}
	if cl, ok := s.logs[target]; ok {
		return cl
	}
	if s.logs == nil {
		s.logs = map[float64]cellLog{}
	}
	cl := newCellLog(s.Data, target)
	s.logs[target] = cl
	return cl
}
