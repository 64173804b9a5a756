package sounddcan

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
)

// DefaultGenesScale is S of the default genes=grow:S, 19: h = max(200,
// min(1000, ñ·μ/19)). Fitted by the twelfth session's ERM over S ∈ {3,
// 4.5, 6.5, 9, 13, 19} (summed ARI 40.53 against the fixed h = 200's
// 40.23) and adopted by rule G3 on fresh draws 191–198 (package comment;
// docs/RESULTS.md, "sdcan14"). On the first screen (builtin:default at
// ε 4) it keeps h = 200.
const DefaultGenesScale = 19

// DefaultGenesOption is option genes' default as it is written.
const DefaultGenesOption = "grow:19"

// ErrOptions is wrapped by every error about an option value.
var ErrOptions error = &core.MethodConfigError{Method: "dcan-sound"}

func optf(format string, args ...any) error {
	return core.Wrapf(ErrOptions, "dcan-sound: "+format, args...)
}

// Defaults, fixed in advance by the rules in the package comment.
const (
	DefaultSteps = 50
	// DefaultPath is S·η: with the EM preconditioner a step of η = 1 is
	// one soft Lloyd (EM) iteration, and S steps of η carry a mean
	// 1 − (1 − η)^S ≈ 1 − e^(−3) = 95 % of the way to a fixed target while
	// averaging the noise of the last ≈ 1/η steps.
	DefaultPath = 3
	// DefaultGradClip bounds a cell's gradient in the means, r_j(x − μ_j),
	// at R: every row has ‖x‖ ≤ R, so a cell no farther from its mean
	// than the rows' radius is not clipped.
	DefaultGradClip = 1
)

// Shares of μ² (GDP), fixed in advance: the dppca stage, the network's
// DP-SGD and the head's Lloyd round. They sum to 1. Option "net" changes
// the network's share; the other two then keep their ratio 5 : 1.
const (
	ShareDPPCA = 0.5
	ShareSGD   = 0.4
	ShareHead  = 0.1
)

