package dppca

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Mechanism is one Gaussian release of a run, for the ledger: Count
// identical releases of a query with ℓ2 sensitivity Sens (one cell added or
// removed) and noise standard deviation Sigma.
type Mechanism struct {
	Name        string
	Sens, Sigma float64
	Count       int
}

// Mu returns the mechanism's GDP parameter √Count·Sens/Sigma.
func (m Mechanism) Mu() float64 { return math.Sqrt(float64(m.Count)) * m.Sens / m.Sigma }

// Event returns the mechanism as an accountant event.
func (m Mechanism) Event() (accountant.Event, error) {
	ev, err := accountant.GaussianEvent(m.Sigma, m.Sens)
	if err != nil {
		return ev, err
	}
	return ev.Repeat(m.Count)
}

// Names of the mechanisms in the ledger.
const (
	MechRanking = "gene ranking (noisy per-gene sums)"
	MechCount   = "cell count"
	// MechMedian is target=median's histogram of library sizes.
	MechMedian = "library-size histogram (median total)"
	// MechNorms is clip=auto's histogram of the scaled rows' norms.
	MechNorms = "row-norm histogram (clip radius)"
	// MechChoose is choose=objective's objective gap of two candidate
	// centre sets (choose.go).
	MechChoose = "objective gap of two merges (choose)"
	MechMeans  = "gene means (pass 1)"
	MechMeans2 = "gene means (pass 2, about pass 1)"
	MechSpread = "gene spreads"
	// MechOffset is offset=dir's release: the sum of the scaled rows'
	// unit directions (offset.go).
	MechOffset = "scaled rows' mean direction (offset)"
	MechPCA    = "Analyze-Gauss covariance"
	// MechSelectPCA is SelectLeverage's covariance of the candidates.
	MechSelectPCA = "Analyze-Gauss covariance of the candidate genes"
	MechSeed      = "k-means seeding histogram"
	MechSums      = "k-means cluster sums"
	MechCounts    = "k-means cluster counts"
)

// Per-gene clip bounds of the private gene statistics, in log1p(CP10k)
// units, fixed in advance from what such values are (log1p of 10⁴ spread
// over a few hundred genes is a few units; a gene's spread about one): the
// rows of the selected genes are clipped to C_m = 2·√h for the means (both
// passes: the second clips the deviations from the first, so the clip's
// bias shrinks), and their absolute deviations to C_d = √h for the spreads.
const (
	meanClipPerGene   = 2
	spreadClipPerGene = 1
)

