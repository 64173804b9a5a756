package dpmd

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// meanDistToM is the mean distance of the m queries xs to pr's manifold.
func meanDistToM(t testing.TB, pr *Problem, xs []float64) float64 {
	t.Helper()
	dist := make([]float64, pr.M)
	if err := pr.Manifold.DistancesTo(dist, xs); err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, d := range dist {
		s += d
	}
	return s / float64(pr.M)
}

// soundEval runs the judged setting of DECISIONS.md "DP-MD sound (11.4)"
// (native dimension, m = 100, T = 1, δ = 1e-5) on one manifold and seed and
// returns the mean distance to M before, non-private (eigproj, when np)
// and sound at each ε.
func soundEval(t testing.TB, kind string, n int, seed uint64, eps []float64, np bool) (before, nonpriv float64, sound []float64) {
	t.Helper()
	D, _ := strconv.Atoi(os.Getenv("DPSCOPE_DPMD_D"))
	sigma, _ := strconv.ParseFloat(os.Getenv("DPSCOPE_DPMD_SIGMA"), 64)
	p, err := Params{Manifold: kind, N: n, Queries: 100, T: 1, D: D, Sigma: sigma}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Synthetic(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	before = meanDistToM(t, pr, pr.Z)
	var tg *Tangents
	if np {
		if tg, err = LocalPCA(context.Background(), pr.Y, pr.N, pr.D, pr.H, pr.Dim); err != nil {
			t.Fatal(err)
		}
	}
	dn, err := NewDenoiser(pr.Y, pr.N, pr.D, pr.H, pr.Dim, tg)
	if err != nil {
		t.Fatal(err)
	}
	if np {
		x := append([]float64(nil), pr.Z...)
		if _, err := dn.Iterate(context.Background(), x, pr.M, StepEigProj, Noise{}, seed, 0, 0); err != nil {
			t.Fatal(err)
		}
		nonpriv = meanDistToM(t, pr, x)
	}
	for _, e := range eps {
		b, err := NewBudget(core.ModeSound, e, 1e-5, pr.M, 1, p, pr.N, pr.H, pr.Dim, pr.D)
		if err != nil {
			t.Fatal(err)
		}
		x := append([]float64(nil), pr.Z...)
		K := Overlap(x, pr.M, pr.D, pr.H)
		nz := SoundNoise(b, p, K, pr.M)
		if testing.Verbose() {
			w := dn.NewWorker()
			var sm float64
			for q := range pr.M {
				_, d2, _ := w.s.Radius(x[q*pr.D:(q+1)*pr.D], pr.H)
				for _, dd := range d2 {
					sm += ipow(max(0, 1-dd/(pr.H*pr.H)), SoundBeta(pr.Dim)) / float64(pr.M)
				}
			}
			t.Logf("%s ε=%g h=%.3g K=%d mean S=%.4g noise N %.3g S %.3g M %.3g smin %.3g", kind, e, pr.H, K, sm, nz.Mean, nz.Mass, nz.Projector, nz.SMin)
		}
		if _, err := dn.Iterate(context.Background(), x, pr.M, StepSound, nz, seed, 1, 0); err != nil {
			t.Fatal(err)
		}
		sound = append(sound, meanDistToM(t, pr, x))
	}
	return before, nonpriv, sound
}

// TestSoundEval prints the judged table (DPSCOPE_DPMD_EVAL=1; a comma
// list of manifolds picks them; DPSCOPE_DPMD_SEEDS=k runs seeds 0…k−1,
// default 5; DPSCOPE_DPMD_NONP=1 skips the non-private ceiling and its
// local PCA, the slow part on the circle; DPSCOPE_DPMD_EPS=a,b,… sets the
// ε list; DPSCOPE_DPMD_D and DPSCOPE_DPMD_SIGMA the ambient dimension and
// σ, e.g. the sphere in R^20 at σ = 0.3).
func TestSoundEval(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPMD_EVAL")
	if env == "" {
		t.Skip("set DPSCOPE_DPMD_EVAL=1 (or a comma list of manifolds) for the sound-mode table")
	}
	kinds := []string{"circle", "torus", "swissroll"}
	if env != "1" {
		kinds = strings.Split(env, ",")
	}
	seeds := 5
	if s, err := strconv.Atoi(os.Getenv("DPSCOPE_DPMD_SEEDS")); err == nil && s > 0 {
		seeds = s
	}
	eps := fixture.EnvFloats(t, "DPSCOPE_DPMD_EPS", []float64{1, 8})
	for _, kind := range kinds {
		var sb, snp float64
		ss := make([]float64, len(eps))
		for seed := range seeds {
			t0 := time.Now()
			b, np, s := soundEval(t, kind, 30000, uint64(seed), eps, os.Getenv("DPSCOPE_DPMD_NONP") == "")
			line := fmt.Sprintf("%s seed %d: before %.4f nonprivate %.4f sound", kind, seed, b, np)
			for i, e := range eps {
				line += fmt.Sprintf(" ε=%g %.4f", e, s[i])
			}
			t.Logf("%s (%v)", line, time.Since(t0).Round(time.Second))
			sb += b / float64(seeds)
			snp += np / float64(seeds)
			for i := range s {
				ss[i] += s[i] / float64(seeds)
			}
		}
		line := fmt.Sprintf("%s mean over %d seeds: before %.4f nonprivate %.4f", kind, seeds, sb, snp)
		for i, e := range eps {
			line += fmt.Sprintf(" sound ε=%g %.4f (%.0f%% of the non-private reduction)", e, ss[i], 100*(sb-ss[i])/math.Max(sb-snp, 1e-12))
		}
		t.Log(line)
	}
}
