// Package sounddcan is DP-DCAN's sound mode, redesigned (issue 17 point 1;
// ../shared/docs/METHODS.md §1 "sound mode"): a deep-clustering model in the
// spirit of DCAN/IDEC — an autoencoder with a DEC clustering head — that
// keeps a formal (ε, δ) guarantee for one cell added or removed, and starts
// from dpscope's own private pipeline (package dppca) so that learning can
// only add to it. It registers as "dcan-sound".
//
// One run, every mechanism Gaussian and in one ledger:
//
//  1. dppca (a ShareDPPCA share of μ²): private preprocessing (noisy gene
//     ranking, cell count, means and spreads), Analyze-Gauss PCA on the top
//     h genes, DP k-means with private histogram seeding, run with
//     OverCluster·K = 3K centres (a private coreset: with K centres, k-means
//     from a private start often splits one population and merges two, and
//     no later noisy round undoes it). It gives the scaled, clipped rows x_i
//     (h genes, ‖x_i‖ ≤ R), the private basis V (h × p) and 3K private
//     centres in its coordinates.
//  2. The network: a linear autoencoder h → p → h (IDEC's reconstruction +
//     clustering losses on a one-layer encoder), whose encoder is
//     initialised to V and decoder to Vᵀ, so its codes start as dppca's
//     projection and its DEC head starts from dppca's private centres (the
//     stable start METHODS.md reports; uniform-frequency heads can
//     collapse).
//  3. DP-SGD on the whole network (every layer noised, joint clipping to
//     C, Poisson sampling at rate q = 1: the full batch, so every step is an
//     exact Gaussian mechanism; ShareSGD of μ²), SGD with momentum on the
//     noisy clipped sum, loss per cell MSE(x_i, x̂_i) + γ·KL(p_i‖q_i), with
//     q_i the Student-t assignment of the cell's code to the released
//     centres and p_i DEC's target from the released frequencies.
//  4. The head (ShareHead of μ²): every Every steps, and once at the end,
//     one DP Lloyd round on the codes (clipped to R): noisy cluster sums
//     (Δ = R) and counts (Δ = 1). The noisy counts are DEC's frequencies
//     f_j; a centre whose noisy count is below minCount keeps its old
//     position (post-processing), and frequencies are floored at
//     freqFloor·ñ/K, so the head cannot empty a cluster by itself. The
//     first round runs on the 3K centres; their released centres, weighted
//     by their released counts, are then merged into K by weighted k-means
//     (the best of 20 k-means++ starts by weighted inertia: post-processing).
//
// Labels: each cell's own code against the final released centres.
//
// Accounting: every mechanism is a Gaussian without subsampling, so the
// composition is exact in GDP, μ = √Σ(Δᵢ/σᵢ)², converted once to (ε, δ);
// the RDP ledger's figure is shown beside it. The noise of every mechanism
// is fixed in advance from the target (ε, δ) by the shares below (Plan).
//
// Defaults and the rule behind each (fixed before any measurement, never by
// looking at labels):
//   - dppca's own defaults for p = 10, h = 200, private preprocessing and
//     seeding (METHODS.md §5); over-clustering 3K, merged by weighted
//     k-means (a fixed factor, the smallest that gives every population
//     room for one split);
//   - shares of μ²: dppca 0.5 (the PCA route is what works, METHODS.md), the
//     network 0.3, the head 0.2 — a fixed split, like dppca's own;
//   - S = 100 full-batch steps, target refresh every S/5 = 20 (METHODS.md's
//     measured design: full batch, ≈ 100 steps), 6 head rounds;
//   - C = 0.05 (METHODS.md's measured design), joint clipping;
//   - SGD momentum 0.9 (METHODS.md: SGD with momentum on the noisy clipped
//     sum), learning rate lr = η/C with η such that the whole possible path
//     S·η/(1 − 0.9) equals the encoder's initial Frobenius norm √p (the
//     network can move at most as far as its own size);
//   - γ = 0.1, IDEC's weight of the clustering loss against reconstruction
//     (Guo et al. 2017).
//
// Measured (TestSharedSeeds, mean ARI of seeds 0–4, δ = 1e-5, defaults) at
// ε = 1 / 2 / 4 / 8, beside dppca at the same ε: pbmc_4k 0.65 / 0.70 /
// 0.69 / 0.69 (dppca 0.66 / 0.60 / 0.66 / 0.60, B1 0.68); mouse_bladder
// 0.30 / 0.51 / 0.61 / 0.54 (dppca 0.44 / 0.55 / 0.49 / 0.45, B1 0.60);
// builtin:default 0.02 / 0.03 / 0.19 / 0.47 (dppca 0.01 / 0.11 / 0.34 /
// 0.49, B1 0.69). The gain over dppca comes from the over-clustered start
// and its merge (over=1: pbmc_4k 0.59 at ε = 8); the network changes ARI
// by ±0.01 (lr ≈ 0 gives the same labels): it starts at its MSE optimum
// and the DEC term moves it little.
package sounddcan
