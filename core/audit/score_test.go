package audit

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dpscope/dpscope/accountant"
)

// gaussianGame plays the game against a Gaussian mechanism that is exactly
// (ε, δ)-DP for each canary: canary j's observation is [in_j] + σ·N(0, 1)
// with σ from the analytic Gaussian mechanism (Balle & Wang 2018). The
// observation itself is the optimal score (the likelihood ratio is
// monotone in it).
func gaussianGame(m int, sigma float64, rng *rand.Rand) ([]float64, []bool) {
	scores, in := make([]float64, m), make([]bool, m)
	for j := range m {
		in[j] = rng.IntN(2) == 1
		if in[j] {
			scores[j] = 1
		}
		scores[j] += sigma * rng.NormFloat64()
	}
	return scores, in
}

// TestScoreNoNoise: with the noise off the attacker guesses every canary,
// and the bound reaches the design's ceiling.
func TestScoreNoNoise(t *testing.T) {
	scores, in := gaussianGame(1000, 0, rand.New(rand.NewPCG(1, 1)))
	res, err := Score(scores, in, 1e-5, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	// The ceiling (1000 of 1000 correct) is out of reach only because the
	// attacker does not know how many canaries are in, so the symmetric
	// rules over all m make a few wrong guesses.
	if res.Correct != res.Guesses || res.EpsilonLower < 4 || res.EpsilonLower < res.Ceiling-1 {
		t.Errorf("Score(no noise, m = 1000) = %+v, want every guess of the best rule correct and a bound ≥ 4, within 1 of the ceiling", res)
	}
}

func TestScoreInputs(t *testing.T) {
	if _, err := Score([]float64{1, 2}, []bool{true}, 0, 0.05); !errors.Is(err, ErrInput) {
		t.Errorf("Score(lengths 2, 1) error = %v, want ErrInput", err)
	}
	if _, err := Score(nil, nil, 0, 0.05); !errors.Is(err, ErrInput) {
		t.Errorf("Score(empty) error = %v, want ErrInput", err)
	}
	if _, err := Score([]float64{math.NaN()}, []bool{true}, 0, 0.05); !errors.Is(err, ErrInput) {
		t.Errorf("Score(NaN) error = %v, want ErrInput", err)
	}
}

// TestScoreByHand: four canaries, two in with the top scores: the rule
// k₊ = 1 guesses one and is right (the best any rule can do with m = 4 at
// this confidence is 0, since 2 of 2 correct has p = q² ≥ 1/4).
func TestScoreByHand(t *testing.T) {
	res, err := Score([]float64{4, 3, 2, 1}, []bool{true, true, false, false}, 0, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if res.EpsilonLower != 0 || res.Canaries != 4 {
		t.Errorf("Score(4 canaries) = %+v, want ε lower 0 (no rule with ≤ 4 guesses reaches p < 0.05/rules)", res)
	}
	// 4 of 4 correct at ε = 0 has p = 1/16 > 0.05/rules, so the ceiling is
	// small but positive only if 1/(1+e^-ε)⁴ can fall below β/rules: it
	// cannot (q ≥ ½), so the ceiling is 0.
	if res.Ceiling != 0 {
		t.Errorf("Score(4 canaries).Ceiling = %g, want 0", res.Ceiling)
	}
}

// TestScoreNeverExceeds is the honesty check: against a mechanism that is
// exactly (ε, δ)-DP per canary, the bound exceeds ε with probability at
// most β (Theorem 5.2 with the Bonferroni family). Over trials at each ε
// the exceedances are at most Binomial(trials, β); the test fails only
// above that distribution's 1 − 10⁻⁶ quantile, so it falsely fails with
// probability below 10⁻⁶ per ε. DPSCOPE_AUDIT_LONG=1 runs 200 trials of
// m = 2000 per ε; the short form 20 of m = 500.
func TestScoreNeverExceeds(t *testing.T) {
	trials, m := 20, 500
	if os.Getenv("DPSCOPE_AUDIT_LONG") != "" {
		trials, m = 200, 2000
	}
	const delta, beta = 1e-5, 0.05
	limit := 0
	for binomTail(trials, limit+1, beta) > 1e-6 {
		limit++
	}
	for _, eps := range []float64{0.5, 1, 2, 4, 8} {
		sigma, err := accountant.AnalyticGaussianSigma(eps, delta, 1)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(eps*1000), 7))
		over, best := 0, 0.0
		for range trials {
			scores, in := gaussianGame(m, sigma, rng)
			res, err := Score(scores, in, delta, beta)
			if err != nil {
				t.Fatal(err)
			}
			best = max(best, res.EpsilonLower)
			if res.EpsilonLower > eps {
				over++
			}
		}
		t.Logf("ε = %g: σ = %.4g, largest bound %.4g over %d trials, %d above ε", eps, sigma, best, trials, over)
		if over > limit {
			t.Errorf("ε = %g: the bound exceeded ε in %d of %d trials, want ≤ %d (Binomial(%d, %g) 1 − 1e-6 quantile)", eps, over, trials, limit, trials, beta)
		}
	}
}

func rngFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }
