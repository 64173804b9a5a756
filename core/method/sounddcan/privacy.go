package sounddcan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
)

// Names of the mechanisms of the network and the head in the ledger (the
// dppca stage uses dppca's names).
const (
	MechSGD    = "DP-SGD (full batch, whole mixture network)"
	MechSums   = "head: cluster sums of the codes"
	MechCounts = "head: cluster counts (merge weights)"
	// MechExtraSums and MechExtraCounts are the head's extra Lloyd rounds
	// that replace the network when the subspace test leaves it out.
	MechExtraSums   = "head: extra rounds' cluster sums (network left out)"
	MechExtraCounts = "head: extra rounds' cluster counts (network left out)"
	// MechFinalCounts is option keep=count's release: one count per
	// component of the cells the trained mixture labels.
	MechFinalCounts = "keep=count: final components' counts"
)

// SubspaceRounds is how many Lloyd rounds of the head replace the network
// under subspace=test: 4, the network's default share over the head's
// (0.4 / 0.1), so each extra round has the head's own noise.
const SubspaceRounds = 4

// SubspaceRho is the subspace test's bound, fixed in advance with the
// staged split's StageRho: the start's private subspace counts as accurate
// when the noise edge of its covariance is at most a quarter of the
// released eigenvalue of the weakest direction K clusters span (the
// (K−1)-th, or the p-th when p < K − 1) — a Davis–Kahan angle of at most
// about that — so the network, which corrects that subspace, has little
// to correct.
const SubspaceRho = StageRho

// Plan holds the noise of one run, calibrated from (ε, δ) in advance: the
// total GDP μ meets (ε, δ) exactly (analytic Gaussian); the dppca stage is
// calibrated at μ·√ShareDPPCA (dppca's own plan and shares inside it); the
// S DP-SGD steps, each a Gaussian mechanism of sensitivity C with noise
// z·C, get ShareSGD: z = √S/(μ·√ShareSGD); the head's rounds share
// ShareHead equally, and within a round p/(p+1) to the sums (Δ = R) and
// 1/(p+1) to the counts (Δ = 1), as dppca's Lloyd rounds. The GDP
// composition of every mechanism is then at most μ. A zero Mu means
// nonprivate mode (every σ 0).
type Plan struct {
	Epsilon, Delta, Mu float64
	// DPPCA is the plan of the dppca stage.
	DPPCA dppca.Plan
	// Steps and Z are the DP-SGD steps and their noise multiplier (each
	// cell's gradient is clipped to 1 in units of the bounds CMu and CV, so
	// a step's sensitivity is 1 and its noise Z); C = 1.
	Steps   int
	Z, C    float64
	CMu, CV float64
	// Rounds, Sums and Counts are the head's rounds and their noise; R the
	// radius the codes are clipped to (dppca's row radius).
	Rounds       int
	Sums, Counts float64
	R            float64
	// Staged is set when the staged split ran (option stage=auto): the
	// cell count NoisyN was released first, with noise CountSigma (Δ = 1;
	// the dppca stage's own count mechanism, which it then reuses), Rho is
	// the noise the network would leave on a mean against R (StageRho),
	// and NetOff says the network was left out for it (its share given to
	// the start, as steps=0).
	Staged, NetOff     bool
	NoisyN, CountSigma float64
	Rho                float64
	// NetShare is the network's share of μ² the staged split chose.
	NetShare float64
	// Over is the over-clustering factor of the dppca stage (option over,
	// or overRule's choice under over=auto).
	Over int
	// SubOff says the subspace test (option subspace=test) left the
	// network out after the start: its share went to Extra more head
	// rounds with noise ExtraSums (Δ = R) and ExtraCounts (Δ = 1).
	SubOff                 bool
	Extra                  int
	ExtraSums, ExtraCounts float64
	// FinalCounts is the noise of option keep=count's release of the
	// final components' counts (Δ = 1) after the last step: the head
	// round's count noise Counts, its share of μ² taken from the head's;
	// 0 when it does not run (the option off, no step, no noise).
	FinalCounts float64
	// Target is the public total the start normalises every cell to:
	// option target, or targetRule's choice under target=auto.
	Target float64
	// RhoOn is the noise the network would leave on a mean with its fixed
	// share (MeanNoise from the released count), target=auto's input; 0
	// without noise or when target is fixed.
	RhoOn float64
	// shares are the shares of μ² the plan gave the dppca stage, the
	// network and the head (after the staged split and net=rho or auto).
	shares [3]float64
	// Rows says rows=auto switched the start to dppca's rows
	// (Options.dppcaRows): RowsH, dppca's own gene rule from the released
	// count at the whole run's μ, was below the option's bound. RowsH is
	// set whenever rows=auto read it.
	Rows  bool
	RowsH int
	// Handoff says option handoff handed the run to dppca's own pipeline
	// (Options.handoff): RhoOn, the noise the network would leave on a
	// mean at its full share, was in the option's band (handsOff); no
	// DP-SGD step runs and the start is dppca's with hold=on.
	Handoff bool
	// StageRounds is rounds=auto's choice of the start's Lloyd rounds
	// (roundsByNoise; 0 when the option is not set) and RoundsNoiseRho
	// its measure at that choice.
	StageRounds    int
	RoundsNoiseRho float64
	// OverNoiseRho is over=noise's measure (overByNoise): the noise one
	// of the stage's Lloyd rounds leaves on an average one of 3K centres'
	// means, in units of R; 0 unless over=noise ran with noise.
	OverNoiseRho float64
	// stageMuOn is the dppca stage's μ at its share with the network on.
	stageMuOn float64
}

