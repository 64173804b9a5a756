package dppca

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/datasets"
)

// ErrInput is wrapped by errors about the data a release cannot use.
var ErrInput = errors.New("dppca: invalid input")

// Source is a loaded data set with what every release reuses: the per-cell
// log values (non-private: each row depends on its own cell) and, for
// prep=public, the non-private preprocessing by gene count.
type Source struct {
	Data *datasets.Dataset
	// K is the number of clusters: Options.K, or the number of classes.
	K int
	// Target is the public total each cell was normalised to.
	Target float64
	cl     cellLog
	public map[int]*Matrix // unclipped, by h
	steps  []datasets.Step
	// logs caches the log values of other totals (target=median: each
	// release's own released median), by total.
	logs map[float64]cellLog
}

// NewSource prepares d for releases with k clusters (0: the number of
// classes of d's labels), each cell normalised to PublicTarget (as
// dcan-sound's start has it). It returns an error wrapping ErrInput when
// k is unknown or larger than the number of cells.
func NewSource(d *datasets.Dataset, k int) (*Source, error) {
	return NewSourceTarget(d, k, PublicTarget)
}

// NewSourceTarget is NewSource with each cell normalised to the public
// total target (dppca's option target); an error wrapping ErrInput when
// target is not a finite number > 0.
func NewSourceTarget(d *datasets.Dataset, k int, target float64) (*Source, error) {
	if !(target > 0) || math.IsInf(target, 1) {
		return nil, core.Wrapf(ErrInput, "dppca: the public total is %v, must be a finite number > 0", target)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	k, err := CheckK(d, k)
	if err != nil {
		return nil, err
	}
	return &Source{Data: d, K: k, Target: target, cl: newCellLog(d, target), public: map[int]*Matrix{}}, nil
}

// CheckK returns the number of clusters k of d (0: the number of classes
// of its labels), or an error wrapping ErrInput when it is unknown or
// larger than d's cells: a *core.OptionError naming option k and its
// value, so that a face points at the input the user gave.
func CheckK(d *datasets.Dataset, k int) (int, error) {
	if k == 0 {
		if d.Labels == nil || len(d.Classes) == 0 {
			return 0, core.Wrapf(ErrInput, "dppca: %s has no labels, so the number of clusters must be given (--opt k=K)", d.Source)
		}
		k = len(d.Classes)
	}
	if k > d.Cells() {
		return 0, &core.OptionError{Key: "k", Value: strconv.Itoa(k), Reason: fmt.Sprintf("k must be ≤ the %d cells of %s", d.Cells(), d.Source), Kind: ErrInput}
	}
	return k, nil
}

// Genes returns how many genes a release of h genes actually uses (for
// GenesAuto, the most it may use; PlanFor chooses).
func (s *Source) Genes(h int) int {
	if h == GenesAuto {
		h = GenesAutoMax
	}
	return min(h, s.Data.Genes())
}

// PlanFor calibrates a release of o on s at (ε, δ) (private) or without
// noise, with the row clip radius radius (0: o.Clip·√h; under clip=auto
// DefaultClip·√h until the release chooses R, autoRadius). Under GenesAuto
// it first releases the cell count (private preprocessing: the plan's
// count noise, which does not depend on h; the plan carries it as NoisyN
// and the preprocessing reuses it) and chooses h by GenesRule from it;
// under prep=public the count is taken as public with the rest.
func (s *Source) PlanFor(private bool, eps, delta float64, o Options, radius float64, rng *rand.Rand) (Plan, error) {
	return s.planFor(private, eps, delta, o, radius, nil, rng)
}

// ReleasedCount is a cell count a caller released already: N the noisy
// count, Sigma its noise (Δ = 1).
type ReleasedCount struct{ N, Sigma float64 }

// PlanForCount is PlanFor (private, radius 0) with the cell count released
// already by the caller (c), so its plan is the one PlanFor would make had
// it drawn that count itself: under GenesAuto h follows c.N, and the
// plan's count mechanism is c's noise (entered once, with the plan's
// mechanisms). dcan-sound's start=alone reads the count first for its
// staged split and then runs dppca's own pipeline around it.
func (s *Source) PlanForCount(eps, delta float64, o Options, c ReleasedCount, rng *rand.Rand) (Plan, error) {
	return s.planFor(true, eps, delta, o, 0, &c, rng)
}

// planFor is PlanFor, with the count given when given is not nil.
func (s *Source) planFor(private bool, eps, delta float64, o Options, radius float64, given *ReleasedCount, rng *rand.Rand) (Plan, error) {
	h, noisyN, subDim := 0, 0.0, 0
	if o.Genes != GenesAuto {
		h = s.Genes(o.Genes)
	} else {
		n, mu := float64(s.Data.Cells()), math.Inf(1)
		if private {
			var err error
			if mu, err = muOf(eps, delta); err != nil {
				return Plan{}, err
			}
			if o.Prep == PrepPrivate {
				if given != nil {
					n = given.N
				} else {
					n = max(n+rng.NormFloat64()/(mu*math.Sqrt(ShareCount)), 1)
				}
				noisyN = n
			}
		}
		h = s.Genes(GenesRuleFloor(n, mu, o.genesScale(), o.genesMin()))
		if o.Clip == ClipSub && private {
			// clip=subspace's h_ref: genes=auto's h at the reference ε
			// for the same count (chooseClip)
			muRef, err := muOf(SubRefEpsilon, delta)
			if err != nil {
				return Plan{}, err
			}
			subDim = s.Genes(GenesRuleScale(n, muRef, o.genesScale()))
		}
		if o.Clip == ClipSub && radius == 0 && histTooNoisy(n, 1/(mu*math.Sqrt(ShareClip))) {
			// clip=subspace's fallback, read before any histogram from the
			// count already released (and the public μ): the histogram
			// would be too noisy to read (chooseClip's first fallback),
			// so none is released and the plan is the default clip's,
			// its share back with the k-means: the release is
			// clip=0.5's bit for bit.
			o.Clip = DefaultClip
		}
	}
	c := o.Clip
	if o.clipAuto() {
		// the radius the plan is calibrated with until autoRadius
		// chooses one (same shares: only σ_PCA and σ_sums follow R)
		c = DefaultClip
	}
	r, cf := c*math.Sqrt(float64(h)), c
	if radius > 0 {
		r, cf = radius, 0
	}
	pl, err := NewPlan(private, eps, delta, o, h, r)
	// A radius set by a patch is absolute: no histogram is released then
	// (its share is left unspent, so the ledger holds only what ran).
	pl.AutoClip = o.clipAuto() && radius == 0
	if pl.AutoClip {
		pl.SubDim = subDim
	}
	if !pl.AutoClip {
		pl.Norms = 0
	}
	pl.NoisyN = noisyN
	if given != nil && pl.PrivatePrep && noisyN > 0 {
		pl.Count = given.Sigma // the caller's release is the plan's count
	}
	pl.SelectQ = s.K
	pl.ClipFactor = cf
	s.releaseTarget(&pl, o, rng)
	return pl, err
}

// releaseTarget releases the median library size with the plan's
// histogram noise (pl.Median), or exactly when the plan has none (no
// noise, or prep=public, whose statistics are public by assumption), when
// o asks for it: target=median sets pl.Target to it (the Source's own
// total when the histogram is all noise; other targets leave pl.Target 0,
// the Source's own); the depth cap (depthCap, count data only) sets
// pl.Depth to it, and leaves it 0 (no cap) when the histogram is all noise.
func (s *Source) releaseTarget(pl *Plan, o Options, rng *rand.Rand) {
	if !o.releasesMedian() {
		return
	}
	med := medianTotal(s.Data, pl.Median, rng, 0)
	if o.Target == TargetMedian {
		pl.Target = med
		if med == 0 {
			pl.Target = s.Target
		}
	}
	if o.depthCap() && s.Data.ValueType == datasets.Counts && med > 0 {
		pl.Depth, pl.MinCount = med, o.MinCount
		pl.DepthTotal = s.Target
		if pl.Target > 0 {
			pl.DepthTotal = pl.Target
		}
	}
}

// matrix builds the input of the PCA for pl (its R, h and preprocessing),
// drawing the private preprocessing's noise from rng, and returns the
// plan the rest of the release follows (pl, or the depth cap's plan for
// fewer genes, Plan.withGenes).
func (s *Source) matrix(pl Plan, rng *rand.Rand) (*Matrix, Plan, error) {
	if pl.PrivatePrep {
		m, pl := privatePrep(s.logFor(pl.Target), pl, rng)
		m.Labels, m.Barcodes = s.Data.Labels, s.Data.Barcodes
		return m, pl, nil
	}
	pub, ok := s.public[pl.H]
	if !ok {
		var err error
		// Clipped on a copy below: the cache keeps the scaled rows.
		if pub, s.steps, err = publicPrep(s.Data, pl.H, math.Inf(1)); err != nil {
			return nil, pl, err
		}
		s.public[pl.H] = pub
	}
	m := *pub
	m.Z = append([]float64(nil), pub.Z...)
	pl = autoRadius(m.Z, m.N, m.H, m.NoisyN, pl, rng)
	m.Clipped = clipRows(m.Z, m.N, m.H, pl.R)
	return &m, pl, nil
}

// Outcome is what one release computed.
type Outcome struct {
	Plan   Plan
	Matrix *Matrix
	// Eigen holds the p largest eigenvalues of the noisy covariance,
	// decreasing; Basis the h × p eigenvectors.
	Eigen, Basis []float64
	// Proj is the n × p projection of the rows on Basis.
	Proj []float64
	// WideEigen and WideBasis (h × w) are the w = min(Options.Wide, h)
	// largest eigenpairs of the same noisy covariance when w > p (nil
	// otherwise): their first p are Eigen and Basis as released before
	// p=auto cut them.
	WideEigen, WideBasis []float64
	// Centres are the K × p released centres, Labels each cell's nearest.
	Centres []float64
	Labels  []int
	// Inertia is the mean squared distance to the assigned centre after
	// each round.
	Inertia []float64
	// NonEmpty is the number of clusters with at least one cell.
	NonEmpty int
	// ProjFired reports that proj=auto's rule chose the random
	// projection (projAutoRule).
	ProjFired bool
	// CentreFired reports that centre=auto recentred and clipped the
	// projection again (recentre).
	CentreFired bool
	// ProjEdge and ProjBound are what projAutoRule compared when it
	// fired: the planned covariance's noise edge and ñ·R²/K.
	ProjEdge, ProjBound float64
	// Over is the over-clustering factor the release used (1: none).
	Over int
	// K is the number of centres the release ended with: Source.K, or
	// fewer under under=auto (underRule); 0 before the k-means.
	K int
	// under is under=auto's threshold the release read (0: off).
	under float64
	// underCount is under=count:F's factor the release read (0: off).
	underCount float64
	// SeedDims is the number of components of the seeding grid the
	// release used with init=histogram (seedDims for the fixed grid).
	SeedDims int
	// Chose is choose=objective's outcome: 0 no scalar released (off, no
	// over-clustering or no second candidate), 1 the merge kept, 2 the
	// second candidate taken; ChooseGap its released (noisy) gap.
	Chose     int
	ChooseGap float64
	// Counts are the last Lloyd round's released (noisy) cluster counts,
	// one per final centre (Release and the held releases): each final centre is that
	// round's noisy sum over its count, so a caller that weights the
	// centres (dcan-sound's start=alone) reads releases only.
	Counts []float64
}

// release is one run of the pipeline under one plan, driven step by step so
// the engine can take patches between steps.
type release struct {
	src *Source
	pl  Plan
	o   Options
	rng *rand.Rand
	out Outcome
	// counts are the released (noisy) cluster counts of the last round
	// (over-clustering only), the weights of the merge.
	counts []float64
	// over is the over-clustering factor of this release (Options.Over, or
	// overRule's choice), fixed before the first round.
	over int
	// k is the number of centres of this release (chooseK), fixed before
	// the first round; 0 until then.
	k int
	// hist holds the released K-centre sets of the last rounds (avg > 1,
	// finish.go).
	hist [][]float64
	// phist holds the over-clustered rounds' released centres and counts
	// (merge=mean, finish.go).
	phist [][2][]float64
	aud   *auditState // nil without an audit (audit.go)
}

func newRelease(src *Source, pl Plan, o Options, rng *rand.Rand) *release {
	return &release{src: src, pl: pl, o: o, rng: rng, out: Outcome{Plan: pl}}
}

// prep builds the scaled, clipped matrix.
func (r *release) prep() error {
	m, pl, err := r.src.matrix(r.pl, r.rng)
	if err != nil {
		return err
	}
	r.pl, r.out.Plan = pl, pl
	if m.N < 2 || (r.o.PRule == PRuleFixed && r.o.P > m.H) || m.H < MinAutoP {
		return core.Wrapf(ErrInput, "dppca: %d cells × %d genes cannot give p = %d components", m.N, m.H, r.o.P)
	}
	if r.src.K > m.N {
		return &core.OptionError{Key: "k", Value: strconv.Itoa(r.src.K), Reason: fmt.Sprintf("k must be ≤ the %d cells left by preprocessing", m.N), Kind: ErrInput}
	}
	r.out.Matrix = m
	return nil
}

// pca releases the noisy second-moment matrix, chooses p (Options.PRule)
// and projects the rows on its top p eigenvectors.
func (r *release) pca() error {
	if r.o.ProjRandom > 0 && (!r.o.ProjAuto || projAutoRule(r.pl, r.out.Matrix.NoisyN, r.src.K)) {
		r.randomProj() // proj=random: public, no release (proj.go)
		return nil
	}
	m := r.out.Matrix
	pmax := min(r.o.P, m.H)
	wide := min(max(r.o.Wide, pmax), m.H)
	vals, basis, err := analyzeGauss(m.Z, m.N, m.H, wide, r.pl.PCA, r.rng, r.aud.canariesFor(m.H, r.pl.R))
	if err != nil {
		return err
	}
	if wide > pmax {
		// the same eigenpairs, more of them (the solver computes them
		// all): keep the wide ones and go on with the first pmax
		r.out.WideEigen, r.out.WideBasis = vals, basis
		vals, basis = vals[:pmax:pmax], firstColumns(basis, m.H, wide, pmax)
	}
	p := pmax
	if r.o.PRule == PRuleEdge {
		p = edgeP(vals, r.pl.Edge(), pmax)
		vals, basis = vals[:p], firstColumns(basis, m.H, pmax, p)
	}
	r.pl = r.pl.WithP(p)
	r.out.Plan = r.pl
	r.out.Eigen, r.out.Basis = vals, basis
	proj := make([]float64, m.N*p)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: m.N, Cols: m.H, Stride: m.H, Data: m.Z},
		blas64.General{Rows: m.H, Cols: p, Stride: p, Data: basis},
		0, blas64.General{Rows: m.N, Cols: p, Stride: p, Data: proj})
	r.out.Proj = proj
	r.recentre() // centre=auto (centre.go)
	return nil
}