// Options are dcan-sound's own settings (core.Config.Options). Zero values
// select the defaults; Resolve fills them in.
type Options struct {
	// P, PRule, Genes, Prep and K are passed to the dppca stage ("p",
	// "genes", "prep", "k"). The default p is dppca's previous one, p = 10
	// fixed; dppca's current ones ("p=auto", by the noise edge up to
	// dppca.DefaultPCap; "genes=auto", h from the released cell count,
	// dppca.GenesRule) were worse on the fresh simulations at ε = 8
	// (package comment) and are options. The default genes is grow:19
	// (DefaultGenesOption: h = max(200, ñ·μ/19), the fixed 200 as its
	// floor), adopted by rule G3; a fixed h (genes=N) leaves GenesScale 0.
	P, Genes int
	// GenesScale is S of "genes=auto:S" (0: off; Genes is then GenesAuto):
	// h = dppca.GenesRuleScale(ñ, μ, S), dppca's count rule with
	// dcan-sound's own scale, fitted by the twelfth
	// session's ERM (package comment).
	GenesScale float64
	// GenesFloor is the least h of "genes=grow:S" (dppca.DefaultGenes,
	// the fixed h = 200; 0 under auto:S): h = max(GenesFloor,
	// dppca.GenesRuleScale(ñ, μ, S)), never fewer genes than the fixed
	// default, more where the released count and budget allow (the
	// lead's answer to auto:S, which fell to h = 68 on the first screen).
	GenesFloor int
	// GenesWhole ("genes=whole:S", with grow:S's floor) reads the rule
	// at the whole run's μ instead of the dppca stage's network-on μ
	// (Plan.genesMu): h = max(200, ñ·μ/S), at S = 18 dppca's own h when
	// it runs alone with the whole budget (dppca.DefaultGenesScale), so
	// the start reads at least the genes dppca would (the thirteenth
	// session's diagnosis: at ε 8 the stage read 0.67–0.78 of dppca's h).
	// "genes=alone:S" is whole:S without the floor (GenesFloor 0): h =
	// ñ·μ/S within [50, 1000] at the whole run's μ, at S = 18 dppca's own
	// rule as it runs alone (the twentieth session's second part,
	// docs/RESULTS.md "sdcan26", builds the start's rows as dppca's).
	// "genes=alonestart:S" is alone:S with start:S's rules read at the
	// default's h (GenesRulesAtDefault).
	GenesWhole bool
	// GenesRulesAtDefault ("genes=start:S": whole:S for the start's
	// matrix) makes every rule that reads ρ (the staged split, net=rho,
	// target=auto, the hand-off) read it at the default's h (grow:19 at
	// the stage's network-on μ, Plan.rulesH) instead of the start's: their
	// bounds were fitted at that h, and under whole:18 the larger h alone
	// lifted ρ over TargetRho (simlinoff12 draw 239, ε 8: the start
	// normalised to 10⁴ and lost 0.157; rule G6).
	GenesRulesAtDefault bool
	// PSpan ("p=span") sets p from K at run time (forK): p = max(P,
	// K − 1), at most dppca.DefaultPCap. K cluster means span K − 1
	// dimensions, so with P = 10 a start of K ≥ 12 clusters runs its
	// k-means in fewer dimensions than its clusters' means need (the
	// thirteenth session's candidate for mouse_bladder's K = 16; it failed
	// rule G4 on fresh draws, docs/RESULTS.md "sdcan15", so it is an
	// option). P is the floor.
	PSpan bool
	PRule dppca.PRule
	Prep  dppca.Prep
	K     int
	// Steps is the number S of full-batch DP-SGD steps ("steps").
	Steps int
	// NoTrain ("steps=0") is the method's honest null: the same pipeline
	// with no DP-SGD step (labels from the mixture at its private
	// initialisation), the network's share of the budget given back to
	// the dppca stage and the head in their own ratio: the same total ε.
	NoTrain bool
	// GradClip is the bound of a cell's gradient in the means, as a
	// multiple of R ("gclip").
	GradClip float64
	// RhoClip ("rhoclip"; 0 or "gclip": GradClip) is the means' bound,
	// as a multiple of R, at which the rules that read ρ (the staged
	// split, net=rho and net=auto, target=auto, handoff, the gate) read
	// the noise the network would leave on a mean. With rhoclip=1 and
	// gclip below 1 those rules decide and share the budget exactly as
	// the default (gclip=1) does, so the run differs from the default's
	// only in the clip of the means and the noise it sets: their
	// thresholds were all fitted on draws with the bound 1, where ρ
	// stood for the regime (cells per cluster against the budget) as
	// much as for the noise itself (docs/RESULTS.md, "sdcan19").
	RhoClip float64
	// LR is the step size η of the preconditioned steps ("lr"); 0 takes
	// DefaultPath/S.
	LR float64
	// Net is the network's share of μ² ("net"), in (0, 1): its share
	// under NetRule fixed, its largest share under auto and rho.
	Net float64
	// NetRule ("net=rho", the default; "net=auto"; a number: fixed) is
	// how the network's share is set: fixed at Net, or (with the staged
	// split) just large enough to put the noise it leaves on a mean at
	// TargetRho (rho) or NetRho (auto), at most Net.
	NetRule string
	// Over is the over-clustering factor of the dppca stage ("over"): it
	// clusters into Over·K centres, merged into K after the head's round;
	// 1 keeps dppca's K centres.
	Over int
	// Shrink ("shrink": js or off) is the post-processing of each released
	// DP-SGD step: js shrinks every component's block of the released
	// gradient by positive-part James–Stein (mixture.shrink).
	Shrink string
	// Stage ("stage": auto or off) is the staged split: auto releases the
	// cell count first and runs the network only when the noise it would
	// leave on a mean is small against the rows' radius (StageRho);
	// otherwise its share of the budget goes back to the start.
	Stage string
	// Gate ("gate": comp or off) holds, at each step, the mean of every
	// component whose own released weight is too small for the noise
	// (the staged split's test per component, mixture.gated).
	Gate string
	// Start ("start": stage or dppca) is the private start: stage is
	// dppca's previous defaults as this design was measured with (the
	// genes option's h, 200 then and now at least 200 under grow:19;
	// p = 10, 5 Lloyd rounds) over-clustered into Over·K and merged by the
	// head; dppca is dppca exactly as dppca runs alone (its current rules:
	// genes=auto, p=auto, DefaultT rounds, over=auto with its own merge),
	// into K centres, no merge of the head's (Over = 1 unless given; with
	// over > 1 the head over-clusters and merges, dppca does not); alone
	// and merge: StartAlone, StartMerge.
	Start string
	// StageT ("rounds") is the start's Lloyd rounds; 0 takes the
	// start's own (dppcaStageRounds, 5, under start=stage; dppca's
	// DefaultT, 10, under start=dppca and start=alone). A factor of the
	// fourteenth session's factorial (docs/RESULTS.md, "sdcan17").
	StageT int
	// Split ("split"; 0: dppca.DefaultSplit, 0.5) is the private PCA's
	// share of the dppca stage's μ² (dppca.Options.Split); the k-means
	// rounds take what the preprocessing and the seeding leave. The
	// stage's total μ is unchanged, so only how it is divided between
	// the covariance and the rounds moves. Label-free (docs/RESULTS.md,
	// "sdcan25"), a larger share raises the private basis' capture of
	// the rows' leading variance and empties clusters through the
	// thinner rounds; it was not screened further.
	Split float64
	// Avg ("avg"; 0 or 1: off) makes the start's final centres the mean
	// of its last Avg Lloyd rounds' released centres (those run with the
	// stage's final number of centres), every cell labelled by its nearest
	// averaged centre: post-processing of the same releases, so the plan,
	// every σ and the ledger are the default's. dppca's avg (its default
	// 5 since its rule G15) did not reach the stage, whose held releases
	// end at the last round's centres (dppca.Options.HeldAvg). Why here
	// (docs/RESULTS.md, "sdcan25"): label-free, on development draws at
	// small n·ε the start's partition lies far from a Lloyd fixed point
	// (noise-free rounds from its labels gain +0.24 in separation on the
	// 2,000-cell shape at ε 2–4), so the last rounds' noise is where it
	// loses there; the mean of L rounds' centres has about 1/√L of one
	// round's noise once the rounds have settled. On development draws
	// avg=3 and avg=5 filled clusters and were level with the default in
	// ARI, so no rule was written. Under start=alone it replaces dppca's
	// own avg.
	Avg int
	// Offset ("offset": off, the default, or dir) is the dppca stage's
	// option offset (dppca.Options.Offset; start=alone keeps dppca's own
	// default, dir): under dir the stage's private preprocessing, when its
	// public prediction fires, releases the rows' mean unit direction
	// (ShareOffset of the stage's μ², from its k-means share) and projects
	// it out of every scaled row before the clip; when it does not fire
	// nothing is released and the share returns to the k-means. dppca's
	// plan carries that share, and the run's ledger records the stage's
	// mechanisms as they ran (Outcome.Plan). Why (docs/RESULTS.md,
	// "sdcan26"): the twentieth session found the start at a noise-free
	// k-means fixed point of its own rows on the shared sets, so only the
	// rows can move it; dppca's rows differ from the stage's in h, the
	// total and this offset, and h and the total alone were judged and
	// failed. The combination (genes=whole:18 target=1000 offset=dir)
	// builds the start's rows as dppca's.
	Offset dppca.Offset
	// RowsBelow ("rows=auto:H"; 0: off, the default) switches the start
	// to dppca's rows (dppcaRows: genes=alonestart:18, target=1000,
	// offset=dir) when dppca's own gene rule, read from the released
	// cell count at the whole run's μ (h = ñ·μ/18 within [50, 1000]),
	// gives fewer than H genes, i.e. where n·ε is small; elsewhere the
	// run is the default's. The choice is post-processing of the count
	// release, which every run makes first; the plan is then the chosen
	// options' (Plan.Rows). Why (docs/RESULTS.md, "sdcan26", "sdcan27"):
	// on development draws dppca's rows gained +0.16 to +0.23 where n·ε
	// is small (the 300-cell shape, the 2,000-cell shape at ε 2) and lost
	// at larger n·ε (mb at ε 4, log-mean 7 at ε 16) and on simlinoff12
	// at ε 2. rows=auto:62 (62 read from development ARI, between the
	// 2,000-cell shapes' 55.7 and simlinoff12's 69.7 at ε 2) failed rule
	// G22's clause (a) by 0.0001 with no losing cell, so it is an option.
	RowsBelow int
	// MergeStarts ("mergestarts=N"; 0: the head merge's own mergeRestarts,
	// the default) is how many weighted k-means++ + Lloyd starts the
	// head's merge of the Over·K released centres into K searches: the
	// first mergeRestarts from the run's stream as before, the rest from
	// a stream seeded by the released centres and weights (mergeRng), so
	// every noise draw, the plan, σ and the ledger are the default's; the
	// merge is post-processing. Under start=alone it is dppca's own
	// merge's mergestarts (that start keeps dppca.MinMergeStarts
	// otherwise). Why (docs/RESULTS.md, "sdcan28"): dppca's merge of the
	// same kind gained by rule G23 from searching 1,000 starts.
	MergeStarts int
	// SeedStarts ("seedstarts=N"; 0: dppca's ten, the default) is how
	// many weighted k-means++ + Lloyd starts the stage's histogram
	// seeding of its centres searches on the released bins
	// (dppca.Options.SeedStarts): the first ten from the run's stream as
	// before, the rest from a stream seeded by the released bins, so every
	// noise draw, the plan, σ and the ledger are the default's; the
	// seeding is post-processing. Why (docs/RESULTS.md, "sdcan29"): it is
	// the start's other small-start k-means on released values, after the
	// head's merge (mergestarts, sdcan28).
	SeedStarts int
	// Subspace ("subspace": off, test or edge) is the spectral test after
	// the start (subspaceAccurate): test leaves the network out when the
	// start's released spectrum says its private subspace is already
	// accurate (noise edge ≤ SubspaceRho of the weakest eigenvalue), edge
	// when that eigenvalue is merely above the noise edge,
	// and spends the network's share on SubspaceRounds more Lloyd rounds
	// of the head in the codes instead.
	Subspace string
	// Fill ("fill": off or split) is what the start does with a component
	// the head's round released no weight for: off keeps it (it stays
	// empty), split re-seeds it by splitting the heaviest component
	// (fillSplit).
	Fill string
	// Hold ("hold": off or on) runs the start's Lloyd rounds (either
	// start) with the head's rule (dppca.ReleaseHeld): a centre whose
	// released count is below minCountSigmas noise deviations keeps its
	// position instead of moving to a point of noise; seen holds only a
	// centre whose count reached that bar in an earlier round, first
	// holds only in the first round.
	Hold string
	// Target ("target") is the public total every cell is normalised to
	// before log1p in the start's private preprocessing (dppca's option
	// of the same name, dppca.NewSourceTarget): DefaultTarget unless
	// given. It is a public constant; no mechanism's noise depends on it.
	// TargetAuto ("target=auto") chooses it from the released cell count
	// (targetRule).
	Target float64
	// StageBound ("stagerho") is the staged split's bound on ρ, the noise
	// the network would leave on a mean in units of R: above it the
	// network is left out. DefaultStageBound unless given; the gate,
	// TargetRho and NetRho stay fractions of the fixed StageRho.
	StageBound float64
	// Handoff ("handoff": off, low or mid) is where, by the noise ρ the
	// network would leave on a mean at its full share (from the released
	// cell count), a run is handed to dppca's own pipeline with hold=on
	// and no network (Options.handoff, handsOff); off never.
	Handoff string
	// NetDim ("netdim": genes, the default, or an integer q ≥ 2) puts the
	// network in the q leading eigenvectors of the start's released noisy
	// covariance (dppca.Options.Wide, post-processing of that release)
	// instead of the h genes: the rows are projected on that basis (‖·‖ ≤
	// R still) and the mixture's means, gradients and noise live there,
	// so the noise DP-SGD leaves on a mean grows with √q, not √h. The
	// basis holds the start's p directions first, so the mixture starts
	// where it starts in gene space. Why: at ε ≤ 8 the network's noise on
	// a mean (∝ √h) is what keeps it from gaining over its null, while
	// the directions the clusters' means differ along are mostly among
	// the covariance's leading ones (the sixteenth session's candidate,
	// docs/RESULTS.md "sdcan18"). Only where the network runs: a run with
	// no DP-SGD step (its null, the staged split's off branch) is the
	// genes network's; the rules that read ρ (stage, net=rho,
	// target=auto) still read it at h. 0: genes.
	NetDim int
	// SideClip ("sideclip", ≥ 1; 1 the default) is the bound of a cell's
	// gradient in the mixture's weights and variance as a multiple of
	// their natural bounds (1 and R²/h). Every cell's gradient is clipped
	// as a whole to 1, and with the natural bounds the weights' block
	// (‖r − π‖ ≈ 0.9 for a clear cell) and the variance's (≈ ‖x − μ‖²/R²)
	// are as large as the means' (≈ ‖x − μ‖/R ≈ 0.9), so a cell's whole
	// gradient has norm ≈ 1.5 and the means' signal is cut to ≈ 2/3 while
	// their noise is not. A factor c divides those two blocks by c, so
	// the means keep nearly the whole clip; the K + 1 weights and the
	// variance, sums over all ñ cells, get c times their noise, small
	// against ñ. DefaultSideClip (4) since rule G9 (docs/RESULTS.md,
	// "sdcan18"); sideclip=1 is the design before it.
	SideClip float64
	// Labels ("labels": LabelsPi, the default, or LabelsMeans) is how the
	// trained mixture labels a cell: its most probable component (π-weighted,
	// the design so far) or its nearest trained mean, without π. Both are
	// post-processing of the released means and weights. Why (sdcan20): on
	// development draws the steps drain the weight of mid-sized components
	// (π 0.14 → 0.035) towards the heaviest, and the π-weighted labels then
	// give their cells to the heavy neighbour even where their own mean is
	// nearer. "" reads as LabelsPi.
	Labels string
	// WeightsFixed ("weights=fixed"; "learn" the default) keeps the
	// mixture's weights π at their start (the head's released counts):
	// the steps still release the weights' block, unused, so the plan and
	// the ledger are unchanged; only the means and the variance move.
	WeightsFixed bool
	// Refill ("refill=split"; "off" the default) re-seeds, before the
	// steps, every component the head released no weight for by splitting
	// the heaviest one in gene space (mixture.refill). Why (sdcan20): on
	// builtin:default-like draws at ε 4 the components that end empty were
	// empty at the start — only 5–8 of the 24 over-clustered centres hold
	// cells at the network's share — and the gate holds them at points
	// with no cell for every step; the steps themselves empty none.
	Refill bool
	// KeepGate ("keep=gate"; "all" the default) leaves out of the final
	// labels every component the gate's test (StageRho with its own
	// trained weight, mixture.gated) finds too light for the noise after
	// the last step, the heaviest always kept; their cells go to their
	// most probable kept component. Why (sdcan30): at ε 8 on
	// mouse_bladder the default fills all K clusters where dppca's
	// release, whose light centres are lost to their sums' noise, fills
	// 13–15, at a lower k-means objective (sdcan29 §4); this is the
	// network's own noise bar for a cluster the releases support.
	// Post-processing of the released weights and means; the null (no
	// step) and nonprivate runs are unchanged.
	KeepGate bool
	// KeepCount ("keep=count") releases, after the last DP-SGD step, one
	// Gaussian count per component of the cells it labels (each cell in
	// one count: Δ = 1; noise Plan.FinalCounts, the head round's count
	// noise, its share of μ² taken from the head's) and leaves out of the
	// final labels every component whose released count is below the
	// head's bar (minCountSigmas·σ, at least one cell; the component with
	// the largest count always kept); their cells go to their most
	// probable kept component. Why (sdcan30): keep=gate's bar reads the
	// trained weight, which the steps drain from real small populations;
	// this one reads the cells. Not post-processing: one more release in
	// the ledger. Only where the network runs; not with start=alone, which
	// has no head round to share with.
	KeepCount bool
	// JoinCodes ("join=codes"; "off" the default) labels every cell by
	// its nearest trained mean on its network rows joined to its codes,
	// the start's private projection the run already released (each
	// block scaled to unit total variance under the released mixture,
	// mixture.joinScales), instead of the mixture's π-weighted labels.
	// Why (sdcan29 §4, sdcan26): what separates the default from dppca is
	// the rows the cells are labelled on, and labelling on dppca's rows
	// lifted pbmc_4k's low seeds; the codes carry the start's denoised
	// subspace, which the h-dimensional rows weight by 1/h only.
	// Post-processing: the plan, the mixture and the ledger are the
	// default's. Only where the network runs; not with labels=means.
	JoinCodes bool
	// RefillScale is refill=split:F's F, the distance the two halves of a
	// split are set apart in units of √(h·v) (DefaultRefillScale).
	RefillScale float64
}