// TargetRho is target=auto's bound, in units of R: the start normalises
// to TargetLow when the noise the network would leave on a mean (the
// staged split's MeanNoise, with the network on) is at most a third of
// StageRho, else to TargetHigh. Read from rule T's and T′'s draws
// (docs/RESULTS.md, tenth session; simulations, never the shared sets):
// 10³ lost nothing at ρ ≤ 0.067 (2,000 cells at ε ≥ 8, 4,000 cells at
// ε ≥ 4) and won there up to +0.12; it lost ARI or non-empty clusters at
// ρ ≈ 0.11–0.12 (4,000 cells at ε 2, 2,000 cells at ε 4). StageRho/3 ≈
// 0.083 lies between the two (their geometric mean is 0.086).
const TargetRho = StageRho / 3

// TargetLow is target=auto's total where the noise is small: dppca's own
// default (dppca.DefaultTarget, 10³).
const TargetLow = dppca.DefaultTarget

// targetRule is target=auto's choice from rho, the noise the network
// would leave on a mean (from the released cell count and public values):
// TargetLow when rho ≤ TargetRho, else TargetHigh.
func targetRule(rho float64) float64 {
	if rho <= TargetRho {
		return TargetLow
	}
	return TargetHigh
}

// rhoOn returns the noise the network would leave on a mean with its
// share on (MeanNoise from the released count pl.NoisyN), as the staged
// split computes it; the same under steps=0, so the null chooses as the
// method does.
func (pl *Plan) rhoOn(src *dppca.Source, mu float64, o Options, do dppca.Options) float64 {
	on := o
	on.NoTrain = false
	_, shNet, _ := on.shares()
	n := pl.NoisyN
	h := src.Genes(do.Genes)
	if o.GenesRulesAtDefault {
		h = pl.rulesH(src, o)
	} else if do.Genes == dppca.GenesAuto && o.GenesScale > 0 {
		h = src.Genes(o.scaledGenes(n, pl.genesMu(o)))
	} else if do.Genes == dppca.GenesAuto {
		h = src.Genes(dppca.GenesRule(n, pl.stageMuOn))
	}
	z := math.Sqrt(float64(o.Steps)) / (mu * math.Sqrt(shNet))
	return MeanNoise(z, o.rulesClip(), src.K, n, o.LR, h)
}

