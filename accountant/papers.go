package accountant

import (
	"fmt"
	"math"
)

// PPMLOmicsBudget holds PPML-Omics' own budget split (Zhou et al.,
// ../papers/ppml-omics.txt, "σ Selection with analytic Gaussian DP
// mechanism") for end-to-end (ε_T, δ_T) over E epochs and K clients. These
// are the paper's figures, not a certified guarantee: see PPMLOmics.
type PPMLOmicsBudget struct {
	EpsilonC float64 `json:"epsilon_c"` // ε_c = ε_T/(2√(2E ln(2/δ_T))), per epoch at the server
	DeltaC   float64 `json:"delta_c"`   // δ_c = δ_T/(2E)
	EpsilonB float64 `json:"epsilon_b"` // ε_b = ε_c√K/√(ln(2/δ_c)), per client per epoch
	DeltaB   float64 `json:"delta_b"`   // δ_b = δ_c/K
	Sigma    float64 `json:"sigma"`     // analytic-Gaussian σ at (ε_b, δ_b, Δ = C)
	EpsilonL float64 `json:"epsilon_l"` // FL-DP per-epoch ε_l (same formula as ε_c, as METHODS.md fixes it)
	DeltaL   float64 `json:"delta_l"`   // FL-DP δ_l = δ_T/(2E)
	SigmaL   float64 `json:"sigma_l"`   // FL-DP σ at (ε_l, δ_l, Δ = C)
	// EpsilonAudited is the client-level ε at δ_T that the noise actually
	// certifies: each client's clipped update (replace-one sensitivity 2C)
	// released with N(0, σ²) noise in each of E rounds, composed exactly as
	// μ-GDP with μ = 2C√E/σ, with no credit for shuffling.
	EpsilonAudited float64 `json:"epsilon_audited"`
}

// PPMLOmics returns the paper's budget split, the σ it prescribes and the
// audited client-level ε. Where the formulas depart from the theorems they
// cite:
//   - ε_c comes from Dwork–Roth's advanced-composition corollary (Cor. 3.21
//     with δ' = δ_T/2), which requires ε_T < 1; the paper applies it for
//     ε_T ≥ 1.
//   - ε_b = ε_c√K/√(ln(2/δ_c)) inverts the asymptotic amplification-by-
//     shuffling bound with its constant set to 1; Erlingsson et al. 2019 and
//     Feldman, McMillan & Talwar 2021 carry constants 8–12 and need
//     K > 16 ln(2/δ) clients (≈ 232 at δ = 1e-6), and the pairwise-swap
//     protocol is not a uniform shuffle. Shuffling summands does not change
//     their sum either.
//   - σ is calibrated for sensitivity C, but replacing one client's clipped
//     update moves it by up to 2C.
//
// The paper's text gives ε_l with ln(1/δ_T) in one place and ln(2/δ_T) in
// another; this follows ../docs/METHODS.md (ln(2/δ_T)).
func PPMLOmics(epsT, deltaT float64, epochs, clients int, clip float64) (PPMLOmicsBudget, error) {
	if err := checkEpsilon(epsT); err != nil {
		return PPMLOmicsBudget{}, err
	}
	if err := checkDelta(deltaT); err != nil {
		return PPMLOmicsBudget{}, err
	}
	if epochs < 1 {
		return PPMLOmicsBudget{}, inputErr("epochs", float64(epochs), "≥ 1")
	}
	if clients < 1 {
		return PPMLOmicsBudget{}, inputErr("clients", float64(clients), "≥ 1")
	}
	if err := checkPositive("clip", clip); err != nil {
		return PPMLOmicsBudget{}, err
	}
	e := float64(epochs)
	var b PPMLOmicsBudget
	b.EpsilonC = epsT / (2 * math.Sqrt(2*e*math.Log(2/deltaT)))
	b.DeltaC = deltaT / (2 * e)
	b.EpsilonB = b.EpsilonC * math.Sqrt(float64(clients)) / math.Sqrt(math.Log(2/b.DeltaC))
	b.DeltaB = b.DeltaC / float64(clients)
	b.EpsilonL, b.DeltaL = b.EpsilonC, b.DeltaC
	var err error
	if b.Sigma, err = AnalyticGaussianSigma(b.EpsilonB, b.DeltaB, clip); err != nil {
		return PPMLOmicsBudget{}, err
	}
	if b.SigmaL, err = AnalyticGaussianSigma(b.EpsilonL, b.DeltaL, clip); err != nil {
		return PPMLOmicsBudget{}, err
	}
	if b.EpsilonAudited, err = GDPEpsilon(2*clip*math.Sqrt(e)/b.Sigma, deltaT); err != nil {
		return PPMLOmicsBudget{}, err
	}
	return b, nil
}

