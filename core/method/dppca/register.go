package dppca

import (
	"math"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// optionSpecs describe Keys for the faces (`dpscope methods`, --opt
// validation and help, the interface's fields); Parse stays the engine's
// own reading of them, with the cross-field checks of Validate.
var optionSpecs = []core.OptionSpec{
	{Key: "p", Kind: core.KindString, Default: "auto", Live: true, Doc: "components: auto (released eigenvalues above the noise edge, 2–30), auto:N (cap N) or a fixed N in 1..100"},
	{Key: "T", Kind: core.KindInt, Default: DefaultT, Min: 1, Max: 100, Live: true, Doc: "DP Lloyd rounds"},
	{Key: "genes", Kind: core.KindString, Default: "auto", Doc: "genes h the private covariance is built on: auto (ñ·μ/18 within 50–1000, from the released cell count and the budget), auto:S (ñ·μ/S, S in [1, 1000]) or N in 2..5000"},
	{Key: "split", Kind: core.KindFloat, Default: DefaultSplit, Min: 0, Max: 1, Doc: "the PCA's share of the budget (of μ²); the rest, less preprocessing and seeding, goes to the k-means"},
	{Key: "clip", Kind: core.KindString, Default: strconv.FormatFloat(DefaultClip, 'g', -1, 64), Live: true, Doc: "factor c of the row clip radius R = c·√h, in (0, 100], or auto (R from a private histogram of the scaled rows' norms, 0.01 of μ² from the k-means share)"},
	{Key: "prep", Kind: core.KindChoice, Default: string(PrepPrivate), Choices: []string{string(PrepPrivate), string(PrepPublic)}, Doc: "per-gene preprocessing statistics released with noise (private) or taken as public (an assumption)"},
	{Key: "init", Kind: core.KindChoice, Default: string(InitHistogram), Choices: []string{string(InitHistogram), string(InitPCAGaussian), string(InitRandomBall), string(InitKMeansPlusPlus)}, Doc: "k-means initialisation; kmeans++ reads private rows without noise (no guarantee)"},
	{Key: "k", Kind: core.KindInt, Min: 0, Max: math.Inf(1), Doc: "clusters K (0 or absent: the number of classes of the labels)"},
	{Key: "select", Kind: core.KindChoice, Default: string(SelectMean), Choices: []string{string(SelectMean), string(SelectSpread), string(SelectExcess), string(SelectFloor), string(SelectLeverage)}, Doc: "private gene choice: largest mean (default), largest spread within mean bins among 4h candidates (spread), largest spread above the median of like-mean candidates among 4h (excess), excess among candidates of mean log1p(CP10k) ≥ 1 (floor), or largest leverage on a private covariance of 4h candidates (leverage, 0.1 of μ² from split)"},
	{Key: "target", Kind: core.KindString, Default: strconv.FormatFloat(DefaultTarget, 'g', -1, 64), Doc: "total each cell is normalised to before log1p: a public number in (0, 1e7], or median (a private median library size, 0.01 of μ² under prep=private)"},
	{Key: "mincount", Kind: core.KindFloat, Default: float64(DefaultMinCount), Min: 0, Max: MaxMinCount, Doc: "depth cap of genes=auto: keep only genes whose released mean log value is at least that of a gene of this many expected counts per cell at a private median library size (0.01 of μ², shared with target=median); 0: off"},
	{Key: "seedgrid", Kind: core.KindChoice, Default: string(SeedGridFixed), Choices: []string{string(SeedGridFixed), string(SeedGridAuto), string(SeedGridSelect)}, Doc: "the private seeding histogram's grid: fixed (the first 3 components), auto (up to 8 components where a noise rule allows), or select (both released at the same μ, the wider kept when it shows more separated groups); auto and select are options, not defaults (docs/RESULTS.md, dppca eighth and ninth attempts)"},
	{Key: "over", Kind: core.KindString, Default: "auto", Doc: "over-clustering: auto (2·K centres for the first T/2 rounds, merged into K, when the released statistics say their centres stay precise, relative centre noise ≤ 0.25; else none), auto:τ (the same with threshold τ in (0, 1]) or a factor 1..10"},
	{Key: "under", Kind: core.KindString, Default: "off", Doc: "fewer centres than K when the budget cannot support K: auto (the most centres, at most K and at least 2, whose relative noise for clusters of average size ñ/K' stays ≤ 0.5; post-processing of releases, the ledger unchanged), auto:τ (bound τ in (0, 4]), count:F (the most centres, at most K and at least 2, whose clusters of average size ñ/K' hold F·σ_count cells, σ_count the rounds' public count noise; F in (0, 20]; docs/RESULTS.md, dppca twenty-sixth attempt) or off (K centres, the default: docs/RESULTS.md, dppca seventeenth attempt)"},
	{Key: "merge", Kind: core.KindChoice, Default: string(MergeKMeans), Choices: []string{string(MergeKMeans), string(MergeWard), string(MergeLate), string(MergeUnion), string(MergeMean), string(MergeOverlap), string(MergeEarly)}, Doc: "how over-clustering's released centres are merged into K (post-processing): kmeans (best of mergestarts weighted k-means++ runs at round T/2, 1000 by default, the default), ward (Ward linkage weighted by the released counts; docs/RESULTS.md, dppca twelfth attempt), late (kmeans at round T − 2), union (2K centres for all rounds, merged after the last; each cell takes its nearest centre's group), mean (kmeans on the mean of the last three 2K rounds' centres and counts), overlap (hierarchical, the pair of groups that overlap most as isotropic Gaussians, weighted by the released counts, first) or early (kmeans at round min(T/2, T − avg − 2), round 3 at the defaults, so 7 of 10 rounds run with K centres); late, union and mean: dppca eighteenth attempt; overlap: nineteenth; early: twenty-first"},
	{Key: "avg", Kind: core.KindInt, Default: DefaultAvg, Min: 1, Max: MaxAvg, Doc: "final centres: the mean of the last avg K-centre rounds' released centres, each cell labelled by its nearest (post-processing; 1: the last round's, the rule before the eighteenth attempt; default 5, docs/RESULTS.md, dppca eighteenth attempt)"},
	{Key: "floor", Kind: core.KindString, Default: "3:drop", Doc: "floor on the k-means merge's groups, F or F:MODE with F in released count noise sds (0..10; 0: off): a group of the merge of the 2K released centres whose summed released count is below F·σ_count is dropped (drop: the K rounds run with the groups left, the default floor=3:drop by rule G17, docs/RESULTS.md, dppca twentieth attempt), moved to split the heaviest group (split, what F alone means) or avoided by choosing another restart (restart); post-processing, the ledger unchanged"},
	{Key: "offset", Kind: core.KindChoice, Default: string(OffsetDir), Choices: []string{string(OffsetDir), string(OffsetOff)}, Doc: "the scaled rows' common direction: dir (the default by rule G19: when the gene means' predicted noise offset reaches 2R, the sum of the rows' unit directions released, Δ = 1, 0.05 of μ² from the k-means, and projected out of every row before the clip when its mean length is ≥ 0.5; otherwise nothing is released: at small n·ε the noisy gene means give every row the same offset; docs/RESULTS.md, dppca twenty-second attempt) or off"},
	{Key: "prior", Kind: core.KindChoice, Default: string(PriorOff), Choices: []string{string(PriorOff), string(PriorCounts)}, Doc: "a size prior in the K-centre rounds after an over-clustered merge: counts (each cell to argmin ‖x − c_j‖² − 2s²·log π_j, π from the released counts, s² from released eigenvalues less the noise edge; post-processing, the ledger unchanged; stopped on development draws, docs/RESULTS.md, dppca twenty-third attempt) or off (the default)"},
	{Key: "choose", Kind: core.KindChoice, Default: string(ChooseOff), Choices: []string{string(ChooseOff), string(ChooseObjective)}, Doc: "a private choice between two partitions at the merge: objective (a second candidate from the merge's released pieces, kept when one noisy objective gap, 0.05 of μ² from the k-means, says it is lower; failed on development draws, docs/RESULTS.md, dppca twenty-fourth attempt) or off (the default)"},
	{Key: "genesmin", Kind: core.KindInt, Default: GenesAutoMin, Min: MinGenesMin, Max: GenesAutoMax, Doc: "the floor of genes=auto's h = ñ·μ/18 (default 50); a lower floor lets h follow the rule at small n·μ, where the covariance's noise edge relative to the rows' signal grows as √h; stopped on development draws, docs/RESULTS.md, dppca twenty-fifth attempt"},
	{Key: "proj", Kind: core.KindString, Default: "pca", Doc: "the projection the k-means runs on: pca (the private PCA, the default) or random:P (a public Gaussian random P-dimensional projection of the h genes drawn from the run's seed, P in 1..30: no covariance released, its share of μ² to the k-means, projected rows clipped to 1.5·R·√(P/h)) or auto:P (random:P only when the planned covariance's noise edge is at least ñ·R²/K, the most one average cluster could give; else pca); stopped on development draws, docs/RESULTS.md, dppca twenty-seventh attempt)"},
	{Key: "centre", Kind: core.KindChoice, Default: string(CentreAuto), Choices: []string{string(CentreAuto), string(CentreOff)}, Doc: "recentre the private projection at small n·ε: auto (the default by rule G21: when the planned covariance's noise edge is at least ñ·R²/K, release the projected rows' sum with 0.05 of μ² from the k-means, subtract the mean and clip the rows to 1.5·R·√(p/h), the k-means sums' Δ; else nothing) or off (prep=public's and library callers'); docs/RESULTS.md, dppca twenty-eighth attempt"},
	{Key: "mergestarts", Kind: core.KindInt, Default: DefaultMergeStarts, Min: MinMergeStarts, Max: MaxMergeStarts, Doc: "weighted k-means++ + Lloyd starts of the k-means merge of over-clustering's released centres (post-processing; starts beyond the default's ten draw from a stream seeded by the released centres, so the noise draws do not change; default 1000 by rule G23, 10 the rule before; docs/RESULTS.md, dppca twenty-ninth attempt)"},
}

func init() {
	core.Register(core.Method{
		Name: MethodName, Title: "DP-PCA + DP k-means", Family: core.FamilyClustering,
		Doc:        "private PCA (Analyze-Gauss) then DP Lloyd k-means on the private projection: dpscope's private baseline",
		Modes:      []core.Mode{core.ModeSound, core.ModeNonPrivate},
		Baseline:   true, // dpscope's private baseline (METHODS §5): drawn beside every curve
		Needs:      core.NeedsNothing,
		Options:    optionSpecs,
		Expect:     expect,
		Audit:      auditDoc,
		InputAudit: inputAuditDoc,
		DependsOn:  []string{"option prep (public statistics are an assumption)", "option init (kmeans++ reads private rows)"},
		CheckData:  checkData,
		New:        func(cfg core.Config) (core.Engine, error) { return New(cfg) },
	})
}

// checkData refuses before the run an option k larger than the data's
// cells (CheckDataK), as the engine would after loading the data.
func checkData(cfg core.Config) error {
	o, err := Parse(cfg.Options)
	if err != nil {
		return nil // New reports it
	}
	return CheckDataK(cfg, o.K)
}

// CheckDataK is CheckK on cfg's data, for a method's core.Method.CheckData
// (dppca's, and dcan-sound's, whose start is dppca's). It loads the data
// through the data cache, so the run's own load costs nothing more, and
// leaves load errors to the run (nil).
func CheckDataK(cfg core.Config, k int) error {
	d, err := cfg.LoadRaw()
	if err != nil {
		return nil // the run reports it
	}
	_, err = CheckK(d, k)
	return err
}
