package sounddcan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
)

// ErrInput is wrapped by errors about data the method cannot use.
var ErrInput = errors.New("dcan-sound: invalid input")

// Outcome is what one run computed.
type Outcome struct {
	Plan Plan
	// Start is the dppca stage's release.
	Start *dppca.Outcome
	// Codes are the n × p private codes (the dppca projection), Centres
	// the K × h mixture means in gene space after training (K' × h under
	// start=alone when dppca's floor released K' < K centres), Labels each
	// cell's most probable component, StartLabels the labels of the
	// mixture at its private initialisation (before any DP-SGD step).
	Codes       []float32
	Centres     []float32
	Labels      []int
	StartLabels []int
	// Weights are the mixture's weights π, Variance its shared variance.
	Weights  []float64
	Variance float64
	// NonEmpty is the number of clusters holding cells at the end.
	NonEmpty int
	// StartWeights are the K merged centres' released weights (the head
	// round's noisy counts above its bar, summed by the merge) the
	// mixture's π starts from.
	StartWeights []float64
	// Losses is the mean loss (the mixture's negative log-likelihood per
	// cell) before every step.
	Losses []float64
}

// Hooks are called during a fit (all optional): after the dppca stage,
// after every step (1-based step, mean loss), after the labels change
// (the steps done, codes, labels).
type Hooks struct {
	Start  func(out *dppca.Outcome)
	Step   func(step int, loss float64)
	Labels func(steps int, codes []float64, p int, labels []int)
	// Record enters one mechanism (one release) into the ledger.
	Record func(m dppca.Mechanism) error
	// Canaries, when set, makes the audit canaries of the DP-SGD steps
	// for a gradient of size coordinates (nil: no audit).
	Canaries func(size int) *audit.SumCanaries
}