// round runs one DP Lloyd round (noisy sums and counts) on the projection;
// the first round starts from the initialisation of Options.Init.
func (r *release) round(ctx context.Context) error {
	if r.chooseOver() > 1 {
		return r.overRound(ctx)
	}
	m, p := r.out.Matrix, len(r.out.Eigen)
	cfg := cluster.DPKMeansConfig{K: r.k, Iterations: 1, ClipNorm: r.pl.R, SigmaSum: r.pl.Sums, SigmaCount: r.pl.Counts}
	switch {
	case r.out.Centres != nil:
		cfg.Init, cfg.Centroids = cluster.DPInitGiven, r.out.Centres
	case r.o.Init == InitKMeansPlusPlus:
		cfg.Init = cluster.DPInitKMeansPlusPlus
	case r.o.Init == InitPCAGaussian:
		cfg.Init, cfg.Centroids = cluster.DPInitGiven, pcaGaussian(r.out.Eigen, m.NoisyN, r.k, r.pl.R, r.rng)
	case r.o.Init == InitHistogram:
		cfg.Init, cfg.Centroids = cluster.DPInitGiven, r.histogramSeeds(r.k)
	}
	res, err := cluster.DPKMeans(ctx, r.out.Proj, m.N, p, cfg, r.rng)
	if err != nil {
		return err
	}
	r.out.Centres, r.out.Labels = res.Centroids, res.Labels
	r.counts = res.NoisyCounts
	r.out.Inertia = append(r.out.Inertia, res.Inertia/float64(m.N))
	r.average()
	r.out.NonEmpty = nonEmpty(r.out.Labels, r.k)
	return nil
}

