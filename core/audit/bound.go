package audit

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrInput is wrapped by the errors of invalid arguments.
var ErrInput = errors.New("audit: invalid input")

func bad(name string, v any, constraint string) error {
	return errkind.Wrapf(ErrInput, "audit: %s is %v, must be %s", name, v, constraint)
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
		p += 2 * float64(m) * delta * deltaAlpha(r, v, q)
	}
	return min(p, 1)
}

// logCut is the log-probability below which a binomial term is left out of
// α: r terms below e^−700 add less than 1e-298 for any r ≤ 10^6, far
// below any β a test can use.
const logCut = -700

// deltaAlpha returns α = max_{1≤i≤v} (1/i)·P[v−i ≤ Binomial(r, q) < v]
// for 1 ≤ v ≤ r and ½ ≤ q (0 when q rounds to 1, where every term is 0).
// The terms P[B = k], k = v−1, v−2, …, follow the recurrence
// P[B = k−1] = P[B = k]·k/(r−k+1)·(1−q)/q from the first one above
// e^logCut (found by bisection: the log-pmf is concave, so it falls on
// both sides of the mode), and the loop stops once no later i can raise
// the maximum: below the mode the ratio ρ of successive terms only falls,
// so the terms still to come sum to at most the last one times ρ/(1 − ρ).
// Linear in the terms near the mode (a few standard deviations of B),
// where summing every term with its own log-gamma was linear in v.
func deltaAlpha(r, v int, q float64) float64 {
	if q >= 1 {
		return 0
	}
	lq, lnq := math.Log(q), math.Log1p(-q)
	lgr, _ := math.Lgamma(float64(r) + 1)
	lp := func(k int) float64 {
		a, _ := math.Lgamma(float64(k) + 1)
		b, _ := math.Lgamma(float64(r-k) + 1)
		return lgr - a - b + float64(k)*lq + float64(r-k)*lnq
	}
	mode := min(r, int(float64(r+1)*q))
	k0 := v - 1
	if k0 > mode && lp(k0) < logCut {
		// the largest k in [mode, v−1] with lp(k) ≥ logCut (lp(mode) is
		// at least −ln(r + 1))
		lo, hi := mode, k0 // lp(lo) ≥ logCut > lp(hi)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if lp(mid) >= logCut {
				lo = mid
			} else {
				hi = mid
			}
		}
		k0 = lo
	}
	l0 := lp(k0)
	if l0 < logCut {
		return 0 // k0 ≤ mode: every term is at most this one
	}
	odds := (1 - q) / q
	pk := math.Exp(l0)
	sum, alpha := 0.0, 0.0
	for k := k0; k >= 0; k-- {
		i := v - k
		sum += pk
		alpha = max(alpha, sum/float64(i))
		if k == 0 {
			break
		}
		rho := float64(k) / float64(r-k+1) * odds // P[B = k−1]/P[B = k]
		if rho < 1 && (sum+pk*rho/(1-rho))/float64(i+1) <= alpha {
			break
		}
		pk *= rho
	}
	return alpha
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
