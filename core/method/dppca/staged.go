package dppca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
)

// ReleaseHeld is Release with Lloyd rounds whose updates cannot fling a
// centre away from its cells (issue 17 point 1, "cluster-head updates that
// cannot empty clusters"; dcan-sound's start=dppca with hold=on): in every
// round a centre moves to its noisy sum over its noisy count only when that
// count is at least max(1, bar·σ_count); otherwise it keeps its position.
// Release's update divides a light cluster's noisy sum by max(count, 1),
// which puts its centre at a point of pure noise (clipped to the ball of
// radius R) where no cell is nearest, and it stays empty. The merge of the
// over-clustered centres weighs only centres whose last count reached the
// same bar. Each round releases the same two Gaussian sums and counts as
// Release's, so the plan and its ledger are unchanged; the hold and the
// merge are post-processing of those releases.
func ReleaseHeld(ctx context.Context, src *Source, pl Plan, o Options, bar float64, rng *rand.Rand) (*Outcome, error) {
	return releaseHeld(ctx, src, pl, o, bar, holdAll, rng)
}

// ReleaseHeldSeen is ReleaseHeld that holds only a centre seen populated:
// one whose released count reached the bar in an earlier round of the
// run. A centre that never reached it (a seed where few cells are
// nearest) moves to its noisy mean as in Release. Why: with the default
// start at ε ≤ 4 ReleaseHeld holds 10–18 of 24 centres at their histogram
// seeds every round (released counts near 0, the bar 57–106), which splits
// the cells among seeds the merge then weighs at zero; the hold is meant
// for a populated centre flung to noise when a round leaves it light.
// The centres merged from over·K into K cleared the bar, so they count as
// seen. The same releases as Release's: post-processing.
func ReleaseHeldSeen(ctx context.Context, src *Source, pl Plan, o Options, bar float64, rng *rand.Rand) (*Outcome, error) {
	return releaseHeld(ctx, src, pl, o, bar, holdSeen, rng)
}

// ReleaseHeldFirst is ReleaseHeld that holds only in the first round,
// where the centres are the histogram seeds and their counts the lightest
// (a seed is not yet at a population's mean); the later rounds move every
// centre as Release does. The same releases: post-processing.
func ReleaseHeldFirst(ctx context.Context, src *Source, pl Plan, o Options, bar float64, rng *rand.Rand) (*Outcome, error) {
	return releaseHeld(ctx, src, pl, o, bar, holdFirst, rng)
}

// holdMode says which light centres releaseHeld holds.
type holdMode int

const (
	holdAll   holdMode = iota // every round, every centre (ReleaseHeld)
	holdSeen                  // centres whose count reached the bar before (ReleaseHeldSeen)
	holdFirst                 // the first round only (ReleaseHeldFirst)
)

