package dpmd

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
)

// Expect is the guarantee of a dpmd configuration before the run
// (METHODS.md §2); the engine states the final one.
func Expect(cfg core.Config) (core.Guarantee, []string) {
	switch cfg.Mode {
	case core.ModeNonPrivate:
		return core.GuaranteeNone, []string{"non-private denoising: the utility ceiling, no noise"}
	case core.ModeSound:
		return core.GuaranteeFormal, []string{"kernel numerator and mass released jointly for all queries (noise scaled by their overlap), a query moved by the shrunk mean-shift step only when its released mass clears the public floor (option tangents: also a private second moment): (ε, δ)-DP by zCDP, under the assumptions the engine lists"}
	}
	return core.GuaranteeConditional, []string{
		"the paper's sensitivity bounds hold only with high probability and their constants C_P, C_m are unspecified",
		"the \"fewer than d + 1 neighbours → unchanged\" rule publishes a noiseless count",
		fmt.Sprintf("the paper's experiments use δ = %g; dpscope defaults to 1e-5", PaperDelta)}
}

// guarantee returns the run's guarantee statement; b is the run's budget
// (nil in nonprivate mode), whose noise paper mode states.
func guarantee(mode core.Mode, p Params, synthetic, secure bool, eps, delta float64, n int, b *Budget) core.GuaranteeEvent {
	switch mode {
	case core.ModePaper:
		reasons := []string{}
		if b != nil {
			reasons = append(reasons, paperNoiseReason(*b, eps))
		}
		reasons = append(reasons,
			"the sensitivity bounds of Lemmas 1–2 hold only with high probability over the data model (Remark 1); DP is a worst case: at a zero eigengap one record can flip a projector while the noise is ∝ 1/(n h^d) — at best random DP",
			fmt.Sprintf("the constants of the bounds are unspecified in the paper; this run uses C_P = %g, C_m = %g and the guarantee depends on them", p.CP, p.Cm),
			"the \"fewer than d + 1 neighbours → unchanged\" rule publishes a noiseless count",
			core.NoiseSourceReason(secure),
		)
		if !synthetic {
			reasons = append(reasons, "h and d were chosen on the private references (k-NN distances and local PCA) without noise, and the PCA basis of the data set was computed on private data: releases outside the budget")
		}
		if delta > 1/float64(n) {
			reasons = append(reasons, fmt.Sprintf("δ = %g is above 1/n = %.3g (the paper uses δ = 0.1 throughout)", delta, 1/float64(n)))
		}
		return core.GuaranteeEvent{Status: core.GuaranteeConditional, Reasons: reasons,
			Published: []core.EpsilonValue{{Accountant: "paper (zCDP split, Algorithm 2)", Epsilon: eps}}}
	case core.ModeSound:
		reasons := []string{
			"formal (ε, δ)-DP for adding or removing one reference, by zCDP composition over all queries and iterations (zCDP→(ε,δ) classic conversion)",
			"sensitivity: one reference changes a query's released (numerator, λ·mass) by at most s·h (kernel (1 − r²/h²)₊^β, β and s from d and D alone), and reaches at most K queries (K from the public queries: degeneracy + 1 of their 2h-graph), so the joint release has ℓ2 sensitivity √K·s·h",
			"assumes the queries are public and chosen independently of the references",
			"assumes h, d and s_min are public (fixed in advance or chosen on a disjoint public split)",
			"every query is released: no noiseless neighbour gate (the step taken is a post-processing of the released numerator and mass)",
			core.NoiseSourceReason(secure),
		}
		if !synthetic {
			reasons = append(reasons, "the PCA basis and h, d of a data set are computed on the data here: for the formal reading they must come from public data")
		}
		return core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: reasons}
	}
	return core.GuaranteeEvent{Status: core.GuaranteeNone, Reasons: []string{"nonprivate mode: no noise, no privacy claim"}}
}
