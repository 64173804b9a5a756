package reference

import (
	"context"
	"errors"
	"fmt"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// B1 settings: the baseline of ../shared/data/BASELINES.md and issue 16.
const (
	// B1Components is the number of principal components k-means runs on.
	B1Components = 50
	// B1Inits is the number of k-means++ restarts of each seed.
	B1Inits = 10
	// B1Seeds is how many seeds (0 … B1Seeds−1) B1 averages over: a
	// reference line is a mean, like the curves drawn against it.
	B1Seeds = 5
)

// Line is one reference line: the mean and standard deviation of ARI and
// NMI over seeds.
type Line struct {
	ARI   float64 `json:"ari"`
	NMI   float64 `json:"nmi"`
	ARISD float64 `json:"ari_sd"`
	NMISD float64 `json:"nmi_sd"`
	Seeds int     `json:"seeds"`
	// SeedARI is the ARI of each seed 0 … Seeds−1, kept for lines of runs
	// (a null, a method's own runs) so that two of them can be compared
	// seed by seed (Paired); B1 leaves it empty.
	SeedARI []float64 `json:"seed_ari,omitempty"`
}

// ErrNoLabels is returned for data without true labels: there is nothing to
// score a reference against.
var ErrNoLabels = errors.New("reference: the data set has no labels")

// B1 returns k-means (B1Inits restarts, k = number of classes) on the top
// B1Components principal components of d.X, scored against d's labels,
// averaged over seeds 0 … B1Seeds−1. Fewer components are used when the
// matrix has fewer genes or cells.
func B1(ctx context.Context, d *datasets.Preprocessed) (Line, error) {
	if d == nil || len(d.Labels) == 0 || len(d.Classes) == 0 {
		return Line{}, ErrNoLabels
	}
	if d.Cells < 2 || d.Genes < 1 {
		return Line{}, fmt.Errorf("reference: matrix is %d×%d, need at least 2 cells and 1 gene", d.Cells, d.Genes)
	}
	k := len(d.Classes)
	if k > d.Cells {
		return Line{}, fmt.Errorf("reference: %d classes for %d cells", k, d.Cells)
	}
	x := make([]float64, len(d.X))
	for i, v := range d.X {
		x[i] = float64(v)
	}
	p := min(B1Components, d.Genes, d.Cells-1)
	pca, err := cluster.PCA(x, d.Cells, d.Genes, p)
	if err != nil {
		return Line{}, fmt.Errorf("reference: PCA: %w", err)
	}
	var ari, nmi []float64
	for seed := range uint64(B1Seeds) {
		if err := ctx.Err(); err != nil {
			return Line{}, err
		}
		res, err := cluster.KMeans(ctx, pca.Scores, d.Cells, p, cluster.KMeansConfig{K: k, NInit: B1Inits, Seed: seed})
		if err != nil {
			return Line{}, fmt.Errorf("reference: k-means: %w", err)
		}
		sc, err := cluster.Score(d.Labels, res.Labels)
		if err != nil {
			return Line{}, fmt.Errorf("reference: scores: %w", err)
		}
		ari, nmi = append(ari, sc.ARI), append(nmi, sc.NMI)
	}
	l := Line{Seeds: B1Seeds}
	l.ARI, l.ARISD = sweep.Moments(ari)
	l.NMI, l.NMISD = sweep.Moments(nmi)
	return l, nil
}