// Plan holds the noise of one release, calibrated from (ε, δ) by the rule
// stated in advance: the total GDP μ is the one whose Gaussian trade-off
// meets (ε, δ) exactly (analytic Gaussian, Balle & Wang 2018); each
// mechanism i gets a fixed share w_i of μ² (Σ w_i = 1) and noise
// σ_i = Δ_i/(μ·√w_i), so the GDP composition √(Σ (Δ_i/σ_i)²) is μ again.
// Shares: the private preprocessing ShareRanking, ShareCount, ShareMeans
// (halved between the two passes of the means), ShareSpread; the PCA
// Options.Split (under SelectLeverage ShareSelectPCA of it to the
// candidates' covariance, the rest to the kept genes'); the
// seeding histogram ShareSeed (init=histogram); the Lloyd rounds the rest, equal per round, and within a round p/(p+1) to the sums
// and 1/(p+1) to the counts (sum and count noise then move a centre of norm
// R equally). A zero σ means "exact" (nonprivate mode).
type Plan struct {
	Epsilon, Delta, Mu float64
	// H and P are the genes and components the plan was made for (P is
	// set to the chosen p once the covariance is released); R the
	// row clip radius (Analyze-Gauss Δ = R², k-means sums Δ = R).
	H, P int
	// NoisyN is the released cell count when it was drawn before the
	// plan (genes=auto chooses h from it; Source.PlanFor), else 0.
	NoisyN float64
	// Pool is the number of candidate genes whose means and spreads the
	// private preprocessing releases (PoolFactor·H under SelectSpread, else
	// H): their sensitivities grow with √Pool.
	Pool int
	// Select is how the h genes are kept among the Pool candidates when
	// Pool > H (SelectSpread or SelectExcess; "" reads as SelectSpread).
	Select Select
	R      float64
	// R1 is the row clip radius of SelectLeverage's covariance of the
	// Pool candidates, R·√(Pool/H) (its Δ = R1²); 0 otherwise.
	R1 float64
	// SelectQ caps the directions SelectLeverage reads from the
	// candidates' covariance: the number of clusters K (Source.PlanFor);
	// 0 reads as DefaultP.
	SelectQ int
	// PCA1 is the noise standard deviation of a diagonal entry of the
	// candidates' covariance (SelectLeverage, private only).
	PCA1 float64
	// Noise standard deviations.
	Rank, Count, Mean, Mean2, Spread float64
	// Offset is the noise sd of offset=dir's released direction sum
	// (Δ = 1, offset.go), 0 without it.
	Offset float64
	PCA    float64 // of a diagonal entry; off-diagonal ones get PCA/√2
	// Centre is the noise sd of centre=auto's released sum of the
	// projected rows (Δ = PCAR), 0 when it did not fire; PCAR is the
	// rows' radius the covariance was released at once centre=auto has
	// set R to the smaller Rc (centre.go), else 0.
	Centre, PCAR float64
	Seed         float64 // of each bin of the seeding histogram
	Sums, Counts float64 // per Lloyd round
	// ChooseMu is choose=objective's GDP μ for its one scalar (μ·√ShareChoose;
	// its Δ is read from released centres, so σ = Δ/ChooseMu), 0 without it.
	ChooseMu    float64
	T           int
	PrivatePrep bool
	// Median is the noise standard deviation of each bin of the
	// library-size histogram (target=median with private preprocessing),
	// else 0; Target is the total the release normalises each cell to
	// (target=median: the released median, set by Source.PlanFor; 0: the
	// Source's own).
	Median, Target float64
	// Depth is the released median library size the depth cap reads
	// (Options.MinCount, depthCap), 0 when it does not apply; MinCount
	// is its λ_min and DepthTotal the total the cells are normalised to.
	Depth, MinCount, DepthTotal float64
	// ClipFactor is the factor c of R = c·√H when the radius follows the
	// genes (0: a radius given in absolute terms), so the depth cap can
	// shrink R with H.
	ClipFactor float64
	// AutoClip marks a plan of clip=auto: R is chosen after the scaling
	// from the norm histogram (autoRadius), released with noise Norms per
	// bin (0 without noise); ClipChosen is the factor c it chose and
	// ClipFellBack whether that was the fallback DefaultClip.
	AutoClip bool
	Norms    float64
	// SubDim is clip=subspace's h_ref under genes=auto: the proxy's clip
	// distortion is spread over min(H, SubDim) directions (chooseClip);
	// 0: over H (clip=auto).
	SubDim       int
	ClipChosen   float64
	ClipFellBack bool
	// NormRng, when set, draws the norm histogram's noise instead of the
	// release's generator, so the release's own stream (and with it every
	// other draw) is the one a fixed radius would see; the engine and the
	// simulation harness set it (a second stream of the same seed, or
	// cryptographic under secure noise).
	NormRng *rand.Rand
	km      float64 // μ² share of one Lloyd round
	// kmNoOffset is km without offset=dir's share (Plan.withoutOffset),
	// computed as the default computes km.
	kmNoOffset float64
}

// muOf returns the GDP μ of (ε, δ), a hair below so that rounding in the
// shares never lets the composition exceed the target.
func muOf(eps, delta float64) (float64, error) {
	s, err := accountant.AnalyticGaussianSigma(eps, delta, 1)
	if err != nil {
		return 0, fmt.Errorf("dppca: calibrating ε = %g, δ = %g: %w", eps, delta, err)
	}
	return (1 - 1e-12) / s, nil
}