// Values of option labels.
const (
	LabelsPi    = "pi"
	LabelsMeans = "means"
)

// Values of option keep.
const (
	KeepAll   = "all"
	KeepGate  = "gate"
	KeepCount = "count"
)

// Values of option join.
const (
	JoinOff   = "off"
	JoinCodes = "codes"
)

// Values of the options shrink, stage and gate.
const (
	ShrinkJS  = "js"
	ShrinkOff = "off"
	StageAuto = "auto"
	StageOff  = "off"
	GateComp  = "comp"
	GateOff   = "off"
	NetAuto   = "auto"
	NetFixed  = "fixed"
	// NetRhoRule ("net=rho") cuts the network's share to what puts its
	// noise on a mean at TargetRho when it is below (the regime where
	// target=auto normalises to 10³); the rest goes to the start.
	NetRhoRule = "rho"
	// StartStage and StartDPPCA are option start's values.
	StartStage = "stage"
	StartDPPCA = "dppca"
	// StartAlone ("start=alone") is dppca's current default pipeline
	// exactly as it runs alone (dppca.Parse's defaults but centre=off,
	// which would shift the projection the mixture is lifted from: genes=auto, p=auto,
	// over=auto with its own merge, DefaultT rounds, target 10³, no hold)
	// at the stage's share of μ², around the cell count the staged split
	// released (dppca.Source.PlanForCount), with no head round (genes=grow:S
	// adds the floor of 200 genes to dppca's rule at scale S: h =
	// max(200, ñ·μ/S), μ the start's own; aloneGenesScale): the
	// mixture starts from dppca's K released centres weighted by its last
	// round's released counts (K' < K of them, and K' components, when
	// dppca's floor=3:drop dropped groups), and the head's share goes to
	// the start. So
	// its null (steps=0) is dppca at the whole budget, its labels the
	// mixture's. The fourteenth session's candidate (docs/RESULTS.md,
	// "sdcan17").
	StartAlone = "alone"
	// StartMerge ("start=merge") is the stage's rules (the genes
	// option's h, p = 10, 5 rounds, hold=first) with dppca's
	// over-clustering structure inside the stage: its first ⌊T/2⌋ = 2
	// Lloyd rounds run with Over·K centres, whose released centres,
	// weighted by their released counts above the bar of 3σ, are then
	// merged into K (dppca's weighted k-means merge, post-processing;
	// with fewer than K pieces at the bar, those and then the heaviest
	// others, dppca.Options.HeldFill), and the remaining rounds run with
	// K centres; the head's round then
	// runs on those K centres and its counts weight them (no merge of the
	// head's). Every round is the same two Gaussian releases whatever the
	// number of centres, so the plan and the ledger are the default's.
	// Why (sdcan22, docs/RESULTS.md): the clearest label-free difference
	// between the stage and dppca is the noise one round leaves on a
	// centre's mean, σ_sums·√p/(ñ/K″), which K″ = 3K centres make three
	// times what K make; this keeps the 3K-centre rounds that over=auto
	// and over=noise showed collapse less, but only while the seeds find
	// the populations (the nineteenth session's candidate, "sdcan24").
	StartMerge = "merge"
	// SubspaceOff and SubspaceTest are option subspace's values.
	SubspaceOff  = "off"
	SubspaceTest = "test"
	SubspaceEdge = "edge"
)

