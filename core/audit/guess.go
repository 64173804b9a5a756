package audit

import (
	"cmp"
	"math"
	"slices"
)

// Result is one audit's outcome. Confidence is 1 − β over the whole
// family of guessing rules tried (Bonferroni), not per rule.
type Result struct {
	// EpsilonLower is the empirical lower bound on ε at Confidence.
	EpsilonLower float64 `json:"epsilon_lower"`
	// Ceiling is the largest bound any outcome of this design could give
	// (every guess correct, with the most guesses the design makes).
	Ceiling    float64 `json:"ceiling"`
	Confidence float64 `json:"confidence"`
	Delta      float64 `json:"delta"`
	// Canaries is m, Guesses r = k₊ + k₋ and Correct v of the rule that
	// gave the bound; KPlus and KMinus split r into "in" and "out" guesses.
	Canaries int `json:"canaries"`
	Guesses  int `json:"guesses"`
	Correct  int `json:"correct"`
	KPlus    int `json:"k_plus"`
	KMinus   int `json:"k_minus"`
	// Rules is the number of guessing rules tried (the Bonferroni factor).
	Rules int `json:"rules"`
	// Setting says what the attacker saw, in words.
	Setting string `json:"setting"`
}

// guessFractions are the fractions of m the guessing rules guess on,
// fixed before any audit ran (Steinke et al. §7 sweep k₊ over a similar
// range); each is tried as k₊ = k (all "in") and as k₊ = k₋ = k/2.
var guessFractions = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// rule is a guessing rule: "in" for the kp highest scores, "out" for the
// km lowest.
type rule struct{ kp, km int }

// rules returns the distinct rules for m canaries.
func rules(m int) []rule {
	var out []rule
	seen := map[rule]bool{}
	add := func(r rule) {
		if r.kp+r.km >= 1 && r.kp+r.km <= m && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, f := range guessFractions {
		k := int(math.Ceil(f * float64(m)))
		add(rule{kp: k})
		add(rule{kp: (k + 1) / 2, km: k / 2})
	}
	return out
}

// Score turns the attacker's scores (higher: more likely included) and the
// truth (in[j]: canary j was included) into the best bound over a fixed
// family of guessing rules (guessFractions), each tested at β divided by
// the number of rules, so that the reported bound holds at confidence
// 1 − β overall. Ties are broken by canary index, which is independent of
// the inclusion draw. It returns an error wrapping ErrInput if the lengths
// differ, there are no canaries, a score is NaN, or δ or β is invalid.
func Score(scores []float64, in []bool, delta, beta float64) (Result, error) {
	m := len(scores)
	if m != len(in) {
		return Result{}, bad("len(in)", len(in), "len(scores) = "+itoa(m))
	}
	if m < 1 {
		return Result{}, bad("canaries", m, "at least 1")
	}
	for j, s := range scores {
		if math.IsNaN(s) {
			return Result{}, bad("score of canary "+itoa(j), s, "a number")
		}
	}
	if err := checkDelta(delta); err != nil {
		return Result{}, err
	}
	if err := checkBeta(beta); err != nil {
		return Result{}, err
	}
	order := make([]int, m)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	rs := rules(m)
	b := beta / float64(len(rs))
	res := Result{Confidence: 1 - beta, Delta: delta, Canaries: m, Rules: len(rs)}
	first := true
	for _, ru := range rs {
		v := 0
		for _, j := range order[:ru.kp] {
			if in[j] {
				v++
			}
		}
		for _, j := range order[m-ru.km:] {
			if !in[j] {
				v++
			}
		}
		r := ru.kp + ru.km
		eps, err := EpsilonLowerBound(m, r, v, delta, b)
		if err != nil {
			return Result{}, err
		}
		ceil, err := Ceiling(m, r, delta, b)
		if err != nil {
			return Result{}, err
		}
		res.Ceiling = max(res.Ceiling, ceil)
		if first || eps > res.EpsilonLower {
			first = false
			res.EpsilonLower, res.Guesses, res.Correct, res.KPlus, res.KMinus = eps, r, v, ru.kp, ru.km
		}
	}
	return res, nil
}

func itoa(i int) string { return fmtInt(i) }
