package cluster

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/dpscope/dpscope/core/safe"
)

// KMeansResult is the outcome of KMeans or DPKMeans.
type KMeansResult struct {
	// Labels[i] is the cluster of row i, in [0, K).
	Labels []int
	// Centroids is the K×d row-major matrix of cluster centres.
	Centroids []float64
	// Inertia is Σ_i ‖x_i − c_{Labels[i]}‖², the k-means objective.
	Inertia float64
	// Iterations is the number of Lloyd iterations of the returned run.
	Iterations int
	// Converged reports whether that run met the tolerance before MaxIter.
	Converged bool
	// Restart is the index r of the returned restart (its stream is
	// rand.NewPCG(Seed, r)).
	Restart int
}

// KMeans clusters the n×d row-major data x into cfg.K clusters with Lloyd's
// algorithm, minimising the inertia Σ_i ‖x_i − c_{l(i)}‖².
//
// Each of the cfg.NInit restarts is seeded by greedy k-means++ (below) from
// its own stream rand.NewPCG(cfg.Seed, r) and iterated until no label
// changes, the squared centre shift is at most cfg.Tol times the mean column
// variance, or cfg.MaxIter iterations. Restarts run in parallel, at most
// cfg.Workers at a time; the restart with the lowest inertia is returned,
// ties going to the lowest index, so the result depends on the seed only.
// Iterations skip the rows that Hamerly's bounds prove cannot change
// cluster (https://doi.org/10.1137/1.9781611972801.12), which gives
// Lloyd's labels and centroids at lower cost (a row exactly tied between
// two centroids may keep its current one instead of the lower index).
// An empty cluster is re-seeded with the row farthest from its centroid.
// Distances are computed on column-centred data, which changes nothing but
// the rounding of ‖x‖² + ‖c‖² − 2x·c.
//
// Greedy k-means++ (scikit-learn's _kmeans_plusplus): the first centre is a
// uniformly random row; each next one is the best, by resulting potential
// Σ_i min_j ‖x_i − c_j‖², of 2+⌊ln K⌋ rows drawn with probability
// proportional to their squared distance to the nearest chosen centre.
//
// It returns an error wrapping ErrInvalidConfig or ErrInvalidData if
// cfg.ValidateData(x, n, d) fails, and ctx.Err() if ctx is cancelled.
func KMeans(ctx context.Context, x []float64, n, d int, cfg KMeansConfig) (*KMeansResult, error) {
	if err := cfg.ValidateData(x, n, d); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	xc, mean := centerColumns(x, n, d)
	xnorm := rowNorms(xc, n, d)
	tolAbs := cfg.Tol * meanVariance(xc, n, d)
	nInit := cfg.NInit
	if cfg.Centroids != nil {
		nInit = 1
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]*KMeansResult, nInit)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for r := range nInit {
		g.Go(safe.Func(func() error {
			w := newLloyd(xc, xnorm, n, d, cfg.K)
			if cfg.Centroids != nil {
				copy(w.centers, cfg.Centroids)
				for j := range cfg.K {
					sub(w.centers[j*d:j*d+d], mean)
				}
			} else {
				rng := rand.New(rand.NewPCG(cfg.Seed, uint64(r)))
				kmeansPlusPlus(w.centers, xc, n, d, cfg.K, rng)
			}
			iters, conv, err := w.runHamerly(gctx, cfg.MaxIter, tolAbs)
			if err != nil {
				return err
			}
			results[r] = &KMeansResult{
				Labels: w.labels, Centroids: w.centers, Inertia: w.inertia(),
				Iterations: iters, Converged: conv, Restart: r,
			}
			return nil
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	best := results[0]
	for _, res := range results[1:] {
		if res.Inertia < best.Inertia {
			best = res
		}
	}
	for j := range cfg.K {
		add(best.Centroids[j*d:j*d+d], mean)
	}
	return best, nil
}

// kmeansPlusPlus writes k greedy k-means++ centres of the n×d data x into
// centers (k×d).
func kmeansPlusPlus(centers, x []float64, n, d, k int, rng *rand.Rand) {
	trials := 2 + int(math.Log(float64(k)))
	closest := make([]float64, n)
	cum := make([]float64, n)
	cand := make([]float64, trials*n)
	ids := make([]int, trials)
	first := rng.IntN(n)
	copy(centers[:d], x[first*d:first*d+d])
	var pot float64
	for i := range n {
		closest[i] = SqDist(x[i*d:i*d+d], centers[:d])
		pot += closest[i]
	}
	for c := 1; c < k; c++ {
		var s float64
		for i, v := range closest {
			s += v
			cum[i] = s
		}
		for t := range ids {
			// numpy's searchsorted (side left): first i with cum[i] ≥ v.
			v := rng.Float64() * pot
			ids[t] = min(sort.SearchFloat64s(cum, v), n-1)
		}
		bestT, bestPot := 0, math.Inf(1)
		for t, id := range ids {
			ct := cand[t*n : t*n+n]
			xc := x[id*d : id*d+d]
			var p float64
			for i := range n {
				ct[i] = min(closest[i], SqDist(x[i*d:i*d+d], xc))
				p += ct[i]
			}
			if p < bestPot {
				bestT, bestPot = t, p
			}
		}
		pot = bestPot
		copy(closest, cand[bestT*n:bestT*n+n])
		id := ids[bestT]
		copy(centers[c*d:c*d+d], x[id*d:id*d+d])
	}
}

// centerColumns returns a copy of x with each column's mean subtracted, and
// the means.
func centerColumns(x []float64, n, d int) (xc, mean []float64) {
	mean = make([]float64, d)
	for i := range n {
		add(mean, x[i*d:i*d+d])
	}
	for t := range mean {
		mean[t] /= float64(n)
	}
	xc = slices.Clone(x)
	for i := range n {
		sub(xc[i*d:i*d+d], mean)
	}
	return xc, mean
}

// rowNorms returns ‖x_i‖² for every row.
func rowNorms(x []float64, n, d int) []float64 {
	out := make([]float64, n)
	for i := range n {
		out[i] = dot(x[i*d:i*d+d], x[i*d:i*d+d])
	}
	return out
}

// meanVariance returns the mean over columns of the population variance of
// centred data, (1/d) Σ_t (1/n) Σ_i x_it².
func meanVariance(xc []float64, n, d int) float64 {
	return dot(xc, xc) / float64(n) / float64(d)
}