// DPDCANTheorem1 returns ε as DP-DCAN's Theorem 1 states it (Wang et al.,
// ../papers/dp-dcan.txt, Eq. 15): the RDP R1 + R2 of the two training stages
// (Theorem 2, Eq. 16) converted by the improved conversion,
// ε = R1 + R2 + ln((α−1)/α) − (ln δ + ln α)/(α−1), minimised over the orders
// of the authors' code (OrdersDPDCAN). Departures: Eq. 16 is a binomial sum
// defined only at integer α, while the code evaluates fractional orders by
// the series (as here); Theorem 1 names no α (the code minimises over the
// grid); and the theorem assumes each step's sensitivity is C, which fails
// when un-noised layers trained on private data shape the noised gradients
// (../docs/METHODS.md, "Privacy reading"): for any layer range but 1–6 this
// number is the paper's accounting, not a guarantee.
func DPDCANTheorem1(stage1, stage2 []Event, delta float64) (eps, order float64, err error) {
	evs := append(append([]Event(nil), stage1...), stage2...)
	return EpsilonRDP(evs, delta, OrdersDPDCAN.Orders(), Improved)
}

// DPMDSplit is the zCDP budget split of DP manifold denoising
// (../papers/dp-manifold-denoising.txt, Algorithm 2).
type DPMDSplit struct {
	RhoTotal float64 `json:"rho_total"` // ρ_tot with ε = ρ + 2√(ρ ln(1/δ))
	RhoQuery float64 `json:"rho_query"` // ρ_tot/m
	RhoP     float64 `json:"rho_p"`     // θ·ρ_query/T per iteration, projector
	RhoM     float64 `json:"rho_m"`     // (1−θ)·ρ_query/T per iteration, mean
	NoiseP   float64 `json:"noise_p"`   // ς_P = Δ_P/√(2ρ_P), per unit sensitivity
	NoiseM   float64 `json:"noise_m"`   // ς_m = Δ_m/√(2ρ_m), per unit sensitivity
}

// DPMDBudget returns DP-MD's split of (ε, δ) across m queries, T iterations
// and the projector/mean share θ ∈ (0, 1): ρ_tot = (√(ln(1/δ)+ε) − √(ln(1/δ)))²
// (the classic zCDP conversion inverted), ρ^(q) = ρ_tot/m, ρ_P = θρ^(q)/T,
// ρ_m = (1−θ)ρ^(q)/T, ς = 1/√(2ρ). Departure: dividing ρ_tot by m composes
// the m queries as if each touched every record, which is sound; the
// paper's sensitivities (Lemmas 1–2) hold only with high probability over the
// data and leave constants C_P, C_m unspecified, so the result is at best
// conditional.
func DPMDBudget(eps, delta float64, queries, iters int, theta float64) (DPMDSplit, error) {
	rho, err := DPToZCDPClassic(eps, delta)
	if err != nil {
		return DPMDSplit{}, err
	}
	if queries < 1 {
		return DPMDSplit{}, inputErr("queries m", float64(queries), "≥ 1")
	}
	if iters < 1 {
		return DPMDSplit{}, inputErr("iterations T", float64(iters), "≥ 1")
	}
	if err := checkOpenUnit("theta", theta); err != nil {
		return DPMDSplit{}, err
	}
	s := DPMDSplit{RhoTotal: rho, RhoQuery: rho / float64(queries)}
	s.RhoP = theta * s.RhoQuery / float64(iters)
	s.RhoM = (1 - theta) * s.RhoQuery / float64(iters)
	s.NoiseP, s.NoiseM = 1/math.Sqrt(2*s.RhoP), 1/math.Sqrt(2*s.RhoM)
	return s, nil
}

