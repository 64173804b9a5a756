package dppca

import (
	"fmt"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// expect is the guarantee of a dppca configuration before the run; the
// engine states the final one with every reason.
func expect(cfg core.Config) (core.Guarantee, []string) {
	if cfg.Mode == core.ModeNonPrivate {
		return core.GuaranteeNone, []string{"non-private: the same pipeline without noise, its utility ceiling"}
	}
	switch {
	case cfg.Options["init"] == string(InitKMeansPlusPlus):
		return core.GuaranteeNone, []string{"kmeans++ seeds are private rows released without noise"}
	case cfg.Options["prep"] == string(PrepPublic):
		return core.GuaranteeConditional, []string{"Gaussian mechanisms composed exactly in GDP, with the per-gene preprocessing statistics taken as public"}
	}
	return core.GuaranteeFormal, []string{"every release (gene statistics, covariance, k-means sums and counts) is a Gaussian mechanism composed exactly in GDP: (ε, δ)-DP for one cell added or removed"}
}

// guarantee states the run's guarantee; audited is the ε spent, when known.
func (r *runner) guarantee(audited []core.EpsilonValue) core.GuaranteeEvent {
	o, cfg := r.st.o, r.e.cfg
	live := "live metrics (ARI, NMI, ACC) use the true labels of private data: they are for exploration and no guarantee covers them"
	kReason := fmt.Sprintf("K = %d was given as an option (public)", r.src.K)
	if r.kFrom {
		kReason = fmt.Sprintf("assumption: K = %d, the number of classes of the labels, is public", r.src.K)
	}
	if cfg.Mode == core.ModeNonPrivate {
		return core.GuaranteeEvent{Status: core.GuaranteeNone, Reasons: []string{"nonprivate mode: the same pipeline with no noise, no privacy claim", live}}
	}
	if o.Init == InitKMeansPlusPlus {
		return core.GuaranteeEvent{Status: core.GuaranteeNone, Audited: audited, Reasons: []string{
			"init=kmeans++ seeds the k-means with rows of the private projection, released without noise: no guarantee, whatever ε (for comparison only)", live}}
	}
	reasons := []string{
		"(ε, δ)-DP for one cell added or removed: every release is a Gaussian mechanism in the ledger (gene statistics, Analyze-Gauss covariance with Frobenius-isotropic noise, k-means sums and counts per round); their composition is exact in GDP (μ = √Σ(Δ/σ)²), converted once to (ε, δ)",
		fmt.Sprintf("noise calibrated in advance from ε and δ: fixed shares of μ² (PCA %.3g, k-means %.3g over %d rounds, seeding histogram %.3g, private preprocessing %.3g%s)", o.Split, o.kmShare(), o.T, o.seedShare(), o.prepShare(), clipShareWords(o)),
		"labels: each cell's own row against the released centres (each cell's own output)",
		"public constants fixed in advance, not read from the data: T, the clip factor c, the budget split; the number of genes h is read from the released cell count and the budget only (genes=auto: ñ·μ/" + strconv.FormatFloat(o.genesScale(), 'g', -1, 64) + " within " + strconv.Itoa(o.genesMin()) + "–1000) or fixed, and the clip radius is R = c·√h" + autoClipWords(o) + "; p is read from the released covariance only (p=auto: its eigenvalues above the noise edge, post-processing) or fixed; the k-means starts from released statistics only (the seeding histogram, or the noisy eigenvalues and cell count); over-clustering (2K centres for the first T/2 rounds, merged into K by their released centres and counts) is chosen from released statistics and is post-processing: each round is the same two releases whatever the number of centres",
		kReason,
		"every live patch makes a new release of the whole pipeline; the ε shown composes every release of this run",
	}
	if o.Merge == MergeEarly {
		reasons = append(reasons, fmt.Sprintf("merge=early: when over-clustering, ⌊T/2⌋ rounds with 2K centres then %d with K, %d rounds in all, the same k-means share of μ² spread evenly over them; the number of rounds follows over-clustering's choice from released statistics (post-processing), and the total μ does not change", o.roundsFor(2)-o.T/2, o.roundsFor(2)))
	}
	status := core.GuaranteeFormal
	if o.Prep == PrepPrivate {
		reasons = append(reasons,
			fmt.Sprintf("private preprocessing: each cell normalised to %s and log1p (touches only that cell); the gene ranking (Σ of each cell's unit-norm profile), the cell count, the gene means (rows clipped to 2√m) and spreads (clipped to √m) of the m = %s candidate genes are released with noise; %s", targetWords(o), poolWords(o), selectWords(o.Select)),
			"departures from scanpy: no cell or gene filter (their data-dependent rules would read all cells), "+totalDeparture(o)+selectDeparture(o.Select)+", spread from the mean absolute deviation")
		if o.depthCap() {
			reasons = append(reasons, fmt.Sprintf("depth cap (mincount=%g, count data): the median library size is read from a histogram of the cells' totals over public log-spaced bins (Δ = 1), released with noise; of the h genes, those whose released mean lies below the mean log value of a gene of %g expected counts per cell at that median are dropped (at least 50 kept), and the covariance and the k-means are calibrated for the genes kept (R = c·√h', the same shares of μ²): post-processing of releases already made", o.MinCount, o.MinCount))
		}
	} else {
		status = core.GuaranteeConditional
		reasons = append(reasons, "assumption (prep=public): the preprocessing statistics are public, yet they are computed on the private cells without noise: the cell and gene filters, the median library size, the 2,000 seurat HVGs, the ranking of genes by mean, each gene's mean and standard deviation")
	}
	if o.clipAuto() {
		reasons = append(reasons, fmt.Sprintf("clip radius (clip=auto): after the scaling, each row's norm over √h falls into one of %d public log-spaced bins (1/16 to 4, %d per factor 2); one cell moves one count (Δ = 1), released with noise at %.3g of μ² taken from the k-means share; R is the bin edge, at least %g·√h, that minimises a public error proxy of the released counts and the covariance's noise (post-processing; %g·√h when the histogram is too noisy), and the covariance and the k-means sums are calibrated for it at the same shares", normBins, normBinsPerOctave, ShareClip, DefaultClip, DefaultClip))
		if o.Clip == ClipSub {
			reasons = append(reasons, fmt.Sprintf("clip=subspace: the proxy spreads the clip's distortion over at most the genes genes=auto keeps at ε %g for the released count (post-processing); when that count says the histogram would be too noisy, none is released and the run is clip=%g's", float64(SubRefEpsilon), DefaultClip))
		}
	}
	if s := seedGridReason(o); s != "" {
		reasons = append(reasons, s)
	}
	if s := r.underReason(); s != "" {
		reasons = append(reasons, s)
	}
	if !cfg.SecureNoise {
		reasons = append(reasons, "noise follows the run's seed (secure noise is off): seeded noise is for teaching and reproducibility only")
	}
	reasons = append(reasons, live)
	return core.GuaranteeEvent{Status: status, Reasons: reasons, Audited: audited}
}

// autoClipWords qualifies "R = c·√h" under clip=auto, "" otherwise.
func autoClipWords(o Options) string {
	if !o.clipAuto() {
		return ""
	}
	return " (clip=auto: c read from a released histogram, below)"
}

// clipShareWords names the norm histogram's share under clip=auto, ""
// otherwise (so the default's reason keeps its form).
func clipShareWords(o Options) string {
	if o.clipShare() == 0 {
		return ""
	}
	return fmt.Sprintf(", row-norm histogram %.3g", o.clipShare())
}

// poolWords names the number of candidate genes whose statistics are
// released: h, or PoolFactor·h when the genes are chosen among candidates.
func poolWords(o Options) string {
	if poolFactor(o.Select) > 1 {
		return fmt.Sprintf("%d·h", PoolFactor)
	}
	return "h"
}

// selectWords says how the h genes are kept, all post-processing.
func selectWords(s Select) string {
	switch s {
	case SelectSpread:
		return "the h of largest released spread within 20 bins of released mean are kept (post-processing)"
	case SelectExcess:
		return "the h of largest released spread above the median of their neighbours in released mean are kept (post-processing)"
	case SelectFloor:
		return "the h of largest released spread above the median of their neighbours in released mean, among those of released mean ≥ 1, are kept (post-processing)"
	case SelectLeverage:
		return "their covariance is released with noise (Analyze-Gauss, rows clipped to 2R) and the h of largest leverage on its top directions above the noise edge are kept (post-processing)"
	}
	return "they are the h of largest noisy ranking"
}

// selectDeparture says how the gene choice departs from scanpy's seurat
// highly variable genes.
func selectDeparture(s Select) string {
	switch s {
	case SelectSpread:
		return "genes chosen by binned spread among the 4·h of largest mean log-expression instead of the seurat HVGs over all genes"
	case SelectExcess:
		return "genes chosen by spread above like-mean genes among the 4·h of largest mean log-expression instead of the seurat HVGs over all genes"
	case SelectFloor:
		return "genes of mean log1p(CP10k) ≥ 1 chosen by spread above like-mean genes among the 4·h of largest mean log-expression instead of the seurat HVGs over all genes"
	case SelectLeverage:
		return "genes chosen by leverage on a private covariance of the 4·h of largest mean log-expression instead of the seurat HVGs over all genes"
	}
	return "genes ranked by mean log-expression over all genes instead of the seurat HVGs"
}

// targetWords says what each cell is normalised to.
func targetWords(o Options) string {
	if o.Target == TargetMedian {
		return "a private median library size (a histogram of the cells' totals over public log-spaced bins, Δ = 1, released with noise; the median read from it is post-processing)"
	}
	return fmt.Sprintf("the public total %g", o.Target)
}

// totalDeparture names the total as a departure from scanpy's median,
// unless target=median releases one.
func totalDeparture(o Options) string {
	if o.Target == TargetMedian {
		return "the median library size read from a noisy histogram (to about a bin, 26 %), "
	}
	return "a public target total instead of the median, "
}

// seedGridReason says how a wider seeding grid (seedgrid=auto or select)
// keeps the seeding histogram's sensitivity and μ; "" for the fixed grid,
// which the shares' reason already covers, or another init.
func seedGridReason(o Options) string {
	if o.Init != InitHistogram {
		return ""
	}
	switch o.SeedGrid {
	case SeedGridAuto:
		return "seeding (seedgrid=auto): the seeding histogram spans q of the released components (3 to 8, q from the released cell count and the histogram's noise by a public rule); each cell lies in one bin, so one cell moves one count (Δ = 1) and μ is the fixed grid's; all 10^q noisy bins are released, the empty ones above the cut drawn exactly from the noise's tail"
	case SeedGridSelect:
		return "seeding (seedgrid=select): where the public rule offers a wider grid, two histograms, the fixed 3-component grid and a q-component one, each with noise σ√2 (else the fixed grid alone, as by default); one cell moves one count in each, so together they are one Gaussian release of Δ = √2 at σ√2, the fixed grid's μ; which one seeds the k-means is chosen from the released counts (post-processing)"
	}
	return ""
}
