package dppca

import (
	"math"
	"slices"
)

// DefaultMinCount is the depth cap's λ_min when option mincount is absent
// (Parse); 0 is off.
//
// The rule, stated before it was measured (tenth session, dppca9, issue
// 16 points 2 and 5): genes=auto's h = ñ·μ/25 (the scale then; 18 since rule G13) grows with ε, and at a
// shallow depth (median library about 900 counts) it overshoots: the
// extra genes of low mean add sampling noise, not type signal
// (docs/RESULTS.md, "dppca, fifth attempt"). The cap (option mincount =
// λ_min, depthCap): release the median library size L̃ from the
// library-size histogram of target=median (70 public log-spaced bins,
// Δ₂ = 1, ShareMedian = 0.01 of μ² taken from the k-means share; one
// release serves both when target=median too); after the gene means of
// the h genes of genes=auto are released (as before), keep only those
// whose released mean log value is at least meanLogFloor(λ_min, T, L̃),
// the mean of log1p(k·T/L̃) for k ~ Poisson(λ_min): what a gene of λ_min
// expected counts per cell at the median library would show; h' = that
// number within [GenesAutoMin, h]. The PCA and the k-means are then
// calibrated for h' (R = c·√h', their noise at the same shares: the
// choice is post-processing of releases made already, so μ is
// unchanged). Applies under genes=auto, prep=private, select=mean and
// count data only.
//
// Why λ_min = 1: a gene of λ expected counts per cell has sampling sd √λ
// against a type's change of its mean λ·(f − 1), a per-cell
// signal-to-noise √λ·(f − 1). Below one count per cell that falls below
// the fold change itself (f − 1 ≈ 0.65 at the log-fold 0.5 typical of
// markers), so after scaling each such gene adds about a unit of
// variance that is mostly sampling noise, raises the covariance's noise
// edge (h^1.5) and shares the clip radius. A label-free look at the h it
// keeps (diagnostic draws, simulation seeds +400, noise seed 20; no ARI
// seen): at the simulator's usual depth (median library 2,200–4,500:
// sim8, sim14, sim16, simhk8, simhk8w, simwide) it does not bind at ε ≤
// 16 (it binds without noise: e.g. 533 of 1,000 on sim16); at a median
// of 891 it keeps 126 of 180 at ε 8 and 123 of 314 at ε 16 (sim16low),
// 183 of 291 at ε 16 (sim14low); on simmb (1,413) 235 of 244 at ε 16.
//
// Pass criterion, stated with the rule: mincount=1 becomes the default
// only if, on fresh draws (TestSimDesign, DPSCOPE_DPPCA_FRESH=4:
// simulation seeds +500, noise seeds 25–29, untouched) at ε 4 / 8 / 16
// against mincount=0 on the same seeds, it wins beyond 2 SE of the paired
// difference at some ε on at least two of sim16low, sim14low, simmb,
// sim8, sim14, simhk8, simhk8w, simwide and loses beyond 2 SE on none of
// them at any of the three ε; and, on the shallow sims sim16low and
// sim14low (same fresh draws), its mean ARI over ε 0.5 / 1 / 2 / 4 / 8 /
// 16 never steps down between neighbouring ε by more than one sd (the
// larger of the two ε's sds), DECISIONS.md's "graded".
const DefaultMinCount = 0

// MaxMinCount bounds option mincount: beyond 100 counts per cell the cap
// would keep only the floor of GenesAutoMin genes on any data set.
const MaxMinCount = 100

// releasesMedian reports whether a release of o draws the library-size
// histogram: target=median, or the depth cap.
func (o Options) releasesMedian() bool { return o.Target == TargetMedian || o.depthCap() }

// depthCap reports whether genes=auto's h is capped by depth: mincount >
// 0 under genes=auto, private preprocessing and select=mean (the other
// selections choose among a pool of candidates of their own).
func (o Options) depthCap() bool {
	return o.MinCount > 0 && o.Genes == GenesAuto && o.Prep != PrepPublic && o.Select == SelectMean
}

// meanLogFloor returns the mean of log1p(k·target/depth) for k ~
// Poisson(lambda): the mean log value of a gene of lambda expected counts
// per cell in a cell of depth counts normalised to target.
func meanLogFloor(lambda, target, depth float64) float64 {
	if !(lambda > 0) || !(depth > 0) {
		return 0
	}
	p, s := math.Exp(-lambda), 0.0
	for k := 1; k < 10000; k++ {
		p *= lambda / float64(k)
		s += p * math.Log1p(float64(k)*target/depth)
		if float64(k) > lambda && p < 1e-15 {
			break
		}
	}
	return s
}

// depthKeep returns the indices of the genes the depth cap keeps among h
// with released means mean: those of mean ≥ floor, at least GenesAutoMin
// (the largest means) and at most all, in decreasing order of mean; nil
// when it keeps all of them.
func depthKeep(mean []float64, floor float64) []int {
	h := len(mean)
	above := 0
	for _, m := range mean {
		if m >= floor {
			above++
		}
	}
	keep := min(h, max(GenesAutoMin, above))
	if keep >= h {
		return nil
	}
	idx := topByScore(mean, keep)
	slices.Sort(idx) // the ranking order of the h genes
	return idx
}

// withGenes returns the plan for the h genes the depth cap kept (h <
// pl.H): H = h, the row radius c·√h when the plan's radius follows h
// (ClipFactor), the PCA's and the k-means sums' noise rescaled to the new
// sensitivities at the same shares, so μ does not change. Pool keeps the
// candidates whose statistics were released (the ledger's sensitivities).
func (pl Plan) withGenes(h int) Plan {
	if h >= pl.H || h < 1 {
		return pl
	}
	pool := pl.pool()
	pl.H, pl.Pool = h, pool
	if pl.ClipFactor > 0 {
		r := pl.ClipFactor * math.Sqrt(float64(h))
		f := r / pl.R
		pl.R = r
		pl.PCA *= f * f
		pl.Sums *= f
	}
	return pl.WithP(pl.P)
}