// NewPlan calibrates a release of o on h genes with row radius R at
// (ε, δ). With private false every σ is 0 (nonprivate mode).
func NewPlan(private bool, eps, delta float64, o Options, h int, R float64) (Plan, error) {
	if h < 1 || !(R > 0) {
		return Plan{}, core.Wrapf(ErrInput, "dppca: a plan needs h ≥ 1 genes and a radius R > 0, got h = %d, R = %g", h, R)
	}
	p0 := max(o.P, 1)
	pl := Plan{Epsilon: eps, Delta: delta, H: h, P: p0, R: R, T: o.T, PrivatePrep: o.Prep == PrepPrivate, Pool: h}
	if f := poolFactor(o.Select); f > 1 {
		pl.Pool = f * h
		pl.Select = o.Select
	}
	if o.selectPCAShare() > 0 {
		pl.R1 = R * math.Sqrt(float64(pl.Pool)/float64(h))
	}
	if !private {
		return pl, nil
	}
	mu, err := muOf(eps, delta)
	if err != nil {
		return Plan{}, err
	}
	pl.Mu = mu
	sigma := func(sens, share float64) float64 { return sens / (mu * math.Sqrt(share)) }
	if pl.PrivatePrep {
		sh := math.Sqrt(float64(pl.Pool))
		pl.Rank = sigma(1, ShareRanking)
		pl.Count = sigma(1, ShareCount)
		pl.Mean = sigma(meanClipPerGene*sh, ShareMeans/2)
		pl.Mean2 = sigma(meanClipPerGene*sh, ShareMeans/2)
		pl.Spread = sigma(spreadClipPerGene*sh, ShareSpread)
		if o.releasesMedian() {
			pl.Median = sigma(1, ShareMedian)
		}
		if sh := o.offsetShare(); sh > 0 {
			pl.Offset = sigma(1, sh)
		}
	}
	if sh := o.selectPCAShare(); sh > 0 {
		pl.PCA1 = sigma(pl.R1*pl.R1, sh)
	}
	if o.pcaShare() > 0 {
		// proj=random plans no covariance; proj=auto plans it
		pl.PCA = sigma(R*R, o.Split-o.selectPCAShare())
	}
	if o.Init == InitHistogram {
		pl.Seed = sigma(1, ShareSeed)
	}
	if sh := o.clipShare(); sh > 0 {
		pl.Norms = sigma(1, sh)
	}
	if sh := o.chooseShare(); sh > 0 {
		pl.ChooseMu = mu * math.Sqrt(sh)
	}
	pl.km = o.kmShare() / float64(o.T)
	oo := o
	oo.Offset = OffsetOff
	pl.kmNoOffset = oo.kmShare() / float64(o.T)
	return pl.WithP(p0), nil
}

// WithP returns the plan for p components: the k-means share of each round
// re-split p/(p+1) to the sums and 1/(p+1) to the counts. The total μ does
// not change, so p may be chosen after the covariance's release (PRuleEdge).
func (pl Plan) WithP(p int) Plan {
	pl.P = p
	if !pl.Private() || pl.km == 0 {
		// A plan not made by NewPlan has no k-means share to re-split:
		// its sums and counts noise stay as set.
		return pl
	}
	sigma := func(sens, share float64) float64 { return sens / (pl.Mu * math.Sqrt(share)) }
	fp := float64(p)
	pl.Sums = sigma(pl.R, pl.km*fp/(fp+1))
	pl.Counts = sigma(1, pl.km/(fp+1))
	return pl
}

// Edge returns the threshold of PRuleEdge: the edge of the spectrum of the
// covariance noise, σ·√(2h) (GOE of off-diagonal standard deviation σ/√2),
// raised by its Tracy–Widom fluctuation scale, a factor 1 + h^(−2/3): the
// largest eigenvalue of the noise alone passes it with probability about
// 2 % (Tracy–Widom GOE above 2). Released eigenvalues above it are kept;
// 0 without noise.
func (pl Plan) Edge() float64 { return noiseEdge(pl.PCA, pl.H) }