// genesMu is the μ genes=auto:S, grow:S and whole:S read h with: the
// dppca stage's μ at its network-on share, or under whole:S the whole
// run's μ (public: both are fixed by ε, δ and the public shares).
func (pl *Plan) genesMu(o Options) float64 {
	if o.GenesWhole {
		return pl.Mu
	}
	return pl.stageMuOn
}

// rulesH is the h the ρ-reading rules use under genes=start:S: the
// default's, grow:DefaultGenesScale at the stage's network-on μ, from the
// released count.
func (pl *Plan) rulesH(src *dppca.Source, o Options) int {
	// the default's floor whatever the start's (alonestart:S has none)
	return src.Genes(max(dppca.GenesRuleScale(pl.NoisyN, pl.stageMuOn, DefaultGenesScale), o.GenesFloor, dppca.DefaultGenes))
}

// NetRho is the noise net=auto puts on a mixture mean, in units of R:
// half the staged split's bound, so that under the gate components down
// to half the average weight still move.
const NetRho = StageRho / 2

// StageRho is the staged split's bound, fixed in advance: the network runs
// only when the noise it would leave on a mixture mean (MeanNoise) is at
// most a quarter of the radius R of every cell's row. Above it a mean's
// noise is comparable with the spread of the cells around it, and its
// steps move components away from their cells (they empty) rather than
// towards them.
const StageRho = 0.25

// scaledGenes is h under genes=auto:S and grow:S: dppca.GenesRuleScale
// (ñ·μ/S within [50, 1000]) from the released count n and the stage's
// network-on μ, and under grow:S never below GenesFloor (today's fixed
// h), so the rule only ever adds genes where the count and budget allow.
func (o Options) scaledGenes(n, muOn float64) int {
	return max(dppca.GenesRuleScale(n, muOn, o.GenesScale), o.GenesFloor)
}

// GenesScaleMin and GenesScaleMax bound S of genes=auto:S and grow:S.
const (
	GenesScaleMin = 0.5
	GenesScaleMax = 1000.0
)

// MeanNoise returns the noise norm left on a mixture mean after the steps,
// in units of R: each preconditioned step adds η·z·C_μ/(ñ/K) per
// coordinate to a mean of weight 1/K and the steps forget the past at rate
// η, so it settles at that times √(η/(2 − η)), over h coordinates.
func MeanNoise(z, gclip float64, k int, noisyN, eta float64, h int) float64 {
	return z * gclip * float64(k) / max(noisyN, 1) * math.Sqrt(eta/(2-eta)) * math.Sqrt(float64(h))
}

// stageEpsilon returns the (ε at δ) of μ·√share, a hair below.
func stageEpsilon(mu, share, delta float64) (float64, error) {
	e, err := accountant.GDPEpsilon(mu*math.Sqrt(share)*(1-1e-9), delta)
	if err != nil {
		return 0, fmt.Errorf("dcan-sound: the dppca stage's ε: %w", err)
	}
	return e, nil
}

// stage is the staged split (option stage=auto): it releases the cell
// count with the noise the dppca stage's count mechanism has when the
// network runs (so that release is the stage's own, entered once), then
// decides from ñ and public values only whether the network runs
// (MeanNoise ≤ StageRho); if not, its steps are dropped and its share of
// μ² goes to the dppca stage and the head in their ratio, as under
// steps=0. The count's noise is fixed before the decision, so the
// composition is exact whichever way it goes. It returns the shares.
func (pl *Plan) stage(src *dppca.Source, mu float64, o Options, do dppca.Options) (shDP, shNet, shHead float64) {
	shDP, shNet, shHead = o.shares()
	pl.Rho = pl.rhoOn(src, mu, o, do) // the network is on here (staged runs train)
	if pl.Rho <= o.StageBound {
		if o.NetRule == NetAuto || o.NetRule == NetRhoRule {
			// Just the share that puts the network's noise at NetRho
			// (net=rho: TargetRho; ρ ∝ 1/√share); the rest to the start
			// and the head.
			bound := NetRho
			if o.NetRule == NetRhoRule {
				bound = TargetRho
			}
			shNet = min(shNet, shNet*(pl.Rho/bound)*(pl.Rho/bound))
			shDP, shHead = o.startShares(1 - shNet)
		}
		pl.NetShare = shNet
		return shDP, shNet, shHead
	}
	pl.NetOff, pl.Steps = true, 0
	off := o
	off.NoTrain = true
	return off.shares()
}