// Fit runs the whole method once under pl: the dppca stage into Over·K
// centres, one noisy Lloyd round of the head on them and their merge into
// K (post-processing), the mixture initialised from those releases, then S
// full-batch DP-SGD steps on the mixture. All noise comes from rng (a
// ChaCha8 stream keyed by crypto/rand when the run asks for secure noise).
func Fit(ctx context.Context, src *dppca.Source, pl Plan, o Options, rng *rand.Rand, hk Hooks) (*Outcome, error) {
	o = o.forK(src.K) // p=span: the plan's p
	if pl.Rows {
		o = o.dppcaRows() // rows=auto chose dppca's rows in the plan
	}
	if pl.Handoff {
		o = o.handoff() // the plan handed the run to dppca's pipeline
	}
	do, err := o.dppcaOptions()
	if err != nil {
		return nil, err
	}
	if pl.StageRounds > 0 {
		do.T = pl.StageRounds // rounds=auto's choice, made by the plan
	}
	if o.NetDim > 0 && pl.Steps > 0 {
		// netdim: the start also keeps the wider basis of its one noisy
		// covariance (post-processing; its other releases are unchanged)
		do.Wide = o.NetDim
	}
	record := func(m dppca.Mechanism) error {
		if hk.Record == nil || !pl.Private() {
			return nil
		}
		return hk.Record(m)
	}
	ov := pl.Over
	if ov == 0 {
		ov = o.Over // a plan not made by NewPlan
	}
	kOver := min(max(ov, 1)*src.K, src.Data.Cells())
	if o.Start == StartMerge {
		// start=merge: the stage over-clusters into ov·K for its first
		// ⌊T/2⌋ rounds and merges into K itself (dppca's overRound and
		// the held releases' merge), so it releases K centres and the
		// head's round runs on them with no merge of its own
		do.Over = max(ov, 1)
		kOver = min(src.K, src.Data.Cells())
	}
	// The start normalises every cell to the plan's public total (option
	// target or target=auto's choice; src may have been built with
	// another).
	target := pl.Target
	if target <= 0 {
		target = o.fixedTarget() // a plan not made by NewPlan
	}
	over, err := dppca.NewSourceTarget(src.Data, kOver, target)
	if err != nil {
		return nil, err
	}
	release := dppca.Release
	switch o.Hold {
	case HoldOn:
		release = func(ctx context.Context, src *dppca.Source, pl dppca.Plan, o dppca.Options, rng *rand.Rand) (*dppca.Outcome, error) {
			return dppca.ReleaseHeld(ctx, src, pl, o, minCountSigmas, rng)
		}
	case HoldSeen:
		release = func(ctx context.Context, src *dppca.Source, pl dppca.Plan, o dppca.Options, rng *rand.Rand) (*dppca.Outcome, error) {
			return dppca.ReleaseHeldSeen(ctx, src, pl, o, minCountSigmas, rng)
		}
	case HoldFirst:
		release = func(ctx context.Context, src *dppca.Source, pl dppca.Plan, o dppca.Options, rng *rand.Rand) (*dppca.Outcome, error) {
			return dppca.ReleaseHeldFirst(ctx, src, pl, o, minCountSigmas, rng)
		}
	}
	start, err := release(ctx, over, pl.DPPCA, do, rng)
	if err != nil {
		return nil, err
	}
	stageMechs := pl.DPPCA.Mechanisms()
	if o.Start == StartAlone || o.Offset != "" {
		// what dppca's own engine records: the plan after p was chosen
		// (the same μ; WithP re-splits the k-means share)
		stageMechs = start.Plan.Mechanisms()
	}
	for _, m := range stageMechs {
		if err := record(m); err != nil {
			return nil, err
		}
	}
	if hk.Start != nil {
		hk.Start(start)
	}
	n, p := start.Matrix.N, len(start.Eigen)
	codes := start.Proj // rows of norm ≤ R: projections of rows clipped to R on an orthonormal basis
	// The head: one noisy Lloyd round on the Over·K centres gives their
	// released counts; the merge into K is post-processing. Under
	// start=alone there is none: the start's K centres are weighted by its
	// own last round's released counts, by the same bar.
	centres, counts, sigCounts := start.Centres, start.Counts, start.Plan.Counts
	if pl.Rounds > 0 {
		centres, counts = lloydRound(codes, n, p, start.Centres, pl.Sums, pl.Counts, pl.R, rng)
		sigCounts = pl.Counts
		for _, m := range []dppca.Mechanism{{Name: MechSums, Sens: pl.R, Sigma: pl.Sums, Count: 1}, {Name: MechCounts, Sens: 1, Sigma: pl.Counts, Count: 1}} {
			if err := record(m); err != nil {
				return nil, err
			}
		}
	}
	kMix := src.K // the mixture's components
	if o.Start == StartAlone && len(counts) < kOver && len(counts) >= 2 && len(centres) == len(counts)*p {
		// dppca's floor (floor=3:drop, its default since dppca22) can end
		// with K' < K centres (Outcome.K: groups the released counts cannot
		// tell from empty, dropped): the mixture then has K' components,
		// dppca's own choice kept (post-processing). A component added at a
		// dropped centre's place would be a copy of a released one, which
		// the steps' noise splits off a populated cluster.
		kOver, kMix = len(counts), len(counts)
	}
	if len(counts) != kOver || len(centres) != kOver*p {
		return nil, fmt.Errorf("dcan-sound: the start released %d centres and %d counts, want %d", len(centres)/max(p, 1), len(counts), kOver)
	}
	if headProbe != nil {
		headProbe(counts, sigCounts)
	}
	w := make([]float64, kOver)
	for j, c := range counts {
		if c >= max(1, minCountSigmas*sigCounts) {
			w[j] = c
		}
	}
	merged, mw := centres, w
	if kOver != kMix {
		merged, mw = mergeCentresStarts(centres, w, p, kMix, rng, o.MergeStarts-MinMergeStarts)
		if mergeProbe != nil {
			mergeProbe(centres, w, merged, p, kMix)
		}
	}
	if o.Subspace != SubspaceOff && pl.Private() && pl.Steps > 0 && subspaceAccurate(start.Eigen, start.Plan.Edge(), kMix, subspaceRho(o.Subspace)) {
		// The start's subspace is accurate: the network has little to
		// correct, so its share goes to more Lloyd rounds of the head on
		// the K merged centres (the same μ, decided from releases).
		pl = pl.leaveNetOut(p)
		for range pl.Extra {
			var cnt []float64
			merged, cnt = lloydRound(codes, n, p, merged, pl.ExtraSums, pl.ExtraCounts, pl.R, rng)
			for _, m := range []dppca.Mechanism{{Name: MechExtraSums, Sens: pl.R, Sigma: pl.ExtraSums, Count: 1}, {Name: MechExtraCounts, Sens: 1, Sigma: pl.ExtraCounts, Count: 1}} {
				if err := record(m); err != nil {
					return nil, err
				}
			}
			for j, c := range cnt {
				mw[j] = 0
				if c >= max(1, minCountSigmas*pl.ExtraCounts) {
					mw[j] = c
				}
			}
		}
	}
	if o.Fill == FillSplit {
		// Copies: merged may be the head round's centres, mw its weights.
		merged, mw = append([]float64(nil), merged...), append([]float64(nil), mw...)
		fillSplit(merged, mw, p, codesRMS(start.Eigen, start.Matrix.NoisyN), rng)
	}
	h := start.Matrix.H
	x := start.Matrix.Z
	basis := start.Basis
	var wide []float64 // netdim: the h × q basis the network lives in
	if q := len(start.WideEigen); q > p && pl.Steps > 0 {
		wide, x, basis, h = start.WideBasis, project(x, n, h, start.WideBasis, q), padBasis(p, q), q
	}
	cv := pl.CV
	if wide != nil {
		cv = pl.R * pl.R / float64(h) // the variance clip's R²/h at the network's own width
	}
	mx := newMixture(merged, mw, basis, kMix, p, h, pl.R)
	if hk.Canaries != nil && pl.Steps > 0 {
		// (no step, no gradient release: nothing to plant canaries in; a
		// handed-off start's h can be smaller than the canaries asked)
		mx.canaries = hk.Canaries(mx.gradSize())
	}
	mx.gclip, mx.side, mx.fixedWeights = o.rulesClip(), o.SideClip, o.WeightsFixed
	if o.Refill && pl.Steps > 0 && wide == nil {
		// refill=split: the components with no released weight split the
		// heaviest (the null, with no step, keeps the start as it is)
		mx.refill(mw, basis, p, o.RefillScale)
	}
	gate := 0.0
	if o.Gate == GateComp {
		gate = StageRho
	}
	out := &Outcome{Plan: pl, Start: start, StartWeights: append([]float64(nil), mw...)}
	out.StartLabels = mx.labels(x, n)
	if hk.Labels != nil {
		hk.Labels(0, codes, p, out.StartLabels)
	}
	steps := pl.Steps
	sum, g := make([]float64, mx.gradSize()), make([]float64, mx.gradSize())
	for s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := record(dppca.Mechanism{Name: MechSGD, Sens: 1, Sigma: pl.Z, Count: 1}); err != nil {
			return nil, err
		}
		loss := mx.noisyStep(x, n, pl.CMu, cv, pl.Z, start.Matrix.NoisyN, o.LR, o.Shrink == ShrinkJS, gate, rng, sum, g)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return nil, fmt.Errorf("dcan-sound: step %d: the mixture's loss is %v", s+1, loss)
		}
		out.Losses = append(out.Losses, loss)
		if stepProbe != nil {
			stepProbe(s+1, mx)
		}
		if hk.Step != nil {
			hk.Step(s+1, loss)
		}
	}
	if o.KeepGate && steps > 0 && pl.Z > 0 {
		// keep=gate: the components too light for the noise at the end
		// label no cell (the null, with no step, keeps the start's)
		mx.keep(pl.Z, start.Matrix.NoisyN, o.LR, StageRho)
	}
	labels := func() []int {
		if o.Labels == LabelsMeans && steps > 0 {
			// the trained means alone (the null, with no step, keeps
			// the mixture's labels at its start)
			return mx.plainLabels(x, n)
		}
		return mx.labels(x, n)
	}
	if o.KeepCount && steps > 0 && pl.FinalCounts > 0 {
		// keep=count: the components whose released count of cells is
		// below the head's bar label no cell (the null keeps the start's)
		if err := record(dppca.Mechanism{Name: MechFinalCounts, Sens: 1, Sigma: pl.FinalCounts, Count: 1}); err != nil {
			return nil, err
		}
		mx.keepCounts(labels(), pl.FinalCounts, rng)
	}
	out.Labels = labels()
	if o.JoinCodes && steps > 0 {
		// join=codes: the nearest joined mean on the rows joined to the
		// start's codes (the null keeps the mixture's labels at its start)
		out.Labels = mx.joinLabels(x, n, codes, basis, p)
	}
	if hk.Labels != nil && steps > 0 {
		hk.Labels(steps, codes, p, out.Labels)
	}
	seen := make([]bool, kMix)
	for _, l := range out.Labels {
		if !seen[l] {
			seen[l] = true
			out.NonEmpty++
		}
	}
	gc := mx.mu
	if wide != nil {
		gc = lift(mx.mu, kMix, start.Matrix.H, wide, h) // back to gene space: Centres are K × h genes
	}
	out.Centres = make([]float32, len(gc))
	for i, v := range gc {
		out.Centres[i] = float32(v)
	}
	out.Variance = math.Exp(-2 * mx.b)
	lp := make([]float64, kMix)
	mx.logWeights(lp)
	for _, v := range lp {
		out.Weights = append(out.Weights, math.Exp(v))
	}
	out.Codes = make([]float32, len(codes))
	for i, v := range codes {
		out.Codes[i] = float32(v)
	}
	return out, nil
}

