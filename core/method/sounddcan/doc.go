// Package sounddcan is DP-DCAN's sound mode, redesigned (issue 17 point 1;
// ../shared/docs/METHODS.md §1 "sound mode"): a deep-clustering model in the
// spirit of DCAN/DEC — a network whose units are the clusters, trained by
// DP-SGD on a clustering loss — that keeps a formal (ε, δ) guarantee for one
// cell added or removed, and starts from dpscope's own private pipeline
// (package dppca). It registers as "dcan-sound".
//
// One run, every mechanism Gaussian and in one ledger:
//
//  1. dppca (a ShareDPPCA share of μ²): private preprocessing (noisy gene
//     ranking, cell count, means and spreads), Analyze-Gauss PCA on the top
//     h genes (p = 10), 5 rounds of DP k-means with private histogram
//     seeding, run with OverCluster·K = 3K centres (a private coreset: with
//     K centres, k-means from a private start often splits one population
//     and merges two). It gives the scaled rows x_i (h genes, ‖x_i‖ ≤ R),
//     the private basis V (h × p) and 3K private centres in its codes.
//  2. The head (ShareHead): one DP Lloyd round on the codes (noisy sums,
//     Δ = R, and counts, Δ = 1); the 3K released centres, weighted by their
//     released counts, are merged into K by weighted k-means
//     (post-processing).
//  3. The network (ShareSGD): a one-layer mixture network on the h genes
//     (mixture): K Gaussian components in gene space with means μ_j, weights
//     π_j and one shared variance, started from releases only — μ_j = V·c_j,
//     the merged centres lifted through the private basis, π from the
//     released counts — and trained by S full-batch DP-SGD steps on its
//     negative log-likelihood (q = 1: every step is an exact Gaussian
//     mechanism). Each cell's gradient is written block by block in units of
//     public bounds (the means' R; the weights' and the variance's natural
//     bounds 1 and R²/h times sideclip = 4, so the means keep most of the
//     clip), clipped to 1 as a whole and noised with N(0, z²) on
//     every parameter; the step applies the EM (Fisher) preconditioner, so a
//     step of size 1 is one soft Lloyd iteration in gene space. The loss a
//     run reports is the responsibility-weighted squared distance per gene
//     that the means' steps reduce, not the likelihood: clipping shrinks the
//     variance statistic of the cells it cuts, so the likelihood can fall
//     while the means improve (see clippedSum).
//  4. Two rules guard the network against its own noise (issue 16 point 5,
//     the seventh session). The staged split (StageRho; option stage): the
//     cell count ñ is released first, with the noise the dppca stage's own
//     count mechanism has when the network runs (that release is the
//     stage's count, entered once), and the network runs only when the
//     noise it would leave on a mean, MeanNoise = z·(K/ñ)·√(η/(2 − η))·√h
//     in units of R, is at most the bound of option stagerho (1/4 when the
//     split was adopted; 0.1667 since rule S, below); otherwise its share of μ² goes to the
//     start and the head as under steps=0 (small sets: pollen, the
//     cellbench sets; mouse_bladder at ε ≤ 2). The count's noise is fixed
//     before the decision, so the ledger is exact either way (the unused
//     sliver of the count's share is simply not spent). The gate (option
//     gate): at every step a component whose own released weight π_j is
//     too light for the same bound, MeanNoise with ñ·π_j cells, keeps its
//     mean where it is (its weight still moves), so noise cannot carry it
//     away from its cells and empty it. Both are post-processing of
//     releases apart from the count.
//
// Labels: each cell's most probable component. Why gene space: the private
// PCA is the bottleneck of the start (METHODS.md §5), and its codes only see
// the noisy p-dimensional subspace. The mixture's gradients are per-cluster
// sums of gene vectors (sensitivity R), whose noise per coordinate does not
// grow with h as the covariance's noise edge does, so DP-SGD moves the means
// out of the noisy subspace towards the populations' own means.
//
// The honest null is "steps=0" (Options.NoTrain): the same pipeline with no
// DP-SGD step, the network's share of μ² given back to the dppca stage and
// the head in their own ratio, so the total ε is the same; its labels are
// the mixture's at its private start (the start's nearest-centre labels,
// weighted by π).
//
// Accounting: every mechanism is a Gaussian without subsampling, so the
// composition is exact in GDP, μ = √Σ(Δᵢ/σᵢ)², converted once to (ε, δ);
// the RDP ledger's figure is shown beside it. The noise of every mechanism
// is fixed in advance from the target (ε, δ) by the shares below (Plan).
//
// Defaults and the rule behind each (stated in advance; none was chosen by
// looking at ARI on the shared data sets' labels):
//   - dppca's previous defaults h = 200 and p = 10 fixed, private
//     preprocessing and seeding (METHODS.md §5) and 5 Lloyd rounds
//     (METHODS.md's anchor design); dppca's current rules are options
//     ("genes=auto": h = GenesRule(ñ, μ) from the cell count released at
//     the stage's share, dppca.Source.PlanFor; "p=auto": p by the noise
//     edge up to 30), see below; over-clustering 3K, the smallest factor that gives every
//     population room for one split;
//   - shares of μ²: dppca 0.5 (the PCA is the bottleneck, METHODS.md), the
//     head's one round 0.1 (it only weights the merge), the network the
//     rest, 0.4;
//   - S = 50 full-batch steps (DP-SGD prefers full batches and few steps;
//     EM converges in tens of iterations), step size η = 3/S: S steps carry
//     the means 1 − e^(−3) ≈ 95 % of the way to a fixed target while
//     averaging the noise of the last ≈ 1/η steps (with full batches the
//     total noise does not depend on S at a fixed S·η);
//   - the clip bounds a cell's gradient in the means at R (every row has
//     ‖x‖ ≤ R) and in the variance at R²/h (the per-gene variance that
//     bound implies); the mixture's variance starts at R²/h minus the
//     released centres' spread. Since rule G9 (sixteenth session, below)
//     the weights' and the variance's blocks are divided by sideclip = 4
//     before the whole gradient is clipped to 1 (their noise is 4 times
//     larger; the means' is unchanged).
//   - target=auto and net=rho (tenth session, below): the start's public
//     total and the network's share from the released cell count;
//   - stage=auto with StageRho = 1/4 (a mean's noise at most a quarter
//     of the rows' radius), gate=comp with the same bound, shrink=off:
//     stated before measuring with the rule "adopt if, on fresh
//     simulations, nowhere below the current design by more than 0.03
//     and (stage) at every ε ≥ max(current, null) − 0.03 on small ones,
//     (gate) no fewer non-empty clusters". Measured (builtin:default's
//     specification, simulator seeds 21, 22, run seeds 0–2, ε 1 / 2 / 4 /
//     8 / 16): at 300 cells with every group's DE location 0.5 (the small
//     real sets' regime) the fixed split 0 / 0 / 0 / 0.018 / 0.222 (5 of 6
//     runs below K/2 non-empty clusters at ε 16), its null 0 / 0 / 0 /
//     0.070 / 0.331, stage=auto 0 / 0 / 0 / 0.079 / 0.393 (network off,
//     none below K/2 at ε 16); at 2,000 cells the fixed split 0.002 /
//     0.061 / 0.382 / 0.548 / 0.627, stage=auto 0.007 / 0.070 / 0.424 /
//     0.646 / 0.669 (network off at ε 1 only), with the gate 0.007 / 0.070
//     / 0.420 / 0.642 / 0.669 and mean non-empty clusters 2.2 / 3.2 / 6.2 /
//     7.8 / 8.0 against 2.2 / 2.0 / 4.5 / 7.0 / 7.8 (K = 8). James–Stein
//     shrinkage of every released step (shrink=js) gave 0.002 / 0.079 /
//     0.291 / 0.423 / 0.560 and was rejected: per-step shrinkage cuts the
//     signal the 50 small steps average. net=auto (the network's share
//     cut to what puts its noise on a mean at NetRho = StageRho/2, the
//     rest to the start, stated before measuring against the diagnosis
//     that on pbmc_4k at ε ≥ 8 the steps barely move the start's labels)
//     gave 0.418 / 0.535 / 0.591 at ε 4 / 8 / 16 at 2,000 cells, below the
//     default by 0.107 at ε 8, and was rejected: where the network learns,
//     it needs its whole share. over=auto (over-cluster into 3K only when
//     an average centre, ñ/(3K) cells, clears the head's count bar twice;
//     else K centres, no merge) gave 0.351 at ε 16 at 300 cells against
//     the default's 0.393, with 3 runs below K/2 non-empty clusters against
//     none, and was rejected: the over-clustered start collapses less
//     even where its centres are light.
//
// Designs were compared by utility only on fresh simulations (builtin:
// default's specification with simulator seeds 11–13, run seeds 0–2; test
// TestDesign), never on the shared sets, which are for reporting. There, at
// ε = 8: this design 0.561 ± 0.105 against its null 0.453 ± 0.064 and dppca
// 0.528 ± 0.094; the previous design (a linear autoencoder trained by
// DP-SGD with IDEC's loss and six noisy head rounds) gave 0.363 against its
// own null 0.463: its network learnt nothing (γ from 0.1 to 10 changed
// nothing). Network shares 0.25 / 0.6 gave 0.532 / 0.548 and p chosen by
// dppca's noise edge 0.570, within seed noise of the default. At ε ≤ 4 the
// private start is too poor for the network to improve (ε = 4: 0.259
// against the null's 0.219 and dppca's 0.308).
//
// "The start is dppca as dppca is" (its current genes=auto and p=auto;
// the mixture then lives in the h genes the start chose, R = 0.5·√h, the
// variance clip R²/h) was stated in advance as a rule and compared on the
// same fresh simulations: 0.096 / 0.522 / 0.675 at ε = 2 / 8 / ∞ against
// the previous defaults' 0.047 / 0.561 / 0.630 (dppca alone 0.067 / 0.558),
// worse at ε = 8, so the previous defaults stay. The privacy argument holds
// either way: the count that chooses h is a release of the dppca stage,
// counted once, and every noise is a fixed multiple of its sensitivity
// (sums Δ = R, DP-SGD clip 1 in units R and R²/h), so no mechanism's μ
// depends on h or p. On the shared sets (reported, not deciding) it gave at
// ε = 0.5 / 1 / 2 / 4 / 8 / 16: builtin:default 0.002 / 0.029 / 0.052 /
// 0.103 / 0.538 / 0.628, pbmc_4k 0.468 / 0.570 / 0.582 / 0.665 / 0.639 /
// 0.733, mouse_bladder 0.310 / 0.349 / 0.399 / 0.481 / 0.502 / 0.454
// (the previous defaults, re-run: 0.000 / 0.005 / 0.080 / 0.408 / 0.624 /
// 0.697, 0.340 / 0.643 / 0.700 / 0.709 / 0.718 / 0.631, 0.180 / 0.379 /
// 0.542 / 0.575 / 0.479 / 0.474).
//
// Eighth session (issue 17.1 and 16.5; docs/RESULTS.md "dcan-sound: the
// start, the network's share and the gate"), each option measured on fresh
// simulations by a rule stated before measuring (builtin:default's
// specification at 2,000 cells with simulator seeds 21, 22 and at 4,000
// cells with seed 23; later also DE location 0.3; run seeds 0–2), none
// adopted, so the defaults above stay:
//   - start=dppca (the start is dppca exactly as it runs alone, into K):
//     above the default in ARI at 2,000 cells (with net=0.1: 0.210 / 0.522
//     / 0.673 / 0.728 at ε 2 / 4 / 8 / 16 against 0.070 / 0.420 / 0.642 /
//     0.669) but it inherits dppca's emptied clusters (5.7 of 8 non-empty
//     at ε 8 against 7.8: the sims' subtypes merged into their parents)
//     and at 4,000 cells falls below the default at ε 4 (0.538 against
//     0.651): rejected by the non-empty and every-ε criteria.
//   - net=0.1 (the start keeps more of the budget): 0.179 / 0.266 / 0.548
//     / 0.686, rejected.
//   - subspace=test (after the start, leave the network out when the noise
//     edge is at most a quarter of the released (K−1)-th eigenvalue, and
//     spend its share on 4 more head rounds in the codes): never fired on
//     any simulation, nor on pbmc_4k or mouse_bladder; subspace=edge (the
//     eigenvalue merely above the edge) fired and lost (0.480 against
//     0.642 at ε 8, 2,000 cells): where the weakest direction is above the
//     edge but not far above it, the network's gene-space steps are worth
//     far more than more Lloyd rounds in the private subspace.
//
// Ninth session (issue 17.1 "cluster-head updates that cannot empty
// clusters", 16.5; docs/RESULTS.md "dcan-sound, ninth session"). Where
// start=dppca empties clusters (TestDiag on fresh simulations): in dppca's
// own Lloyd rounds, whose update divides a light cluster's noisy sum by
// max(count, 1) and so puts its centre at a point of noise where no cell
// is nearest (its labels hold 3–7 of 8 clusters at every ε, over-clustered
// or not); the head's round then releases weight 0 for exactly those
// components, and the network neither empties nor refills any. Two options,
// each with its rule stated in a commit before measuring (adopt iff, on
// the eighth session's simulations at every ε of 1–16 in each shape, mean
// ARI ≥ the default's − 0.03, mean non-empty clusters ≥ the default's −
// 0.5, and at ε 4–16 above its own null); none adopted:
//   - fill=split (fill.go): a component the head released no weight for is
//     re-seeded by splitting the heaviest one about its centre along a
//     random direction of the codes. With start=dppca;net=0.1 every
//     cluster holds cells (8.0 of 8 at every ε) but the split cuts a
//     population in half: 0.371 / 0.485 / 0.561 at ε 4 / 8 / 16 against
//     0.420 / 0.642 / 0.669 (2,000 cells). Rejected.
//   - hold=on (dppca.ReleaseHeld): every Lloyd round of the start holds a
//     centre whose released count is below the head's bar (3σ) instead of
//     moving it to noise; the same releases, so the same ledger. With
//     start=dppca;net=0.1 it lifts the non-empty clusters at ε 8 / 16 from
//     5.7 / 6.0 to 7.5 / 8.0 (ARI 0.661 / 0.704) but leaves 4.8 at ε 4
//     (the default 6.2) and is below its null there: rejected; with
//     over=3 as well, 0.637 at ε 16 (the bar 0.639): rejected; with the
//     default start it passes at 2,000 cells (0.007 / 0.044 / 0.425 /
//     0.617 / 0.665, non-empty 3.2 / 4.7 / 7.2 / 7.8 / 8.0 against 2.2 /
//     3.2 / 6.2 / 7.8 / 8.0) but at 4,000 cells is below the default at
//     ε 2 and 8 (0.145 / 0.616 against 0.188 / 0.649) and below its null
//     at ε 8: rejected.
//
// Why hold=on loses at 4,000 cells (a per-round log of the held centres):
// at small ε the bar 3σ is large against the expected size ñ/(over·K)
// (106 against 167 at 4,000 cells ε 2), and 11–18 of the 24 centres are
// held every round, most at histogram seeds that never held cells; at ε 8
// 0–4, each a centre that lost its cells. Two variants, each with its rule
// stated in a commit before measuring, the same adoption rule; none
// adopted (docs/RESULTS.md, same section):
//   - hold=seen (dppca.ReleaseHeldSeen): hold only a centre whose count
//     reached the bar in an earlier round. 2,000 cells: 0.599 at ε 8
//     (the bar 0.612); 4,000 cells: 0.132 at ε 2 (the bar 0.158), its
//     null 0.207 there: the loss arises after the start. Rejected.
//   - hold=first (dppca.ReleaseHeldFirst): hold only in the first round.
//     Within 0.02 of the default at every ε in both shapes (2,000 cells
//     0.007 / 0.073 / 0.401 / 0.634 / 0.671; 4,000 cells 0.032 / 0.195 /
//     0.649 / 0.649 / 0.664), but at 4,000 cells ε 16 not above its null
//     (0.667): rejected by criterion (c).
//
// hold=first is the default since the end of the ninth session. Criterion
// (c) asked more than the default itself meets (0.664 against its null's
// 0.667 at 4,000 cells ε 16), so it was replaced, before any measurement
// under it, by (c′): at ε 4 / 8 / 16 not below its own null by more than
// 0.03 (docs/RESULTS.md states it with the time). hold=first was then run
// once on fresh draws (simulator seeds 31, 32 at 2,000 cells, 33 at 4,000;
// run seeds 0–2) and passed (a), (b) and (c′) at every ε: 2,000 cells
// 0.008 / 0.188 / 0.431 / 0.583 / 0.598 against the default's 0.003 /
// 0.187 / 0.402 / 0.587 / 0.613 (null 0.367 / 0.500 / 0.567 at ε 4 / 8 /
// 16); 4,000 cells 0.059 / 0.248 / 0.582 / 0.641 / 0.665 against 0.071 /
// 0.226 / 0.574 / 0.640 / 0.634 (null 0.451 / 0.578 / 0.620), non-empty
// clusters never fewer than the default's. The rows below are the
// previous default's (hold=off); RESULTS.md has both.
//
// Reported on the shared sets (docs/RESULTS.md "The trade-off", seeds 0–4,
// δ = 1e-5), mean ARI at ε = 0.5 / 1 / 2 / 4 / 8 / 16 with the staged split
// and the gate: builtin:default 0.000 / 0.011 / 0.118 / 0.352 / 0.583 /
// 0.678 (paired gain over the null +0.093 / +0.089 / +0.114 at ε 4 / 8 /
// 16; dppca 0.622 at ε 8, B1 0.687); pbmc_4k 0.578 / 0.637 / 0.697 / 0.716
// / 0.674 / 0.664 (+0.063 / +0.067 at ε 2 / 4, −0.055 / −0.084 at 8 / 16:
// there the steps barely move the start's labels, so the network's share
// only thins the start; dppca 0.731, B1 0.679); mouse_bladder 0.245 / 0.377
// / 0.517 / 0.525 / 0.474 / 0.453 (dppca 0.535, B1 0.598), which still steps
// down from ε 4 to 8: its ARI falls as more of the 16 clusters hold cells
// (8–10 / 12–14 / 16 / 16 non-empty at ε 2 / 4 / 8 / 16), down to the
// no-noise 0.482. Before these rules (the sixth session's design): 0.000 /
// 0.005 / 0.080 / 0.408 / 0.624 / 0.697, 0.340 / 0.643 / 0.700 / 0.709 /
// 0.718 / 0.631 and 0.180 / 0.379 / 0.542 / 0.575 / 0.479 / 0.474. Without
// noise the network equals its null (0.614 against 0.616 on
// builtin:default): it corrects the noise of the private subspace, not the
// model.
//
// Tenth session (issues 17.1 and 16.5; docs/RESULTS.md "dcan-sound, tenth
// session (sdcan9)"): the start's public total. dppca adopted 10³ in its
// ninth session; the start kept 10⁴ (dppca.NewSource). Four rules, each
// stated in a commit before it was measured and judged on fresh draws of
// builtin:default's specification in four shapes (2,000 cells; 4,000
// cells; libraries of median 1,000 and 350, pbmc_4k's and mouse_bladder's
// depths) by (a) ARI ≥ the default's − 0.03 at every ε 1–16, (b)
// non-empty clusters ≥ the default's − 0.5, (c′) not below its own null
// by more than 0.03 at ε 4 / 8 / 16, (d) a win beyond 2 SE somewhere:
//   - target=1000: wins beyond 2 SE at five points (e.g. +0.109 at 4,000
//     cells ε 2, +0.118 at median 1,000 ε 16) but fewer non-empty clusters
//     at three (fewer of the 24 start centres clear the head's bar);
//     rejected by (b).
//   - target=1000;hold=on: rejected by (a) and (b) at 2,000 cells ε 4 and
//     4,000 cells ε 2.
//   - target=auto (10³ when the noise the network would leave on a mean,
//     ρ = MeanNoise from the released cell count, is at most TargetRho =
//     StageRho/3, else 10⁴; read from the two rules' draws: 10³ cost
//     nothing at ρ ≤ 0.067 and cost at ρ ≈ 0.11): rejected by (c′) at
//     4,000 cells ε 8 (−0.044 against its null, where the default itself
//     is −0.046 against its own: at large n·ε the network's share thins a
//     good start).
//   - target=auto;net=rho (where 10³ applies, the network's share cut to
//     what puts its noise on a mean at TargetRho, the rest to the start
//     and the head): passed (a), (b), (c′) in every shape and ε, and won
//     beyond 2 SE at 2,000 cells ε 16 (+0.068) and at median 1,000 ε 16
//     (+0.115). It is the default. Where ρ > TargetRho a run is the
//     previous default's to the digit (so the first screen, ε 4 on
//     builtin:default, is unchanged).
//
// On the shared sets afterwards (reported, not deciding; seeds 0–4) at
// ε = 8: builtin:default 0.680 (0.608 before; the DP-SGD stage +0.176
// over its null), pbmc_4k 0.659 (0.653; against its null −0.030 where it
// was −0.055), mouse_bladder 0.476 (unchanged: ρ = 0.097 there). 17.1
// stays missed on both sets, and mouse_bladder still steps down from ε 4
// to 8.
//
// Tenth session, second part (docs/RESULTS.md, "sdcan10"), by the same
// criteria on fresh draws (simulator seeds 81–87, then 91–97):
//   - genes=auto for the start (dppca's gene rule): rejected by (a) at
//     2,000 cells ε 4 and 8 (−0.090, −0.097: with 50–94 genes the network
//     gains far less), though it fills more clusters at ε ≤ 2.
//   - stagerho=0.1667 (the staged split's bound 1/6 instead of 1/4; on
//     every earlier fresh draw the network gained over its null at ρ ≈
//     0.11–0.12 and lost on average, −0.022, at ρ ≈ 0.23): passed (a),
//     (b), (c′) everywhere and won at 4,000 cells ε 1 (+0.059, 2 SE
//     0.057). It is the default. It acts only where ρ ∈ (1/6, 1/4]
//     (K = 8: 2,000 cells at ε 2, 4,000 cells at ε 1), making the run its
//     null there; elsewhere a run is the previous default's to the digit.
//   - A released decision keeping the start when the steps do not improve
//     it was not built: the trained labels scored at least the start's in
//     all 42 diagnosed runs; where a run is below its null the cost is the
//     budget the steps take from the start, which the split decides.
//
// Eleventh session (docs/RESULTS.md, "sdcan11"): option handoff (handoff.go)
// hands a run, by ρ (the noise the network would leave on a mean at its
// full share, from the released count), to dppca's own pipeline (its gene
// and p rules, 10 rounds, hold=on, 10³) with no DP-SGD step. Three rules,
// each stated in a commit before its fresh draws, by the criteria above:
//   - H, handoff=low (ρ ≤ TargetRho/2, dppca's own merge; seeds 101–107):
//     rejected by (a) at 4,000 cells ε 8 and 16 (−0.066, −0.036: there
//     the network on the default start gained +0.097 over its null) and
//     (d) (no win beyond 2 SE).
//   - H2, handoff=mid (TargetRho < ρ ≤ stagerho, dppca's own merge; seeds
//     111–117): wins +0.177 / +0.122 / +0.113 in the band but leaves 6.3
//     of 8 clusters against 7.3 at 4,000 cells ε 2: rejected by (b).
//   - H3, handoff=midmerge (the same band; dppca into 2K centres merged by
//     the head's round, as the default start is; seeds 121–127): +0.064 /
//     +0.124 / +0.055 / +0.009 (2,000 cells ε 4, 4,000 cells ε 2, library
//     log-mean 7 and 6 at ε 4; the last two beyond 2 SE) with every
//     cluster filled (7.8–8.0 against 6.3–7.3), elsewhere the default's
//     runs to the digit: passed, but kept an option by the lead: it hands
//     builtin:default's first screen (ε 4) to dppca with no DP-SGD step,
//     and loses on small sets the rule did not cover.
//
// Twelfth session (docs/RESULTS.md, "sdcan13"): the fixed h = 200. An
// empirical risk minimisation over h ∈ {100, 150, 200, 300, 400, 600, 800}
// (the summed ARI over seven simulation shapes — 2,000 and 4,000 cells,
// library log-means 7 and 6, 300 cells at DE location 0.5, the pbmc shape
// plain and with hidden child types — at ε 2 / 4 / 8 / 16, run seeds
// 0–2), stated in a commit before it ran, found a plateau over 100–200
// (40.51 / 40.41 / 40.23 of 120 runs) falling beyond (h = 800: 27.14):
// more genes raise ρ ∝ √h, so the staged split leaves the network out, or
// its noise empties clusters, more often. Its argmax h = 100 was judged
// by rule G (stated before its fresh draws 171–178): the mean paired
// difference over the 28 shape × ε cells positive beyond 2 SE, a win
// beyond 2 SE on two shapes, no loss beyond 2 SE larger than 0.02, and
// the first screen still training. It failed: +0.021 (2 SE 0.049), and
// losses of 0.09–0.20 at 4,000 cells ε 4–16 and on the pbmc shape, against
// gains of 0.20–0.34 at 300 cells and on the nested pbmc shape at ε 8–16.
// The best h falls as ρ grows; a fixed h cannot serve both regimes, so
// the fixed h stayed 200 after rule G.
//
// Option genes=auto:S (dppca.GenesRuleScale with dcan-sound's own S) is the rule that lets h move with the
// regime: h = ñ·μ/S within [50, 1000] from the released cell count ñ and
// the dppca stage's μ at the network-on share (the staged split reads its
// ρ with that h; a post-processing of the count release, as genes=auto,
// whose form it shares with dcan-sound's own scale in place of dppca's
// 25). The count is released first whenever it is set. Its scale was
// fitted by the same ERM over S ∈ {3, 4.5, 6.5, 9, 13, 19} (19, at the
// grid's edge: summed ARI 43.37 against h = 200's 40.23) and judged by
// rule G2 (rule G's criteria, stated before its fresh draws 181–188),
// which it passed. The lead kept h = 200 as the default all the same: on
// the first screen (builtin:default at ε 4, seeds 0–4) genes=auto:19
// picks h = 68 and its network ends level with its own null (0.263
// against 0.266), where h = 200's network gains on its null (0.341
// against 0.272). The first screen must show a DP-SGD run that learns
// (DECISIONS.md, "Default method"), and rule G2's clause (d) asked only
// that its steps run. Shared sets, reported and not deciding, go both
// ways (docs/RESULTS.md, "sdcan13").
//
// Twelfth session, second part (docs/RESULTS.md, "sdcan14"): option
// genes=grow:S, h = max(200, min(1000, ñ·μ/S)) (Options.GenesFloor,
// scaledGenes): the same rule as genes=auto:S with today's fixed h as a
// floor, so it never takes genes away where the first screen's network
// learns with 200 and adds them where the released count and budget
// allow (the pbmc-shaped draws preferred 600–800). Its S was fitted by
// the same ERM over {3, 4.5, 6.5, 9, 13, 19}, and it was judged by rule
// G3 (stated before its fresh draws 191–198): rule G2's (a) and (b); (c)
// per shape (no shape's mean paired difference below −0.02 beyond 2 SE,
// no cell below −0.10), since a per-cell guard over 28 cells fails by
// chance (dppca's rule G12); and (d) the first screen's network gains on
// its own null beyond 2 SE (genes=200 does: +0.069, 2 SE 0.050). The ERM
// chose S = 19 (summed ARI 40.53 against h = 200's 40.23; the grid's
// edge again). Rule G3 PASSED on draws 191–198 and genes=grow:19 is the
// default (DefaultGenesOption): (a) +0.0086 over the 28 cells (2 SE
// 0.0084; 19 cells are the same runs as h = 200's, the floor holding),
// (b) wins on the pbmc shape at ε 8 (+0.086), the nested pbmc shape at
// ε 8 and 16 (+0.059) and 4,000 cells at ε 16 (+0.011), (c) no shape
// below −0.002 on average and no cell below −0.009, (d) on the first
// screen h stays 200 and the runs are genes=200's to the digit (network
// 0.341 against its null 0.272). The gain is small and lies where ñ·μ is
// large (4,000 cells and more at ε ≥ 8); elsewhere a run is h = 200's.
//
// Thirteenth session (docs/RESULTS.md, "sdcan15"): mouse_bladder at ε 8
// (0.476 against the bar 0.487) was diagnosed, mostly without labels. ρ =
// 0.097 keeps the network on at its full share. The network moves the run
// towards its own no-noise clustering (+0.019, 2 SE 0.012), and 16 of 16
// clusters hold cells. The design without noise gives only 0.506 there.
// Two options came out of it, each judged on a simulation shape with
// mouse_bladder's label-free facts (DPSCOPE_SOUNDDCAN_SHAPE=mb: 2,746
// cells, K = 16 of its sizes) under a rule stated before its fresh draws.
// Both failed and stay options:
//   - p=span (Options.PSpan, forK): p = max(10, K − 1) within 30, since
//     K means span K − 1 dimensions. Rule G4 (draws 201–208): +0.0062
//     over 12 cells (2 SE 0.0122), a win on one shape only.
//   - over=noise (Plan.overByNoise): 3K centres only when one of the
//     stage's Lloyd rounds leaves at most stagerho of R on an average 3K
//     centre's mean (mouse_bladder ε 8: 0.19), else 2K. Rule G5 (draws
//     211–222, rule G3's shapes and the mb shape): +0.0047 over 40 cells
//     (2 SE 0.0073), a win on one shape only; the first screen still
//     learnt (+0.147 over its null).
//
// Thirteenth session, second part (docs/RESULTS.md, "sdcan16"): after
// dppca's scale went 25 → 18 (rule G13), its whole pipeline at ε 8 beats
// the start on the real sets. Label-free, the start reads fewer genes
// (mouse_bladder 200, pbmc_4k 265 against dppca's 255 and 396), with 0.5
// to 0.77 of μ², p = 10, 5 rounds and 3K centres. Option genes=whole:S
// (Options.GenesWhole, Plan.genesMu) reads grow:S at the whole run's μ,
// so whole:18 reads at least dppca's h. Rule G6 (draws 231–239: rule
// G3's shapes, the mb shape and dppca's simlinoff12 family,
// DPSCOPE_SOUNDDCAN_SHAPE=simlinoff12) FAILED: −0.0038 over 36 cells
// (2 SE 0.0145). It won on the mb shape (ε 8 +0.049) but lost beyond
// 2 SE below −0.10 on simlinoff12 (ε 8 −0.157: the larger h lifts ρ
// over TargetRho, so the start normalises to 10⁴) and the pbmc shape
// (ε 8 −0.105). It stays an option. So does genes=start:S
// (Options.GenesRulesAtDefault): whole:S for the start, with the rules
// that read ρ reading it at the default's h. It was designed after G6's
// draw 239 and judged by rule G7 on fresh draws 241–249, where it FAILED:
// +0.0003 over 36 cells (2 SE 0.0127), and a win on one shape only. More
// genes gain on the marker-like shapes and lose on the Splatter-like
// ones at ε 8–16.
//
// Fourteenth session (docs/RESULTS.md, "sdcan17"): the gap between the
// null and dppca at the same ε, decomposed on simulations
// (TestStartFactorial, diagnosis draws 251–255: the mb, simlinoff12 and
// pbmc shapes, 2,000 and 4,000 cells; ε 4 / 8 / 16). On these shapes the
// null is level with dppca at ε 8 (mean −0.005 over the five shapes) and
// below it at ε 16 (−0.10): the real sets' gap at ε 8 is not reproduced.
// Hold, the total and the mixture's labels (against nearest-centre ones)
// move nothing; no over-clustering always loses (−0.03 to −0.21); p=auto
// alone lifts the null at ε 16 on every shape (+0.02 to +0.08) and is
// mixed at ε 4–8; dppca's gene rule, its 10 rounds and its own 2K
// over-clustering go either way by shape. Option start=alone
// (StartAlone) is dppca's default pipeline exactly as the start, at the
// stage's share around the staged split's count
// (dppca.Source.PlanForCount), no head round (its share to the start),
// the mixture from dppca's K centres weighted by its last round's released
// counts (dppca.Outcome.Counts); its null is dppca at the whole budget
// (TestStartAloneIsDPPCA checks the start's releases against
// dppca.Release and the ledger against the target). Option rounds sets the
// start's Lloyd rounds. Rule G8 (stated in commit 80cffe8 before its fresh
// draws 261–269, G7's shapes and clauses) judged start=alone and p=auto
// against the default; both FAILED. start=alone: +0.0146 over the 36
// cells (2 SE 0.0295), wins on five Splatter-style shapes but losses
// beyond 0.10 on mb (ε 2 −0.246) and simlinoff12 (ε 2 −0.108, ε 4
// −0.183), where dppca's start leaves clusters empty. p=auto: +0.0042
// (2 SE 0.0125), wins on the pbmc shape only. On the first screen
// (builtin:default ε 4, seeds 0–4) the network falls below its own null
// under either (start=alone −0.059, p=auto −0.088, against the default's
// +0.046), so both fail clause (d) as well. Both stay options; the
// defaults are unchanged.
//
// Sixteenth session (docs/RESULTS.md, "sdcan18"): the clip. Every cell's
// gradient is clipped to 1 as a whole, and with the natural bounds its
// weights' block (‖r − π‖ ≈ 0.9 for a clear cell, K = 8) and its
// variance's block (≈ ‖x − μ‖²/R² ≈ 0.8) are as large as its means'
// block (≈ ‖x − μ‖/R ≈ 0.9): the whole has norm ≈ 1.5, so every cell's
// means gradient was cut to ≈ 2/3 while the noise on the means was not.
// Option sideclip=c (Options.SideClip) divides those two blocks by c and
// scales them back in the update; the plan, every σ, ρ and the ledger are
// unchanged, and so is the null (no step). Rule G9 (stated before its
// fresh draws 301–309, G8's nine shapes and clauses) judged sideclip=4
// against sideclip=1 and it PASSED: (a) +0.0117 over the 36 cells (2 SE
// 0.0058); (b) wins beyond 2 SE on seven shapes (largest: 4,000 cells
// +0.023 / +0.037 / +0.044 / +0.076 at ε 2 / 4 / 8 / 16; 2,000 cells
// +0.047 at ε 4); (c) no shape below −0.0003 on average, no cell below
// −0.001 (where the network is off the runs are the same); (d) on the
// first screen (builtin:default, ε 4, seeds 0–4) the network gives 0.382
// ± 0.085 against its null's 0.282 ± 0.066, +0.100 (2 SE 0.025; with
// DPSCOPE_BLAS=go +0.139, 2 SE 0.049), where sideclip=1 gave +0.046 (2 SE
// 0.047). sideclip=4 is the default (DefaultSideClip); sideclip=1 is the
// design before it. On the shared sets at ε 8 (reported, not deciding)
// it gives mouse_bladder 0.481 (0.488 before) and pbmc_4k 0.696
// (unchanged). Option netdim=q (the network in the q leading
// eigenvectors of the start's released covariance, so its noise on a
// mean grows with √q instead of √h) lost on the development draws (the
// smaller q, the more) and was not judged: the genes network's freedom
// to leave the private subspace is worth more than its √h noise.
//
// Sixteenth session, second part (docs/RESULTS.md, "sdcan19"): the means'
// clip. Option rhoclip=r (Options.RhoClip; default gclip) makes the rules
// that read ρ (the staged split, net=rho, target=auto, handoff, the gate)
// read it at r·R instead of at gclip's bound, so gclip=0.9;rhoclip=1
// decides and shares the budget as the default does and differs only in
// the means' clip and the noise it sets (those rules' thresholds were all
// fitted at the bound 1). Under sideclip=4 a cell's whole gradient is
// already ≈ 0.95–1.0 of its bound, so a means' bound of 0.9·R cuts most
// cells (61–84 % on development draws) by a little (mean factor
// 0.94–0.97): it trades 10 % of the noise on the means for 3–6 % of their
// signal. Rule G10 (stated before its fresh draws 320–328, G9's nine
// shapes and clauses) judged gclip=0.9;rhoclip=1 against the default and
// it FAILED (a): +0.0020 over the 36 cells (2 SE 0.0030); (b) wins on
// three shapes (at ε 8–16 only), (c) no shape below −0.0008 on average,
// (d) the first screen's network +0.115 over its null (2 SE 0.017; the
// default +0.100). gclip and rhoclip stay options; step sizes with paths
// S·η of 2, 4 and 5 and 25 steps were no clear gain on development draws.
//
// Sixteenth session, third part (docs/RESULTS.md, "sdcan20"): why the
// network leaves fewer clusters non-empty than its null at ε 4 (6.2 of 8
// against 7.8 on the first screen). Label-free (TestEmptyDiag, development
// draws 330–335): the components that end empty were empty at the start
// (6.17 non-empty at the start, 6.08 at the end, 6.17 after the same
// start's noise-free steps, 7.75 for the null): at the network-on share
// only 5–8 of the 24 over-clustered centres hold cells after the dppca
// stage's rounds, the merge puts the rest at light centres where no cell
// is nearest, and the gate holds them there for every step. Separately,
// the noisy steps drain one to three populated components per run to a
// few cells (noise-free steps keep every one), their weight falling
// before the gate holds them. Three options came out of it, with tests:
// labels=means (Options.Labels: each cell's nearest trained mean, without
// π), weights=fixed (Options.WeightsFixed: π kept at its start) and
// refill=split (Options.Refill, mixture.refill: before the steps, each
// weightless component splits the heaviest in gene space along a public
// random direction of the start's basis, its halves 0.05·√(h·v) apart).
// Rule G11 (stated before its fresh draws 340–348, G9's nine shapes and
// clauses) judged refill=split and it FAILED (a) and (b): −0.0014 over
// the 36 cells (2 SE 0.0052), no win beyond 2 SE; it fills every
// component, but where the heaviest is one population the split cuts it
// (pbmc shape ε 2 −0.067). (c) and (d) held (first screen +0.097 over its
// null, 2 SE 0.061, 8.0 clusters). All three stay options; the defaults
// are unchanged.
//
// Sixteenth session, fourth part (docs/RESULTS.md, "sdcan21"): the start
// that sdcan20 found already missing the clusters. Option rounds=auto
// (RoundsAuto, Plan.roundsByNoise): the start's Lloyd rounds T, the
// largest in [1, 5] for which one round leaves at most stagerho of R of
// noise on an average one of the 3K centres' means (over=noise's
// measure, from the released cell count at the stage's network-on
// share; the null chooses alike). It keeps the 3K centres, which
// over=auto and over=noise showed collapse less than fewer centres, and
// gives each round less noise and fewer chances to lose a centre. On
// the first screen it runs T = 2 (measure 0.147): on development draws
// 350–354 at ε 4, 10.4 of the 24 centres have a released count above
// the bar against 5.9, and 7.5 of 8 components end non-empty against
// 5.8, but ARI falls by 0.049 (2 SE 0.057): the rounds also sharpen the
// populated centres. Rule G12 (stated before its fresh draws 360–368,
// G9's nine shapes and clauses) FAILED (a): −0.0057 over the 36 cells
// (2 SE 0.0071); (b) wins on 300 cells ε 4 and mb ε 8, losses beyond
// 2 SE on simlinoff12 ε 4 (−0.064) and pbmc ε 2 (−0.052); (c) held; (d)
// held (the first screen's network +0.096 over its null, 2 SE 0.054, at
// 0.333 against the default's 0.382, non-empty 7.6 against 6.2). Filling
// the count with fewer rounds does not recover the populations; rounds
// (a number or auto) stays an option and the defaults are unchanged.
//
// Seventeenth session (docs/RESULTS.md, "sdcan22"): the start's gap to
// dppca, label-free on development draws 370–379 (TestStartGap, the
// start's rules × its share). The share is the small part (the stage
// loses +0.017 by its network-on share, dppca's start +0.055); dppca's
// rules at the whole budget beat the stage's by +0.072, except on
// simlinoff12 at ε 4 (−0.180); label-free, dppca's K-centre rounds leave
// half the stage's noise per round on a centre's mean, with fewer
// clusters. start=alone inherits dppca's floor=3:drop, which can release
// K' < K centres; the fit had stopped on them and now runs a mixture of
// K' components (TestStartAloneFloorDrop). Rule G13 (stated before its
// fresh draws 380–388, G9's nine shapes and clauses) judged start=alone,
// with avg=5 and the floor, against the default and it FAILED (a), (c)
// and (d): +0.0125 over the 36 cells (2 SE 0.0311); confident losses
// beyond 0.10 on simlinoff12 at ε 2 and 4 (−0.178, −0.169); on the first
// screen its network falls below its null, dppca (−0.042, 2 SE 0.186).
// It stays an option; the defaults are unchanged.
//
// Seventeenth session, second part (docs/RESULTS.md, "sdcan23"): the
// genes option now reaches start=alone (genes=auto:S and grow:S: h =
// max(200 under grow, ñ·μ/S), μ the start's own, passed to dppca as the
// scale of its rule that gives that h, aloneGenesScale;
// TestStartAloneGenesFloor), aimed at G13's losses at ε 2–4 where
// dppca's rule reads h ≈ 100. Rule G14 (stated before its fresh draws
// 400–408, G13's shapes and clauses) judged start=alone;genes=grow:18
// against the default and it FAILED (a), (c) and (d): −0.0126 over the
// 36 cells (2 SE 0.0174); simlinoff12's losses were gone (+0.055, +0.001
// at ε 2, 4) but mb lost −0.174 and −0.101 at ε 2 and 4 (the network off,
// the start dppca with 200 genes) and pbmc with sizes and nest −0.113 at
// ε 2; on the first screen the network did not beat its null (−0.009,
// 2 SE 0.113). It stays an option; the defaults are unchanged.
//
// Nineteenth session (docs/RESULTS.md, "sdcan24"): option start=merge
// (StartMerge) puts dppca's over-clustering structure inside the stage.
// Its first 2 of 5 Lloyd rounds run with 3K centres, merged into K by
// their released counts at the bar (with fewer than K pieces at the bar,
// those and then the heaviest others, dppca.Options.HeldFill); the last
// 3 rounds run with K, so each leaves a third of the noise on a centre's
// mean; the head's round weights the K centres without a merge. The plan
// and the ledger are the default's (TestStartMerge). Label-free on
// development draws 400–408 the start's objective in its own codes did
// not improve (at or below the stage's on eight of nine shapes), and a
// noise-free Lloyd oracle gains little from either start. Rule G20
// (stated before its fresh draws 410–418, G14's shapes and clauses, (d)
// the first screen's learning verdict) judged start=merge;hold=on
// against the default and it FAILED (a): +0.0043 over the 36 cells (2 SE
// 0.0109). (b), (c) and (d) held: the first screen's network +0.136
// over its null (2 SE 0.102). It stays an option; the defaults are
// unchanged.
//
// Twentieth session (docs/RESULTS.md, "sdcan25"): label-free
// (TestSplitDiag), on pbmc_4k and mouse_bladder at ε 8 the start's
// private basis holds 0.96–0.98 of the noise-free top-10 variance of
// its own rows, every released eigenvalue is far above the noise edge,
// and noise-free Lloyd rounds from its labels gain +0.002 and +0.007 in
// separation: the start already sits at a noise-free k-means fixed
// point of its rows, so its seeding and subspace are not where it loses
// to dppca there. On development draws at small n·ε (2,000 cells, ε
// 2–4) the same oracle gains +0.24, with 5.3 of 8 clusters non-empty.
// Two options came out of it, both leaving the plan's μ and the ledger
// unchanged: avg=N (Options.Avg; dppca.Options.HeldAvg), the start's
// final centres the mean of its last N rounds' released centres (dppca's
// avg, which never reached the stage's held releases), and split=F
// (Options.Split), the private PCA's share of the stage's μ² (more of it
// raised the capture and emptied clusters). On development draws 400–408
// (G13/G14's nine shapes, ε 2–16, run seeds 0–2) avg=3 and avg=5 fill
// clusters but are level with the default (−0.0022 and −0.0009 over the
// 36 cells, 2 SE 0.0065 and 0.0068), and target=1000 lost on the mb
// shape (−0.11 and −0.10 at ε 4 and 8; −0.0072 over the 36 cells), so
// no rule was written and no fresh draw was used. The defaults are unchanged.
//
// Twentieth session, second part (docs/RESULTS.md, "sdcan26"): the
// start's rows built as dppca's. Three options, none a default: offset=dir
// (Options.Offset) passes dppca's offset removal to the stage (its share
// in dppca's plan; the ledger records the stage's mechanisms as they ran,
// so it holds the offset's release exactly when the stage made it);
// genes=alone:S is whole:S without the floor of 200 (at S = 18 dppca's
// own rule, h = ñ·μ/18 within 50–1000 at the whole μ); genes=alonestart:S
// is alone:S with the rules that read ρ at the default's h. Label-free, on
// pbmc_4k and mouse_bladder at ε 8 the combination genes=alone:18
// target=1000 offset=dir leaves every cluster filled and the capture and
// oracle level (the offset's prediction does not fire there); at small
// n·ε it fills clusters (2,000 cells at ε 2–4: 5.3 → 7.3 of 8). On
// development draws 400–408 (G13/G14's shapes, ε 2–16, seeds 0–2) both
// alone:18 and alonestart:18 with target=1000 offset=dir held G20's (a)
// narrowly (+0.029 and +0.031 over the 36 cells) and failed (c) on one
// cell each (mb ε 4 −0.165; simlinoff12 ε 2 −0.173), winning most at
// small n·ε (300 cells +0.16 to +0.22 at every ε). No rule G22 was
// written; the defaults are unchanged.
//
// Twenty-first session (docs/RESULTS.md, "sdcan27"): option rows=auto:H
// (Options.RowsBelow, off by default) uses sdcan26's candidate 2
// (genes=alonestart:18 target=1000 offset=dir) only where dppca's own gene
// rule, read from the released cell count at the whole run's μ, gives
// fewer than H genes (small n·ε), and the default's rows elsewhere. The
// choice is post-processing of the count release; the plan, the ledger
// (event for event, as the stage ran) and the labels are those of the
// options chosen (TestRowsAuto). H = 62 was read from development ARI
// (draws 400–408): it takes the 300-cell shape and the 2,000-cell shapes
// at ε 2 and leaves simlinoff12 at ε 2 (h 69.7, where candidate 2 lost)
// out. Rule G22 (stated before its fresh draws 419–427, G20's clauses)
// FAILED (a) by 0.0001: +0.01997 over the 36 cells against 2·sd/√36 =
// 0.02007, with every switched cell a gain (+0.01 to +0.29) and no
// loss; (b), (c) and (d) held. It stays an option; the defaults are
// unchanged. At ε 8 on the shared sets it never switches (h 253–396).
// TestSepDiag (label-free) found the default's trained components on
// mouse_bladder at ε 8 apart by ‖μ_j − μ_k‖/(2√v) ≥ 2.09 (v the
// released variance, the means' noise taken off), so a merge of
// overlapping components would not give dppca's fewer filled clusters
// there.
//
// Twenty-first session, second part (docs/RESULTS.md, "sdcan28"): option
// mergestarts=N (Options.MergeStarts; 20, the default, is mergeRestarts)
// searches the head's merge of the 3K released centres into K with N
// weighted k-means++ + Lloyd starts, the 20 of before from the run's
// stream and the rest from a stream seeded by the released centres and
// weights (mergeRng), so the noise, plan, σ and ledger are the default's
// and the inertia is never worse (TestMergeCentresStarts,
// TestMergeStartsRun); under start=alone it sets dppca's own merge's
// starts. Label-free (TestHeadMergeDiag), the 20-start merge is above the
// best of 1,000 starts' inertia in 19 of 30 development runs (up to 8 %)
// and on pbmc_4k's seeds 3 and 4 at ε 8 (6 %, 24 %), never on
// mouse_bladder. On development draws 400–408 mergestarts=1000 failed
// G20's (a) (−0.0009 over the 36 cells) and (b), so no rule G24 was
// written; it is an option and the defaults are unchanged.
//
// Twenty-second session (docs/RESULTS.md, "sdcan29"): option
// seedstarts=N (Options.SeedStarts, dppca.Options.SeedStarts; 10, the
// default) searches the stage's histogram seeding of its 3K centres with
// N weighted k-means++ + Lloyd starts, the ten of before from the run's
// stream and the rest from a stream seeded by the released bins, so the
// noise, plan, σ and ledger are the default's (TestSeedStartsRun,
// TestSeedFromPointsStarts). The ten starts' seeding inertia is 2–25 %
// above the best of 1,000 on every shared-set run at ε 8, but on
// development draws 400–408 seedstarts=1000 failed G20's (a) (−0.0016
// over the 36 cells), so no rule G25 was written. TestObjectiveDiag
// (label-free) found the default's partitions at ε 8 at a higher
// between-cluster share than dppca's on mouse_bladder in every run, in
// both rows' references: there dcan-sound does not lose the k-means
// objective to dppca, so no design that only keeps or raises it can
// reach dppca's partition.
//
// Twenty-third session (docs/RESULTS.md, "sdcan30"): option keep=gate
// (Options.KeepGate; all, the default) leaves out of the final labels
// every component the gate's own test finds too light for the noise after
// the last step (MeanNoise with its trained weight, ñ·π_j cells, above
// StageRho; the heaviest always kept), its cells going to their most
// probable kept component: the network's bar for a cluster its releases
// support, as dppca's release loses a light centre to its sums' noise.
// Post-processing of the released weights and means: the plan, the
// trained mixture and the ledger are the default's, a cell of a kept
// component keeps its label, and the null is unchanged (TestKeepRun).
//
// Second part (docs/RESULTS.md, "sdcan31"): option keep=count reads the
// cells instead of the trained weight, which the steps drain from real
// small populations: after the last step it releases one Gaussian count
// per component of the cells it labels (Δ = 1; MechFinalCounts, with the
// head round's count noise, its share of μ² taken from the head's, so the
// plan still composes to the target) and leaves out every component whose
// count is below the head's bar (minCountSigmas·σ, at least one cell; the
// largest count always kept), its cells going to their most probable kept
// component (TestKeepCountRun).
//
// Third part (docs/RESULTS.md, "sdcan32"): option join=codes
// (Options.JoinCodes; off, the default) labels every cell by its nearest
// trained mean on its network rows joined to its codes, the start's
// private projection the run already released, each block scaled to unit
// total variance under the released mixture (mixture.joinScales: between-
// plus within-component variance, the codes' block on the start's basis),
// so the start's denoised p directions weigh as much as the h genes.
// Post-processing: the plan, the trained mixture and the ledger are the
// default's, and the null is unchanged (TestJoinRun).
package sounddcan
