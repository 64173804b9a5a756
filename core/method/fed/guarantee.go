package fed

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// creditShuffle evaluates the shuffle-model bound of Feldman, McMillan &
// Talwar 2021 (accountant.ShuffleFMT21) for one round of ppml-omics with k
// clients and records whether it may be credited. Each client's update is
// an (ε₀, δ₀)-LDP Gaussian randomiser (μ = 2C/σ = 2/z); FMT21's extension
// to approximate LDP adds (e^ε + 1)(1 + e^{−ε₀}/2)·K·δ₀ to δ. The δ of a
// run is split as R·(δ/(4R) for the theorem + ≤ δ/(4R) for the randomisers)
// + δ/2 for advanced composition over the R rounds. It is credited only for
// the uniform Fisher–Yates protocol run by a trusted shuffler
// (Params.TrustedShuffle) and when the theorem's condition holds.
func (pr *privacy) creditShuffle(k int) {
	if pr.v != PPMLOmics {
		return
	}
	switch {
	case pr.p.Protocol == ProtocolSwap:
		pr.shufWhy = "shuffle model not credited: the pairwise-swap protocol is not a uniform shuffle, and pairwise exchanges are not a trusted shuffler"
		return
	case !pr.p.TrustedShuffle:
		pr.shufWhy = "shuffle model not credited: the Fisher–Yates permutation is drawn by the clients themselves, not by a trusted shuffler the server cannot observe"
		return
	}
	r := float64(pr.planned)
	dRound := pr.delta / (4 * r)
	d0 := dRound / (3 * float64(k))
	var e0 float64
	for range 60 {
		var err error
		if e0, err = accountant.GDPEpsilon(2/pr.z, d0); err != nil {
			pr.shufWhy = "shuffle model not credited: " + err.Error()
			return
		}
		if (math.Exp(e0)+1)*1.5*float64(k)*d0 <= dRound {
			break
		}
		d0 /= (math.Exp(e0) + 1) / 2
	}
	if e0 == 0 {
		e0 = 1e-12
	}
	s, err := accountant.ShuffleFMT21(e0, k, dRound)
	if err != nil || !s.Applicable {
		why := "FMT21's condition fails"
		if err != nil {
			why = err.Error()
		} else if s.Reason != "" {
			why = s.Reason
		}
		pr.shufWhy = "shuffle model not applicable: " + why
		pr.shuffle = math.Inf(1)
		return
	}
	if !math.IsInf(pr.shuffle, 1) {
		pr.shuffle = math.Max(pr.shuffle, s.Epsilon)
	}
	pr.shufDlt = 2 * dRound
	pr.shufWhy = "shuffle model credited (uniform trusted shuffle): " + s.Reason
}

// shuffleTotal returns the composed shuffle-model ε over the recorded
// rounds, or false when it is not credited.
func (pr *privacy) shuffleTotal() (float64, bool) {
	if pr.shuffle == 0 || math.IsInf(pr.shuffle, 1) || pr.done == 0 {
		return 0, false
	}
	e, _, err := accountant.AdvancedComposition(pr.shuffle, pr.shufDlt, pr.done, pr.delta/2)
	if err != nil {
		return 0, false
	}
	return e, true
}

