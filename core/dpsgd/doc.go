// Package dpsgd implements differentially private stochastic gradient
// descent (Abadi et al. 2016, https://arxiv.org/abs/1607.00133) on the
// dense networks of core/nn, as DP-DCAN trains them (docs/METHODS.md §1):
//
//  1. sample a batch: each of the N records independently with probability
//     q (Poisson sampling, the default and the only scheme the accountant
//     covers), or fixed-size shuffled batches as an explicitly labelled
//     option that no accountant covers;
//
//  2. compute each sample's gradient norm without materialising per-sample
//     gradients ("ghost norms"): a dense layer's per-sample weight gradient
//     is Σ_s g_s·a_sᵀ over the views s of the sample (a_s the layer input,
//     g_s the signal ∂L/∂Z), so
//
//     ‖∇W‖² + ‖∇b‖² = Σ_{s,t} (g_s·g_t)(a_s·a_t + 1)
//
//     which for one view is ‖g‖²(‖a‖² + 1); two augmented views of one cell
//     are one sample whose gradients add before clipping;
//
//  3. clip: the perturbed layer range and the rest are clipped to C
//     separately (DP-DCAN Algorithm 2, ClipGroups) or the whole network
//     jointly (ClipJoint, the DP-DCAN authors' code): each sample's share is
//     multiplied by min(1, C/(‖g‖ + 1e-6)) (the 1e-6 as in Opacus);
//
//  4. form the clipped sum with the usual weight-gradient GEMM after scaling
//     each sample's rows by its factor — of the signal, or of a copy of the
//     input where that is narrower (nn.Dense.AccumulateGradWeighted) — so
//     DP costs a pass over the narrower side more than non-private
//     training;
//
//  5. add Gaussian noise N(0, σ²C²) to every coordinate of the perturbed
//     layers' summed gradient (not to the rest);
//
//  6. divide by the expected batch size q·N (the actual size B for shuffled
//     batches; folded into the factors of 4 and the noise's scale) and take
//     an optimizer step.
//
// Every step is first offered to a [Recorder] (the privacy ledger), which
// may refuse it: then no parameter changes.
//
// # Randomness
//
// Sampling comes from a PCG stream (rand.NewPCG(seed, 1)) and noise from
// eight xoshiro256++ lanes seeded from (seed, 2), so runs reproduce
// exactly, on every machine. The noise is turned into normals by a
// 1,024-layer ziggurat (normal.go) that runs 16 draws at a time with
// AVX-512 (kernels_amd64.s): about 0.6 ns a draw, added into the gradient,
// against NormFloat64's 5.2 on PCG; on CPUs with AVX2 but not AVX-512 (or
// with DPSCOPE_SGEMM=avx2) AVX2 kernels give the same draws at about 1.5
// ns, where the Go loops took 4–6. With two or more processors the seeded
// noise's blocks are dealt to two goroutines, each starting from the
// lanes' state jumped ahead over GF(2), with the same draws and bits as on
// one (about 1.45× as fast on AVX2 with the second core free); and the
// next step's seeded draws are made ahead, between steps' halves, by
// compute.Split's helper goroutine while it would otherwise idle
// (ahead.go), again with the same bits. Seeded
// noise is for teaching and reproducibility only: anyone who knows the seed
// can remove the noise. With Config.Secure both streams are ChaCha8
// generators keyed from crypto/rand, as production DP requires (the
// noise then costs about 2 ns a draw more: 2.9 ns). Even then
// the noise is drawn in floating point, which leaks through the low bits
// (Mironov 2012, "On significance of the least significant bits for
// differential privacy"); dpscope is a tool for exploring trade-offs, not a
// hardened DP library.
//
// # Privacy reading
//
// The per-step sensitivity is C only when every parameter that shapes the
// gradients is either noised or public. With a perturbed range other than
// all layers, un-noised layers trained on the same data shape the perturbed
// gradients; see docs/METHODS.md §1 for why that leaves no formal
// guarantee. This package computes what it is asked to; the guarantee status
// is the trainer's to report.
package dpsgd
