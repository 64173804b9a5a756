package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// fmtExpOdds writes e^ε as "e^ε ≈ …" and stays finite at every ε: e^ε
// overflows a float64 above ε ≈ 709, so large factors are written from
// log10(e^ε) = ε/ln 10 as a mantissa and a power of ten, which no ε a
// user can type overflows.
func fmtExpOdds(eps float64) string {
	return "e^ε ≈ " + fmtPow10(eps/math.Ln10)
}

// fmtPow10 writes 10^l: plainly below 10^4, else as m×10^k.
func fmtPow10(l float64) string {
	switch {
	case math.IsNaN(l):
		return "—"
	case math.IsInf(l, 1) || l > 1e15:
		return "more than 10^(10^15)" // no typed ε gets here; never print Inf
	case l < 4:
		return fmt.Sprintf("%.4g", math.Pow(10, l))
	}
	k := math.Floor(l)
	m := math.Pow(10, l-k)
	if m >= 9.995 { // the mantissa would round up to 10.0
		m, k = 1, k+1
	}
	return fmt.Sprintf("%.3g×10^%.0f", m, k)
}

// fmtPosterior is the largest certainty e^ε/(1+e^ε) an attacker with a
// coin-flip prior can reach, written 1/(1+e^−ε) so it never divides
// infinities; above 99.99 % it says so rather than round to 100 %.
func fmtPosterior(eps float64) string {
	p := 100 / (1 + math.Exp(-eps))
	switch {
	case math.IsNaN(p):
		return "—"
	case p > 99.99:
		return "> 99.99 %"
	}
	return fmt.Sprintf("%.4g %%", p)
}

// betaBound is the smallest miss rate β of a test with false-alarm rate α
// against (ε, δ)-DP: max(0, 1 − δ − e^ε·α, e^−ε·(1 − δ − α)). e^ε·α is
// +Inf for a huge ε, which the max turns into the right 0.
func betaBound(eps, delta, alpha float64) float64 {
	b := math.Max(0, math.Max(1-delta-math.Exp(eps)*alpha, math.Exp(-eps)*(1-delta-alpha)))
	if math.IsNaN(b) {
		return 0
	}
	return b
}

// fmtFinite writes v with %.3g, or "—" when v is not a finite number (an
// accountant that could not answer), so a lesson never shows NaN or Inf.
func fmtFinite(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%.3g", v)
}

// fmtEpsFinite is fmtEps, or "—" when ε is not finite or could not be
// computed.
func fmtEpsFinite(v float64, err error) string {
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmtEps(v)
}

// privacyUnit names what one unit of privacy protects for the variant:
// one cell for central methods, one client's data for federated ones.
func privacyUnit(pr runParams) string {
	if pr.unit() == unitClient {
		return "one client's data (client-level)"
	}
	return "one cell added or removed"
}

// variantStatuses lists every registered method's guarantee at the given
// settings as dpscope's engines state it (core.Method.Expect), one
// "- status: labels" line per status, in the order formal, conditional,
// paper-only, none; test doubles are left out.
func variantStatuses(pr runParams) string {
	order := []core.Guarantee{core.GuaranteeFormal, core.GuaranteeConditional, core.GuaranteePaperOnly, core.GuaranteeNone}
	by := map[core.Guarantee][]string{}
	for i, v := range variants() {
		if v.Desc().Expect == nil || strings.HasPrefix(v.Method, "tui-") || strings.HasPrefix(v.Method, "toy-") {
			continue
		}
		q := pr
		q.Variant = i
		g, _ := expectedGuarantee(q)
		if g == "" {
			g = core.GuaranteeNone
		}
		by[g] = append(by[g], v.Label)
	}
	var lines []string
	for _, g := range order {
		if len(by[g]) > 0 {
			lines = append(lines, fmt.Sprintf("- %s: %s", g, strings.Join(by[g], " · ")))
		}
	}
	if len(lines) == 0 {
		return "- (no method registered)"
	}
	return strings.Join(lines, "\n")
}