// DefaultSideClip is option sideclip's default, 4: with it the weights'
// and the variance's blocks take about a tenth of a clear cell's squared
// clip (the norm argument at Options.SideClip). Adopted by rule G9,
// stated before its fresh draws 301–309 (docs/RESULTS.md, "sdcan18"):
// +0.0117 over the 36 cells (2 SE 0.0058), wins on seven shapes, no cell
// below −0.001, and on the first screen its network beats its null by
// +0.100 (2 SE 0.025).
const DefaultSideClip = 4

// SideClipMax bounds option sideclip: beyond it the weights' and the
// variance's noise would swamp them on small sets.
const SideClipMax = 100

// SplitMin and SplitMax bound option split, the private PCA's share of
// the dppca stage's μ² (the range TestSplitDiag looked at, sdcan25): at
// 0.8 the k-means rounds keep 0.05 of the stage, and dppca refuses a
// split that leaves them nothing.
const (
	SplitMin = 0.3
	SplitMax = 0.8
)

// NetDimMin and NetDimMax bound option netdim's q: two directions at
// least, and no more than dppca's largest p.
const (
	NetDimMin = 2
	NetDimMax = 100
)

// RoundsAuto is option rounds' value "auto" (Plan.roundsByNoise): the
// start's Lloyd rounds T, the largest in [1, dppcaStageRounds] for which
// one round leaves at most stagerho of R of noise on an average one of
// OverCluster·K centres' means, read from the released cell count at the
// stage's network-on share (sdcan21: at ε 4 on builtin:default only 5–8
// of the 24 centres keep cells after 5 rounds; a round's noise grows
// with √T at a fixed share). Post-processing of the count release.
const RoundsAuto = -1

// OverAuto is option over's value "auto" (overRule, from the released
// cell count).
const OverAuto = -1

// OverNoise is option over's value "noise" (overByNoise): over-cluster
// into OverCluster·K centres only when an average one would carry, from
// one Lloyd round of the dppca stage, noise on its mean of at most the
// staged split's bound in units of R; else OverNoiseLow·K. It failed rule
// G5 on fresh draws (docs/RESULTS.md "sdcan15"), so it is an option.
const OverNoise = -2

// OverNoiseLow is over=noise's factor where 3K centres are too light for
// the stage's noise: 2, the smallest that still merges (over=auto's
// factor 1, no merge, was rejected: the merged start collapses less).
const OverNoiseLow = 2

// TargetHigh is the total this design was measured with before the
// tenth session, dppca.PublicTarget (10⁴); dppca's own default,
// dppca.DefaultTarget, is 10³ since its ninth session (TargetLow).
const TargetHigh = dppca.PublicTarget

// DefaultTarget is option target's default: TargetAuto (targetRule),
// with net=rho, adopted in the tenth session by rule B, stated before
// measuring and judged on fresh simulations (docs/RESULTS.md): 10³ where
// the noise the network would leave on a mean is small, 10⁴ elsewhere.
const DefaultTarget = TargetAuto

// TargetAuto is option target's value "auto" (targetRule, from the
// released cell count).
const TargetAuto = -1

