package sounddcan

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
)

// expect is the guarantee of a configuration before the run; the engine
// states the final one with every reason.
func expect(cfg core.Config) (core.Guarantee, []string) {
	if cfg.Mode == core.ModeNonPrivate {
		return core.GuaranteeNone, []string{"non-private: the same pipeline without noise"}
	}
	if cfg.Options["prep"] == string(dppca.PrepPublic) {
		return core.GuaranteeConditional, []string{"Gaussian mechanisms composed exactly in GDP, with the per-gene preprocessing statistics taken as public"}
	}
	return core.GuaranteeFormal, []string{"every release (gene statistics, covariance, k-means, full-batch DP-SGD steps, head rounds) is a Gaussian mechanism composed exactly in GDP: (ε, δ)-DP for one cell added or removed"}
}

// guarantee states the run's guarantee; audited is the ε spent, when known.
func (r *runner) guarantee(audited []core.EpsilonValue) core.GuaranteeEvent {
	o, cfg := r.e.o, r.e.cfg
	rowsBound := o.RowsBelow
	if r.pl.Rows {
		o = o.dppcaRows() // what ran
	}
	shDP, shNet, shHead := r.pl.Shares()
	live := "live metrics (ARI, NMI, ACC) use the true labels of private data: they are for exploration and no guarantee covers them"
	design := "sound mode is a redesign, not the paper's network (METHODS.md §1): dppca's private codes and over-clustered centres, merged into K after one noisy Lloyd round, start a mixture network (a learned per-component scaling of the codes and a Gaussian-mixture clustering head with learned weights) trained on its negative log-likelihood by DP-SGD on the full batch with Adam; it takes its clip, sampling rate and schedule from its options (gclip, steps, lr), not from --clip, --q, --layers or --epochs"
	if cfg.Mode == core.ModeNonPrivate {
		return core.GuaranteeEvent{Status: core.GuaranteeNone, Reasons: []string{"nonprivate mode: the same pipeline with no noise, no privacy claim", design, live}}
	}
	kReason := fmt.Sprintf("K = %d was given as an option (public)", r.src.K)
	if r.kFrom {
		kReason = fmt.Sprintf("assumption: K = %d, the number of classes of the labels, is public", r.src.K)
	}
	reasons := []string{
		"(ε, δ)-DP for one cell added or removed: every release is a Gaussian mechanism without subsampling, in one ledger — dppca's (gene statistics, Analyze-Gauss covariance, seeding histogram, k-means sums and counts), the head's cluster sums (Δ = R) and counts (Δ = 1), every DP-SGD step (full batch, q = 1: the clipped gradient sum has sensitivity C, noise z·C on every parameter); the composition is exact in GDP (μ = √Σ(Δ/σ)²), converted once to (ε, δ); the RDP ledger's figure is shown beside it",
		fmt.Sprintf("noise calibrated in advance from ε and δ: shares of μ² set by public rules before the run's releases, the staged split's and net=rho's from the cell count released first (dppca stage %.3g, network %.3g over %d steps, head %.3g over %d round)", shDP, shNet, r.pl.Steps, shHead, o.Rounds()),
		"whole-network DP-SGD: every parameter (scaling, cluster means, cluster weights) is noised and each cell's gradient is clipped as a whole; a cell's loss depends only on its own code and the parameters; the −log|det| term depends on no cell and is added without noise; the mixture starts from released values only (merged centres, released counts and eigenvalues)",
		"labels and merges: each cell's own code against the trained mixture; the over-clustered centres are merged by k-means on the released centres weighted by the released counts (post-processing)",
		"public constants fixed in advance, not read from the data: p, h, R, K's over-clustering factor, steps, C, the learning rate, the budget split",
		kReason,
		"no live patches: the plan is fixed for the whole run",
		design,
	}
	if o.Genes == dppca.GenesAuto || o.PRule == dppca.PRuleEdge || r.pl.Handoff {
		// h and p chosen from released values: every σ scales with its
		// Δ (R = clip·√h), so no mechanism's μ depends on the choice.
		reasons = append(reasons, "genes=auto chooses h from the released cell count (counted once in the ledger) and p=auto chooses p from the released eigenvalues: post-processing of releases; every noise is a fixed multiple of its sensitivity (R = clip·√h), so the budget does not depend on h or p")
	}
	if rowsBound > 0 {
		reasons = append(reasons, fmt.Sprintf("rows=auto:%d: whether the start's rows are dppca's (its gene rule, total 10³ and offset removal) or the default's is chosen from the released cell count (dppca's gene rule below %d genes): post-processing of that release; the plan and the ledger are those of the rows that ran", rowsBound, rowsBound))
	}
	if r.pl.Handoff {
		reasons = append(reasons, fmt.Sprintf("handoff=%s: the noise the network would leave on a mean, from the released cell count, is %s, so the run is dppca's own pipeline (its start, no DP-SGD step) with the head's round: a choice made from a release, post-processing; the ledger holds what ran", o.Handoff, o.handoffBound()))
	}
	if r.pl.Steps > 0 && r.pl.FinalCounts > 0 {
		reasons = append(reasons, fmt.Sprintf("keep=count: after the last step one count per component of the cells it labels (each cell in one count, Δ = 1) is released with noise %.3g, the head round's count noise (its share of μ² taken from the head's), and entered in the ledger; a component whose count is below %d noise deviations labels no cell (post-processing of that release)", r.pl.FinalCounts, minCountSigmas))
	}
	status := core.GuaranteeFormal
	if o.Prep == dppca.PrepPrivate {
		total := fmt.Sprintf("the public total %g", r.pl.Target)
		if o.Target == TargetAuto {
			total += fmt.Sprintf(" (target=auto: %g when the noise the network would leave on a mean, from the released cell count, is at most %.3g of R, else %g; post-processing of that release)", TargetLow, TargetRho, TargetHigh)
		}
		reasons = append(reasons, fmt.Sprintf("private preprocessing (dppca): each cell normalised to %s and log1p; gene ranking, cell count, gene means and spreads released with noise", total))
	} else {
		status = core.GuaranteeConditional
		reasons = append(reasons, "assumption (prep=public): scanpy's preprocessing statistics (filters, median library size, HVGs, gene means and sds) are public, yet computed on the private cells without noise")
	}
	if !cfg.SecureNoise {
		reasons = append(reasons, "noise follows the run's seed (secure noise is off): seeded noise is for teaching and reproducibility only")
	}
	reasons = append(reasons, live)
	return core.GuaranteeEvent{Status: status, Reasons: reasons, Audited: audited}
}
