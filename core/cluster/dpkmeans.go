package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/internal/errkind"
)

// DPInit selects how DPKMeans chooses its initial centroids.
type DPInit int

const (
	// DPInitRandomBall draws the K initial centroids uniformly from the L2
	// ball of radius ClipNorm, from the injected generator only: it reads no
	// data and costs no privacy. The default.
	DPInitRandomBall DPInit = iota
	// DPInitGiven starts from DPKMeansConfig.Centroids. It is private as long
	// as those centroids were chosen without the private data (e.g. from a
	// public reference set, or a previous private release).
	DPInitGiven
	// DPInitKMeansPlusPlus seeds with greedy k-means++ on the clipped private
	// rows. The seeds are rows of the data, released without noise: the
	// result is NOT differentially private, whatever the σs. For comparison
	// only.
	DPInitKMeansPlusPlus
)

// String returns "random-ball", "given" or "kmeans++".
func (i DPInit) String() string {
	switch i {
	case DPInitRandomBall:
		return "random-ball"
	case DPInitGiven:
		return "given"
	case DPInitKMeansPlusPlus:
		return "kmeans++"
	}
	return fmt.Sprintf("DPInit(%d)", int(i))
}

// Names of the queries DPKMeans releases, as in GaussianRelease.Query.
const (
	QueryClusterSums   = "k-means cluster sums"
	QueryClusterCounts = "k-means cluster counts"
)

// DPKMeansConfig configures DPKMeans. A DPKMeansConfig is a plain value and
// is safe to share.
type DPKMeansConfig struct {
	// K is the number of clusters. Required: 1 ≤ K ≤ n.
	K int
	// Iterations is the fixed number T of noisy Lloyd iterations. Required:
	// ≥ 1. There is no data-dependent stopping rule, which would leak.
	Iterations int
	// ClipNorm is the L2 bound R to which every row is clipped,
	// x ← x·min(1, R/‖x‖), before any use. Required: > 0, finite.
	ClipNorm float64
	// SigmaSum is the standard deviation σ_sum of the Gaussian noise added to
	// each coordinate of each cluster sum. Must be ≥ 0; 0 releases exact sums
	// and gives no privacy.
	SigmaSum float64
	// SigmaCount is the standard deviation σ_count of the Gaussian noise
	// added to each cluster count. Must be ≥ 0; 0 gives no privacy.
	SigmaCount float64
	// Init selects the initial centroids. Defaults to DPInitRandomBall.
	Init DPInit
	// Centroids are the K×d initial centroids for DPInitGiven. Required then,
	// and must be nil otherwise.
	Centroids []float64
}

// Validate checks the fields that do not depend on the data. The error
// wraps ErrInvalidConfig.
func (c DPKMeansConfig) Validate() error {
	switch {
	case c.K < 1:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: K is %d, must be ≥ 1", c.K)
	case c.Iterations < 1:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Iterations is %d, must be ≥ 1", c.Iterations)
	case !(c.ClipNorm > 0) || math.IsInf(c.ClipNorm, 0):
		return errkind.Wrapf(ErrInvalidConfig, "cluster: ClipNorm is %v, must be finite and > 0", c.ClipNorm)
	case !(c.SigmaSum >= 0) || math.IsInf(c.SigmaSum, 0):
		return errkind.Wrapf(ErrInvalidConfig, "cluster: SigmaSum is %v, must be finite and ≥ 0", c.SigmaSum)
	case !(c.SigmaCount >= 0) || math.IsInf(c.SigmaCount, 0):
		return errkind.Wrapf(ErrInvalidConfig, "cluster: SigmaCount is %v, must be finite and ≥ 0", c.SigmaCount)
	case c.Init < DPInitRandomBall || c.Init > DPInitKMeansPlusPlus:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Init is %v, must be one of random-ball, given, kmeans++", c.Init)
	case c.Init == DPInitGiven && c.Centroids == nil:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Centroids is nil, must be set when Init is given")
	case c.Init != DPInitGiven && c.Centroids != nil:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Centroids has %d values, must be nil when Init is %v", len(c.Centroids), c.Init)
	}
	return nil
}