// chooseOver fixes the release's over-clustering factor once the
// covariance is released (Options.Over, or overRule's choice from the
// released statistics) and returns it.
func (r *release) chooseOver() int {
	if r.over != 0 {
		return r.over
	}
	r.chooseK()
	r.over = r.o.Over
	switch {
	case r.o.Init == InitKMeansPlusPlus:
		// Seeds from private rows (comparison only): no merge.
		r.over = 1
	case r.over == OverAuto:
		r.over = overRule(r.pl, r.out.Matrix.NoisyN, r.k, r.out.Eigen, r.o.overMax())
	}
	r.out.Over = r.over
	if n := r.o.roundsFor(r.over); n != r.pl.T && r.pl.T > 0 {
		// merge=early: more rounds, the same k-means share (WithRounds)
		r.pl = r.pl.WithRounds(n)
		r.out.Plan = r.pl
	}
	return r.over
}

// histogramSeeds returns k starting centres from the noisy seeding
// histogram (init=histogram): on the fixed 3-component grid, with
// seedgrid=auto on the wider grid of seedGridDims when the noise allows,
// or with seedgrid=select on the grid selectSeedGrid keeps.
func (r *release) histogramSeeds(k int) []float64 {
	m, p := r.out.Matrix, len(r.out.Eigen)
	switch r.o.SeedGrid {
	case SeedGridAuto:
		if q := seedGridDims(p, r.k, m.NoisyN, r.pl.Seed); q > 0 {
			r.out.SeedDims = q
			pts, w := sparseSeedBins(r.out.Proj, m.N, p, q, r.out.Eigen, m.NoisyN, r.pl.R, r.pl.Seed, seedThreshold(q), r.rng)
			fill := pcaGaussian(r.out.Eigen, m.NoisyN, k, r.pl.R, r.rng)
			return seedFromPoints(pts, w, q, p, k, r.rng, fill, r.o.SeedStarts-seedRestarts)
		}
	case SeedGridSelect:
		pts, w, q := selectSeedGrid(r.out.Proj, m.N, p, r.k, r.out.Eigen, m.NoisyN, r.pl.R, r.pl.Seed, r.rng)
		r.out.SeedDims = q
		fill := pcaGaussian(r.out.Eigen, m.NoisyN, k, r.pl.R, r.rng)
		return seedFromPoints(pts, w, q, p, k, r.rng, fill, r.o.SeedStarts-seedRestarts)
	}
	counts, centres, q := histogram(r.out.Proj, m.N, p, r.out.Eigen, m.NoisyN, r.pl.R)
	r.out.SeedDims = q
	addNoise(counts, r.pl.Seed, r.rng)
	fill := pcaGaussian(r.out.Eigen, m.NoisyN, k, r.pl.R, r.rng)
	return seedFromHistogram(counts, centres, q, p, k, r.pl.Seed, r.rng, fill, r.o.SeedStarts-seedRestarts)
}

