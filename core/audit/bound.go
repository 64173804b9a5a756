package audit

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// ErrInput is wrapped by the errors of invalid arguments.
var ErrInput = errors.New("audit: invalid input")

func bad(name string, v any, constraint string) error {
	return fmt.Errorf("audit: %s is %v, must be %s: %w", name, v, constraint, ErrInput)
}

// checkGame validates m canaries, r guesses and v correct ones.
func checkGame(m, r, v int) error {
	switch {
	case m < 1:
		return bad("canaries m", m, "at least 1")
	case r < 0 || r > m:
		return bad("guesses r", r, fmt.Sprintf("in [0, m = %d]", m))
	case v < 0 || v > r:
		return bad("correct guesses v", v, fmt.Sprintf("in [0, r = %d]", r))
	}
	return nil
}

func checkDelta(delta float64) error {
	if math.IsNaN(delta) || delta < 0 || delta >= 1 {
		return bad("δ", delta, "in [0, 1)")
	}
	return nil
}

func checkBeta(beta float64) error {
	if math.IsNaN(beta) || beta <= 0 || beta >= 1 {
		return bad("β (1 − confidence)", beta, "in (0, 1)")
	}
	return nil
}

// binomTail returns P[Binomial(n, p) ≥ k] = I_p(k, n−k+1) (the regularised
// incomplete beta function), 1 for k ≤ 0 and 0 for k > n.
func binomTail(n, k int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// binomPMF returns P[Binomial(n, p) = k] for 0 ≤ k ≤ n, 0 < p < 1, through
// logarithms so that large n do not overflow.
func binomPMF(n, k int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// PValue returns the probability, under the hypothesis that the run is
// (ε, δ)-DP with respect to each of m canaries, of at least v correct
// guesses out of r: Theorem 5.2 of Steinke et al. (2023),
//
//	P[W ≥ v] ≤ f(v) + 2·m·δ·α,  f(v) = P[Binomial(r, e^ε/(1+e^ε)) ≥ v],
//	α = max_{1≤i≤v} (1/i)·P[v−i ≤ Binomial(r, e^ε/(1+e^ε)) < v],
//
// capped at 1. It returns an error wrapping ErrInput unless 0 ≤ v ≤ r ≤ m,
// m ≥ 1, ε is finite and ≥ 0, and 0 ≤ δ < 1.
func PValue(m, r, v int, epsilon, delta float64) (float64, error) {
	if err := checkGame(m, r, v); err != nil {
		return 0, err
	}
	if math.IsNaN(epsilon) || math.IsInf(epsilon, 0) || epsilon < 0 {
		return 0, bad("ε", epsilon, "finite and >= 0")
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return pValue(m, r, v, epsilon, delta), nil
}

func pValue(m, r, v int, epsilon, delta float64) float64 {
	q := 1 / (1 + math.Exp(-epsilon)) // the accuracy of ε-DP randomised response
	p := binomTail(r, v, q)
	if delta > 0 && v > 0 {
		alpha, sum := 0.0, 0.0 // sum = P[v−i ≤ Binomial(r, q) < v]
		for i := 1; i <= v; i++ {
			if q < 1 {
				sum += binomPMF(r, v-i, q)
			}
			alpha = max(alpha, sum/float64(i))
		}
		p += 2 * float64(m) * delta * alpha
	}
	return min(p, 1)
}

// maxEpsilon caps the search: at ε = 60, e^ε/(1+e^ε) rounds to 1 in
// float64, so no bound above it is meaningful.
const maxEpsilon = 60

// EpsilonLowerBound returns the largest ε that v correct guesses out of r
// (of m canaries) refute at confidence 1 − β for (ε, δ)-DP: the supremum of
// the ε whose PValue is below β, found by bisection to 1e-9 (0 when none
// is). A run that is (ε, δ)-DP yields a bound above ε with probability at
// most β. It returns an error wrapping ErrInput for an invalid game, δ
// outside [0, 1) or β outside (0, 1).
func EpsilonLowerBound(m, r, v int, delta, beta float64) (float64, error) {
	if err := checkGame(m, r, v); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if err := checkBeta(beta); err != nil {
		return 0, err
	}
	if pValue(m, r, v, 0, delta) >= beta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0 // invariant: pValue(lo) < β ≤ pValue(hi)
	for pValue(m, r, v, hi, delta) < beta {
		lo, hi = hi, 2*hi
		if hi > maxEpsilon {
			return maxEpsilon, nil
		}
	}
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if pValue(m, r, v, mid, delta) < beta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// Ceiling returns the largest bound r guesses can give: EpsilonLowerBound
// with all r correct. For δ = 0 it is −ln(e^{ln(1/β)/r} − 1) ≈
// ln(r / ln(1/β)) (DECISIONS "Audit"). Errors as EpsilonLowerBound.
func Ceiling(m, r int, delta, beta float64) (float64, error) {
	return EpsilonLowerBound(m, r, r, delta, beta)
}