// targetString is option target's value as it is written.
func targetString(t float64) string {
	if t == TargetAuto {
		return "auto"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

// fixedTarget is the total of a fixed option target, and for target=auto
// the total a Source is built with before the plan chooses (the start
// itself normalises to Plan.Target).
func (o Options) fixedTarget() float64 {
	if o.Target == TargetAuto {
		return TargetHigh
	}
	return o.Target
}

// DefaultStageBound is option stagerho's default, 0.1667 (≈ 1/6), adopted
// by rule S (tenth session, second part; stated before measuring and
// judged on fresh simulations, docs/RESULTS.md): on every fresh draw of
// the eighth to tenth sessions the network gained over its null at ρ ≈
// 0.11–0.12 and, on average, lost (−0.022) at ρ ≈ 0.23; 1/6 lies between
// (their geometric mean is 0.166). The staged split was adopted with
// StageRho = 1/4, which the gate, TargetRho and NetRho keep.
const DefaultStageBound = 0.1667

// Defaults of shrink, stage and gate (package comment: the rule behind each).
const (
	DefaultShrink = ShrinkOff
	DefaultStage  = StageAuto
	DefaultGate   = GateComp
	DefaultNet    = NetRhoRule
	DefaultStart  = StartStage
	DefaultSub    = SubspaceOff
)

// Keys are the option names Parse accepts.
var Keys = []string{"p", "genes", "prep", "k", "steps", "gclip", "lr", "over", "net", "shrink", "stage", "gate", "start", "subspace", "fill", "hold", "target", "stagerho", "handoff", "rounds", "netdim", "sideclip", "rhoclip", "labels", "weights", "refill", "split", "avg", "offset", "rows", "mergestarts", "seedstarts", "keep", "join"}

// parseStarts reads a count of k-means starts in [lo, hi] for option
// key; lo, the search's own count, is the default and resolves to 0.
func parseStarts(key, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, optf("option %s is %q, must be an integer in [%d, %d]", key, v, lo, hi)
	}
	if n == lo {
		return 0, nil // the default, as given
	}
	return n, nil
}

// Parse reads the options from a core.Config.Options map: unknown keys and
// malformed values are errors naming the key; the result is resolved and
// validated.
func Parse(vals map[string]string) (Options, error) {
	var o Options
	for _, key := range slices.Sorted(maps.Keys(vals)) {
		v := strings.TrimSpace(vals[key])
		switch {
		case key == "genes" && v == "auto":
			o.Genes = dppca.GenesAuto
			continue
		case key == "genes" && (strings.HasPrefix(v, "auto:") || strings.HasPrefix(v, "grow:") || strings.HasPrefix(v, "whole:") || strings.HasPrefix(v, "start:") || strings.HasPrefix(v, "alone:") || strings.HasPrefix(v, "alonestart:")):
			// auto:S and grow:S share the scale; grow:S adds today's fixed h
			// as the floor
			form, scale, _ := strings.Cut(v, ":")
			f, err := strconv.ParseFloat(scale, 64)
			if err != nil || math.IsNaN(f) || f < GenesScaleMin || f > GenesScaleMax {
				if form == "grow" || form == "whole" || form == "start" {
					return Options{}, optf("option genes is %q, must be grow:S, whole:S or start:S with S in [%g, %g] (h = ñ·μ/S, at least %d), auto, auto:S or an integer", v, GenesScaleMin, GenesScaleMax, dppca.DefaultGenes)
				}
				return Options{}, optf("option genes is %q, must be auto, auto:S with S in [%g, %g], or an integer", v, GenesScaleMin, GenesScaleMax)
			}
			o.Genes, o.GenesScale, o.GenesFloor = dppca.GenesAuto, f, 0
			if form == "grow" || form == "whole" || form == "start" {
				o.GenesFloor = dppca.DefaultGenes
			}
			// alone:S is whole:S without grow's floor: dppca's own rule as
			// it runs alone, h = ñ·μ/S within [50, 1000] at the whole μ
			// alonestart:S is alone:S with start:S's rules at the default's h
			o.GenesWhole = form == "whole" || form == "start" || form == "alone" || form == "alonestart"
			o.GenesRulesAtDefault = form == "start" || form == "alonestart"
			continue
		case key == "p" && v == "auto":
			o.P, o.PRule = 0, dppca.PRuleEdge
			continue
		case key == "p" && v == "span":
			o.P, o.PRule, o.PSpan = dppca.DefaultP, dppca.PRuleFixed, true
			continue
		case key == "p":
			o.PRule = dppca.PRuleFixed
		case key == "net" && v == "auto":
			o.NetRule = NetAuto
			continue
		case key == "net" && v == "rho":
			o.NetRule = NetRhoRule
			continue
		case key == "net":
			o.NetRule = NetFixed
		case key == "over" && v == "auto":
			o.Over = OverAuto
			continue
		case key == "over" && v == "noise":
			o.Over = OverNoise
			continue
		case key == "rounds" && v == "auto":
			o.StageT = RoundsAuto
			continue
		case key == "target" && v == "auto":
			o.Target = TargetAuto
			continue
		case key == "rhoclip" && v == "gclip":
			o.RhoClip = 0
			continue
		case key == "rhoclip":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0 && f <= 1000) {
				return Options{}, optf("option rhoclip is %q, must be gclip or a number in (0, 1000]", v)
			}
			o.RhoClip = f
			continue
		case key == "netdim" && v == "genes":
			o.NetDim = 0
			continue
		case key == "netdim":
			n, err := strconv.Atoi(v)
			if err != nil || n < NetDimMin || n > NetDimMax {
				return Options{}, optf("option netdim is %q, must be genes or an integer in [%d, %d]", v, NetDimMin, NetDimMax)
			}
			o.NetDim = n
			continue
		}
		switch key {
		case "p", "genes", "k", "steps", "over", "rounds":
			n, err := strconv.Atoi(v)
			if err != nil {
				return Options{}, optf("option %s is %q, must be an integer (p, genes, over: or auto; p: or span; over: or noise)", key, v)
			}
			if key == "steps" && n == 0 {
				o.NoTrain = true
				continue
			}
			if n < 1 {
				return Options{}, optf("option %s is %d, must be ≥ 1 (steps: ≥ 0)", key, n)
			}
			*map[string]*int{"p": &o.P, "genes": &o.Genes, "k": &o.K, "steps": &o.Steps, "over": &o.Over, "rounds": &o.StageT}[key] = n
		case "keep":
			if v != KeepAll && v != KeepGate && v != KeepCount {
				return Options{}, optf("option keep is %q, must be %s, %s or %s", v, KeepAll, KeepGate, KeepCount)
			}
			o.KeepGate, o.KeepCount = v == KeepGate, v == KeepCount
		case "join":
			if v != JoinOff && v != JoinCodes {
				return Options{}, optf("option join is %q, must be %s or %s", v, JoinOff, JoinCodes)
			}
			o.JoinCodes = v == JoinCodes
		case "labels":
			if v != LabelsPi && v != LabelsMeans {
				return Options{}, optf("option labels is %q, must be %s or %s", v, LabelsPi, LabelsMeans)
			}
			o.Labels = v
			if v == LabelsPi {
				o.Labels = ""
			}
		case "refill":
			form, sc, scaled := strings.Cut(v, ":")
			f := DefaultRefillScale
			if scaled {
				var err error
				if f, err = strconv.ParseFloat(sc, 64); err != nil || !(f > 0 && f <= 1) {
					return Options{}, optf("option refill is %q, must be off, split or split:F with F in (0, 1]", v)
				}
			}
			if (form != "off" || scaled) && form != "split" {
				return Options{}, optf("option refill is %q, must be off, split or split:F with F in (0, 1]", v)
			}
			o.Refill, o.RefillScale = form == "split", 0
			if o.Refill {
				o.RefillScale = f
			}
		case "weights":
			if v != "learn" && v != "fixed" {
				return Options{}, optf("option weights is %q, must be learn or fixed", v)
			}
			o.WeightsFixed = v == "fixed"
		case "avg":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > dppca.MaxAvg {
				return Options{}, optf("option avg is %q, must be an integer 1..%d (1: off)", v, dppca.MaxAvg)
			}
			o.Avg = n
			if n == 1 {
				o.Avg = 0 // the default, as given
			}
		case "offset":
			if v != string(dppca.OffsetOff) && v != string(dppca.OffsetDir) {
				return Options{}, optf("option offset is %q, must be %s or %s", v, dppca.OffsetOff, dppca.OffsetDir)
			}
			o.Offset = dppca.Offset(v)
			if o.Offset == dppca.OffsetOff {
				o.Offset = "" // the default, as given
			}
		case "rows":
			if v == "default" || v == "off" {
				o.RowsBelow = 0
				continue
			}
			n, err := strconv.Atoi(strings.TrimPrefix(v, "auto:"))
			if !strings.HasPrefix(v, "auto:") || err != nil || n <= dppca.GenesAutoMin || n > dppca.GenesAutoMax {
				return Options{}, optf("option rows is %q, must be default or auto:H with H in (%d, %d]", v, dppca.GenesAutoMin, dppca.GenesAutoMax)
			}
			o.RowsBelow = n
		case "mergestarts":
			n, err := parseStarts(key, v, MinMergeStarts, MaxMergeStarts)
			if err != nil {
				return Options{}, err
			}
			o.MergeStarts = n
		case "seedstarts":
			n, err := parseStarts(key, v, MinSeedStarts, MaxSeedStarts)
			if err != nil {
				return Options{}, err
			}
			o.SeedStarts = n
		case "split":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= SplitMin && f <= SplitMax) {
				return Options{}, optf("option split is %q, must be a number in [%g, %g]", v, SplitMin, SplitMax)
			}
			o.Split = f
			if f == dppca.DefaultSplit {
				o.Split = 0 // the default, as given
			}
		case "sideclip":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 1 && f <= SideClipMax) {
				return Options{}, optf("option sideclip is %q, must be a number in [1, %g]", v, float64(SideClipMax))
			}
			o.SideClip = f
		case "gclip", "lr", "net", "target", "stagerho":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				return Options{}, optf("option %s is %q, must be a finite number ≥ 0", key, v)
			}
			if key == "stagerho" && f == 0 {
				// zero is not "the default" here: a bound of 0 would read as
				// "always leave the network out"
				return Options{}, optf("option stagerho is 0, must be in (0, 1]")
			}
			*map[string]*float64{"gclip": &o.GradClip, "lr": &o.LR, "net": &o.Net, "target": &o.Target, "stagerho": &o.StageBound}[key] = f
		case "prep":
			o.Prep = dppca.Prep(v)
		case "shrink":
			o.Shrink = v
		case "stage":
			o.Stage = v
		case "gate":
			o.Gate = v
		case "start":
			o.Start = v
		case "subspace":
			o.Subspace = v
		case "fill":
			o.Fill = v
		case "hold":
			o.Hold = v
		case "handoff":
			o.Handoff = v
		default:
			return Options{}, optf("option %q is unknown, must be one of %s", key, strings.Join(Keys, ", "))
		}
	}
	return o.Resolve()
}

