package dppca

import (
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/cluster"
)

// Bounds and default of mergestarts (Options.MergeStarts).
const (
	// MinMergeStarts is the smallest mergestarts: the ten starts every
	// k-means merge made before rule G23 (seedRestarts), and what
	// library callers' zero Options keep.
	MinMergeStarts = seedRestarts
	// MaxMergeStarts is the largest mergestarts.
	MaxMergeStarts = 100000
	// DefaultMergeStarts is mergestarts' default (set by Parse), adopted
	// by rule G23, stated before the fresh draws that judged it
	// (DPSCOPE_DPPCA_FRESH=23a and 23b pooled, G19's 15 families and
	// builtin:pollenshape, ε 1–16, 160 cells: +0.0022 ± 0.0008 ARI per
	// cell, every family within its guard, no cell below −0.017;
	// docs/RESULTS.md, dppca twenty-ninth attempt). It moves only
	// releases that over-cluster.
	DefaultMergeStarts = 1000
)

// mergeKMeans is the k-means merge of over-clustering's released centres
// c (rows of p) weighted by their released counts w into k, with the
// options' floor (mergeCentresFloor) and, with mergestarts = N above the
// default's seedRestarts, N − seedRestarts further starts
// (mergeCentresStarts). Why more starts (docs/RESULTS.md, dppca
// twenty-ninth attempt): on pbmc_4k at ε 8 the low seed's merge, the best
// of ten starts, left the weighted inertia of its 16 pieces 5 % above the
// best of 1,000 starts, and the K-centre rounds kept the worse partition;
// the merge is post-processing, so searching it harder costs no budget.
func (o Options) mergeKMeans(c, w []float64, p, k int, pl Plan, rng *rand.Rand) []float64 {
	return mergeCentresStarts(c, w, p, k, o.floorWeight(pl), o.FloorMode, rng, o.MergeStarts-seedRestarts)
}

// piecesRng is a stream seeded by the bits of the released centres c and
// counts w (a deterministic function of releases, so post-processing):
// mergestarts' further starts draw from it, which leaves the release's
// own noise stream, and so every later noise draw, as the default's.
func piecesRng(c, w []float64) *rand.Rand {
	return cluster.ValuesRng(0x6d65726765, c, w) // "merge"
}
