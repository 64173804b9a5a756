package dcan

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/cputime"
)

// TestDefaultDataResults runs DCAN and DP-DCAN on the embedded default data
// set and logs ARI, NMI and time per epoch; the figures of docs/RESULTS.md
// come from it. It is skipped unless DPSCOPE_DCAN_RESULTS names the modes
// to run, e.g.
//
//	DPSCOPE_DCAN_RESULTS=nonprivate,sound DPSCOPE_DCAN_SEEDS=1,2,3 go test -run TestDefaultDataResults -v -timeout 30m ./core/method/dcan/
//
// DPSCOPE_DCAN_EPOCHS=e1,e2, DPSCOPE_DCAN_EPSILON, DPSCOPE_DCAN_LR (stage 1)
// and DPSCOPE_DCAN_RHO override the defaults (ε = 8).
func TestDefaultDataResults(t *testing.T) {
	modes := os.Getenv("DPSCOPE_DCAN_RESULTS")
	if modes == "" {
		t.Skip("set DPSCOPE_DCAN_RESULTS=nonprivate,paper,sound to run")
	}
	seeds := resultsSeeds(t, 1)
	for _, mode := range strings.Split(modes, ",") {
		for _, seed := range seeds {
			cfg := core.Config{Data: "builtin:default", Method: testMethod, Mode: core.Mode(mode), Epsilon: 8, Delta: 1e-5,
				Clip: 0.1, SampleRate: 0.1, Seed: seed}
			if e := os.Getenv("DPSCOPE_DCAN_EPOCHS"); e != "" {
				a, b, _ := strings.Cut(e, ",")
				e1, _ := strconv.Atoi(a)
				e2, _ := strconv.Atoi(b)
				cfg.Epochs = []int{e1, e2}
			}
			var opt Options
			if v := os.Getenv("DPSCOPE_DCAN_LR"); v != "" {
				cfg.LearningRate, _ = strconv.ParseFloat(v, 64)
			}
			if v := os.Getenv("DPSCOPE_DCAN_RHO"); v != "" {
				opt.Rho, _ = strconv.ParseFloat(v, 64)
			}
			if os.Getenv("DPSCOPE_DCAN_GENES") != "" {
				opt.Data = resultsData(t)
			}
			if v := os.Getenv("DPSCOPE_DCAN_RESET"); v != "" {
				opt.ResetEvery, _ = strconv.Atoi(v)
			}
			if v := os.Getenv("DPSCOPE_DCAN_INIT_RESTARTS"); v != "" {
				opt.InitRestarts, _ = strconv.Atoi(v)
			}
			if os.Getenv("DPSCOPE_DCAN_CENTER") != "" {
				opt.CenterInstance = true
			}
			if os.Getenv("DPSCOPE_DCAN_DENOISE") != "" {
				opt.Denoise = true
			}
			if os.Getenv("DPSCOPE_DCAN_ACT") == "relu" {
				opt.Act = nn.ReLU
			}
			if os.Getenv("DPSCOPE_DCAN_NO_GENE_MEAN_INIT") != "" {
				opt.NoGeneMeanInit = true
			}
			if v := os.Getenv("DPSCOPE_DCAN_CLIP"); v != "" {
				cfg.Clip, _ = strconv.ParseFloat(v, 64)
			}
			if v := os.Getenv("DPSCOPE_DCAN_SIGMA"); v != "" { // with DPSCOPE_DCAN_EPSILON=0: no target
				cfg.Sigma, _ = strconv.ParseFloat(v, 64)
			}
			if v := os.Getenv("DPSCOPE_DCAN_Q"); v != "" {
				cfg.SampleRate, _ = strconv.ParseFloat(v, 64)
			}
			if v := os.Getenv("DPSCOPE_DCAN_EPSILON"); v != "" {
				cfg.Epsilon, _ = strconv.ParseFloat(v, 64)
			}
			t0, cpu0 := time.Now(), cputime.Process().Seconds()
			r, _ := start(t, context.Background(), cfg, opt)
			var last core.MetricsEvent
			for ev := range r.Events() {
				switch ev := ev.(type) {
				case core.MetricsEvent:
					last = ev
					t.Logf("%s seed %d stage %d epoch %d step %d %v (%.1fs)", mode, seed, ev.Stage, ev.Epoch, ev.Step, ev.Values, time.Since(t0).Seconds())
				case core.GuaranteeEvent:
					t.Logf("guarantee %s published %v audited %v", ev.Status, ev.Published, ev.Audited)
				case core.WarningEvent:
					t.Logf("warning: %s", ev.Message)
				case core.ErrorEvent:
					t.Fatal(ev.Err)
				}
			}
			t.Logf("RESULT %s seed %d epochs %v: %v in %.1fs wall, %.1fs CPU", mode, seed, cfg.Epochs, last.Values,
				time.Since(t0).Seconds(), cputime.Process().Seconds()-cpu0)
		}
	}
}