// Resolve returns o with every zero field set to its default, validated.
func (o Options) Resolve() (Options, error) {
	o.Start = cmp.Or(o.Start, DefaultStart)
	if o.Start == StartAlone {
		// dppca's own defaults where not given: no hold, its total 10³
		// (dppca.DefaultTarget), no over-clustering of the head's (dppca
		// over-clusters and merges itself); genes and p as start=dppca.
		o.Hold = cmp.Or(o.Hold, HoldOff)
		o.Target = cmp.Or(o.Target, TargetLow)
	}
	o.Subspace = cmp.Or(o.Subspace, DefaultSub)
	o.Fill = cmp.Or(o.Fill, DefaultFill)
	o.Hold = cmp.Or(o.Hold, DefaultHold)
	o.Target = cmp.Or(o.Target, DefaultTarget)
	o.StageBound = cmp.Or(o.StageBound, DefaultStageBound)
	o.Handoff = cmp.Or(o.Handoff, DefaultHandoff)
	if o.Start == StartDPPCA || o.Start == StartAlone {
		// dppca as it runs alone: its own gene and p rules unless given,
		// its own over-clustering (so none of the head's).
		o.Genes = cmp.Or(o.Genes, dppca.GenesAuto)
		if o.PRule == "" && o.P == 0 {
			o.PRule = dppca.PRuleEdge
		}
		o.Over = cmp.Or(o.Over, 1)
	}
	o.PRule = cmp.Or(o.PRule, dppca.PRuleFixed)
	o.P = cmp.Or(o.P, o.PRule.DefaultP())
	if o.Genes == 0 {
		// genes=grow:19 (rule G3, package comment)
		o.Genes, o.GenesScale, o.GenesFloor = dppca.GenesAuto, DefaultGenesScale, dppca.DefaultGenes
	}
	o.Prep = cmp.Or(o.Prep, dppca.PrepPrivate)
	o.Steps = cmp.Or(o.Steps, DefaultSteps)
	o.GradClip = cmp.Or(o.GradClip, DefaultGradClip)
	o.Over = cmp.Or(o.Over, OverCluster)
	o.Net = cmp.Or(o.Net, ShareSGD)
	if o.LR == 0 {
		o.LR = DefaultPath / float64(o.Steps)
	}
	o.Shrink = cmp.Or(o.Shrink, DefaultShrink)
	o.Stage = cmp.Or(o.Stage, DefaultStage)
	o.Gate = cmp.Or(o.Gate, DefaultGate)
	o.NetRule = cmp.Or(o.NetRule, DefaultNet)
	o.SideClip = cmp.Or(o.SideClip, DefaultSideClip)
	return o, o.Validate()
}

