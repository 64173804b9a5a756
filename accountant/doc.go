// Package accountant computes the privacy cost of the mechanisms dpscope runs:
// Rényi differential privacy (RDP) of the Poisson-subsampled Gaussian
// mechanism, privacy loss distributions (PLD) composed by FFT, zero-concentrated
// DP (zCDP), Gaussian DP (μ-GDP), the analytic Gaussian mechanism, noise
// calibration, the published papers' own budget formulas (kept apart and named
// as such), a composition ledger, a privacy filter and hypothesis-testing
// trade-off curves.
//
// Every ε that dpscope shows comes from this package and is labelled with the
// accountant that produced it. The package imports only the standard library
// and gonum, so it can be used and tested on its own.
//
// # Adjacency
//
// All accountants use add/remove-one adjacency, as Opacus, TensorFlow Privacy
// and Google's dp_accounting do for DP-SGD. An Event with SampleRate q and
// NoiseMultiplier z is one step of the Poisson-subsampled Gaussian mechanism
// SG_{q,z}: every record is kept with probability q, the kept records' clipped
// contributions (ℓ2 norm ≤ Δ) are summed and N(0, z²Δ²) noise is added per
// coordinate. q = 1 is the plain Gaussian mechanism.
//
// # Accountants
//
//   - RDP (Mironov 2017, https://arxiv.org/abs/1702.07476; Mironov, Talwar &
//     Zhang 2019, https://arxiv.org/abs/1908.10530): exact at integer and
//     fractional orders, converted to (ε, δ) by the improved conversion of
//     Balle et al. 2020 (https://arxiv.org/abs/1905.09982, Thm 21) or the
//     classic one.
//   - PLD (Koskela et al. 2020; Doroshenko et al. 2022, connect-the-dots,
//     https://arxiv.org/abs/2207.04380): a pessimistic discretisation, so the
//     reported ε is an upper bound up to a stated truncation mass.
//   - zCDP (Bun & Steinke 2016, https://arxiv.org/abs/1605.02065;
//     Canonne, Kamath & Steinke 2020, https://arxiv.org/abs/2004.00010) and
//     μ-GDP (Dong, Roth & Su 2019, https://arxiv.org/abs/1905.02383).
//
// # Errors
//
// Inputs are validated at every exported function: NaN, ±Inf and values
// outside a parameter's domain return an *InputError that names the value
// (errors.Is(err, ErrInvalidInput) holds; non-finite values also match
// ErrNonFinite). No exported function returns NaN or ±Inf together with a
// nil error, and none panics on data-dependent input.
//
// # Concurrency
//
// Functions are safe for concurrent use. Ledger and Filter are safe for
// concurrent use by multiple goroutines; their zero values are not usable,
// construct them with NewLedger and NewFilter.
package accountant