// releaseCount releases the cell count first, with the noise the dppca
// stage's count mechanism has when the network runs at its share (so
// that release is the stage's own, entered once, and the method and its
// null draw it alike); prep=public takes the count as public.
func (pl *Plan) releaseCount(src *dppca.Source, mu, delta float64, o Options, do dppca.Options, rng *rand.Rand) error {
	on := o
	on.NoTrain = false
	shDP, _, _ := on.shares()
	eps1, err := stageEpsilon(mu, shDP, delta)
	if err != nil {
		return err
	}
	stage, err := dppca.NewPlan(true, eps1, delta, do, 2, 1)
	if err != nil {
		return err
	}
	pl.Staged, pl.stageMuOn = true, stage.Mu
	n := float64(src.Data.Cells())
	if do.Prep == dppca.PrepPrivate {
		pl.CountSigma = stage.Count
		n = max(n+pl.CountSigma*rng.NormFloat64(), 1)
	}
	// prep=public: the cell count is public by that option's assumption.
	pl.NoisyN = n
	return nil
}

// aloneGenesScale is the scale start=alone passes to dppca's genes=auto
// rule (h = ñ·μ/s within [50, 1000]) so that its h is
// max(floor, ñ·μ/scale): scale itself when that rule reaches the floor,
// else ñ·μ/floor, whose rule rounds to the floor; never below
// dppca.MinGenesScale (then h = ñ·μ, below the floor only when ñ·μ <
// floor, on tiny counts or budgets). dppca's plan reads only h from it.
func aloneGenesScale(n, mu, scale float64, floor int) float64 {
	if floor <= 0 || dppca.GenesRuleScale(n, mu, scale) >= floor || math.IsInf(mu, 1) {
		return scale
	}
	return max(float64(dppca.MinGenesScale), n*mu/float64(floor))
}

// planWithCount plans the dppca stage at eps1 around a cell count released
// already (noisyN, with noise countSigma; 0 under prep=public): h by
// dppca's rule from that count under genes=auto (as Source.PlanFor), R =
// clip·√h, and the plan's count mechanism is that release.
//
// Under genes=auto:S or grow:S (o.GenesScale > 0) h is o.scaledGenes from
// that count and muOn, the stage's μ at the network-on share (the μ the
// staged split's ρ was read with, so the split and the stage see the same
// h).
func planWithCount(src *dppca.Source, eps1, delta float64, do dppca.Options, noisyN, countSigma float64, o Options, muOn float64) (dppca.Plan, error) {
	if o.Start == StartAlone {
		// dppca's own planning around the released count: the plan
		// PlanFor makes had it drawn that count (its rng is not read: no
		// median is released under dppca's defaults)
		if o.GenesScale > 0 && do.Genes == dppca.GenesAuto {
			// genes=auto:S or grow:S: dppca's own rule at scale S and the
			// stage's μ, and under grow:S never below the floor (the
			// default's 200), passed to dppca as the scale that gives
			// that h from this count (aloneGenesScale)
			probe, err := dppca.NewPlan(true, eps1, delta, do, 2, 1)
			if err != nil {
				return dppca.Plan{}, err
			}
			do.GenesScale = aloneGenesScale(noisyN, probe.Mu, o.GenesScale, o.GenesFloor)
		}
		return src.PlanForCount(eps1, delta, do, dppca.ReleasedCount{N: noisyN, Sigma: countSigma}, nil)
	}
	h := src.Genes(do.Genes)
	if do.Genes == dppca.GenesAuto && o.GenesScale > 0 {
		h = src.Genes(o.scaledGenes(noisyN, muOn))
	} else if do.Genes == dppca.GenesAuto {
		probe, err := dppca.NewPlan(true, eps1, delta, do, 2, 1)
		if err != nil {
			return dppca.Plan{}, err
		}
		h = src.Genes(dppca.GenesRule(noisyN, probe.Mu))
	}
	pl, err := dppca.NewPlan(true, eps1, delta, do, h, do.Clip*math.Sqrt(float64(h)))
	if err != nil {
		return dppca.Plan{}, err
	}
	pl.NoisyN = noisyN
	if pl.PrivatePrep {
		pl.Count = countSigma
	}
	return pl, nil
}