// Validate checks a resolved Options; the error names the option.
func (o Options) Validate() error {
	switch {
	case o.P < 1 || o.P > 100:
		return optf("option p is %d, must be in [1, 100]", o.P)
	case (o.Genes < 2 && o.Genes != dppca.GenesAuto) || o.Genes > 5000:
		return optf("option genes is %d, must be auto or in [2, 5000]", o.Genes)
	case o.GenesScale != 0 && (o.Genes != dppca.GenesAuto || !(o.GenesScale >= GenesScaleMin && o.GenesScale <= GenesScaleMax)):
		return optf("option genes has scale %g with h %d, must be auto:S with S in [%g, %g]", o.GenesScale, o.Genes, GenesScaleMin, GenesScaleMax)
	case o.GenesRulesAtDefault && !o.GenesWhole:
		return optf("option genes reads the rules at the default's h without whole, must be start:S")
	case o.GenesWhole && o.GenesScale == 0:
		return optf("option genes is whole with no scale, must be whole:S or alone:S")
	case o.GenesFloor != 0 && (o.GenesScale == 0 || o.GenesFloor < dppca.GenesAutoMin || o.GenesFloor > dppca.GenesAutoMax):
		return optf("option genes has floor %d with scale %g, must be grow:S (a floor needs a scale; floor in [%d, %d])", o.GenesFloor, o.GenesScale, dppca.GenesAutoMin, dppca.GenesAutoMax)
	case o.PSpan && o.PRule != dppca.PRuleFixed:
		return optf("option p is span with rule %q, must be the fixed rule (p = max(%d, K − 1))", o.PRule, o.P)
	case o.PRule != dppca.PRuleEdge && o.PRule != dppca.PRuleFixed:
		return optf("p rule is %q, must be %s or %s", o.PRule, dppca.PRuleEdge, dppca.PRuleFixed)
	case o.PRule == dppca.PRuleFixed && o.Genes != dppca.GenesAuto && o.P > o.Genes:
		return optf("option p is %d, must be ≤ genes = %d", o.P, o.Genes)
	case o.K < 0:
		return optf("option k is %d, must be ≥ 1 (0: the number of classes)", o.K)
	case o.Steps < 1 || o.Steps > 10000:
		return optf("option steps is %d, must be in [0, 10000]", o.Steps)
	case !(o.GradClip > 0) || o.GradClip > 1000:
		return optf("option gclip is %v, must be in (0, 1000]", o.GradClip)
	case o.RhoClip != 0 && !(o.RhoClip > 0 && o.RhoClip <= 1000):
		return optf("option rhoclip is %v, must be in (0, 1000]", o.RhoClip)
	case !(o.LR > 0) || o.LR > 100:
		return optf("option lr is %v, must be in (0, 100]", o.LR)
	case !(o.Net > 0) || o.Net >= 1:
		return optf("option net is %v, must be in (0, 1)", o.Net)
	case o.SideClip != 0 && !(o.SideClip >= 1 && o.SideClip <= SideClipMax):
		return optf("option sideclip is %v, must be in [1, %g]", o.SideClip, float64(SideClipMax))
	case o.Avg < 0 || o.Avg > dppca.MaxAvg:
		return optf("option avg is %d, must be 1..%d", o.Avg, dppca.MaxAvg)
	case o.Split != 0 && !(o.Split >= SplitMin && o.Split <= SplitMax):
		return optf("option split is %v, must be in [%g, %g]", o.Split, SplitMin, SplitMax)
	case o.NetDim != 0 && (o.NetDim < NetDimMin || o.NetDim > NetDimMax):
		return optf("option netdim is %d, must be genes (0) or in [%d, %d]", o.NetDim, NetDimMin, NetDimMax)
	case (o.Over < 1 && o.Over != OverAuto && o.Over != OverNoise) || o.Over > 20:
		return optf("option over is %d, must be auto, noise or in [1, 20]", o.Over)
	case !(o.StageBound > 0) || o.StageBound > 1:
		return optf("option stagerho is %v, must be in (0, 1]", o.StageBound)
	case o.Target != TargetAuto && (!(o.Target > 0) || o.Target > dppca.MaxTarget):
		return optf("option target is %v, must be auto or in (0, %g]", o.Target, float64(dppca.MaxTarget))
	}
	switch o.Prep {
	case dppca.PrepPrivate, dppca.PrepPublic:
	default:
		return optf("option prep is %q, must be %s or %s", o.Prep, dppca.PrepPrivate, dppca.PrepPublic)
	}
	if o.Offset == dppca.OffsetDir && o.Prep != dppca.PrepPrivate {
		return optf("option offset=%s needs prep=%s (public statistics leave no noisy offset)", dppca.OffsetDir, dppca.PrepPrivate)
	}
	if o.Shrink != ShrinkJS && o.Shrink != ShrinkOff {
		return optf("option shrink is %q, must be %s or %s", o.Shrink, ShrinkJS, ShrinkOff)
	}
	if o.Stage != StageAuto && o.Stage != StageOff {
		return optf("option stage is %q, must be %s or %s", o.Stage, StageAuto, StageOff)
	}
	if o.NetRule != NetAuto && o.NetRule != NetFixed && o.NetRule != NetRhoRule {
		return optf("net rule is %q, must be %s, %s or %s", o.NetRule, NetAuto, NetRhoRule, NetFixed)
	}
	if o.Gate != GateComp && o.Gate != GateOff {
		return optf("option gate is %q, must be %s or %s", o.Gate, GateComp, GateOff)
	}
	if o.Subspace != SubspaceOff && o.Subspace != SubspaceTest && o.Subspace != SubspaceEdge {
		return optf("option subspace is %q, must be %s, %s or %s", o.Subspace, SubspaceOff, SubspaceTest, SubspaceEdge)
	}
	if o.Fill != FillOff && o.Fill != FillSplit {
		return optf("option fill is %q, must be %s or %s", o.Fill, FillOff, FillSplit)
	}
	if o.Hold != HoldOff && o.Hold != HoldOn && o.Hold != HoldSeen && o.Hold != HoldFirst {
		return optf("option hold is %q, must be %s, %s, %s or %s", o.Hold, HoldOff, HoldOn, HoldSeen, HoldFirst)
	}
	if o.Handoff != HandoffOff && o.Handoff != HandoffLow && o.Handoff != HandoffMid && o.Handoff != HandoffMidMerge {
		return optf("option handoff is %q, must be %s, %s, %s or %s", o.Handoff, HandoffOff, HandoffLow, HandoffMid, HandoffMidMerge)
	}
	if o.Start != StartStage && o.Start != StartDPPCA && o.Start != StartAlone && o.Start != StartMerge {
		return optf("option start is %q, must be %s, %s, %s or %s", o.Start, StartStage, StartDPPCA, StartAlone, StartMerge)
	}
	if o.Start == StartMerge && o.Over < 2 && o.Over != OverAuto && o.Over != OverNoise {
		// nothing to merge: start=stage with over=1 is that run
		return optf("option over is %d with start=merge, must be at least 2 (the stage's first rounds over-cluster into over·K centres)", o.Over)
	}
	if o.Start == StartAlone && o.Over != 1 {
		// no head round, so no released counts of over·K centres to merge
		// by: dppca's own over=auto over-clusters inside the start
		return optf("option over is %d with start=alone, must be 1 (dppca over-clusters and merges itself)", o.Over)
	}
	if o.Start == StartAlone && (o.GenesWhole || (o.GenesScale != 0 && o.GenesScale < dppca.MinGenesScale)) {
		// start=alone reads dppca's rule at its own μ (auto:S, grow:S);
		// dppca's scale is at least dppca.MinGenesScale
		return optf("option genes has scale %g (whole %v) with start=alone, must be auto, auto:S or grow:S with S ≥ %d", o.GenesScale, o.GenesWhole, dppca.MinGenesScale)
	}
	if o.JoinCodes && o.Labels == LabelsMeans {
		// join=codes labels by the nearest joined mean, without π,
		// itself: the two label rules exclude each other
		return optf("option join is %s with labels=%s, must be %s (join=codes labels by the nearest joined mean)", JoinCodes, LabelsMeans, JoinOff)
	}
	if o.Start == StartAlone && o.KeepCount {
		// keep=count's noise is the head round's count noise, its share
		// taken from the head's; start=alone has neither
		return optf("option keep is %s with start=alone, must be %s or %s (no head round to share its count noise with)", KeepCount, KeepAll, KeepGate)
	}
	if o.Start == StartAlone && o.Hold != HoldOff {
		// dppca's own release (dppca.Release) gives the counts the
		// mixture's weights read; the held releases do not
		return optf("option hold is %q with start=alone, must be %s (dppca's own rounds)", o.Hold, HoldOff)
	}
	if o.RowsBelow > 0 && !o.rowsDefault() {
		// rows=auto chooses between the default's rows and dppca's; it
		// is not defined on top of other row options
		return optf("option rows is auto:%d with genes, target, offset, start, prep or handoff not the default's", o.RowsBelow)
	}
	if (o.StageT < 0 && o.StageT != RoundsAuto) || o.StageT > 100 {
		return optf("option rounds is %d, must be in [1, 100]", o.StageT)
	}
	return nil
}

// Rounds is the number of head rounds: one, whose released counts weight
// the merge; none under start=alone (the start's own last round's counts
// weight its centres).
func (o Options) Rounds() int {
	if o.Start == StartAlone {
		return 0
	}
	return 1
}

// headShare is the head's share of μ² before the network's is taken out
// (ShareHead; 0 under start=alone, which has no head round, so the start
// gets all of the rest).
func (o Options) headShare() float64 {
	if o.Start == StartAlone {
		return 0
	}
	return ShareHead
}

// forK returns o with p=span resolved for K clusters: p = max(P, K − 1)
// within dppca.DefaultPCap (P itself when it is larger), and for a fixed h
// at most h; o unchanged without p=span. Idempotent: it reads the floor
// P only through max, so applying it twice gives the same p.
func (o Options) forK(k int) Options {
	if !o.PSpan {
		return o
	}
	p := max(o.P, min(k-1, dppca.DefaultPCap))
	if o.Genes != dppca.GenesAuto {
		p = min(p, o.Genes)
	}
	o.P = p
	return o
}

// dppcaStageRounds is the dppca stage's Lloyd rounds: 5, the figure this
// design was measured with (dppca's own default has since become 10).
const dppcaStageRounds = 5

