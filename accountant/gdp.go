package accountant

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// GDPMu returns μ_tot = √(Σ_i steps_i/z_i²), the exact μ-GDP of composing
// Gaussian mechanisms without subsampling (Dong, Roth & Su 2019,
// https://arxiv.org/abs/1905.02383, Cor. 3.3: μ-GDP composes as √Σμ², and a
// Gaussian mechanism with noise multiplier z is 1/z-GDP). Events with
// SampleRate < 1 are rejected: use GDPMuCLT (approximate) or the PLD.
func GDPMu(events []Event) (float64, error) {
	if err := validateEvents(events); err != nil {
		return 0, err
	}
	s := 0.0
	for _, ev := range events {
		if ev.SampleRate != 1 {
			return 0, inputErr("sample rate q for exact GDP", ev.SampleRate, "1 (use GDPMuCLT or the PLD for q < 1)")
		}
		s += float64(ev.Steps) / (ev.NoiseMultiplier * ev.NoiseMultiplier)
	}
	return math.Sqrt(s), nil
}

// GDPMuCLT returns μ = √(Σ_i T_i q_i²(e^{1/z_i²} − 1)), the central-limit
// approximation of subsampled Gaussian composition (Bu, Dong, Long & Su 2020,
// https://arxiv.org/abs/1911.11607, Thm 5; Opacus' GaussianAccountant). It is
// an asymptotic approximation, not a bound: it can under-state ε.
func GDPMuCLT(events []Event) (float64, error) {
	if err := validateEvents(events); err != nil {
		return 0, err
	}
	s := 0.0
	for _, ev := range events {
		q, z := ev.SampleRate, ev.NoiseMultiplier
		s += float64(ev.Steps) * q * q * math.Expm1(1/(z*z))
	}
	if nonFinite(s) {
		return 0, inputErr("CLT μ²", s, "finite (noise multiplier too small)")
	}
	return math.Sqrt(s), nil
}

// GDPDelta returns δ(ε) of μ-GDP (Dong, Roth & Su 2019, Cor. 2.13):
//
//	δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
func GDPDelta(mu, eps float64) (float64, error) {
	if err := checkPositive("mu", mu); err != nil {
		return 0, err
	}
	if err := checkNonNegative("epsilon", eps); err != nil {
		return 0, err
	}
	return gaussDelta(mu, eps), nil
}

// GDPEpsilon returns the smallest ε ≥ 0 with GDPDelta(μ, ε) ≤ δ, by bisection
// to relative precision 1e-13.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if err := checkPositive("mu", mu); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if gaussDelta(mu, 0) <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for gaussDelta(mu, hi) > delta {
		lo = hi
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-13*hi; i++ {
		mid := 0.5 * (lo + hi)
		if gaussDelta(mu, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// GDPTradeoff returns the trade-off function of μ-GDP at false-positive rate
// alpha (Dong, Roth & Su 2019, Def. 2.7): the smallest false-negative rate of
// any test between N(0,1) and N(μ,1),
//
//	β = G_μ(α) = Φ(Φ⁻¹(1 − α) − μ).
func GDPTradeoff(mu, alpha float64) (float64, error) {
	if err := checkPositive("mu", mu); err != nil {
		return 0, err
	}
	if nonFinite(alpha) || alpha < 0 || alpha > 1 {
		return 0, inputErr("alpha", alpha, "in [0, 1]")
	}
	switch alpha {
	case 0:
		return 1, nil
	case 1:
		return 0, nil
	}
	return normCDF(distuv.UnitNormal.Quantile(1-alpha) - mu), nil
}
