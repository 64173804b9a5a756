package manifold

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Budget is the noise of a private run for the iterations still to come,
// from the accountant's zCDP split (accountant.DPMDBudget).
type Budget struct {
	Split accountant.DPMDSplit
	// Sensitivities of the releases: paper Δ_P = C_P/(n h^d) and
	// Δ_m = C_m/(n h^(d−1)); sound Δ_M = h² (second moment, Frobenius),
	// Δ_N = h (numerator), Δ_S = 1 (mass).
	SensP, SensM, SensS float64
	Noise               Noise
}

// NewBudget splits (ε, δ) across m queries and T iterations with share θ
// for the projector (or second moment), and sets the noise of mode for n
// references, bandwidth h and dimension d. In sound mode the mean's share
// is halved between numerator and mass, so each noise multiplier is √2
// times the split's (ς = Δ/√(2ρ) with ρ halved).
func NewBudget(mode core.Mode, eps, delta float64, m, T int, p Params, n int, h float64, d int) (Budget, error) {
	split, err := accountant.DPMDBudget(eps, delta, m, T, p.Theta)
	if err != nil {
		return Budget{}, fmt.Errorf("manifold: budget: %w", err)
	}
	b := Budget{Split: split}
	switch mode {
	case core.ModePaper:
		b.SensP = p.CP / (float64(n) * math.Pow(h, float64(d)))
		b.SensM = p.Cm / (float64(n) * math.Pow(h, float64(d-1)))
		b.Noise = Noise{Projector: b.SensP * split.NoiseP, Mean: b.SensM * split.NoiseM}
	case core.ModeSound:
		b.SensP, b.SensM, b.SensS = h*h, h, 1
		b.Noise = Noise{
			Projector: b.SensP * split.NoiseP,
			Mean:      b.SensM * split.NoiseM * math.Sqrt2,
			Mass:      b.SensS * split.NoiseM * math.Sqrt2,
		}
		b.Noise.SMin = p.SMin
		if b.Noise.SMin == 0 {
			b.Noise.SMin = max(1, 3*b.Noise.Mass)
		}
	default:
		return Budget{}, fmt.Errorf("manifold: mode is %q, must be paper or sound for a budget: %w", mode, ErrParams)
	}
	return b, nil
}

// record enters one iteration's releases for m queries into the ledger.
func (b Budget) record(l *accountant.Ledger, mode core.Mode, m int) error {
	type rel struct {
		name        string
		sigma, sens float64
	}
	rels := []rel{{"DP-MD projector", b.Noise.Projector, b.SensP}, {"DP-MD mean", b.Noise.Mean, b.SensM}}
	if mode == core.ModeSound {
		rels = []rel{{"DP-MD second moment", b.Noise.Projector, b.SensP}, {"DP-MD numerator", b.Noise.Mean, b.SensM}, {"DP-MD mass", b.Noise.Mass, b.SensS}}
	}
	for _, r := range rels {
		ev, err := accountant.GaussianEvent(r.sigma, r.sens)
		if err != nil {
			return err
		}
		if ev, err = ev.Repeat(m); err != nil {
			return err
		}
		if err := l.Record(r.name, ev); err != nil {
			return err
		}
	}
	return nil
}

// guarantee returns the run's guarantee statement.
func guarantee(mode core.Mode, p Params, synthetic, secure bool, eps, delta float64, n int) core.GuaranteeEvent {
	switch mode {
	case core.ModePaper:
		reasons := []string{
			"the sensitivity bounds of Lemmas 1–2 hold only with high probability over the data model (Remark 1); DP is a worst case: at a zero eigengap one record can flip a projector while the noise is ∝ 1/(n h^d) — at best random DP",
			fmt.Sprintf("the constants of the bounds are unspecified in the paper; this run uses C_P = %g, C_m = %g and the guarantee depends on them", p.CP, p.Cm),
			"the \"fewer than d + 1 neighbours → unchanged\" rule publishes a noiseless count",
			core.NoiseSourceReason(secure),
		}
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
			"assumes the queries are public and chosen independently of the references",
			"assumes h, d and s_min are public (fixed in advance or chosen on a disjoint public split)",
			"every query is moved: no noiseless neighbour gate",
			core.NoiseSourceReason(secure),
		}
		if !synthetic {
			reasons = append(reasons, "the PCA basis and h, d of a data set are computed on the data here: for the formal reading they must come from public data")
		}
		return core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: reasons}
	}
	return core.GuaranteeEvent{Status: core.GuaranteeNone, Reasons: []string{"nonprivate mode: no noise, no privacy claim"}}
}

// spent returns ε after the fraction of the planned ρ spent so far.
func spentValues(rho, delta float64, l *accountant.Ledger) []core.EpsilonValue {
	var out []core.EpsilonValue
	if rho > 0 {
		if e, err := accountant.ZCDPToDPClassic(rho, delta); err == nil {
			out = append(out, core.EpsilonValue{Accountant: "zCDP→(ε,δ) classic", Label: "zCDP classic", Epsilon: e})
		}
		if e, err := accountant.ZCDPToDPCKS(rho, delta); err == nil {
			out = append(out, core.EpsilonValue{Accountant: "zCDP→(ε,δ) CKS", Label: "zCDP CKS", Epsilon: e})
		}
	}
	if l != nil {
		if rep, err := l.Report(delta, accountant.LedgerOptions{SkipPLD: true}); err == nil && rep.Total.Steps > 0 {
			out = append(out, core.EpsilonValue{Accountant: "RDP (ledger)", Epsilon: rep.Total.EpsilonRDP})
		}
	}
	return out
}
