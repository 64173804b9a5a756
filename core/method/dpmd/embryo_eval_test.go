package dpmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// embryoSizes are the class sizes of a 124-cell early-embryo set in the
// order of development (2-cell, 4-cell, 8-cell, 16-cell, blastocyst: the
// published design of Goolam et al. 2016, a public fact, not its labels'
// use): several tight clusters of very unequal size, two of them of 6
// cells.
var embryoSizes = []int{16, 64, 32, 6, 6}

// embryoProblem draws an embryo-like set in R^50: len(embryoSizes)
// clusters of those sizes (scaled to cells), centres along a path (each
// stage sep away from the previous one in a random direction), each
// cluster spread over its own random sub-dimensional subspace with
// variance 1 per direction (multivariate t with tail degrees of freedom
// when tail > 0) plus isotropic noise of variance 0.05, then
// splits it as a data set (FromData's h and d rule). Labels are the
// clusters. It also returns every cell's label in the split's order
// (queries first, then references) for diagnostics.
func embryoProblem(t testing.TB, cells, sub int, sep, tail, emb float64, seed uint64) (*Problem, []int) {
	t.Helper()
	const D = 50
	k := len(embryoSizes)
	rng := rand.New(rand.NewPCG(seed, 0x656d62))
	centres := make([]float64, k*D)
	for j := range D {
		centres[j] = rng.NormFloat64()
	}
	for c := 1; c < k; c++ {
		var nrm float64
		dir := make([]float64, D)
		for j := range dir {
			dir[j] = rng.NormFloat64()
			nrm += dir[j] * dir[j]
		}
		for j := range D {
			centres[c*D+j] = centres[(c-1)*D+j] + sep*dir[j]/math.Sqrt(nrm)
		}
	}
	bases := make([]float64, k*D*sub)
	for i := range bases {
		bases[i] = rng.NormFloat64() / math.Sqrt(D)
	}
	var labels []int
	for c, s := range embryoSizes {
		for range max(2, int(math.Round(float64(s*cells)/124))) {
			labels = append(labels, c)
		}
	}
	n := len(labels)
	x := make([]float64, n*D)
	z := make([]float64, sub)
	// Cells come in embryos of 4 (sibling cells alike): each embryo adds
	// an offset of norm ≈ emb (0: none) to its stage's centre.
	off := make([]float64, D)
	for i, c := range labels {
		if i%4 == 0 || c != labels[i-1] {
			for j := range off {
				off[j] = emb * rng.NormFloat64() / math.Sqrt(D)
			}
		}
		// Heavy tails (tail = ν > 0): the cell's spread is
		// multivariate t with ν degrees of freedom, so some cells sit far
		// out, between stages.
		sc := 1.0
		if tail > 0 {
			var chi float64
			for range int(tail) {
				g := rng.NormFloat64()
				chi += g * g
			}
			sc = math.Sqrt(tail / chi)
		}
		for l := range z {
			z[l] = sc * rng.NormFloat64()
		}
		subspaceCell(x[i*D:(i+1)*D], centres[c*D:(c+1)*D], off, bases[c*D*sub:(c+1)*D*sub], z, rng)
	}
	pr := splitDefault(t, x, n, D, labels, k, seed)
	perm := rand.New(rand.NewPCG(seed, 0xda7a)).Perm(n)
	all := make([]int, 0, pr.M+pr.N)
	for _, i := range perm[:pr.M+pr.N] {
		all = append(all, labels[i])
	}
	return pr, all
}

// foreignWeight returns the mean, over queries, of the share of sound
// mode's kernel mass (β = SoundBeta(d), bandwidth h) that comes from
// references of another cluster, and the mean number of references
// within h.
func foreignWeight(pr *Problem, all []int) (share, within float64) {
	beta := SoundBeta(pr.Dim)
	for q := range pr.M {
		var own, other float64
		for r := range pr.N {
			var d2 float64
			for j := range pr.D {
				v := pr.Z[q*pr.D+j] - pr.Y[r*pr.D+j]
				d2 += v * v
			}
			u := 1 - d2/(pr.H*pr.H)
			if u <= 0 {
				continue
			}
			within++
			w := ipow(u, beta)
			if all[pr.M+r] == all[q] {
				own += w
			} else {
				other += w
			}
		}
		if own+other > 0 {
			share += other / (own + other)
		}
	}
	return share / float64(pr.M), within / float64(pr.M)
}

