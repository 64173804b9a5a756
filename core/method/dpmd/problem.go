package dpmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/neighbors"
	"github.com/dpscope/dpscope/datasets"
)

// Problem is one denoising task: private references, public queries, and
// what is known about them.
type Problem struct {
	Y    []float64 // references, N × D
	N, D int
	Z    []float64 // queries as given, M × D
	M    int
	// Clean holds each query's clean point (synthetic only).
	Clean    []float64
	Manifold *datasets.Manifold // synthetic only
	Labels   []int              // true labels of the queries (data set), or nil
	Barcodes []string
	Classes  int
	H        float64
	Dim      int
	// Cells and Genes are the shape of the preprocessed data set the
	// problem was made from, before PCA; 0 for a synthetic manifold.
	Cells, Genes int
	// Choice says how H and Dim were chosen.
	Choice string
	// Axes (D × 2) is the fixed projection of the 2-D view.
	Axes []float64
}

// Synthetic samples p.N references with noise of size σ and p.Queries
// queries with noise √σ from the manifold p.Manifold in R^p.D (p resolved),
// h = 2√(τσ) unless set, d the manifold's unless set.
func Synthetic(p Params, seed uint64) (*Problem, error) {
	kind, err := datasets.ParseManifoldKind(p.Manifold)
	if err != nil {
		return nil, paramf("manifold is %q, must be circle, sphere, torus or swissroll", p.Manifold)
	}
	mf, err := datasets.NewManifold(datasets.ManifoldConfig{Kind: kind, D: p.D, Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("dpmd: %w", err)
	}
	noise := datasets.NoiseBall
	if p.Gaussian {
		noise = datasets.NoiseGaussianNormalized
	}
	refs, err := mf.Sample(datasets.SampleConfig{N: p.N, Noise: noise, Scale: p.Sigma, Seed: seed ^ 0x5eed_0001})
	if err != nil {
		return nil, fmt.Errorf("dpmd: references: %w", err)
	}
	qs, err := mf.Sample(datasets.SampleConfig{N: p.Queries, Noise: noise, Scale: math.Sqrt(p.Sigma), Seed: seed ^ 0x5eed_0002})
	if err != nil {
		return nil, fmt.Errorf("dpmd: queries: %w", err)
	}
	D := mf.Ambient()
	pr := &Problem{Y: refs.Noisy, N: p.N, D: D, Z: qs.Noisy, M: p.Queries, Clean: qs.Clean, Manifold: mf,
		H: p.H, Dim: p.Dim}
	pr.Choice = "h given"
	if pr.H == 0 {
		pr.H = 2 * math.Sqrt(mf.Reach()*p.Sigma)
		pr.Choice = fmt.Sprintf("h = 2√(τσ) = %.4g (τ = %g, public)", pr.H, mf.Reach())
	}
	if pr.Dim == 0 {
		pr.Dim = mf.Dim()
	}
	if pr.Dim >= D {
		return nil, paramf("d is %d, must be < D = %d", pr.Dim, D)
	}
	pr.Axes = make([]float64, D*2)
	if q := mf.Embedding(); q != nil {
		nat := len(q) / D
		for i := range D {
			pr.Axes[i*2], pr.Axes[i*2+1] = q[i*nat], q[i*nat+1]
		}
	} else {
		pr.Axes[0], pr.Axes[3] = 1, 1
	}
	return pr, nil
}

// FromData loads a data set (a path or builtin:NAME) and preprocesses it
// as opts says (datasets.LoadPreprocessed), reduces it to p.PCs principal
// components, and splits it: n_q = min(n_max, ⌈2√n⌉) random queries, at
// most MaxReferences of the other cells as references. Unless p sets them,
// d is the median, over up to 50 references, of the number of local
// principal components (of their 30 nearest references) explaining 90 % of
// the local variance, and h is the median distance of those references to
// their 50th nearest reference — chosen on the private references.
func FromData(ctx context.Context, spec string, opts datasets.LoadOptions, p Params, seed uint64) (*Problem, error) {
	prep, err := datasets.LoadPreprocessed(spec, opts)
	if err != nil {
		return nil, fmt.Errorf("dpmd: %w", err)
	}
	pre := prep.Data
	n, g := pre.Cells, pre.Genes
	x := make([]float64, n*g)
	for i, v := range pre.X {
		x[i] = float64(v)
	}
	k := min(p.PCs, g, n-1)
	if k < 1 {
		return nil, core.Wrapf(ErrInput, "dpmd: data set has %d cells × %d genes after preprocessing, must have at least 2 cells and 1 gene", n, g)
	}
	pca, err := cluster.PCA(x, n, g, k)
	if pca == nil {
		return nil, fmt.Errorf("dpmd: PCA: %w", err)
	}
	pr, err := splitData(pca.Scores, n, k, pre.Labels, pre.Barcodes, len(pre.Classes), p, seed)
	if err != nil {
		return nil, err
	}
	pr.Cells, pr.Genes = n, g
	return pr, nil
}

// splitData splits the n × k rows of x into n_q = min(n_max, ⌈2√n⌉) random
// queries and at most MaxReferences of the other rows as references, and
// chooses h and d unless p sets them (see FromData). labels and barcodes
// may be nil.
func splitData(x []float64, n, k int, labels []int, barcodes []string, classes int, p Params, seed uint64) (*Problem, error) {
	if n < 1 || k < 1 || len(x) != n*k {
		return nil, core.Wrapf(ErrInput, "dpmd: data has %d values for %d cells × %d components, must be non-empty and n·k", len(x), n, k)
	}
	if err := checkPoints("data", x, n, k); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xda7a))
	perm := rng.Perm(n)
	nq := min(p.MaxQueries, int(math.Ceil(2*math.Sqrt(float64(n)))))
	nr := min(MaxReferences, n-nq)
	if nq < 2 || nr < 2 {
		return nil, core.Wrapf(ErrInput, "dpmd: data set has %d cells: %d queries leave %d references, must have ≥ 2 of each", n, nq, max(nr, 0))
	}
	pr := &Problem{N: nr, D: k, M: nq, Y: make([]float64, nr*k), Z: make([]float64, nq*k), H: p.H, Dim: p.Dim}
	for q, i := range perm[:nq] {
		copy(pr.Z[q*k:(q+1)*k], x[i*k:(i+1)*k])
		if labels != nil {
			pr.Labels = append(pr.Labels, labels[i])
		}
		if barcodes != nil {
			pr.Barcodes = append(pr.Barcodes, barcodes[i])
		}
	}
	for r, i := range perm[nq : nq+nr] {
		copy(pr.Y[r*k:(r+1)*k], x[i*k:(i+1)*k])
	}
	pr.Classes = classes
	if pr.Dim != 0 && pr.Dim >= k {
		return nil, paramf("d is %d, must be < D = %d (the data set's principal components)", pr.Dim, k)
	}
	if err := pr.chooseGeometry(); err != nil {
		return nil, err
	}
	if err := checkGeometry(pr.H, pr.Dim, pr.D); err != nil {
		return nil, err
	}
	pr.Axes = make([]float64, k*2)
	pr.Axes[0] = 1
	if k > 1 {
		pr.Axes[3] = 1
	}
	return pr, nil
}

