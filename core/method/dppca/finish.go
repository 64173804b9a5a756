package dppca

import "math"

// Merges that change when the over-clustered centres are merged (stated
// for issue 16.2's seed spread on pbmc_4k at ε 8, docs/RESULTS.md,
// eighteenth attempt). A label-free diagnosis there found that the spread
// is decided at the merge: the low seed's merge already splits the
// largest population, and the K rounds after it stay in that local
// optimum. Both variants keep the budget: every round is still the same
// two Gaussian releases, and the merge is post-processing.
const (
	// MergeLate merges by k-means (as MergeKMeans) two rounds before the
	// end (round T − 2), so the 2K phase runs T − 2 rounds and its
	// centres have converged further before they are merged.
	MergeLate Merge = "late"
	// MergeUnion keeps the Over·K centres for all T rounds; the released
	// centres of the last round, weighted by its released counts, are
	// merged into K by k-means (as MergeKMeans), and each cell takes the
	// group of its nearest released centre. A cluster is then a union of
	// Voronoi cells of the 2K centres, not one Voronoi cell of K centres,
	// so no Lloyd round with K centres re-cuts a large population into
	// pieces of equal size after the merge.
	MergeUnion Merge = "union"
)

// mergeAt is the round at which over-clustering's centres are merged
// into K (Options.Merge): ⌊T/2⌋, T − 2 for merge=late (at least 1), T
// (after the last round) for merge=union.
func (o Options) mergeAt() int {
	switch o.Merge {
	case MergeLate:
		return max(1, o.T-2)
	case MergeUnion:
		return o.T
	}
	return o.T / 2
}

// unionFinish is merge=union's last step, post-processing of the last
// round's released centres and counts: it merges them into k groups,
// sets the release's centres to the groups' centres and each cell's
// label to the group of its nearest released centre.
func (r *release) unionFinish() {
	m, p := r.out.Matrix, len(r.out.Eigen)
	k := r.src.K
	pieces := r.out.Centres
	if len(pieces) == k*p {
		return
	}
	merged := mergeCentres(pieces, r.counts, p, k, r.rng)
	group := pieceGroups(pieces, merged, p)
	nearest, w := assign(r.out.Proj, m.N, p, pieces)
	for i, l := range nearest {
		nearest[i] = group[l]
	}
	r.out.Centres, r.out.Labels = merged, nearest
	r.out.Inertia[len(r.out.Inertia)-1] = w / float64(m.N)
	seen := make([]bool, k)
	r.out.NonEmpty = 0
	for _, l := range nearest {
		if !seen[l] {
			seen[l] = true
			r.out.NonEmpty++
		}
	}
}

// pieceGroups maps each centre of pieces (rows of p) to its nearest
// centre of merged: the merge's own assignment, as its weighted Lloyd
// ends on one.
func pieceGroups(pieces, merged []float64, p int) []int {
	g := make([]int, len(pieces)/p)
	for j := range g {
		best := math.Inf(1)
		for c := range len(merged) / p {
			d := 0.0
			for q := range p {
				x := pieces[j*p+q] - merged[c*p+q]
				d += x * x
			}
			if d < best {
				best, g[j] = d, c
			}
		}
	}
	return g
}