// TestSoundEmbryoEval prints, for embryoProblem (DPSCOPE_DPMD_EMBRYO=sep,
// a comma list; DPSCOPE_DPMD_CLUSTER the cell counts, default 124;
// DPSCOPE_DPMD_SUB the clusters' dimension, default 8; DPSCOPE_DPMD_EPS the
// ε list, default 8, 64, 1000; DPSCOPE_DPMD_HSCALE multiplies h;
// DPSCOPE_DPMD_TAIL the cells' t degrees of freedom, 0 Gaussian;
// DPSCOPE_DPMD_EMB the embryo offset; DPSCOPE_DPMD_SEEDS the number of
// seeds from 1, default 5): the queries' k-means ARI not denoised, after
// the non-private ceiling and after sound mode, with the share of the
// kernel mass from other clusters. The check behind SoundMassFloor:
// DPSCOPE_DPMD_TAIL=2 DPSCOPE_DPMD_SEEDS=30 DPSCOPE_DPMD_EMBRYO=4,6,8,12.
func TestSoundEmbryoEval(t *testing.T) {
	if os.Getenv("DPSCOPE_DPMD_EMBRYO") == "" {
		t.Skip("set DPSCOPE_DPMD_EMBRYO=sep for the embryo-like table")
	}
	seps := fixture.EnvFloats(t, "DPSCOPE_DPMD_EMBRYO", nil)
	sizes := fixture.EnvFloats(t, "DPSCOPE_DPMD_CLUSTER", []float64{124})
	eps := fixture.EnvFloats(t, "DPSCOPE_DPMD_EPS", []float64{8, 64, 1000})
	sub := int(fixture.EnvFloats(t, "DPSCOPE_DPMD_SUB", []float64{8})[0])
	hs := fixture.EnvFloats(t, "DPSCOPE_DPMD_HSCALE", []float64{1})[0]
	ns := fixture.EnvFloats(t, "DPSCOPE_DPMD_SEEDS", []float64{5})[0]
	tail := fixture.EnvFloats(t, "DPSCOPE_DPMD_TAIL", []float64{0})[0]
	emb := fixture.EnvFloats(t, "DPSCOPE_DPMD_EMB", []float64{0})[0]
	for _, sep := range seps {
		for _, cf := range sizes {
			cells := int(cf)
			var mb, mnp, msh float64
			ms := make([]float64, len(eps))
			for seed := uint64(1); seed <= uint64(ns); seed++ {
				pr, all := embryoProblem(t, cells, sub, sep, tail, emb, seed)
				pr.H *= hs
				r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
				before := r.score("before", pr.Z, true).ARI
				np := nonprivateARI(t, pr, seed)
				sh, within := foreignWeight(pr, all)
				mb += before / ns
				mnp += np / ns
				msh += sh / ns
				line := ""
				for i, e := range eps {
					a := soundARI(t, pr, e, seed)
					ms[i] += a / ns
					line += fmt.Sprintf(" ε=%g %.3f", e, a)
				}
				t.Logf("sep %g cells %d seed %d: n=%d m=%d h=%.3g d=%d within %.0f foreign %.2f before %.3f nonprivate %.3f sound%s",
					sep, cells, seed, pr.N, pr.M, pr.H, pr.Dim, within, sh, before, np, line)
			}
			line := fmt.Sprintf("sep %g cells %d mean: foreign %.2f before %.3f nonprivate %.3f sound", sep, cells, msh, mb, mnp)
			for i, e := range eps {
				line += fmt.Sprintf(" ε=%g %.3f", e, ms[i])
			}
			t.Log(line)
		}
	}
}

// nonprivateARI runs the non-private ceiling (eigproj, T = 2) on pr and
// returns the queries' k-means ARI.
func nonprivateARI(t testing.TB, pr *Problem, seed uint64) float64 {
	t.Helper()
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
	return (&runner{pr: pr, cfg: core.Config{Seed: seed}}).score("np", x, true).ARI
}