// noiseEdge is Edge's threshold for GOE noise of diagonal σ on an m × m
// matrix: σ·√(2m)·(1 + m^(−2/3)).
func noiseEdge(sigma float64, m int) float64 {
	f := float64(m)
	return sigma * math.Sqrt(2*f) * (1 + math.Pow(f, -2.0/3))
}

// pool returns Pool, or H for a plan built by hand without it.
func (pl Plan) pool() int {
	if pl.Pool == 0 {
		return pl.H
	}
	return pl.Pool
}

// Private reports whether the plan adds noise.
func (pl Plan) Private() bool { return pl.Mu > 0 }

// Mechanisms lists every release of the plan, in the order they run.
func (pl Plan) Mechanisms() []Mechanism {
	if !pl.Private() {
		return nil
	}
	var ms []Mechanism
	if pl.PrivatePrep {
		sh := math.Sqrt(float64(pl.pool()))
		ms = append(ms, Mechanism{MechRanking, 1, pl.Rank, 1}, Mechanism{MechCount, 1, pl.Count, 1},
			Mechanism{MechMeans, meanClipPerGene * sh, pl.Mean, 1}, Mechanism{MechMeans2, meanClipPerGene * sh, pl.Mean2, 1}, Mechanism{MechSpread, spreadClipPerGene * sh, pl.Spread, 1})
		if pl.Median > 0 {
			ms = append(ms, Mechanism{MechMedian, 1, pl.Median, 1})
		}
		if pl.PCA1 > 0 {
			ms = append(ms, Mechanism{MechSelectPCA, pl.R1 * pl.R1, pl.PCA1, 1})
		}
		if pl.Offset > 0 {
			ms = append(ms, Mechanism{MechOffset, 1, pl.Offset, 1})
		}
	}
	if pl.Norms > 0 {
		ms = append(ms, Mechanism{MechNorms, 1, pl.Norms, 1})
	}
	if pl.PCA > 0 {
		// proj=random releases no covariance (proj.go)
		ms = append(ms, Mechanism{MechPCA, pl.pcaR() * pl.pcaR(), pl.PCA, 1})
	}
	if pl.Centre > 0 {
		ms = append(ms, Mechanism{MechCentre, pl.pcaR(), pl.Centre, 1})
	}
	if pl.Seed > 0 {
		ms = append(ms, Mechanism{MechSeed, 1, pl.Seed, 1})
	}
	ms = append(ms, Mechanism{MechSums, pl.R, pl.Sums, pl.T}, Mechanism{MechCounts, 1, pl.Counts, pl.T})
	if pl.ChooseMu > 0 {
		// in units of its Δ: the ledger's μ is Δ/σ = ChooseMu
		ms = append(ms, Mechanism{MechChoose, 1, 1 / pl.ChooseMu, 1})
	}
	return ms
}

// ComposedMu returns √(Σ μ_i²) of ms: exact GDP composition of Gaussians.
func ComposedMu(ms []Mechanism) float64 {
	var s float64
	for _, m := range ms {
		mu := m.Mu()
		s += mu * mu
	}
	return math.Sqrt(s)
}

// EpsilonOf returns the ε at δ of μ-GDP (0 for μ = 0), converted once.
func EpsilonOf(mu, delta float64) (float64, error) {
	if mu == 0 {
		return 0, nil
	}
	return accountant.GDPEpsilon(mu, delta)
}

// SpentMu returns the GDP μ of everything in l (0 for a nil or empty
// ledger, +Inf when a release is not Gaussian): what dppca and the methods
// that start from it convert to the ε they report.
func SpentMu(l *accountant.Ledger) float64 {
	if l == nil {
		return 0
	}
	evs := l.All()
	if len(evs) == 0 {
		return 0
	}
	mu, err := accountant.GDPMu(evs)
	if err != nil {
		return math.Inf(1)
	}
	return mu
}