// overRound is round with over-clustering (Options.Over > 1): the first
// ⌊T/2⌋ rounds run with Over·K centres, then the released centres, weighted
// by their released counts, are merged into K by the best of seedRestarts
// weighted k-means++ + Lloyd runs (with floor=F, a floor on the merged
// groups' released counts, mergeCentresFloor), with merge=ward by Ward linkage
// (wardMerge), or with merge=overlap by the components' overlap
// (overlapMerge; all post-processing), and the remaining
// rounds run with K. Each round is the same two Gaussian releases
// whatever the number of centres (one cell changes one sum by ≤ R and one
// count by 1), so the plan and the ledger do not change.
func (r *release) overRound(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m, p := r.out.Matrix, len(r.out.Eigen)
	t := len(r.out.Inertia)
	k := r.k
	if t < r.o.mergeAt() {
		k = min(r.over*r.k, m.N)
	}
	pieces, pw := r.out.Centres, r.counts
	switch {
	case t == 0:
		switch r.o.Init {
		case InitHistogram:
			r.out.Centres = r.histogramSeeds(k)
		case InitPCAGaussian:
			r.out.Centres = pcaGaussian(r.out.Eigen, m.NoisyN, k, r.pl.R, r.rng)
		default:
			r.out.Centres = make([]float64, k*p)
			for j := range k {
				ballPoint(r.out.Centres[j*p:(j+1)*p], r.pl.R, r.rng)
			}
		}
	case t == r.o.mergeAt() && len(r.out.Centres) != k*p && r.o.Merge == MergeWard:
		r.out.Centres = wardMerge(r.out.Centres, r.counts, p, k)
	case t == r.o.mergeAt() && len(r.out.Centres) != k*p && r.o.Merge == MergeOverlap:
		nmin := max(1, overlapNoise*r.pl.Counts)
		s2 := overlapVariance(r.out.Centres, r.counts, p, r.out.Eigen, m.NoisyN, nmin)
		r.out.Centres = overlapMerge(r.out.Centres, r.counts, p, k, s2, nmin)
	case t == r.o.mergeAt() && len(r.out.Centres) != k*p && r.o.Merge == MergeMean:
		c, w := r.meanPieces()
		r.out.Centres = r.o.mergeKMeans(c, w, p, k, r.pl, r.rng)
	case t == r.o.mergeAt() && len(r.out.Centres) != k*p:
		r.out.Centres = r.o.mergeKMeans(r.out.Centres, r.counts, p, k, r.pl, r.rng)
	}
	if t == r.o.mergeAt() && len(pieces) != len(r.out.Centres) {
		if mergeHook != nil {
			mergeHook(r, pieces, pw)
		}
		if r.o.Choose == ChooseObjective {
			r.choose(pieces, pw)
		}
	}
	if t == r.o.mergeAt() && len(r.out.Centres) < k*p {
		// floor=F:drop kept fewer groups: the K-centre rounds run with them
		r.k = len(r.out.Centres) / p
		r.out.K = r.k
	}
	labels, counts, inertia := lloydRoundBias(r.out.Proj, m.N, p, r.out.Centres, r.priorBias(r.out.Centres), r.pl.R, r.pl.Sums, r.pl.Counts, r.rng)
	r.counts = counts
	if r.o.Merge == MergeMean && len(r.out.Centres) != r.k*p {
		r.phist = append(r.phist, [2][]float64{append([]float64(nil), r.out.Centres...), counts})
	}
	r.out.Labels = labels
	r.out.Inertia = append(r.out.Inertia, inertia/float64(m.N))
	r.out.NonEmpty = nonEmpty(labels, k)
	if t+1 == r.rounds() {
		// The labels of the last release: each cell against the final
		// centres, as DPKMeans does after its last update.
		r.out.Labels, r.out.Inertia[t] = assignBias(r.out.Proj, m.N, p, r.out.Centres, r.priorBias(r.out.Centres))
		r.out.Inertia[t] /= float64(m.N)
		r.out.NonEmpty = nonEmpty(r.out.Labels, k)
		if r.o.Merge == MergeUnion {
			r.unionFinish()
		}
	}
	r.average()
	return nil
}

