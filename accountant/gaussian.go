package accountant

import (
	"fmt"
	"math"
)

// AnalyticGaussianDelta returns the exact δ(ε) of the Gaussian mechanism with
// noise standard deviation sigma and ℓ2 sensitivity Δ (Balle & Wang 2018,
// https://arxiv.org/abs/1805.06530, Thm 8): with a = Δ/σ,
//
//	δ = Φ(a/2 − ε/a) − e^ε Φ(−a/2 − ε/a).
//
// The second term is evaluated in log space, so large ε does not lose the
// result to cancellation (the Balle–Wang script's erf-based evaluation is off
// by 1.3e-3 in σ at ε = 20, δ = 1e-7). ε must be finite and ≥ 0.
func AnalyticGaussianDelta(eps, sigma, sensitivity float64) (float64, error) {
	if err := checkNonNegative("epsilon", eps); err != nil {
		return 0, err
	}
	if err := checkPositive("sigma", sigma); err != nil {
		return 0, err
	}
	if err := checkPositive("sensitivity", sensitivity); err != nil {
		return 0, err
	}
	return gaussDelta(sensitivity/sigma, eps), nil
}

// gaussDelta is δ(ε) of the Gaussian mechanism with a = Δ/σ = μ, which is
// also the (ε, δ) curve of μ-GDP (Dong, Roth & Su 2019, Cor. 2.13).
func gaussDelta(a, eps float64) float64 {
	if math.IsInf(a, 1) {
		return 1
	}
	t1 := normCDF(a/2 - eps/a)
	t2 := math.Exp(eps + logNormCDF(-a/2-eps/a))
	return math.Max(0, math.Min(1, t1-t2))
}

// AnalyticGaussianSigma returns the smallest σ for which the Gaussian
// mechanism with ℓ2 sensitivity Δ is (ε, δ)-DP, exactly (Balle & Wang 2018,
// Thm 8 and Alg. 1): the root of AnalyticGaussianDelta(ε, σ, Δ) = δ, found by
// bisection in log σ to relative precision 1e-14, returned from the side that
// meets the target. Valid for every ε > 0, unlike ClassicGaussianSigma.
func AnalyticGaussianSigma(eps, delta, sensitivity float64) (float64, error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkPositive("sensitivity", sensitivity); err != nil {
		return 0, err
	}
	// δ decreases in σ; bracket σ/Δ.
	lo, hi := 1e-6, 1.0
	for gaussDelta(1/hi, eps) > delta {
		lo = hi
		hi *= 2
		if hi > 1e12 {
			return 0, fmt.Errorf("%w: Gaussian σ for ε=%g, δ=%g exceeds 1e12·Δ", ErrUnreachable, eps, delta)
		}
	}
	for gaussDelta(1/lo, eps) <= delta && lo > 1e-300 {
		hi = lo
		lo /= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-14*hi; i++ {
		mid := math.Sqrt(lo * hi)
		if gaussDelta(1/mid, eps) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi * sensitivity, nil
}

// ClassicGaussianSigma returns σ = Δ·√(2 ln(1.25/δ))/ε, the classic
// calibration of the Gaussian mechanism (Dwork & Roth 2014, Thm A.1). The
// theorem proves (ε, δ)-DP only for ε < 1; valid reports whether that holds.
// For ε ≥ 1 the value is returned for comparison but guarantees nothing, and
// where valid it is 1.27× to 4× the exact AnalyticGaussianSigma.
func ClassicGaussianSigma(eps, delta, sensitivity float64) (sigma float64, valid bool, err error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, false, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, false, err
	}
	if err := checkPositive("sensitivity", sensitivity); err != nil {
		return 0, false, err
	}
	return sensitivity * math.Sqrt(2*math.Log(1.25/delta)) / eps, eps < 1, nil
}