// muOf returns the GDP μ of (ε, δ), a hair below so rounding in the shares
// never lets the composition exceed the target.
func muOf(eps, delta float64) (float64, error) {
	s, err := accountant.AnalyticGaussianSigma(eps, delta, 1)
	if err != nil {
		return 0, fmt.Errorf("dcan-sound: calibrating ε = %g, δ = %g: %w", eps, delta, err)
	}
	return (1 - 1e-9) / s, nil
}

// NewPlan calibrates a run of o on src at (ε, δ); with private false every
// σ is 0. The dppca stage is planned by dppca itself (Source.PlanFor) at
// its share of the budget: under genes=auto it releases the cell count
// first (drawn from rng, carried as DPPCA.NoisyN and reused by the stage's
// preprocessing) and chooses h from it; the mixture then lives in those h
// genes, with dppca's row radius R = clip·√h.
func NewPlan(src *dppca.Source, private bool, eps, delta float64, o Options, rng *rand.Rand) (Plan, error) {
	o = o.forK(src.K) // p=span: p from K, a public value
	do, err := o.dppcaOptions()
	if err != nil {
		return Plan{}, err
	}
	pl := Plan{Epsilon: eps, Delta: delta, Steps: o.Steps, C: 1, Rounds: o.Rounds(), Target: o.Target}
	if o.NoTrain {
		pl.Steps = 0
	}
	// sizes fills in what depends on the stage's h and R.
	sizes := func() {
		h, r := float64(pl.DPPCA.H), pl.DPPCA.R
		pl.R, pl.CMu, pl.CV = r, o.GradClip*r, r*r/h
	}
	if !private {
		if o.handsOff(0) {
			// no noise on any mean: ρ = 0
			o = o.handoff()
			if do, err = o.dppcaOptions(); err != nil {
				return Plan{}, err
			}
			pl.Handoff, pl.Steps = true, 0
		}
		if pl.DPPCA, err = src.PlanFor(false, 0, delta, do, 0, rng); err != nil {
			return Plan{}, err
		}
		sizes()
		pl.Over = o.Over
		if o.Over == OverAuto || o.Over == OverNoise {
			pl.Over = OverCluster // no noise: every centre clears the bar
		}
		if o.Target == TargetAuto {
			pl.Target = targetRule(0) // no noise on any mean
		}
		return pl, nil
	}
	mu, err := muOf(eps, delta)
	if err != nil {
		return Plan{}, err
	}
	pl.Mu = mu
	shDP, shNet, shHead := o.shares()
	staged := o.Stage == StageAuto && !o.NoTrain
	if staged || o.StageT == RoundsAuto || o.Over == OverAuto || o.Over == OverNoise || o.Target == TargetAuto || o.handoffOn() || o.GenesScale > 0 {
		// The cell count first (these rules decide from it).
		if err := pl.releaseCount(src, mu, delta, o, do, rng); err != nil {
			return Plan{}, err
		}
	}
	if o.RowsBelow > 0 && pl.NoisyN > 0 {
		// rows=auto: post-processing of the count just released (drawn
		// with the default's count noise, which offset=dir and the gene
		// and target rules do not change: dppca's count share is fixed);
		// every later rule and the stage's plan read the chosen options.
		pl.RowsH = rowsH(pl.NoisyN, mu)
		if pl.RowsH < o.RowsBelow {
			pl.Rows = true
			o = o.dppcaRows()
			if do, err = o.dppcaOptions(); err != nil {
				return Plan{}, err
			}
			pl.Target = o.Target
		}
	}
	if staged {
		shDP, shNet, shHead = pl.stage(src, mu, o, do)
	}
	if o.Target == TargetAuto {
		pl.RhoOn = pl.rhoOn(src, mu, o, do)
		pl.Target = targetRule(pl.RhoOn)
	}
	if o.handoffOn() {
		// The same ρ target=auto reads (the network at its full share,
		// the default start's h), so the method and its null (steps=0)
		// decide alike; post-processing of the released count.
		rho := pl.rhoOn(src, mu, o, do)
		if o.handsOff(rho) {
			pl.Handoff, pl.RhoOn = true, rho
			pl.NetOff, pl.Steps, pl.NetShare = false, 0, 0
			if o.Target == TargetAuto {
				pl.Target = TargetLow // dppca's own total, as it runs alone
			}
			o = o.handoff()
			if do, err = o.dppcaOptions(); err != nil {
				return Plan{}, err
			}
			shDP, shNet, shHead = o.shares()
		}
	}
	pl.shares = [3]float64{shDP, shNet, shHead}
	if o.StageT == RoundsAuto && !pl.Handoff {
		if pl.StageRounds, err = pl.roundsByNoise(src, mu, delta, o, do); err != nil {
			return Plan{}, err
		}
		do.T = pl.StageRounds
	}
	// dppca calibrates from an (ε, δ): the ε of μ·√share, converted once;
	// its own calibration returns a μ a hair below (checked by the tests:
	// the whole composition stays ≤ μ).
	eps1, err := stageEpsilon(mu, shDP, delta)
	if err != nil {
		return Plan{}, err
	}
	if pl.NoisyN > 0 {
		// The count is released already: plan the stage around it
		// (dppca.Source.PlanFor's rule for h, with this count).
		if pl.DPPCA, err = planWithCount(src, eps1, delta, do, pl.NoisyN, pl.CountSigma, o, pl.genesMu(o)); err != nil {
			return Plan{}, err
		}
	} else if pl.DPPCA, err = src.PlanFor(true, eps1, delta, do, 0, rng); err != nil {
		return Plan{}, err
	}
	sizes()
	r := pl.R
	if pl.Steps > 0 {
		pl.Z = math.Sqrt(float64(pl.Steps)) / (mu * math.Sqrt(shNet))
	}
	if pl.Rounds > 0 {
		p := float64(o.P)
		rounds := float64(pl.Rounds)
		keep := o.KeepCount && pl.Steps > 0
		if keep {
			// keep=count: the final count is one more count release of
			// the head's, with its round's count noise: the head's share
			// covers the rounds and a count's share more
			rounds += 1 / (p + 1)
		}
		w := shHead / rounds
		pl.Sums = r / (mu * math.Sqrt(w*p/(p+1)))
		pl.Counts = 1 / (mu * math.Sqrt(w/(p+1)))
		if keep {
			pl.FinalCounts = pl.Counts
		}
	}
	pl.Over = o.Over
	switch o.Over {
	case OverAuto:
		pl.Over = overRule(pl.NoisyN, src.K, pl.Counts)
	case OverNoise:
		if pl.Over, err = pl.overByNoise(src, mu, delta, o, do); err != nil {
			return Plan{}, err
		}
	}
	return pl, nil
}