// dppcaOptions returns the options of the dppca stage: its defaults with
// p and its rule, genes, prep and k from o, and dppcaStageRounds.
func (o Options) dppcaOptions() (dppca.Options, error) {
	if o.Start == StartAlone {
		// dppca.Parse's defaults (what `--method dppca` runs), with the
		// options dcan-sound passes on; K from the data as dppca does.
		do, err := dppca.Parse(nil)
		if err != nil {
			return dppca.Options{}, err
		}
		do.P, do.PRule, do.Genes, do.Prep, do.K = o.P, o.PRule, o.Genes, o.Prep, o.K
		if o.StageT > 0 {
			do.T = o.StageT
		}
		do.Target = o.fixedTarget()
		do.Split = cmp.Or(o.Split, do.Split)
		do.Avg = cmp.Or(o.Avg, do.Avg)
		do.HeldAvg = o.Avg
		if o.Offset != "" {
			do.Offset = o.Offset
		}
		// centre=auto (dppca's default by rule G21) recentres the
		// projection the mixture is lifted from; G21 judged dppca alone,
		// so dcan-sound's start keeps the projection as it was
		do.Centre = dppca.CentreOff
		// mergestarts=1000 (dppca's default by rule G23) was judged on
		// dppca alone too: the start keeps the ten starts of before
		do.MergeStarts = dppca.MinMergeStarts
		if o.MergeStarts > 0 {
			do.MergeStarts = o.MergeStarts // option mergestarts, given
		}
		do.SeedStarts = o.SeedStarts
		return do.Resolve()
	}
	if o.Start == StartDPPCA {
		// dppca's own over-clustering and merge when the head does not
		// merge (Over = 1); else the head's alone.
		over := 1
		if o.Over == 1 {
			over = dppca.OverAuto
		}
		return dppca.Options{P: o.P, PRule: o.PRule, T: o.stageT(dppca.DefaultT), Genes: o.Genes, Prep: o.Prep, K: o.K, Over: over, Target: o.fixedTarget(), Split: o.Split, Avg: o.Avg, HeldAvg: o.Avg, Offset: o.Offset, SeedStarts: o.SeedStarts}.Resolve()
	}
	// start=merge: where fewer than K pieces clear the bar at the stage's
	// merge, the weighted ones and then the heaviest others, as the
	// head's merge (not dppca's first K pieces); the factor is the
	// plan's, set by Fit
	return dppca.Options{P: o.P, PRule: o.PRule, T: o.stageT(dppcaStageRounds), Genes: o.Genes, Prep: o.Prep, K: o.K, Target: o.fixedTarget(), HeldFill: o.Start == StartMerge, Split: o.Split, Avg: o.Avg, HeldAvg: o.Avg, Offset: o.Offset, SeedStarts: o.SeedStarts}.Resolve()
}

// stageT is option rounds, or def when it is not given.
func (o Options) stageT(def int) int {
	if o.StageT > 0 {
		return o.StageT
	}
	return def
}

// String lists the options as key=value pairs.
func (o Options) String() string {
	steps := o.Steps
	if o.NoTrain {
		steps = 0
	}
	p := strconv.Itoa(o.P)
	if o.PRule == dppca.PRuleEdge {
		p = "auto(≤" + p + ")"
	}
	if o.PSpan {
		p = "span(≥" + p + ")"
	}
	genes := strconv.Itoa(o.Genes)
	if o.Genes == dppca.GenesAuto {
		genes = "auto"
		if o.GenesScale > 0 {
			genes += ":" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
		}
		if o.GenesFloor > 0 {
			genes = "grow:" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
		}
		if o.GenesWhole {
			genes = "whole:" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
			if o.GenesFloor == 0 {
				genes = "alone:" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
			}
		}
		if o.GenesRulesAtDefault {
			genes = "start:" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
			if o.GenesFloor == 0 {
				genes = "alonestart:" + strconv.FormatFloat(o.GenesScale, 'g', -1, 64)
			}
		}
	}
	over := strconv.Itoa(o.Over)
	switch o.Over {
	case OverAuto:
		over = "auto"
	case OverNoise:
		over = "noise"
	}
	target := targetString(o.Target)
	net := strconv.FormatFloat(o.Net, 'g', -1, 64)
	switch o.NetRule {
	case NetAuto:
		net = "auto(≤" + net + ")"
	case NetRhoRule:
		net = "rho(≤" + net + ")"
	}
	s := fmt.Sprintf("p=%s genes=%s prep=%s k=%d steps=%d gclip=%g sideclip=%g lr=%.4g over=%s net=%s shrink=%s stage=%s stagerho=%g gate=%s start=%s subspace=%s fill=%s hold=%s target=%s handoff=%s",
		p, genes, o.Prep, o.K, steps, o.GradClip, o.SideClip, o.LR, over, net, o.Shrink, o.Stage, o.StageBound, o.Gate, o.Start, o.Subspace, o.Fill, o.Hold, target, o.Handoff)
	if o.StageT > 0 {
		s += " rounds=" + strconv.Itoa(o.StageT) // only when given: the defaults' string is unchanged
	} else if o.StageT == RoundsAuto {
		s += " rounds=auto"
	}
	if o.Avg > 1 {
		s += " avg=" + strconv.Itoa(o.Avg) // likewise
	}
	if o.Offset != "" {
		s += " offset=" + string(o.Offset) // likewise
	}
	if o.RowsBelow > 0 {
		s += " rows=auto:" + strconv.Itoa(o.RowsBelow) // likewise
	}
	if o.MergeStarts > 0 {
		s += " mergestarts=" + strconv.Itoa(o.MergeStarts) // likewise
	}
	if o.SeedStarts > 0 {
		s += " seedstarts=" + strconv.Itoa(o.SeedStarts) // likewise
	}
	if o.Split > 0 {
		s += " split=" + strconv.FormatFloat(o.Split, 'g', -1, 64) // likewise
	}
	if o.NetDim > 0 {
		s += " netdim=" + strconv.Itoa(o.NetDim) // likewise
	}
	if o.Labels != "" {
		s += " labels=" + o.Labels // likewise
	}
	if o.WeightsFixed {
		s += " weights=fixed" // likewise
	}
	if o.KeepGate {
		s += " keep=gate" // likewise
	}
	if o.KeepCount {
		s += " keep=count" // likewise
	}
	if o.JoinCodes {
		s += " join=codes" // likewise
	}
	if o.Refill {
		s += " refill=split:" + strconv.FormatFloat(o.RefillScale, 'g', -1, 64) // likewise
	}
	if o.RhoClip > 0 {
		s += " rhoclip=" + strconv.FormatFloat(o.RhoClip, 'g', -1, 64) // likewise
	}
	return s
}

// rulesClip is the means' bound at which the rules that read ρ read it:
// RhoClip when set, else GradClip (today's behaviour of gclip).
func (o Options) rulesClip() float64 {
	if o.RhoClip > 0 {
		return o.RhoClip
	}
	return o.GradClip
}

// shares returns the shares of μ² of the dppca stage, the network and the
// head.
func (o Options) shares() (dp, net, head float64) {
	if o.NoTrain {
		dp, head = o.startShares(1)
		return dp, 0, head
	}
	dp, head = o.startShares(1 - o.Net)
	return dp, o.Net, head
}

// startShares splits rest, what the network leaves of μ², between the
// dppca stage and the head in their ratio ShareDPPCA : headShare.
func (o Options) startShares(rest float64) (dp, head float64) {
	hd := o.headShare()
	return rest * ShareDPPCA / (ShareDPPCA + hd), rest * hd / (ShareDPPCA + hd)
}
