package dppca

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// MaxMergeStarts is the largest mergestarts (Options.MergeStarts).
const MaxMergeStarts = 100000

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
	h := fnv.New64a()
	var b [8]byte
	for _, xs := range [][]float64{c, w} {
		for _, v := range xs {
			u := math.Float64bits(v)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			h.Write(b[:])
		}
	}
	return rand.New(rand.NewPCG(h.Sum64(), 0x6d65726765))
}
