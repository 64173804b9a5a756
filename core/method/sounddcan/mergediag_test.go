package sounddcan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestMergeDiag is the nineteenth session's label-free diagnosis of
// start=merge (sdcan24): on the draws of DPSCOPE_SOUNDDCAN_MERGEDIAG (the
// design tests' shapes), at each ε of DPSCOPE_SOUNDDCAN_EPS (default 4,8),
// run seeds 0–2, the default (start=stage) and the candidate of
// DPSCOPE_SOUNDDCAN_DIAGOPTS (default start=merge), each at the network-on
// share and at the whole budget (steps=0). For each start it logs, reading
// no label: how many of the 3K pieces' released counts clear the bar of
// 3σ at the stage's merge (replayed: the same release cut at ⌊T/2⌋ rounds
// on a 3K-centre source, the same draws), whether fewer than K did (then
// dppca's merge keeps the first K pieces, not merged ones), the noise one
// round leaves on an average centre's mean in units of R before and after
// the merge (σ_sums·√p/(ñ/K″)/R), the non-empty clusters of the start's
// last round, of the mixture at its start and at the end, the head's
// counts above its bar, and the k-means objective of the mixture's start
// labels in the run's own private codes (separation: between-cluster
// share of variance; stage and merge share the private PCA, so it
// compares them), and the same objective after diagLloyd noise-free
// Lloyd iterations from those labels in those codes (an oracle, not a
// release: how much a start's partition could still gain from rounds
// without noise at all). Long and for reading only; it asserts that the
// runs succeed.
func TestMergeDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_MERGEDIAG")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_MERGEDIAG=393 to diagnose start=merge")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{4, 8})
	def := mustParse(t, nil)
	cand := mustParse(t, map[string]string{"start": "merge"})
	if os.Getenv("DPSCOPE_SOUNDDCAN_DIAGOPTS") != "" {
		cand = envOptions(t, "DPSCOPE_SOUNDDCAN_DIAGOPTS")
	}
	ds, srcs := drawSources(t, env)
	type acc struct{ pieces, fallback, noise3, noiseK, neStage, neStart, neEnd, above, own, lloyd float64 }
	tot := map[string]*acc{}
	var order []string
	runs := map[string]int{}
	for di, src := range srcs {
		for _, eps := range epss {
			for s := range uint64(3) {
				line := fmt.Sprintf("%s ε=%g s=%d:", ds[di].Name, eps, s)
				for _, v := range []struct {
					name string
					o    Options
				}{{"stage@share", def}, {"stage@whole", withNoTrain(def)}, {"cand@share", cand}, {"cand@whole", withNoTrain(cand)}} {
					rng := rand.New(rand.NewPCG(s, 0))
					pl, err := NewPlan(src, true, eps, 1e-5, v.o, rng)
					if err != nil {
						t.Fatal(err)
					}
					var hc []float64
					var hs float64
					headProbe = func(c []float64, sg float64) { hc, hs = append([]float64(nil), c...), sg }
					out, err := Fit(context.Background(), src, pl, v.o, rng, Hooks{})
					headProbe = nil
					if err != nil {
						t.Fatal(err)
					}
					st := out.Start
					k, p, nt := src.K, len(st.Eigen), st.Matrix.NoisyN
					x := acc{neStage: float64(st.NonEmpty), neEnd: float64(out.NonEmpty)}
					x.neStart = float64(nonEmpty(countsOf(out.StartLabels, k)))
					for _, c := range hc {
						if c >= max(1, minCountSigmas*hs) {
							x.above++
						}
					}
					unit := st.Plan.Sums * math.Sqrt(float64(p)) / nt / st.Plan.R
					x.noise3 = unit * float64(min(max(pl.Over, 1)*k, src.Data.Cells()))
					x.noiseK = x.noise3
					merged := v.o.Start == StartMerge && pl.Over > 1
					if merged {
						x.noiseK = unit * float64(k)
						// the merge's pieces: the same release cut before the
						// merge (its first ⌊T/2⌋ rounds on a 3K-centre source)
						r2 := rand.New(rand.NewPCG(s, 0))
						pl2, err := NewPlan(src, true, eps, 1e-5, v.o, r2)
						if err != nil {
							t.Fatal(err)
						}
						do, err := v.o.dppcaOptions()
						if err != nil {
							t.Fatal(err)
						}
						do.T, do.Over = do.T/2, 1
						src3, err := dppca.NewSourceTarget(src.Data, min(pl.Over*k, src.Data.Cells()), pl2.Target)
						if err != nil {
							t.Fatal(err)
						}
						release := dppca.ReleaseHeldFirst
						switch v.o.Hold {
						case HoldOn:
							release = dppca.ReleaseHeld
						case HoldSeen:
							release = dppca.ReleaseHeldSeen
						case HoldOff:
							t.Fatal("hold=off: dppca's overRound, not replayed here")
						}
						cut, err := release(context.Background(), src3, pl2.DPPCA, do, minCountSigmas, r2)
						if err != nil {
							t.Fatal(err)
						}
						for _, c := range cut.Counts {
							if c >= max(1, minCountSigmas*pl2.DPPCA.Counts) {
								x.pieces++
							}
						}
						if x.pieces < float64(k) {
							x.fallback = 1
						}
					}
					own := make([]float32, len(st.Proj))
					for i, v := range st.Proj {
						own[i] = float32(v)
					}
					x.own = separation(own, out.StartLabels, p)
					x.lloyd = separation(own, plainLloyd(st.Proj, out.StartLabels, p, k, diagLloyd), p)
					line += fmt.Sprintf(" | %s pieces %.0f noise %.3f→%.3f ne stage %.0f start %.0f end %.0f above %.0f/%d own %.3f lloyd %.3f", v.name, x.pieces, x.noise3, x.noiseK, x.neStage, x.neStart, x.neEnd, x.above, len(hc), x.own, x.lloyd)
					if tot[v.name] == nil {
						tot[v.name] = &acc{}
						order = append(order, v.name)
					}
					a := tot[v.name]
					a.pieces, a.fallback, a.noise3, a.noiseK = a.pieces+x.pieces, a.fallback+x.fallback, a.noise3+x.noise3, a.noiseK+x.noiseK
					a.neStage, a.neStart, a.neEnd, a.above, a.own, a.lloyd = a.neStage+x.neStage, a.neStart+x.neStart, a.neEnd+x.neEnd, a.above+x.above, a.own+x.own, a.lloyd+x.lloyd
					runs[v.name]++
				}
				t.Log(line)
			}
		}
	}
	var b strings.Builder
	for _, name := range order {
		a, f := tot[name], 1/float64(runs[name])
		fmt.Fprintf(&b, "\n  %-12s pieces %.1f fallback %.2f noise %.3f→%.3f ne stage %.2f start %.2f end %.2f above %.1f own %.3f lloyd %.3f", name, a.pieces*f, a.fallback*f, a.noise3*f, a.noiseK*f, a.neStage*f, a.neStart*f, a.neEnd*f, a.above*f, a.own*f, a.lloyd*f)
	}
	t.Logf("means over %d runs each:%s", runs[order[0]], b.String())
}