// overByNoise is over=noise's choice, from the released count ñ and
// public values: the noise one Lloyd round of the dppca stage leaves on
// the mean of an average one of OverCluster·K centres, its sums' σ over
// p coordinates divided by ñ/(OverCluster·K) cells, in units of R (the
// staged split's measure applied to the start's centres), with the stage
// planned at its network-on share (as the staged split reads ρ, so the
// method and its null choose alike). At most the staged split's bound:
// OverCluster; else OverNoiseLow. It records that noise in
// pl.OverNoiseRho. Post-processing of the count release.
func (pl *Plan) overByNoise(src *dppca.Source, mu, delta float64, o Options, do dppca.Options) (int, error) {
	rho, err := pl.centreNoise(src, mu, delta, o, do)
	if err != nil {
		return 0, err
	}
	pl.OverNoiseRho = rho
	if rho <= o.StageBound {
		return OverCluster, nil
	}
	return OverNoiseLow, nil
}

// roundsByNoise is rounds=auto's choice (RoundsAuto), from the released
// count ñ and public values: for T = dppcaStageRounds down to 1, the
// noise one of the stage's T Lloyd rounds leaves on the mean of an
// average one of OverCluster·K centres (over=noise's measure,
// centreNoise); the first T at most the staged split's bound, else 1.
// The measure of the T chosen goes to pl.RoundsNoiseRho.
func (pl *Plan) roundsByNoise(src *dppca.Source, mu, delta float64, o Options, do dppca.Options) (int, error) {
	for t := dppcaStageRounds; t >= 1; t-- {
		dt := do
		dt.T = t
		rho, err := pl.centreNoise(src, mu, delta, o, dt)
		if err != nil {
			return 0, err
		}
		pl.RoundsNoiseRho = rho
		if rho <= o.StageBound {
			return t, nil
		}
	}
	return 1, nil
}