// TestSoundEmbryoTrace prints, per query of one embryoProblem
// (DPSCOPE_DPMD_TRACE=sep,seed,eps), its cluster, the distance to its own
// cluster's reference mean and to the nearest other one, before and after
// sound mode.
func TestSoundEmbryoTrace(t *testing.T) {
	a := fixture.EnvFloats(t, "DPSCOPE_DPMD_TRACE", nil)
	if len(a) != 3 {
		t.Skip("set DPSCOPE_DPMD_TRACE=sep,seed,eps")
	}
	sub := int(fixture.EnvFloats(t, "DPSCOPE_DPMD_SUB", []float64{8})[0])
	seed := uint64(a[1])
	pr, all := embryoProblem(t, 124, sub, a[0], fixture.EnvFloats(t, "DPSCOPE_DPMD_TAIL", []float64{0})[0],
		fixture.EnvFloats(t, "DPSCOPE_DPMD_EMB", []float64{0})[0], seed)
	k := len(embryoSizes)
	cent := make([]float64, k*pr.D)
	cnt := make([]float64, k)
	for r := range pr.N {
		c := all[pr.M+r]
		cnt[c]++
		for j := range pr.D {
			cent[c*pr.D+j] += pr.Y[r*pr.D+j]
		}
	}
	for c := range k {
		for j := range pr.D {
			cent[c*pr.D+j] /= max(cnt[c], 1)
		}
	}
	dist := func(x []float64, c int) float64 {
		var s float64
		for j := range pr.D {
			v := x[j] - cent[c*pr.D+j]
			s += v * v
		}
		return math.Sqrt(s)
	}
	x := soundDenoise(t, pr, Params{}, a[2], seed)
	r := &runner{pr: pr, cfg: core.Config{Seed: seed}}
	t.Logf("h %.3g d %d refs per cluster %v; ARI before %.3f after %.3f", pr.H, pr.Dim, cnt, r.score("b", pr.Z, true).ARI, r.score("a", x, true).ARI)
	for q := range pr.M {
		z, y := pr.Z[q*pr.D:(q+1)*pr.D], x[q*pr.D:(q+1)*pr.D]
		var mv float64
		for j := range z {
			mv += (z[j] - y[j]) * (z[j] - y[j])
		}
		c := all[q]
		of, ofa := math.Inf(1), math.Inf(1)
		for o := range k {
			if o != c {
				of, ofa = math.Min(of, dist(z, o)), math.Min(ofa, dist(y, o))
			}
		}
		S, nn := queryMass(pr, z)
		t.Logf("q %2d cluster %d mass %.3g nearest ref %.3g move %.2f own %.2f → %.2f other %.2f → %.2f", q, c, S, nn, math.Sqrt(mv), dist(z, c), dist(y, c), of, ofa)
	}
}

// queryMass returns sound mode's kernel mass at z without noise and the
// distance to z's nearest reference.
func queryMass(pr *Problem, z []float64) (S, nearest float64) {
	beta := SoundBeta(pr.Dim)
	nearest = math.Inf(1)
	for r := range pr.N {
		var d2 float64
		for j := range pr.D {
			v := z[j] - pr.Y[r*pr.D+j]
			d2 += v * v
		}
		nearest = math.Min(nearest, math.Sqrt(d2))
		if u := 1 - d2/(pr.H*pr.H); u > 0 {
			S += ipow(u, beta)
		}
	}
	return S, nearest
}

// TestSoundMassFloor checks SoundMassFloor's two terms and its effect on
// the embryo-like simulation's worst case (heavy tails ν = 2, sep 6, seed
// 14): at ε = 1000 the old floor max(1, 3ς_S) let light queries collapse
// onto the stage cores (ARI 0.401 → 0.092); with max(d + 1, 3ς_S) sound
// mode keeps the not-denoised ARI.
func TestSoundMassFloor(t *testing.T) {
	if got := SoundMassFloor(10, 0.1); got != 11 {
		t.Errorf("SoundMassFloor(10, 0.1) = %g, want d + 1 = 11", got)
	}
	if got := SoundMassFloor(2, 5); got != 15 {
		t.Errorf("SoundMassFloor(2, 5) = %g, want 3ς_S = 15", got)
	}
	pr, _ := embryoProblem(t, 124, 8, 6, 2, 0, 14)
	before := (&runner{pr: pr, cfg: core.Config{Seed: 14}}).score("before", pr.Z, true).ARI
	old := soundARIWith(t, pr, Params{SMin: 1}, 1000, 14)
	if old > before-0.1 {
		t.Fatalf("with the old floor 1 the ARI is %.3f, not denoised %.3f: the case no longer shows the collapse", old, before)
	}
	if got := soundARI(t, pr, 1000, 14); math.Abs(got-before) > 0.02 {
		t.Errorf("sound ARI at ε = 1000 is %.3f, not denoised %.3f", got, before)
	}
}
