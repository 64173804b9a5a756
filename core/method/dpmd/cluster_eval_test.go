package dpmd

import (
	"context"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/neighbors"
	"github.com/dpscope/dpscope/datasets"
)

// simProblem simulates builtin:default's design with the given number of
// cells and seed, preprocesses it as FromData does (default preprocessing,
// 50 PCs) and splits it with the run's seed.
func simProblem(t testing.TB, cells int, seed uint64) *Problem {
	t.Helper()
	spec, err := datasets.GetBuiltinSpec("default")
	if err != nil {
		t.Fatal(err)
	}
	spec.Cells, spec.Seed = cells, seed
	d, _, err := datasets.Simulate(spec.SimConfig)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := datasets.Preprocess(d, datasets.DefaultPreprocessConfig())
	if err != nil {
		t.Fatal(err)
	}
	n, g := pre.Cells, pre.Genes
	x := make([]float64, n*g)
	for i, v := range pre.X {
		x[i] = float64(v)
	}
	p, err := Params{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pca, err := cluster.PCA(x, n, g, min(p.PCs, g, n-1))
	if pca == nil {
		t.Fatal(err)
	}
	pr, err := splitData(pca.Scores, n, min(p.PCs, g, n-1), pre.Labels, nil, len(pre.Classes), p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// knnBandwidth is candidate (B): the median distance of up to 50 probe
// references to their k-th nearest reference, k = ⌈n^(6/(d+6))⌉.
func knnBandwidth(t testing.TB, pr *Problem) float64 {
	ix, err := neighbors.New(pr.Y, pr.N, pr.D, neighbors.Auto)
	if err != nil {
		t.Fatal(err)
	}
	s := ix.NewSearcher()
	k := min(pr.N, int(math.Ceil(math.Pow(float64(pr.N), 6/float64(pr.Dim+6)))))
	var ds []float64
	for i := range min(50, pr.N) {
		_, d2, err := s.KNN(pr.Y[i*pr.D:(i+1)*pr.D], k)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, math.Sqrt(d2[len(d2)-1]))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// soundARI runs sound mode (T = 2, δ = 1e-5) on pr at ε with the run's
// seed and returns the queries' k-means ARI.
func soundARI(t testing.TB, pr *Problem, eps float64, seed uint64) float64 {
	t.Helper()
	p, err := Params{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBudget(core.ModeSound, eps, 1e-5, pr.M, p.T, p, pr.N, pr.H, pr.Dim, pr.D)
	if err != nil {
		t.Fatal(err)
	}
	dn, err := NewDenoiser(pr.Y, pr.N, pr.D, pr.H, pr.Dim, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), pr.Z...)
	for it := range p.T {
		nz := SoundNoise(b, p, Overlap(x, pr.M, pr.D, pr.H), pr.M)
		if _, err := dn.Iterate(context.Background(), x, pr.M, StepSound, nz, seed, 1, it); err != nil {
			t.Fatal(err)
		}
	}
	r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
	return r.score("sound", x, true).ARI
}

func TestSoundClusterEval(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPMD_CLUSTER")
	if env == "" {
		t.Skip("set DPSCOPE_DPMD_CLUSTER=1")
	}
	sizes := []int{90, 124, 2000}
	if env != "1" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			v, _ := strconv.Atoi(f)
			sizes = append(sizes, v)
		}
	}
	eps := []float64{8, 64}
	for _, cells := range sizes {
		var mb float64
		ms := make([]float64, len(eps))
		for seed := uint64(1); seed <= 5; seed++ {
			pr := simProblem(t, cells, seed)
			if os.Getenv("DPSCOPE_DPMD_RULE") == "B" {
				pr.H = knnBandwidth(t, pr)
			}
			r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
			before := r.score("before", pr.Z, true).ARI
			mb += before / 5
			line := ""
			for i, e := range eps {
				a := soundARI(t, pr, e, seed)
				ms[i] += a / 5
				line += " ε=" + strconv.FormatFloat(e, 'g', -1, 64) + " " + strconv.FormatFloat(a, 'f', 3, 64)
			}
			t.Logf("cells %d seed %d: n=%d m=%d h=%.3g d=%d before %.3f sound%s", cells, seed, pr.N, pr.M, pr.H, pr.Dim, before, line)
		}
		t.Logf("cells %d mean: before %.3f sound ε=8 %.3f ε=64 %.3f", cells, mb, ms[0], ms[1])
	}
}