// chooseGeometry fills H and Dim when zero (see FromData).
func (pr *Problem) chooseGeometry() error {
	ix, err := neighbors.New(pr.Y, pr.N, pr.D, neighbors.Auto)
	if err != nil {
		return fmt.Errorf("dpmd: %w", err)
	}
	s := ix.NewSearcher()
	probes := min(50, pr.N)
	kd, kh := min(30, pr.N), min(50, pr.N)
	var choice []string
	onPrivate := pr.Dim == 0 || pr.H == 0
	if pr.Dim == 0 {
		dims := make([]int, 0, probes)
		for i := range probes {
			idx, _, err := s.KNN(pr.Y[i*pr.D:(i+1)*pr.D], kd)
			if err != nil {
				return err
			}
			dims = append(dims, localDim(pr.Y, pr.D, idx, 0.9))
		}
		slices.Sort(dims)
		pr.Dim = min(max(1, dims[len(dims)/2]), pr.D-1)
		choice = append(choice, fmt.Sprintf("d = %d: median over %d references of the principal components of their %d nearest references explaining 90%% of the variance", pr.Dim, probes, kd))
	} else {
		choice = append(choice, fmt.Sprintf("d = %d given", pr.Dim))
	}
	if pr.H == 0 {
		ds := make([]float64, 0, probes)
		for i := range probes {
			_, d2, err := s.KNN(pr.Y[i*pr.D:(i+1)*pr.D], kh)
			if err != nil {
				return err
			}
			ds = append(ds, math.Sqrt(d2[len(d2)-1]))
		}
		sort.Float64s(ds)
		pr.H = ds[len(ds)/2]
		if pr.H == 0 {
			return core.Wrapf(ErrInput, "dpmd: the chosen bandwidth is 0 (duplicate references), must be > 0: set h")
		}
		choice = append(choice, fmt.Sprintf("h = %.4g: median over %d references of the distance to their %d-th nearest reference (of %d)", pr.H, probes, kh, pr.N))
	} else {
		choice = append(choice, fmt.Sprintf("h = %.4g given", pr.H))
	}
	pr.Choice = strings.Join(choice, "; ")
	if onPrivate {
		pr.Choice += " — chosen on the private references"
	}
	return nil
}

// localDim returns the number of principal components of the rows idx of
// y that explain the fraction frac of their variance.
func localDim(y []float64, D int, idx []int32, frac float64) int {
	k := len(idx)
	pts := make([]float64, 0, k*D)
	for _, j := range idx {
		pts = append(pts, y[int(j)*D:(int(j)+1)*D]...)
	}
	c := min(k-1, D)
	if c < 1 {
		return 1
	}
	res, err := cluster.PCA(pts, k, D, c)
	if res == nil || err != nil {
		return 1
	}
	var cum float64
	for i, r := range res.ExplainedVarianceRatio {
		cum += r
		if cum >= frac {
			return i + 1
		}
	}
	return c
}

// view projects the rows of xs onto the problem's axes.
func (pr *Problem) view(xs []float64, m int) (X, Y []float64) {
	X, Y = make([]float64, m), make([]float64, m)
	for q := range m {
		for c, v := range xs[q*pr.D : (q+1)*pr.D] {
			X[q] += v * pr.Axes[c*2]
			Y[q] += v * pr.Axes[c*2+1]
		}
	}
	return X, Y
}