// Release runs the whole pipeline once under pl: preprocessing, private
// PCA, pl.T DP Lloyd rounds (more under merge=early when the release
// over-clusters, Options.roundsFor). The noise comes from rng only.
func Release(ctx context.Context, src *Source, pl Plan, o Options, rng *rand.Rand) (*Outcome, error) {
	r := newRelease(src, pl, o, rng)
	if err := r.prep(); err != nil {
		return nil, err
	}
	if err := r.pca(); err != nil {
		return nil, err
	}
	for t := 0; t < r.rounds(); t++ {
		if err := r.round(ctx); err != nil {
			return nil, err
		}
	}
	r.out.Counts = append([]float64(nil), r.counts...)
	return &r.out, nil
}

// edgeP returns how many of the decreasing eigenvalues vals exceed edge,
// within [MinAutoP, pmax] (PRuleEdge).
func edgeP(vals []float64, edge float64, pmax int) int {
	p := 0
	for p < len(vals) && vals[p] > edge {
		p++
	}
	return max(min(MinAutoP, pmax), min(p, pmax))
}

// firstColumns returns the first p columns of the h × q row-major b.
func firstColumns(b []float64, h, q, p int) []float64 {
	out := make([]float64, h*p)
	for i := range h {
		copy(out[i*p:(i+1)*p], b[i*q:i*q+p])
	}
	return out
}