// centreNoise is the noise one Lloyd round of the dppca stage (planned
// with do) leaves on the mean of an average one of OverCluster·K centres:
// its sums' σ over p coordinates divided by ñ/(OverCluster·K) cells, in
// units of R (the staged split's measure applied to the start's centres),
// with the stage planned at its network-on share, as the staged split
// reads ρ, so that the method and its null choose alike.
func (pl *Plan) centreNoise(src *dppca.Source, mu, delta float64, o Options, do dppca.Options) (float64, error) {
	on := o
	on.NoTrain = false
	shDP, _, _ := on.shares()
	eps1, err := stageEpsilon(mu, shDP, delta)
	if err != nil {
		return 0, err
	}
	st, err := planWithCount(src, eps1, delta, do, pl.NoisyN, pl.CountSigma, o, pl.genesMu(o))
	if err != nil {
		return 0, err
	}
	nc := max(pl.NoisyN, 1) / float64(OverCluster*src.K)
	return st.Sums * math.Sqrt(float64(o.P)) / nc / st.R, nil
}

// overRule is over=auto's choice, from the released count ñ and the head's
// count noise: over-cluster into OverCluster·K centres only when an average
// one, ñ/(OverCluster·K) cells, clears the head's count bar
// (minCountSigmas·σ, at least one cell) twice — the smaller populations
// are about half the average; a centre below the bar is left out of the
// merge, and a merged start with too few weighted centres has centres no
// cell is nearest to. Else 1: dppca's stage clusters into K, no merge.
func overRule(noisyN float64, k int, sigCounts float64) int {
	bar := max(1, minCountSigmas*sigCounts)
	if noisyN/float64(OverCluster*k) >= 2*bar {
		return OverCluster
	}
	return 1
}

// Shares returns the shares of μ² the plan gave the dppca stage, the
// network and the head: the options' fixed shares, or what the staged
// split and net=rho or net=auto made of them (zeros without noise).
func (pl Plan) Shares() (dp, net, head float64) {
	return pl.shares[0], pl.shares[1], pl.shares[2]
}

// Private reports whether the plan adds noise.
func (pl Plan) Private() bool { return pl.Mu > 0 }

// Mechanisms lists every release of the plan: dppca's, then the DP-SGD
// steps, then the head's rounds.
func (pl Plan) Mechanisms() []dppca.Mechanism {
	if !pl.Private() {
		return nil
	}
	ms := pl.DPPCA.Mechanisms()
	if pl.Steps > 0 {
		ms = append(ms, dppca.Mechanism{Name: MechSGD, Sens: pl.C, Sigma: pl.Z * pl.C, Count: pl.Steps})
	}
	if pl.Rounds > 0 {
		ms = append(ms,
			dppca.Mechanism{Name: MechSums, Sens: pl.R, Sigma: pl.Sums, Count: pl.Rounds},
			dppca.Mechanism{Name: MechCounts, Sens: 1, Sigma: pl.Counts, Count: pl.Rounds})
	}
	if pl.Extra > 0 {
		ms = append(ms,
			dppca.Mechanism{Name: MechExtraSums, Sens: pl.R, Sigma: pl.ExtraSums, Count: pl.Extra},
			dppca.Mechanism{Name: MechExtraCounts, Sens: 1, Sigma: pl.ExtraCounts, Count: pl.Extra})
	}
	if pl.Steps > 0 && pl.FinalCounts > 0 {
		ms = append(ms, dppca.Mechanism{Name: MechFinalCounts, Sens: 1, Sigma: pl.FinalCounts, Count: 1})
	}
	return ms
}