// Reasons returns the guarantee status of a variant in a mode with its
// reasons in plain words (docs/METHODS.md §3–4, "Privacy reading"). epsT
// is the ε target (0 when σ was given) and protocol the DR protocol.
func Reasons(v Variant, mode core.Mode, epsT float64, protocol Protocol) (core.Guarantee, []string) {
	labels := "live utility metrics use the true labels of private data, and k-means on the server model's embedding of every cell is computed without noise: both are outside the guarantee"
	switch {
	case v == FL:
		return core.GuaranteeNone, []string{"FL sends every client's raw update to the server: no clipping, no noise, no privacy claim", labels}
	case v == FedSC && mode == core.ModeNonPrivate:
		return core.GuaranteeNone, []string{"FedSC makes no DP claim: every client's encoder and predictor weights travel to the server in the clear", labels}
	case mode == core.ModeNonPrivate:
		return core.GuaranteeNone, []string{"nonprivate mode: the same pipeline with no clipping and no noise (the utility ceiling)", labels}
	case v == FedSC:
		return core.GuaranteeConditional, []string{
			"dpscope extension, not in the FedSC paper: client-level DP-FedAvg — each client's model delta (online encoder, predictor, BatchNorm statistics) is clipped to C and the aggregator adds N(0, σ²C²) to their sum, accounted per round with RDP",
			"unit of privacy: one client's whole data set (adding or removing a client, with all its cells, changes the clipped sum by at most C); a single cell is covered only as part of its client",
			"client sampling: each client takes part in a round with probability q (option client_rate; 1, the default, is FedSC's every client every round) and the ε is that of the Poisson-subsampled Gaussian; the amplification assumes the aggregator draws the sample and keeps it secret",
			"what is covered: the sequence of global models the server releases after each round; not covered: each client's own local state, and the evaluation below",
			"the guarantee covers the global models only if the aggregator is trusted or the sum is formed by secure aggregation: each client's delta itself travels without noise",
			"uniform weights 1/(qK) replace FedSC's size weights, which would reveal client sizes and change the sensitivity",
			labels}
	}
	r := []string{
		"dpscope clips each client's update to C and adds the noise locally, as the paper describes; the authors' code clips nothing (its clip call runs before any backward pass) and adds noise once at the server to the average of raw models, so as published it has no guarantee",
	}
	if v == PPMLOmics {
		r = append(r,
			"the shuffle reorders a sum; it does not change it: the aggregate is identical with or without decentralized randomization",
			"the amplification formula ε_b = ε_c√K/√(ln(2/δ_c)) is the asymptotic form with constant 1; published theorems (Erlingsson et al. 2019; Feldman, McMillan & Talwar 2021) carry constants 8–12 and apply only for many more clients (FMT21 needs K > 16 ln(2/δ) ≈ 232 at δ = 1e-6)")
		if protocol == ProtocolSwap {
			r = append(r, "the pairwise-swap protocol is not a uniform shuffle (for K = 3 its permutations have probabilities 2/9 and 1/9), and pairwise exchanges are not a trusted shuffler")
		}
	}
	r = append(r, "local DP of a clipped update has sensitivity 2C (replace one client's data), not C as σ is calibrated")
	if epsT >= 1 {
		r = append(r, fmt.Sprintf("the composition corollary behind ε_c is used for ε_T = %g ≥ 1, outside its range", epsT))
	}
	r = append(r, "yet the noise itself, with real clipping and local noise, gives a valid client-level guarantee by exact Gaussian composition with no shuffle credit: the audited ε")
	if mode == core.ModeSound {
		r = append(r, "sound mode: rounds that would take the audited ε past the target are not run",
			"sound against paper mode: σ = max(the paper split's σ, the smallest σ whose audited local ε — Δ = 2C, exact composition over the planned rounds — meets the target). Sound adds more noise wherever the paper's split asks for less than the audit allows: with many clients, where its √K amplification credit (no theorem behind it at this K) lowers σ (e.g. K = 500 at ε = 50). It adds the same noise, and gives paper mode's numbers, wherever the paper's own composition is already the looser bound: its advanced-composition corollary overcharges each round, so with K = 30 its σ meets the audited target at every ε tried (0.5–64). The run's guarantee states which case holds and both σ",
			"at this unit (one client's data) the local noise on each of the network's weights swamps what clipped updates can carry (the run warns with the ratio ρ); --opt unit=record (one cell, the preset 'sound, one cell') is the sound design whose curve rises with ε")
	}
	return core.GuaranteeFormal, append(r, labels)
}

// predictorLocalReason is what FedSC's predictor=local changes in sound
// mode (PredictorLocal).
const predictorLocalReason = "option predictor=local: each client's predictor never leaves it — the predictor's coordinates of its delta are 0 before the clip and the aggregator's noise on them is dropped (post-processing); the sensitivity of the clipped sum is still C, whatever the dimension, so the accounting is unchanged"

// guarantee returns the GuaranteeEvent: planned (the whole schedule with
// the noise in force) or final (what was spent, with PLD).
func (pr *privacy) guarantee(v Variant, mode core.Mode, k int, final bool) core.GuaranteeEvent {
	epsT := 0.0
	if pr != nil && pr.fromEps {
		epsT = pr.target
	}
	proto := ProtocolSwap
	if pr != nil {
		proto = pr.p.Protocol
	}
	status, reasons := Reasons(v, mode, epsT, proto)
	ev := core.GuaranteeEvent{Status: status, Reasons: reasons}
	if pr == nil {
		return ev
	}
	if v == FedSC && pr.p.Predictor == PredictorLocal {
		ev.Reasons = append(ev.Reasons, predictorLocalReason)
	}
	if pr.shufWhy != "" {
		ev.Reasons = append(ev.Reasons, pr.shufWhy)
	}
	if pr.noiseBy != "" {
		ev.Reasons = append(ev.Reasons, pr.noiseBy)
	}
	ev.Reasons = append(ev.Reasons, core.NoiseSourceReason(pr.secure))
	extra, suffix := max(0, pr.planned-pr.done), " (planned)"
	if final {
		extra, suffix = 0, ""
	}
	loc, cen, hasLocal := pr.roundEvents(k)
	if pr.sampled() {
		ev.Audited = []core.EpsilonValue{{Accountant: LabelFedSCRDP + suffix, Epsilon: pr.rdpCentral(extra, cen)}}
	} else if v == FedSC {
		ev.Audited = []core.EpsilonValue{{Accountant: LabelFedSCGDP + suffix, Epsilon: pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, extra)}}
	} else {
		ec, _ := pr.paperPerRound(k)
		ev.Published = []core.EpsilonValue{{Accountant: pr.paperLabel() + suffix, Epsilon: pr.published(pr.pub2 + float64(extra)*ec*ec)}}
		if hasLocal {
			ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: LabelLocalGDP + suffix, Epsilon: pr.gdpEpsilon(pr.mu2Loc, loc.NoiseMultiplier, extra)})
		}
		ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: LabelCentralGDP + suffix, Epsilon: pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, extra)})
		if e, ok := pr.shuffleTotal(); ok && final {
			ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: LabelShuffleFMT21, Epsilon: e})
		}
	}
	if final && pr.done > 0 {
		pld := func(l *accountant.Ledger, label string) {
			if s, err := accountant.Summarize(l.All(), pr.delta, accountant.LedgerOptions{}); err == nil {
				ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: label, Epsilon: s.EpsilonPLD})
			}
		}
		if hasLocal {
			pld(pr.local, LabelLocalPLD)
			pld(pr.central, LabelCentralPLD)
		}
	}
	return ev
}