// stepProbe, when set (tests only), sees the mixture after every DP-SGD
// step, for label-free diagnoses of what the steps do to its components.
var stepProbe func(step int, m *mixture)

// headProbe, when set (tests only), sees the head's released counts and
// their noise before the merge.
var headProbe func(counts []float64, sigma float64)

// mergeProbe, when set (tests only), sees the head merge's weighted
// pieces (centres, w; rows of p) and the k centres it chose.
var mergeProbe func(centres, w, merged []float64, p, k int)

// Head rule, fixed in advance: a centre moves only when its noisy count is
// at least minCountSigmas noise standard deviations (and at least one cell);
// only such centres enter the merge.
const minCountSigmas = 3

// freqFloor is the smallest cluster weight the mixture starts from, as a
// fraction of the uniform 1/K: a merged centre whose released weight the
// noise drove to zero still gets a chance to win cells.
const freqFloor = 0.1

// lloydRound is one DP Lloyd round on the n × p codes from centres (m × p):
// each cell assigned to its nearest centre, the per-cluster sums of the
// codes clipped to r (Δ = r) and the counts (Δ = 1) released with Gaussian
// noise, and the centres whose noisy count reaches the head rule moved to
// sum/count. It returns the new centres and the noisy counts.
func lloydRound(codes []float64, n, p int, centres []float64, sigSums, sigCounts, r float64, rng *rand.Rand) ([]float64, []float64) {
	m := len(centres) / p
	sums := make([]float64, m*p)
	counts := make([]float64, m)
	c := make([]float64, p)
	for i := range n {
		copy(c, codes[i*p:(i+1)*p])
		dppca.ClipTo(c, r)
		j := cluster.Nearest(c, centres, p)
		counts[j]++
		for t, v := range c {
			sums[j*p+t] += v
		}
	}
	for t := range sums {
		sums[t] += sigSums * rng.NormFloat64()
	}
	for j := range counts {
		counts[j] += sigCounts * rng.NormFloat64()
	}
	out := append([]float64(nil), centres...)
	for j := range m {
		if counts[j] >= max(1, minCountSigmas*sigCounts) {
			for t := range p {
				out[j*p+t] = sums[j*p+t] / counts[j]
			}
		}
	}
	return out, counts
}