// top50PCs returns the top 50 principal components of d's input, the
// baseline's features.
func top50PCs(t *testing.T, d *datasets.Preprocessed) *cluster.PCAResult {
	t.Helper()
	x := make([]float64, len(d.X))
	for i, v := range d.X {
		x[i] = float64(v)
	}
	pca, err := cluster.PCA(x, d.Cells, d.Genes, 50)
	if err != nil {
		t.Fatal(err)
	}
	return pca
}

// baselineScores clusters the top-50 PC scores by k-means (10 restarts,
// the given seed) and scores the partition against d's labels: the
// baseline DCAN must beat.
func baselineScores(t *testing.T, d *datasets.Preprocessed, pca *cluster.PCAResult, seed uint64) cluster.Scores {
	t.Helper()
	res, err := cluster.KMeans(context.Background(), pca.Scores, d.Cells, 50, cluster.KMeansConfig{K: len(d.Classes), NInit: 10, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := cluster.Score(d.Labels, res.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestDefaultDataBaseline logs the ARI and NMI of k-means (10 restarts) on
// the top 50 principal components of the same preprocessed default data,
// the baseline of docs/RESULTS.md, for seeds 1, 2, 3 or those listed in
// DPSCOPE_DCAN_SEEDS. Skipped unless DPSCOPE_DCAN_RESULTS is set.
func TestDefaultDataBaseline(t *testing.T) {
	if os.Getenv("DPSCOPE_DCAN_RESULTS") == "" {
		t.Skip("set DPSCOPE_DCAN_RESULTS to run")
	}
	d := resultsData(t)
	pca := top50PCs(t, d)
	for _, seed := range resultsSeeds(t, 1, 2, 3) {
		sc := baselineScores(t, d, pca, seed)
		t.Logf("RESULT k-means on 50 PCs (%d×%d), seed %d: ARI %.4f NMI %.4f", d.Cells, d.Genes, seed, sc.ARI, sc.NMI)
	}
}

// resultsSeeds returns the seeds listed in DPSCOPE_DCAN_SEEDS (e.g.
// "1,2,3"), or def when it is unset.
func resultsSeeds(t *testing.T, def ...uint64) []uint64 {
	t.Helper()
	s := os.Getenv("DPSCOPE_DCAN_SEEDS")
	if s == "" {
		return def
	}
	var seeds []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("DPSCOPE_DCAN_SEEDS=%q: %v", s, err)
		}
		seeds = append(seeds, v)
	}
	return seeds
}

// resultsData returns the default data set preprocessed with the default
// configuration, or with DPSCOPE_DCAN_GENES highly variable genes when that
// variable is set.
func resultsData(t *testing.T) *datasets.Preprocessed {
	t.Helper()
	raw, _, err := datasets.Load("builtin:default", datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc := datasets.DefaultPreprocessConfig()
	if v := os.Getenv("DPSCOPE_DCAN_GENES"); v != "" {
		if pc.NTopGenes, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	d, err := datasets.Preprocess(raw, pc)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