// GaussianRelease describes one application of the Gaussian mechanism
// M(D) = f(D) + N(0, σ² I_Dim), for an accountant to compose.
// Sensitivity is the L2 sensitivity Δ of f under add/remove-one-row
// neighbouring (under replace-one it is 2R for sums and √2 for counts).
type GaussianRelease struct {
	// Iteration is the Lloyd iteration (from 0) of the release; −1 after
	// ComposeReleases.
	Iteration int
	// Query names the released statistic (QueryClusterSums or
	// QueryClusterCounts).
	Query string
	// Sensitivity is Δ, Sigma the noise standard deviation σ.
	Sensitivity, Sigma float64
	// Dim is the number of noised coordinates (K·d sums or K counts).
	Dim int
	// Count is the number of identical releases this entry stands for.
	Count int
}

// NoiseMultiplier returns σ/Δ, the parameter of the Gaussian mechanism an
// RDP or PLD accountant takes (ε(α) = α/(2(σ/Δ)²) per release in RDP).
func (g GaussianRelease) NoiseMultiplier() float64 { return g.Sigma / g.Sensitivity }

// ComposeReleases merges releases with the same Query, Sensitivity, Sigma
// and Dim into one entry whose Count is the sum of theirs (Iteration −1), in
// order of first appearance: the (event, count) pairs of an accountant's
// compose call.
func ComposeReleases(rs []GaussianRelease) []GaussianRelease {
	var out []GaussianRelease
outer:
	for _, r := range rs {
		for i := range out {
			o := &out[i]
			if o.Query == r.Query && o.Sensitivity == r.Sensitivity && o.Sigma == r.Sigma && o.Dim == r.Dim {
				o.Count += r.Count
				continue outer
			}
		}
		r.Iteration = -1
		out = append(out, r)
	}
	return out
}

// DPKMeansResult is the outcome of DPKMeans.
type DPKMeansResult struct {
	// KMeansResult holds the final noisy centroids (the private output), the
	// labels of the rows under them and the inertia of the clipped rows.
	// Labels and Inertia are computed from the private rows themselves and
	// are not covered by the releases. Converged is always false and
	// Restart 0.
	KMeansResult
	// Releases lists the two Gaussian releases of every iteration, sums then
	// counts, in order.
	Releases []GaussianRelease
	// Private reports whether the centroids are fully covered by Releases:
	// false when Init is DPInitKMeansPlusPlus.
	Private bool
	// NoisyCounts are the last iteration's released counts ñ_j (before the
	// max(·, 1) of the update), one per final centroid: released values,
	// so a caller may weight the centroids by them.
	NoisyCounts []float64
}