// analyzeGauss returns the p largest eigenvalues (decreasing) and their h × p
// eigenvectors of ZᵀZ + E, E symmetric with Frobenius-isotropic (GOE) noise:
// N(0, σ²) on the diagonal and N(0, σ²/2) off it. Adding or removing a row
// z (‖z‖ ≤ R) changes ZᵀZ by zzᵀ, of Frobenius norm ≤ R²; in the isometric
// coordinates (diagonal, √2 × upper triangle) this noise is N(0, σ² I), so
// the release is the Gaussian mechanism with Δ = R² (Dwork, Talwar,
// Thakurta & Zhang 2014, with √2 less noise per off-diagonal entry than an
// i.i.d. upper triangle). σ = 0 gives the exact eigenvectors.
//
// Audit canaries, when given, see the exact matrix and then add themselves
// to the noisy one (audit.SumCanaries); nil ones are skipped.
func analyzeGauss(z []float64, n, h, p int, sigma float64, rng *rand.Rand, canaries ...*audit.SumCanaries) ([]float64, []float64, error) {
	c := blas64.Symmetric{N: h, Stride: h, Uplo: blas.Upper, Data: make([]float64, h*h)}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: h, Stride: h, Data: z}, 0, c)
	auditBefore(canaries, c.Data)
	addGOE(c.Data, h, sigma, rng)
	auditAfter(canaries, c.Data)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(h, c.Data), true) {
		return nil, nil, errors.New("dppca: eigendecomposition of the noisy covariance did not converge")
	}
	all := es.Values(nil)
	var vec mat.Dense
	es.VectorsTo(&vec)
	vals := make([]float64, p)
	basis := make([]float64, h*p)
	for k := range p {
		col := h - 1 - k // ascending order: the largest last
		vals[k] = all[col]
		for i := range h {
			basis[i*p+k] = vec.At(i, col)
		}
	}
	return vals, basis, nil
}

