package cluster

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// pcaKMeansARI runs the B1 baseline of ../shared/data/BASELINES.md on p:
// PCA(50) of the preprocessed matrix, then k-means with k the number of
// classes and n_init 10, and returns the ARI against the true labels.
func pcaKMeansARI(t *testing.T, p *datasets.Preprocessed, seed uint64) float64 {
	t.Helper()
	x := make([]float64, len(p.X))
	for i, v := range p.X {
		x[i] = float64(v)
	}
	pc, err := PCA(x, p.Cells, p.Genes, 50)
	if err != nil {
		t.Fatal(err)
	}
	km, err := KMeans(context.Background(), pc.Scores, p.Cells, 50, KMeansConfig{K: len(p.Classes), NInit: 10, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	ari, err := ARI(p.Labels, km.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return ari
}

// TestDefaultDataIsNeitherTrivialNorHopeless pins the difficulty of the
// embedded default data set (issue 2): the standard pipeline reaches an ARI
// between 0.5 and 0.8, so private methods have room to lose and to win.
func TestDefaultDataIsNeitherTrivialNorHopeless(t *testing.T) {
	israce.SkipNumerics(t)
	d, err := datasets.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	p, err := datasets.Preprocess(d, datasets.DefaultPreprocessConfig())
	if err != nil {
		t.Fatal(err)
	}
	ari := pcaKMeansARI(t, p, 1)
	t.Logf("default: ARI %.3f", ari)
	if ari < 0.5 || ari > 0.8 {
		t.Errorf("k-means on 50 PCs of builtin:default: ARI = %.3f, want in [0.5, 0.8]", ari)
	}
}

// TestBaselineB1 reproduces the B1 column of ../shared/data/BASELINES.md
// (scanpy preprocessing, PCA(50), k-means n_init 10; scikit-learn 1.2.1):
// it checks the preprocessing, PCA and k-means together against an
// independent implementation. The tolerance covers the spread over seeds the
// table reports plus differences in k-means++ draws.
func TestBaselineB1(t *testing.T) {
	israce.SkipNumerics(t)
	tests := []struct {
		name      string
		ari, tol  float64
		shortSkip bool
	}{
		{name: "biase", ari: 0.853, tol: 0.06},
		{name: "cellbench_celseq2_3cl", ari: 1.000, tol: 0.01},
		{name: "pbmc_4k", ari: 0.671, tol: 0.04, shortSkip: true},
		{name: "mouse_bladder", ari: 0.601, tol: 0.05, shortSkip: true},
	}
	dir := fixture.SharedData(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.shortSkip && testing.Short() {
				t.Skip("large data set skipped in -short mode")
			}
			d, err := datasets.Open(filepath.Join(dir, tc.name), datasets.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := datasets.Preprocess(d, datasets.DefaultPreprocessConfig())
			if err != nil {
				t.Fatal(err)
			}
			ari := pcaKMeansARI(t, p, 0)
			t.Logf("B1 on %s: ARI %.3f (BASELINES %.3f)", tc.name, ari, tc.ari)
			if ari < tc.ari-tc.tol || ari > tc.ari+tc.tol {
				t.Errorf("B1 on %s: ARI = %.3f, want %.3f ± %.2f (BASELINES.md)", tc.name, ari, tc.ari, tc.tol)
			}
		})
	}
}
