package audit

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// binomPMF returns P[Binomial(n, p) = k] for 0 ≤ k ≤ n, 0 < p < 1, through
// logarithms so that large n do not overflow.
func binomPMF(n, k int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// slowPValue is the implementation before deltaAlpha: every term of α
// with its own log-gamma, linear in v. The reference the fast one is
// checked against.
func slowPValue(m, r, v int, epsilon, delta float64) float64 {
	q := 1 / (1 + math.Exp(-epsilon))
	p := binomTail(r, v, q)
	if delta > 0 && v > 0 {
		alpha, sum := 0.0, 0.0
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

// slowLowerBound is EpsilonLowerBound over slowPValue.
func slowLowerBound(m, r, v int, delta, beta float64) float64 {
	if slowPValue(m, r, v, 0, delta) >= beta {
		return 0
	}
	lo, hi := 0.0, 1.0
	for slowPValue(m, r, v, hi, delta) < beta {
		lo, hi = hi, 2*hi
		if hi > maxEpsilon {
			return maxEpsilon
		}
	}
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if slowPValue(m, r, v, mid, delta) < beta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// TestFastMatchesSlow: the p-value agrees with the term-by-term sum to
// 1e-9 relative (or absolute below 1e-300, where terms are cut; the slow
// sum's own terms carry the rounding of log-gamma differences, ~2e-11
// relative at r = 20,000), and the bound to 1e-8, on a grid of games, ε,
// δ and β.
func TestFastMatchesSlow(t *testing.T) {
	rs := []int{1, 2, 10, 100, 1000, 5000}
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		rs = append(rs, 20000)
	}
	for _, r := range rs {
		for _, fv := range []float64{0, 0.3, 0.5, 0.55, 0.7, 0.9, 0.99, 1} {
			v := int(fv * float64(r))
			for _, m := range []int{r, 10 * r} {
				for _, delta := range []float64{0, 1e-6, 1e-5, 1e-3, 0.1} {
					for _, eps := range []float64{0, 0.1, 0.5, 1, 2, 4, 8, 16, 40} {
						got, want := pValue(m, r, v, eps, delta), slowPValue(m, r, v, eps, delta)
						if d := math.Abs(got - want); d > 1e-9*want && d > 1e-300 {
							t.Fatalf("pValue(%d, %d, %d, %g, %g) = %.17g, slow %.17g", m, r, v, eps, delta, got, want)
						}
					}
					for _, beta := range []float64{0.05, 1e-3, 1e-6} {
						got, err := EpsilonLowerBound(m, r, v, delta, beta)
						if err != nil {
							t.Fatal(err)
						}
						if want := slowLowerBound(m, r, v, delta, beta); math.Abs(got-want) > 1e-8 {
							t.Errorf("EpsilonLowerBound(%d, %d, %d, %g, %g) = %.12g, slow %.12g", m, r, v, delta, beta, got, want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkLowerBound is one bisection at m canaries, all guessed, 60 %
// right, δ = 1e-5 (the δ term's α is what cost time).
func BenchmarkLowerBound(b *testing.B) {
	for _, m := range []int{1000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			v := m * 6 / 10
			for b.Loop() {
				if _, err := EpsilonLowerBound(m, m, v, 1e-5, 0.05/14); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/bound")
		})
	}
}
