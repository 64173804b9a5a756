package dpmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/neighbors"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
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
	if f, err := strconv.ParseFloat(os.Getenv("DPSCOPE_DPMD_DEFAC"), 64); err == nil {
		// a stronger differential expression: clearer clusters, lower d
		for i := range spec.Groups {
			spec.Groups[i].DEFacLoc = f
		}
	}
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
	return soundARIWith(t, pr, Params{}, eps, seed)
}

// soundARIWith is soundARI with the parameters p (resolved here).
func soundARIWith(t testing.TB, pr *Problem, p Params, eps float64, seed uint64) float64 {
	t.Helper()
	x := soundDenoise(t, pr, p, eps, seed)
	r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
	return r.score("sound", x, true).ARI
}

// soundDenoise runs sound mode with the parameters p (resolved here) on
// pr's queries at ε with the run's seed and returns them denoised.
func soundDenoise(t testing.TB, pr *Problem, p Params, eps float64, seed uint64) []float64 {
	t.Helper()
	p, err := p.Resolve()
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
	return x
}

// TestSoundClusterEval prints the check behind SoundBeta's cap
// (DPSCOPE_DPMD_CLUSTER=1, or a comma list of cell counts; default 90, 124,
// 2000): builtin:default's simulator at that size, seeds 1–5, FromData's
// preprocessing, PCA and split, and the k-means ARI of the queries not
// denoised and after sound mode at ε = 8 and 64 (DPSCOPE_DPMD_EPS sets the
// list). DPSCOPE_DPMD_RULE=B replaces h by the rejected candidate (B)
// bandwidth (knnBandwidth). The criterion, stated before it was run: mean
// sound ARI ≥ mean not-denoised ARI − 0.01 in every (cells, ε).
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
	eps := fixture.EnvFloats(t, "DPSCOPE_DPMD_EPS", []float64{8, 64})
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
				line += fmt.Sprintf(" ε=%g %.3f", e, a)
			}
			t.Logf("cells %d seed %d: n=%d m=%d h=%.3g d=%d before %.3f sound%s", cells, seed, pr.N, pr.M, pr.H, pr.Dim, before, line)
		}
		line := fmt.Sprintf("cells %d mean: before %.3f sound", cells, mb)
		for i, e := range eps {
			line += fmt.Sprintf(" ε=%g %.3f", e, ms[i])
		}
		t.Log(line)
	}
}

// TestSoundClusterNoHarm is TestSoundClusterEval's short form: on the
// simulator at 90 cells (yan's size), seed 5, sound mode at ε = 8 keeps
// the queries' ARI within 0.02 of not denoising them, where β = 1 took it
// from 0.307 to −0.095.
func TestSoundClusterNoHarm(t *testing.T) {
	pr := simProblem(t, 90, 5)
	before := (&runner{pr: pr, cfg: core.Config{Seed: 5}}).score("before", pr.Z, true).ARI
	if before < 0.2 {
		t.Fatalf("not denoised ARI %.3f: the simulated clusters are not there to lose", before)
	}
	if got := soundARI(t, pr, 8, 5); got < before-0.02 {
		t.Errorf("sound ARI at ε = 8 is %.3f, not denoised %.3f: sound mode pulls queries across clusters", got, before)
	}
}

// mixtureProblem draws a Gaussian mixture in R^50 whose local dimension is
// about that of the real sets (≈ 10): 6 clusters of equal weight, centres
// N(0, sep²I), each with a random 10-dimensional subspace of variance ≈ 1 per
// direction plus isotropic noise of variance 0.05, then splits it as a data
// set (FromData's h and d rule). Labels are the mixture's components.
func mixtureProblem(t testing.TB, cells int, sep float64, seed uint64) *Problem {
	t.Helper()
	const D, k, sub = 50, 6, 10
	rng := rand.New(rand.NewPCG(seed, 0x6d6978))
	centres := make([]float64, k*D)
	bases := make([]float64, k*D*sub)
	for i := range centres {
		centres[i] = sep * rng.NormFloat64()
	}
	for i := range bases {
		bases[i] = rng.NormFloat64() / math.Sqrt(D)
	}
	x := make([]float64, cells*D)
	labels := make([]int, cells)
	z := make([]float64, sub)
	for i := range cells {
		c := i % k
		labels[i] = c
		for l := range z {
			z[l] = rng.NormFloat64()
		}
		subspaceCell(x[i*D:(i+1)*D], centres[c*D:(c+1)*D], nil, bases[c*D*sub:(c+1)*D*sub], z, rng)
	}
	return splitDefault(t, x, cells, D, labels, k, seed)
}