// DPKMeans runs cfg.Iterations noisy Lloyd iterations on the rows of x
// clipped to L2 norm R = cfg.ClipNorm. In each iteration every clipped row
// is assigned to its nearest centroid, and the cluster sums S_j and counts
// n_j are released with Gaussian noise:
//
//	S̃_j = S_j + N(0, σ_sum² I_d),  ñ_j = n_j + N(0, σ_count²),
//	c_j = S̃_j / max(ñ_j, 1),
//
// then c_j is projected onto the ball of radius R (post-processing: the
// clipped rows, hence their means, lie in it). Adding or removing one row
// changes one cluster sum by at most R in L2 and one count by 1, so the
// sums have sensitivity R and the counts 1; each iteration is one Gaussian
// mechanism of each kind (Su et al. 2016, https://doi.org/10.1145/2857705.2857708;
// Balle & Wang 2018 for the Gaussian mechanism, https://arxiv.org/abs/1805.06530).
// The releases are returned for the accountant; this package does no
// accounting.
//
// The noise and the random-ball initialisation are drawn from rng only, in a
// fixed order, so a seeded rng reproduces a run; for DP in production it
// must be a cryptographically seeded generator. rng must not be nil.
//
// It returns an error wrapping ErrInvalidConfig or ErrInvalidData on bad
// input and ctx.Err() if ctx is cancelled.
func DPKMeans(ctx context.Context, x []float64, n, d int, cfg DPKMeansConfig, rng *rand.Rand) (*DPKMeansResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errkind.Wrapf(ErrInvalidConfig, "cluster: rng is nil, must be a generator")
	}
	if err := checkMatrix("x", x, n, d); err != nil {
		return nil, err
	}
	if cfg.K > n {
		return nil, errkind.Wrapf(ErrInvalidData, "cluster: K is %d, must be ≤ n = %d", cfg.K, n)
	}
	if cfg.Init == DPInitGiven {
		if err := checkMatrix("Centroids", cfg.Centroids, cfg.K, d); err != nil {
			return nil, err
		}
	}
	r, k := cfg.ClipNorm, cfg.K
	xc := make([]float64, n*d)
	copy(xc, x)
	for i := range n {
		clipTo(xc[i*d:i*d+d], r)
	}
	w := newLloyd(xc, rowNorms(xc, n, d), n, d, k)
	switch cfg.Init {
	case DPInitRandomBall:
		for j := range k {
			uniformBall(w.centers[j*d:j*d+d], r, rng)
		}
	case DPInitGiven:
		copy(w.centers, cfg.Centroids)
	case DPInitKMeansPlusPlus:
		kmeansPlusPlus(w.centers, xc, n, d, k, rng)
	}
	res := &DPKMeansResult{Private: cfg.Init != DPInitKMeansPlusPlus}
	for it := range cfg.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.assign()
		w.noisyUpdate(r, cfg.SigmaSum, cfg.SigmaCount, rng)
		res.NoisyCounts = append(res.NoisyCounts[:0], w.counts...)
		res.Releases = append(res.Releases,
			GaussianRelease{Iteration: it, Query: QueryClusterSums, Sensitivity: r, Sigma: cfg.SigmaSum, Dim: k * d, Count: 1},
			GaussianRelease{Iteration: it, Query: QueryClusterCounts, Sensitivity: 1, Sigma: cfg.SigmaCount, Dim: k, Count: 1})
	}
	w.assign()
	res.KMeansResult = KMeansResult{
		Labels: w.labels, Centroids: w.centers, Inertia: w.inertia(),
		Iterations: cfg.Iterations,
	}
	return res, nil
}

// noisyUpdate sets the centroids from noisy sums and counts of the last
// assign (see DPKMeans). Noise is drawn cluster by cluster: d sum
// coordinates, then the count. It allocates nothing.
func (w *lloyd) noisyUpdate(r, sigmaSum, sigmaCount float64, rng *rand.Rand) {
	d := w.d
	clear(w.next)
	clear(w.counts)
	for i, c := range w.labels {
		add(w.next[c*d:c*d+d], w.x[i*d:i*d+d])
		w.counts[c]++
	}
	for j := range w.k {
		cj := w.next[j*d : j*d+d]
		for t := range cj {
			cj[t] += sigmaSum * rng.NormFloat64()
		}
		w.counts[j] += sigmaCount * rng.NormFloat64() // the released count
		inv := 1 / max(w.counts[j], 1)
		for t := range cj {
			cj[t] *= inv
		}
		clipTo(cj, r)
	}
	w.centers, w.next = w.next, w.centers
}

// clipTo scales v in place to L2 norm at most r: v ← v·min(1, r/‖v‖).
func clipTo(v []float64, r float64) {
	if norm := math.Sqrt(dot(v, v)); norm > r {
		s := r / norm
		for t := range v {
			v[t] *= s
		}
	}
}

// uniformBall writes a point drawn uniformly from the d-ball of radius r:
// a uniform direction g/‖g‖ with g ~ N(0, I), at radius r·U^{1/d}.
func uniformBall(dst []float64, r float64, rng *rand.Rand) {
	var norm float64
	for norm == 0 {
		for t := range dst {
			dst[t] = rng.NormFloat64()
		}
		norm = math.Sqrt(dot(dst, dst))
	}
	s := r * math.Pow(rng.Float64(), 1/float64(len(dst))) / norm
	for t := range dst {
		dst[t] *= s
	}
}