// project returns the n × q projection of the n × h rows x on the h × q
// basis w. Its columns are orthonormal, so every projected row keeps
// ‖·‖ ≤ R and one cell's gradient keeps the genes network's bounds.
func project(x []float64, n, h int, w []float64, q int) []float64 {
	out := make([]float64, n*q)
	for i := range n {
		xi, oi := x[i*h:(i+1)*h], out[i*q:(i+1)*q]
		for g, v := range xi {
			if v == 0 {
				continue
			}
			wg := w[g*q : (g+1)*q]
			for d, b := range wg {
				oi[d] += v * b
			}
		}
	}
	return out
}

// padBasis is the q × p matrix [I_p; 0]: the start's p directions are the
// first p of the wide basis, so a centre's codes c are its coordinates
// (c, 0) there.
func padBasis(p, q int) []float64 {
	b := make([]float64, q*p)
	for d := range p {
		b[d*p+d] = 1
	}
	return b
}

// lift maps k means of the q-dimensional network (k × q) to gene space
// (k × h) through the h × q basis w.
func lift(mu []float64, k, h int, w []float64, q int) []float64 {
	out := make([]float64, k*h)
	for j := range k {
		mj := mu[j*q : (j+1)*q]
		for g := range h {
			var s float64
			for d, b := range w[g*q : (g+1)*q] {
				s += b * mj[d]
			}
			out[j*h+g] = s
		}
	}
	return out
}
