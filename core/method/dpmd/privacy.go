package dpmd

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
	// H is the bandwidth the noise was set for.
	H float64
}

// NewBudget splits (ε, δ) across m queries and T iterations with share θ
// for the projector (or second moment), and sets the noise of mode for n
// references, bandwidth h and dimension d. In sound mode with p.Tangents
// the mean's share is halved between numerator and mass, so each noise
// multiplier is √2 times the split's (ς = Δ/√(2ρ) with ρ halved); without
// (the default) there is no second moment and θ is unused: numerator and
// mass each get half of ρ_q/T.
func NewBudget(mode core.Mode, eps, delta float64, m, T int, p Params, n int, h float64, d int) (Budget, error) {
	split, err := accountant.DPMDBudget(eps, delta, m, T, p.Theta)
	if err != nil {
		return Budget{}, fmt.Errorf("manifold: budget: %w", err)
	}
	b := Budget{Split: split, H: h}
	switch mode {
	case core.ModePaper:
		b.SensP = p.CP / (float64(n) * math.Pow(h, float64(d)))
		b.SensM = p.Cm / (float64(n) * math.Pow(h, float64(d-1)))
		b.Noise = Noise{Projector: b.SensP * split.NoiseP, Mean: b.SensM * split.NoiseM}
	case core.ModeSound:
		b.SensM, b.SensS = h, 1
		if p.Tangents {
			b.SensP = h * h
			b.Noise = Noise{
				Projector: b.SensP * split.NoiseP,
				Mean:      b.SensM * split.NoiseM * math.Sqrt2,
				Mass:      b.SensS * split.NoiseM * math.Sqrt2,
				Tangents:  true,
			}
		} else {
			// No second moment: numerator and mass share each
			// iteration's ρ_q/T, ρ_q/(2T) each, so ς = Δ/√(ρ_q/T).
			u := 1 / math.Sqrt(split.RhoQuery/float64(T))
			b.Noise = Noise{Mean: b.SensM * u, Mass: b.SensS * u}
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
		rels = []rel{{"DP-MD numerator", b.Noise.Mean, b.SensM}, {"DP-MD mass", b.Noise.Mass, b.SensS}}
		if b.Noise.Tangents {
			rels = append([]rel{{"DP-MD second moment", b.Noise.Projector, b.SensP}}, rels...)
		}
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

// paperNoiseReason says what the paper's noise is at this run's ε: its
// sensitivities C_P/(n h^d) and C_m/(n h^(d−1)) shrink with n and with h^d,
// so on real data (h > 1 in PCA units, d up to tens) the noise is far below
// any distance in the data (about 1e-19 was measured) and ε changes
// nothing. The threshold "negligible" is 1 % of h for the mean and 1 % of a
// unit projector entry: below both, the noise cannot move a query by a
// visible fraction of its neighbourhood.
func paperNoiseReason(b Budget, eps float64) string {
	msg := fmt.Sprintf("the noise is the paper's, from its sensitivity bounds (a figure of the paper, not a guarantee): at ε = %g, projector ς_P = %.3g (Δ_P = C_P/(n h^d) = %.3g), mean ς_m = %.3g (Δ_m = C_m/(n h^(d−1)) = %.3g)",
		eps, b.Noise.Projector, b.SensP, b.Noise.Mean, b.SensM)
	if b.Noise.Projector < 0.01 && b.Noise.Mean < 0.01*b.H {
		msg += fmt.Sprintf(" — negligible (below 1 %% of a projector entry and of h = %.3g): these sensitivities make the noise vanish, so ε changes next to nothing here; sound mode is the private one", b.H)
	}
	return msg
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

// Overlap returns K = max over queries q of the number of queries within 2h
// of q (q itself included), for the m queries xs (m × D). One reference y
// enters the kernel sums of the queries within h of y only, and all of
// those lie within 2h of any one of them, so the releases of all m queries
// together have ℓ2 sensitivity √K times one query's (each kernel weight is
// at most 1). K is a function of the public queries alone.
func Overlap(xs []float64, m, D int, h float64) int {
	r2 := 4 * h * h
	K := min(m, 1)
	for q := range m {
		a := xs[q*D : (q+1)*D]
		k := 0
		for p := range m {
			b := xs[p*D : (p+1)*D]
			var s float64
			for c, v := range a {
				dv := v - b[c]
				s += dv * dv
			}
			if s <= r2 {
				k++
			}
		}
		K = max(K, k)
	}
	return K
}

// SoundNoise returns sound mode's noise for one iteration whose queries
// overlap K (Overlap) when the budget b was split over m queries. The
// budget's per-query noise gives each of m releases ρ_q; released jointly
// with sensitivity √K·Δ, the same total ρ = m·ρ_q is met by noise
// ς·√(K/m) (the zCDP and RDP of a Gaussian depend on Δ²/ς² only), so the
// iteration spends exactly what the budget planned and the ledger's m
// repeats of (ς, Δ) stay its record. The floor s_min scales with the mass
// noise unless p sets it.
func SoundNoise(b Budget, p Params, K, m int) Noise {
	f := math.Sqrt(float64(max(1, min(K, m))) / float64(max(1, m)))
	nz := Noise{Projector: b.Noise.Projector * f, Mean: b.Noise.Mean * f, Mass: b.Noise.Mass * f, SMin: p.SMin, Tangents: b.Noise.Tangents}
	if nz.SMin == 0 {
		nz.SMin = max(1, 3*nz.Mass)
	}
	return nz
}
