// Package dpmd implements DP manifold denoising (DP-MD): private local
// means and tangent projectors computed from a sensitive reference set move
// public noisy queries toward the data manifold
// (../shared/papers/dp-manifold-denoising.txt, Algorithms 1–2;
// ../shared/docs/METHODS.md §2).
//
// The pieces, usable on their own:
//
//   - LocalPCA: the top-d tangent basis V_i at every reference, from the
//     covariance of its neighbours within h (core/neighbors finds them);
//   - Denoiser and Worker.Step: one iteration of the update
//     x ← x − (I − P̃)(x − b̃) with kernel weights (1 − ‖x − y_i‖²/h²)₊^(d+2),
//     in the non-private, paper and sound variants (StepKind);
//   - NewBudget: the zCDP split of accountant.DPMDBudget turned into noise
//     scales from the sensitivities (paper: C_P/(n h^d), C_m/(n h^(d−1));
//     sound: s·h for the joint numerator and mass, h²/4 for the optional
//     second moment);
//   - Synthetic and FromData: the experiments (synthetic manifolds of
//     package datasets, or a scRNA-seq data set split into references and
//     queries).
//
// The engine registers as core method "dpmd" (MethodName). Its parameters
// come from Params, or from a data spec in core.Config.Data such as
// "manifold:sphere?D=100&n=30000&queries=1000&sigma=0.3&T=2" (ParseSpec);
// any other Data value names a scRNA-seq data set.
//
// Modes: paper (Algorithm 2 with the paper's accounting, labelled
// conditional with the reasons of METHODS.md §2), sound (released
// numerator, mass and second moment with deterministic sensitivities,
// formal (ε, δ)), nonprivate (the ceiling: P_x followed by the top-d
// eigenprojection by default, or P_x as is). Private runs also run the
// non-private ceiling, so before / non-private / private are compared.
//
// Sound mode's guarantee (add or remove one reference y; queries public).
// Each query q releases R_q = (N_q, λS_q) + N(0, ς²I) with N_q =
// Σ_i k_q(y_i)(y_i − x_q), S_q = Σ_i k_q(y_i) and the kernel
// k_q(y) = (1 − ‖y − x_q‖²/h²)₊^β (β = SoundBeta(d)). One reference changes
// R_q by k_q(y)(y − x_q, λ), of norm h(1 − t²)^β√(t² + μ²) ≤ s·h (t = ‖y − x_q‖/h,
// μ = λ/h; SoundSensitivity gives μ and s from D and d). It changes only the
// queries within h of y, pairwise within 2h: a clique of the 2h-graph of
// the queries, so at most K of them, K = degeneracy + 1 of that graph
// (Overlap, a function of the public queries). The release of all m queries
// thus has ℓ2 sensitivity √K·s·h, and noise ς·√(K/m) per coordinate
// (SoundNoise) costs ρ = K s²h²/(2ς²K/m) = m·s²h²/(2ς²), what m
// per-query releases of noise ς would cost, ρ_q = ρ_tot/(mT) each: the
// ledger records m repeats of (ς, s·h) per iteration. The iterations
// compose (the queries they start from are post-processing of earlier
// releases); the mass gate, the division m = Ñ/S̃ and the Wiener
// shrinkage are post-processing. TestSoundSensitivity checks the bound by
// removing references from a real Denoiser.
//
// Sound mode's kernel on data sets (issue 17.4; stated 2026-11-26, commit
// 6faa0be for the criterion, this text before any run on the shared real
// sets): β = SoundBeta(d) = max(1, d − 1), the flattest kernel whose mean
// squared radius is at most h²/3. On the synthetic manifolds (d ≤ 2) it is
// β = 1, unchanged; on scRNA-seq sets in 50 PCs (d ≈ 10–20 by the local-PCA
// rule) it keeps the mean shift local, and where the kernel's mass is then
// too light for the noise the floor s_min and the Wiener shrinkage keep
// the queries where they are. The rule was accepted because it met a
// criterion stated in advance on simulated clustered data only (sound
// ARI ≥ not denoised − 0.01 at ε = 8 and 64, builtin:default's simulator,
// 90/124/2,000 cells, seeds 1–5; TestSoundClusterEval), which β = 1 failed;
// never by ARI on the shared labels. The guarantee is unchanged in form:
// s and μ follow β (SoundSensitivity), and TestSoundSensitivity removes
// references at β = 1 (circle) and β = 3 (sphere S⁴).
//
// Sound mode's step gate (stated before it was measured, RESULTS "A step
// gate"): a query moves only when its released step u stands above its
// noise by the mass gate's three standard deviations, ‖u‖² > (p +
// 3√(2p))·(ς_N/S̃)²; post-processing, so the guarantee is unchanged. It
// was accepted on simulated data (Gaussian mixtures in R^50 with
// 10-dimensional clusters, where the cap alone let noise-only steps cost
// up to 0.028 ARI; the Splatter check; the judged shares, Swiss roll
// 0.66 → 0.57 at ε = 1).
//
// Sound mode's mass floor (issue 17.4; stated before it was measured,
// commit 0512ebe): s_min = max(d + 1, 3ς_S) (SoundMassFloor), so a query
// moves only when its released kernel mass is worth at least d + 1
// references — the paper's own gate in the units sound mode releases.
// Before it, on small scRNA-seq sets at large ε, queries of mass 1–9
// jumped as far as their nearest reference while heavy-tailed outliers
// stayed, a partial collapse that cost k-means (goolam 0.931 → 0.569 on
// one seed at ε = 1000). Accepted on simulations only (an embryo-like
// design of 124 cells in stages of 16/64/32/6/6 with heavy-tailed cells,
// TestSoundEmbryoEval; the Splatter and mixture checks; the judged
// manifolds unchanged, where 3ς_S ≥ d + 1). Post-processing: the guarantee
// is unchanged. On the shared real sets it keeps every query in place up
// to ε = 1000: not worse than not denoising, and no better.
//
// Noise drawn from the run's seed is for teaching and reproducibility only;
// with Config.SecureNoise each query's noise comes from a ChaCha8 generator
// keyed by crypto/rand (Denoiser.Secure).
package dpmd
