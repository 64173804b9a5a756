package accountant

import (
	"math"
)

// ZCDPToDPClassic returns ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).
func ZCDPToDPClassic(rho, delta float64) (float64, error) {
	if err := checkNonNegative("rho", rho); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return rho + 2*math.Sqrt(rho*math.Log(1/delta)), nil
}

// DPToZCDPClassic returns the ρ whose classic conversion gives exactly ε:
// ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))², the inverse of ZCDPToDPClassic.
func DPToZCDPClassic(eps, delta float64) (float64, error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	l := math.Log(1 / delta)
	// (√(l+ε) − √l)² = ε²/(√(l+ε) + √l)², free of cancellation.
	d := math.Sqrt(l+eps) + math.Sqrt(l)
	return eps * eps / (d * d), nil
}

// ZCDPToDPCKS returns the tighter conversion of Canonne, Kamath & Steinke
// 2020 (https://arxiv.org/abs/2004.00010, Prop. 12 with RDP ε(α) = αρ):
//
//	ε = min_{α>1} αρ + ln(1 − 1/α) + (ln(1/δ) − ln α)/(α − 1).
//
// The derivative vanishes where ρ(α−1)² = ln(1/δ) − ln α, which has a single
// root in (1, 1/δ); it is found by bisection to machine precision, so the
// result is the exact minimum (cdp2adp.cdp_eps bisects on ε instead; both
// agree to 2e-16).
func ZCDPToDPCKS(rho, delta float64) (float64, error) {
	if err := checkNonNegative("rho", rho); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if rho == 0 {
		return 0, nil
	}
	return cksEpsilon(rho, delta), nil
}

func cksEpsilon(rho, delta float64) float64 {
	l := math.Log(1 / delta)
	h := func(a float64) float64 { return rho*(a-1)*(a-1) - l + math.Log(a) }
	lo, hi := 1.0, 1/delta
	for i := 0; i < 300 && hi-lo > 1e-15*hi; i++ {
		mid := lo + (hi-lo)/2
		if h(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	a := lo + (hi-lo)/2
	e := a*rho + math.Log1p(-1/a) + (l-math.Log(a))/(a-1)
	return math.Max(e, 0)
}

// DPToZCDPCKS returns the largest ρ whose Canonne–Kamath–Steinke conversion
// gives at most ε at δ (cdp2adp.cdp_rho), by bisection in log ρ to relative
// precision 1e-14.
func DPToZCDPCKS(eps, delta float64) (float64, error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	lo, hi := 1e-300, 1.0
	for cksEpsilon(hi, delta) <= eps {
		lo = hi
		hi *= 2
	}
	for i := 0; i < 2000 && hi-lo > 1e-14*hi; i++ {
		mid := math.Sqrt(lo * hi)
		if lo < 1e-200 {
			mid = hi / 16
		}
		if cksEpsilon(mid, delta) <= eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