// record enters one mechanism into the ledger, under its own component.
func (r *runner) record(m dppca.Mechanism) error {
	if r.e.ledger == nil {
		return nil
	}
	ev, err := m.Event()
	if err != nil {
		return err
	}
	return r.e.ledger.Record(m.Name, ev)
}

// spentMu returns the GDP μ of everything in the ledger.
func (r *runner) spentMu() float64 { return dppca.SpentMu(r.e.ledger) }

// emitBudget reports ε spent so far (GDP exact, and the RDP ledger's),
// projected at the end of the plan, and per component.
func (r *runner) emitBudget() {
	l := r.e.ledger
	if l == nil {
		return
	}
	delta := r.e.cfg.Delta
	ev := core.BudgetEvent{Step: r.step, Delta: delta, Target: r.e.cfg.Epsilon}
	if e, err := dppca.EpsilonOf(r.spentMu(), delta); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantGDP, Epsilon: e})
	}
	if rep, err := l.Report(delta, accountant.LedgerOptions{SkipPLD: true}); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantRDP, Epsilon: rep.Total.EpsilonRDP})
	}
	if e, err := dppca.EpsilonOf(dppca.ComposedMu(r.pl.Mechanisms()), delta); err == nil {
		ev.Projected = []core.EpsilonValue{{Accountant: AccountantGDP, Epsilon: e}}
	}
	for _, c := range l.Components() {
		if mu, err := accountant.GDPMu(l.Events(c)); err == nil {
			if e, err := dppca.EpsilonOf(mu, delta); err == nil {
				ev.Components = append(ev.Components, core.NamedValue{Name: c, Value: e})
			}
		}
	}
	r.ctl.Emit(ev)
}

// subspaceAccurate is the subspace test: the noise edge of the start's
// covariance is at most rho times the released eigenvalue of the
// weakest direction K clusters span (eigen decreasing; the (K−1)-th, or
// the last when fewer were kept), rho that bound. Released values only.
func subspaceAccurate(eigen []float64, edge float64, k int, rho float64) bool {
	j := min(k-1, len(eigen)) - 1
	return j >= 0 && edge <= rho*eigen[j]
}

// subspaceRho returns the subspace test's bound of option subspace:
// SubspaceRho under test; 1 under edge (the weakest direction merely above
// the noise edge, dppca's p=auto criterion for keeping a direction).
func subspaceRho(v string) float64 {
	if v == SubspaceEdge {
		return 1
	}
	return SubspaceRho
}

// leaveNetOut turns a plan whose network would run into one that spends
// the network's share on Extra = SubspaceRounds more head rounds: the
// network's S steps of noise z have μ² = S/z², split equally over the
// rounds and within a round p/(p+1) to the sums (Δ = R) and 1/(p+1) to the
// counts (Δ = 1), so the composition is the same μ whichever way the test
// goes (a fully adaptive choice between two releases of equal μ).
func (pl Plan) leaveNetOut(p int) Plan {
	w := float64(pl.Steps) / (pl.Z * pl.Z) / SubspaceRounds
	fp := float64(p)
	pl.ExtraSums = pl.R / math.Sqrt(w*fp/(fp+1))
	pl.ExtraCounts = 1 / math.Sqrt(w/(fp+1))
	pl.Extra, pl.SubOff, pl.Steps = SubspaceRounds, true, 0
	return pl
}