// subspaceCell writes one cell of a subspace mixture into row (D values):
// the cluster's centre, plus off when it is set (an embryo's offset), plus
// isotropic noise of variance 0.05 (one draw of rng per value, in order),
// plus the cluster's basis (D × len(z), row-major) times z.
func subspaceCell(row, centre, off, basis, z []float64, rng *rand.Rand) {
	sub := len(z)
	for j := range row {
		v := centre[j]
		if off != nil {
			v += off[j]
		}
		v += math.Sqrt(0.05) * rng.NormFloat64()
		for l, zl := range z {
			v += basis[j*sub+l] * zl
		}
		row[j] = v
	}
}

// splitDefault splits the points x (n × D, labels of k clusters) as a data
// set with dpmd's default parameters and seed.
func splitDefault(t testing.TB, x []float64, n, D int, labels []int, k int, seed uint64) *Problem {
	t.Helper()
	p, err := Params{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := splitData(x, n, D, labels, nil, k, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// TestSoundMixtureEval prints, for the Gaussian mixture of mixtureProblem
// (DPSCOPE_DPMD_MIXTURE=sep, e.g. 1; DPSCOPE_DPMD_CLUSTER the cell
// counts, DPSCOPE_DPMD_EPS the ε list), the queries' ARI not denoised,
// after the non-private ceiling and after sound mode, seeds 1–5.
func TestSoundMixtureEval(t *testing.T) {
	sep, err := strconv.ParseFloat(os.Getenv("DPSCOPE_DPMD_MIXTURE"), 64)
	if err != nil {
		t.Skip("set DPSCOPE_DPMD_MIXTURE=sep (centre scale) for the mixture table")
	}
	sizes := []int{90, 124, 2000}
	if env := os.Getenv("DPSCOPE_DPMD_CLUSTER"); env != "" && env != "1" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			v, _ := strconv.Atoi(f)
			sizes = append(sizes, v)
		}
	}
	eps := fixture.EnvFloats(t, "DPSCOPE_DPMD_EPS", []float64{8, 64, 1000})
	for _, cells := range sizes {
		var mb, mnp float64
		ms := make([]float64, len(eps))
		for seed := uint64(1); seed <= 5; seed++ {
			pr := mixtureProblem(t, cells, sep, seed)
			r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
			before := r.score("before", pr.Z, true).ARI
			tg, err := LocalPCA(context.Background(), pr.Y, pr.N, pr.D, pr.H, pr.Dim)
			if err != nil {
				t.Fatal(err)
			}
			dn, err := NewDenoiser(pr.Y, pr.N, pr.D, pr.H, pr.Dim, tg)
			if err != nil {
				t.Fatal(err)
			}
			x := append([]float64(nil), pr.Z...)
			for it := range 2 {
				if _, err := dn.Iterate(context.Background(), x, pr.M, StepEigProj, Noise{}, seed, 0, it); err != nil {
					t.Fatal(err)
				}
			}
			np := r.score("np", x, true).ARI
			mb += before / 5
			mnp += np / 5
			line := ""
			for i, e := range eps {
				a := soundARI(t, pr, e, seed)
				ms[i] += a / 5
				line += fmt.Sprintf(" ε=%g %.3f", e, a)
			}
			t.Logf("cells %d seed %d: h=%.3g d=%d before %.3f nonprivate %.3f sound%s", cells, seed, pr.H, pr.Dim, before, np, line)
		}
		line := fmt.Sprintf("cells %d mean: before %.3f nonprivate %.3f sound", cells, mb, mnp)
		for i, e := range eps {
			line += fmt.Sprintf(" ε=%g %.3f", e, ms[i])
		}
		t.Log(line)
	}
}
