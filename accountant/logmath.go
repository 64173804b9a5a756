package accountant

import "math"

// logAdd returns log(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSub returns log(e^a − e^b) for a ≥ b; −Inf when a == b. For a < b it
// returns NaN, which callers treat as a numerical failure.
func logSub(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	if a == b {
		return math.Inf(-1)
	}
	if a < b {
		return math.NaN()
	}
	return a + log1mExp(b-a)
}

// log1mExp returns log(1 − e^x) for x < 0, accurately for x near 0 and
// for very negative x (Mächler 2012).
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// logErfc returns log(erfc(x)), accurate for large x where erfc underflows
// (asymptotic series of erfc, Abramowitz & Stegun 7.1.23).
func logErfc(x float64) float64 {
	if x < 25 {
		return math.Log(math.Erfc(x))
	}
	// erfc(x) = e^{-x²}/(x√π) · (1 − 1/(2x²) + 3/(4x⁴) − 15/(8x⁶) + 105/(16x⁸)).
	r := 1 / (2 * x * x)
	s := 1 - r + 3*r*r - 15*r*r*r + 105*r*r*r*r
	return -x*x - math.Log(x) - 0.5*math.Log(math.Pi) + math.Log(s)
}

// logNormCDF returns log Φ(x) for the standard normal CDF Φ.
func logNormCDF(x float64) float64 {
	return logErfc(-x/math.Sqrt2) - math.Ln2
}

// normCDF returns Φ(x), accurate in relative terms in the lower tail.
func normCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/math.Sqrt2)
}

// logBinom returns log C(n, k) for real n ≥ k ≥ 0 via log-gamma.
func logBinom(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}