// releaseHeld is ReleaseHeld, ReleaseHeldSeen and ReleaseHeldFirst.
func releaseHeld(ctx context.Context, src *Source, pl Plan, o Options, bar float64, mode holdMode, rng *rand.Rand) (*Outcome, error) {
	if o.Init == InitKMeansPlusPlus {
		return nil, fmt.Errorf("dppca: init %s seeds from private rows and has no held release", o.Init)
	}
	r := newRelease(src, pl, o, rng)
	if err := r.prep(); err != nil {
		return nil, err
	}
	if err := r.pca(); err != nil {
		return nil, err
	}
	over := r.chooseOver()
	m, p := r.out.Matrix, len(r.out.Eigen)
	minCount := max(1, bar*pl.Counts)
	var counts []float64
	var seen []bool      // per centre: its released count reached minCount in an earlier round
	var hist [][]float64 // HeldAvg: the released centres of the rounds with the final k
	for t := range o.T {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := r.k
		if over > 1 && t < o.T/2 {
			k = min(over*r.k, m.N)
		}
		switch {
		case t == 0 && o.Init == InitPCAGaussian:
			r.out.Centres = pcaGaussian(r.out.Eigen, m.NoisyN, k, pl.R, rng)
		case t == 0:
			r.out.Centres = r.histogramSeeds(k)
		case len(r.out.Centres) != k*p:
			w := make([]float64, len(counts))
			for j, c := range counts {
				if c >= minCount {
					w[j] = c
				}
			}
			if o.HeldFill {
				r.out.Centres = mergeHeldFill(r.out.Centres, w, counts, p, k, rng)
			} else {
				r.out.Centres = mergeCentres(r.out.Centres, w, p, k, rng)
			}
			seen = nil
		}
		if seen == nil {
			seen = make([]bool, k)
			if t > 0 || mode != holdSeen {
				// merged centres cleared the bar; in the other modes every centre may be held
				for j := range seen {
					seen[j] = true
				}
			}
		}
		hold := seen
		if mode == holdFirst && t > 0 {
			hold = make([]bool, k)
		}
		counts = heldRound(r.out.Proj, m.N, p, r.out.Centres, pl.R, pl.Sums, pl.Counts, minCount, hold, rng)
		for j, c := range counts {
			if c >= minCount {
				seen[j] = true
			}
		}
		if o.HeldAvg > 1 && k == r.k {
			hist = append(hist, append([]float64(nil), r.out.Centres...))
		}
		if t+1 == o.T && len(hist) > 1 {
			r.out.Centres = meanCentres(hist[max(0, len(hist)-o.HeldAvg):])
		}
		labels, inertia := assign(r.out.Proj, m.N, p, r.out.Centres)
		r.out.Labels = labels
		r.out.Inertia = append(r.out.Inertia, inertia/float64(m.N))
	}
	r.out.NonEmpty = nonEmpty(r.out.Labels, len(r.out.Centres)/max(p, 1))
	r.out.Counts = append([]float64(nil), counts...)
	return &r.out, nil
}

// meanCentres returns the element-wise mean of equally long centre sets
// (HeldAvg's average of released centres: post-processing).
func meanCentres(sets [][]float64) []float64 {
	c := make([]float64, len(sets[0]))
	for _, s := range sets {
		for i, v := range s {
			c[i] += v / float64(len(sets))
		}
	}
	return c
}

// heldRound is lloydRound with the hold: a centre of hold whose released
// count is below minCount keeps its position. It updates c in place and
// returns the released counts.
func heldRound(x []float64, n, p int, c []float64, r, sigmaSum, sigmaCount, minCount float64, hold []bool, rng *rand.Rand) []float64 {
	prev := append([]float64(nil), c...)
	_, counts, _ := lloydRound(x, n, p, c, r, sigmaSum, sigmaCount, rng)
	for j, v := range counts {
		if v < minCount && hold[j] {
			copy(c[j*p:(j+1)*p], prev[j*p:(j+1)*p])
		}
	}
	return counts
}

// mergeHeldFill is mergeCentres for the held releases under
// Options.HeldFill: with at least k weighted pieces (w > 0: a released
// count at the bar) it is mergeCentres; with fewer, every weighted piece
// is kept as a centre and the rest of the k are the heaviest of the
// other pieces by their released counts, so no centre is an arbitrary
// piece while a heavier one is left out. Post-processing of releases.
func mergeHeldFill(c, w, counts []float64, p, k int, rng *rand.Rand) []float64 {
	var kept, rest []int
	for j, v := range w {
		if v > 0 {
			kept = append(kept, j)
		} else {
			rest = append(rest, j)
		}
	}
	if len(kept) >= k {
		return mergeCentres(c, w, p, k, rng)
	}
	sort.SliceStable(rest, func(a, b int) bool { return counts[rest[a]] > counts[rest[b]] })
	out := make([]float64, 0, k*p)
	for _, j := range append(kept, rest...)[:k] {
		out = append(out, c[j*p:(j+1)*p]...)
	}
	return out
}