// addGOE adds symmetric Frobenius-isotropic noise to the upper triangle of
// the h × h row-major c: N(0, σ²) on the diagonal, N(0, σ²/2) above it.
// Nothing when σ is 0.
func addGOE(c []float64, h int, sigma float64, rng *rand.Rand) {
	if sigma == 0 {
		return
	}
	off := sigma / math.Sqrt2
	for i := range h {
		c[i*h+i] += sigma * rng.NormFloat64()
		for j := i + 1; j < h; j++ {
			c[i*h+j] += off * rng.NormFloat64()
		}
	}
}

// pcaGaussian draws k centres from N(0, diag(max(λ_j, 0)/n)) in the
// coordinates of the private components, each clipped to norm r: the
// released spread of the projection, read from releases only.
func pcaGaussian(eigen []float64, n float64, k int, r float64, rng *rand.Rand) []float64 {
	p := len(eigen)
	c := make([]float64, k*p)
	for i := range k {
		for j, l := range eigen {
			c[i*p+j] = math.Sqrt(max(l, 0)/max(n, 1)) * rng.NormFloat64()
		}
		ClipTo(c[i*p:(i+1)*p], r)
	}
	return c
}

// nonEmpty returns how many of the k clusters hold at least one of labels.
func nonEmpty(labels []int, k int) int {
	seen, n := make([]bool, k), 0
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			n++
		}
	}
	return n
}
