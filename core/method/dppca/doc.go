// Package dppca is dpscope's own private clustering method, `dppca`: DP-PCA
// followed by DP k-means (../shared/docs/METHODS.md §5), the standard
// private clustering pipeline and the bar every private method must clear.
//
// One release, all in one cell's privacy unit (one cell added or removed):
//
//  1. preprocessing (prep=private, the default): each cell normalised to a
//     public total and log1p-transformed (touches only that cell); the gene
//     ranking, cell count, gene means and spreads released with Gaussian
//     noise; the top h genes by mean log-expression scaled and every row
//     clipped to R = c·√h. prep=public takes scanpy's statistics without
//     noise instead and lists them as an assumption;
//  2. Analyze-Gauss: ZᵀZ plus symmetric Frobenius-isotropic (GOE) noise,
//     Δ = R², and its top p eigenvectors; p=auto (the default) keeps those
//     whose released eigenvalue lies above the noise's spectral edge
//     (Plan.Edge), 2 to 20: post-processing that adapts p to n·ε;
//  3. T rounds of DP Lloyd on the projection (core/cluster.DPKMeans: noisy
//     cluster sums, Δ = R, and counts, Δ = 1) from a private histogram
//     seeding (Options.Init); each cell labelled by its own row against
//     the released centres.
//
// Every mechanism is Gaussian, so the composition is exact in GDP
// (μ = √Σ(Δᵢ/σᵢ)²); the noise of each is calibrated in advance from the
// target (ε, δ) by fixed shares of μ² (Plan), and the ε reported is the
// ledger's GDP composition converted once to (ε, δ).
//
// Options (core.Config.Options, see Options): p, T, genes, split, clip,
// prep, init, k. Live patches: ε, δ, the clip radius (Patch.Clip, absolute)
// and the options p, T, clip; each makes a new release and the ledger keeps
// every release.
package dppca