// diagLloyd is the noise-free Lloyd iterations of TestMergeDiag's oracle.
const diagLloyd = 20

// plainLloyd returns the labels after iters noise-free Lloyd iterations
// on the n × p codes x from the labelling labels (k clusters; an empty
// cluster keeps no centre). For diagnoses only: it reads the data
// without noise.
func plainLloyd(x []float64, labels []int, p, k, iters int) []int {
	n := len(labels)
	lab := append([]int(nil), labels...)
	for range iters {
		c := make([]float64, k*p)
		cnt := make([]float64, k)
		for i, l := range lab {
			cnt[l]++
			for j := range p {
				c[l*p+j] += x[i*p+j]
			}
		}
		var cs []float64
		var idx []int
		for l := range k {
			if cnt[l] > 0 {
				for j := range p {
					cs = append(cs, c[l*p+j]/cnt[l])
				}
				idx = append(idx, l)
			}
		}
		changed := false
		for i := range n {
			best, bd := 0, math.Inf(1)
			for m := range idx {
				var d float64
				for j := range p {
					v := x[i*p+j] - cs[m*p+j]
					d += v * v
				}
				if d < bd {
					best, bd = m, d
				}
			}
			if idx[best] != lab[i] {
				lab[i], changed = idx[best], true
			}
		}
		if !changed {
			break
		}
	}
	return lab
}

// TestPlainLloyd checks the oracle's Lloyd on two clusters far apart with
// one point labelled wrongly: one iteration gives it back to its own.
func TestPlainLloyd(t *testing.T) {
	x := []float64{0, 0, 0.1, 0, 0, 0.1, 10, 10, 10.1, 10, 10, 10.1}
	got := plainLloyd(x, []int{0, 0, 1, 1, 1, 1}, 2, 2, 5)
	if want := []int{0, 0, 0, 1, 1, 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}