// AdvancedComposition returns the (ε', kδ + δ') guarantee of k-fold adaptive
// composition of (ε, δ)-DP mechanisms (Dwork, Rothblum & Vadhan 2010; Dwork &
// Roth 2014, Thm 3.20): ε' = √(2k ln(1/δ'))·ε + kε(e^ε − 1).
func AdvancedComposition(eps, delta float64, k int, deltaPrime float64) (epsTot, deltaTot float64, err error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, 0, err
	}
	if nonFinite(delta) || delta < 0 || delta >= 1 {
		return 0, 0, inputErr("delta", delta, "in [0, 1)")
	}
	if k < 1 {
		return 0, 0, inputErr("k", float64(k), "≥ 1")
	}
	if err := checkOpenUnit("delta'", deltaPrime); err != nil {
		return 0, 0, err
	}
	kf := float64(k)
	epsTot = math.Sqrt(2*kf*math.Log(1/deltaPrime))*eps + kf*eps*math.Expm1(eps)
	deltaTot = kf*delta + deltaPrime
	if nonFinite(epsTot) {
		return 0, 0, inputErr("composed epsilon", epsTot, "finite")
	}
	return epsTot, math.Min(deltaTot, 1), nil
}

// ShuffleAmplification is the result of ShuffleFMT21.
type ShuffleAmplification struct {
	Epsilon    float64 `json:"epsilon"`    // central ε of the shuffled output (valid only if Applicable)
	Applicable bool    `json:"applicable"` // whether the theorem's condition holds
	Reason     string  `json:"reason"`     // the condition, in words
}

// ShuffleFMT21 returns the amplification-by-shuffling bound of Feldman,
// McMillan & Talwar 2021 (https://arxiv.org/abs/2012.12803, Thm 3.1): n users
// each applying an ε₀-LDP randomiser, outputs uniformly shuffled, give
// (ε, δ)-DP with
//
//	ε = ln(1 + (e^{ε₀} − 1)/(e^{ε₀} + 1)·(8√(e^{ε₀} ln(4/δ))/√n + 8e^{ε₀}/n)),
//
// provided ε₀ ≤ ln(n/(16 ln(2/δ))). When the condition fails, Applicable is
// false, Epsilon is ε₀ (no amplification) and Reason says why. It assumes a
// uniformly random permutation by a trusted shuffler and pure ε₀-LDP local
// randomisers.
func ShuffleFMT21(eps0 float64, n int, delta float64) (ShuffleAmplification, error) {
	if err := checkPositive("epsilon0", eps0); err != nil {
		return ShuffleAmplification{}, err
	}
	if n < 1 {
		return ShuffleAmplification{}, inputErr("n", float64(n), "≥ 1")
	}
	if err := checkDelta(delta); err != nil {
		return ShuffleAmplification{}, err
	}
	nf := float64(n)
	limit := math.Log(nf / (16 * math.Log(2/delta)))
	if !(eps0 <= limit) {
		return ShuffleAmplification{Epsilon: eps0, Reason: fmt.Sprintf(
			"FMT21 needs ε₀ ≤ ln(n/(16 ln(2/δ))) = %.4g; ε₀ = %g, n = %d (n must exceed %.0f·e^{ε₀})",
			limit, eps0, n, 16*math.Log(2/delta))}, nil
	}
	e0 := math.Exp(eps0)
	eps := math.Log1p((e0 - 1) / (e0 + 1) * (8*math.Sqrt(e0*math.Log(4/delta))/math.Sqrt(nf) + 8*e0/nf))
	return ShuffleAmplification{Epsilon: math.Min(eps, eps0), Applicable: true,
		Reason: fmt.Sprintf("ε₀ = %g ≤ ln(n/(16 ln(2/δ))) = %.4g", eps0, limit)}, nil
}
