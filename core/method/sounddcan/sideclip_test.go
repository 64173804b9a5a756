package sounddcan

import (
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestSideClipOptions: sideclip reads a number in [1, 100], defaults to
// DefaultSideClip, and refuses other values.
func TestSideClipOptions(t *testing.T) {
	if o := mustParse(t, map[string]string{"sideclip": "4"}); o.SideClip != 4 || !strings.Contains(o.String(), "sideclip=4") {
		t.Errorf("sideclip=4 resolves to %g (%s)", o.SideClip, o)
	}
	if o := mustParse(t, nil); o.SideClip != DefaultSideClip || !strings.Contains(o.String(), "sideclip=4") {
		t.Errorf("the default resolves to sideclip %g (%s), want %d", o.SideClip, o, DefaultSideClip)
	}
	if o := mustParse(t, map[string]string{"sideclip": "1"}); o.SideClip != 1 {
		t.Errorf("sideclip=1 resolves to %g", o.SideClip)
	}
	for _, bad := range []string{"0.5", "0", "101", "-2", "NaN", "wide"} {
		if _, err := Parse(map[string]string{"sideclip": bad}); err == nil {
			t.Errorf("sideclip=%s accepted", bad)
		}
	}
}

// TestSideClipSensitivity: with the side blocks divided by c, one cell
// still moves the clipped sum by at most 1 (a far cell by exactly 1), so
// the plan's noise is unchanged; and a typical cell, whose whole gradient
// the natural bounds clip, keeps more of its means' gradient (the point
// of the option).
func TestSideClipSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	k, h, r := 3, 20, 2.0
	x, means, _ := blobs(k, 30, h, 1, 0.3, rng)
	cMu, cV := r/4, r*r/float64(h)/16 // bounds tight enough that the whole gradient is clipped
	n := len(x) / h
	meansNorm := func(side float64, rows []float64, nr int) (float64, []float64) {
		m := &mixture{k: k, h: h, mu: means, a: []float64{0, -1, 0.5}, b: 0.3, side: side}
		sum, g := make([]float64, m.gradSize()), make([]float64, m.gradSize())
		m.clippedSum(rows, nr, cMu, cV, sum, g)
		var s float64
		for _, v := range sum[:k*h] {
			s += v * v
		}
		return math.Sqrt(s), sum
	}
	for _, side := range []float64{1, 4, 100} {
		_, base := meansNorm(side, x, n)
		for _, far := range []float64{0, 0.5, 50} {
			cell := make([]float64, h)
			for i := range cell {
				cell[i] = far * rng.NormFloat64()
			}
			_, with := meansNorm(side, append(append([]float64(nil), x...), cell...), n+1)
			var d float64
			for i := range with {
				d += (with[i] - base[i]) * (with[i] - base[i])
			}
			d = math.Sqrt(d)
			if d > 1+1e-9 || (far == 50 && math.Abs(d-1) > 1e-9) {
				t.Errorf("side %g: a cell at scale %g moves the sum by %.6f (want ≤ 1, exactly 1 when far)", side, far, d)
			}
		}
	}
	one, _ := meansNorm(1, x[:h], 1)
	four, _ := meansNorm(4, x[:h], 1)
	if !(four > 1.1*one) {
		t.Errorf("one cell's means gradient has norm %.4f with sideclip 4 against %.4f with the natural bounds: want it kept (larger)", four, one)
	}
}

// TestSideClipScalesBack: where no cell is clipped, the side factor
// changes nothing (the released blocks are scaled back by it in the
// update), so it acts only through the clip; and it leaves the plan, so
// every mechanism's noise and the ledger, as they were.
func TestSideClipScalesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	k, h := 3, 20
	x, means, _ := blobs(k, 30, h, 0.01, 0.003, rng) // tiny rows: no cell reaches the clip
	n := len(x) / h
	cMu, cV := 100.0, 1.0
	var got [2]*mixture
	for i, side := range []float64{1, 4} {
		m := &mixture{k: k, h: h, mu: append([]float64(nil), means...), a: []float64{0, -1, 0.5}, b: 0.3, side: side}
		sum, g := make([]float64, m.gradSize()), make([]float64, m.gradSize())
		for range 3 {
			m.noisyStep(x, n, cMu, cV, 0, float64(n), 0.5, false, 0, rng, sum, g)
		}
		got[i] = m
	}
	for t0 := range got[0].mu {
		if math.Abs(got[0].mu[t0]-got[1].mu[t0]) > 1e-12 {
			t.Fatalf("mean coordinate %d: %g with side 1, %g with side 4", t0, got[0].mu[t0], got[1].mu[t0])
		}
	}
	for j := range got[0].a {
		if math.Abs(got[0].a[j]-got[1].a[j]) > 1e-12 {
			t.Errorf("weight %d: %g with side 1, %g with side 4", j, got[0].a[j], got[1].a[j])
		}
	}
	if math.Abs(got[0].b-got[1].b) > 1e-12 {
		t.Errorf("variance parameter: %g with side 1, %g with side 4", got[0].b, got[1].b)
	}
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSourceTarget(d, 0, TargetHigh)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(opts map[string]string) Plan {
		pl, err := NewPlan(src, true, 8, 1e-5, mustParse(t, opts), rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	if a, b := plan(map[string]string{"sideclip": "1"}), plan(nil); !reflect.DeepEqual(a, b) {
		t.Errorf("sideclip=4 (the default) changed the plan of sideclip=1:\n%+v\n%+v", a, b)
	}
}

// TestSideClipDiag (DPSCOPE_SOUNDDCAN_CLIPDIAG=draws, e.g. 296; ε from
// DPSCOPE_SOUNDDCAN_EPS, default 4 and 8) logs, label-free, the blocks of
// every cell's gradient at the mixture the run ends with (its released
// means, weights and variance): the mean norm of the means', weights' and
// variance's blocks in units of their bounds, and the mean factor the
// clip to 1 applies, under sideclip 1 and 4. It is the measurement behind
// the norm argument of Options.SideClip.
func TestSideClipDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_CLIPDIAG")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_CLIPDIAG=296 to measure the gradient's blocks")
	}
	_, srcs := drawSources(t, env)
	for _, eps := range fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{4, 8}) {
		for _, src := range srcs {
			for _, side := range []float64{1, 4} {
				o := mustParse(t, map[string]string{"sideclip": strconv.FormatFloat(side, 'g', -1, 64)})
				_, out := fitARI(t, src, true, eps, o, 0)
				m, x := out.Start.Matrix, out.Start.Matrix.Z
				h, k, n := m.H, src.K, m.N
				mx := &mixture{k: k, h: h, mu: make([]float64, k*h), a: make([]float64, k), b: -0.5 * math.Log(out.Variance)}
				for i, v := range out.Centres {
					mx.mu[i] = float64(v)
				}
				for j, w := range out.Weights {
					mx.a[j] = math.Log(max(w, 1e-300))
				}
				r := out.Plan.R
				cMu, cV := r, r*r/float64(h)
				lp, s, dist := make([]float64, k), make([]float64, k), make([]float64, k)
				mx.logWeights(lp)
				var nm, nw, nv, f float64
				// under a means' bound c·R (gclip=c): the share of cells the
				// clip to 1 cuts and the mean factor it applies
				cs := []float64{1, 0.9, 0.8}
				cut, fc := make([]float64, len(cs)), make([]float64, len(cs))
				for i := range n {
					xi := x[i*h : (i+1)*h]
					lse := mx.scores(xi, lp, s, dist)
					var gm, gw, gv float64
					for j := range k {
						rj := math.Exp(s[j] - lse)
						gm += rj * rj * dist[j] / (cMu * cMu)
						e := (rj - math.Exp(lp[j])) / side
						gw += e * e
						gv += rj * dist[j]
					}
					gv = gv / float64(h) / cV / side
					tot := math.Sqrt(gm + gw + gv*gv)
					for ci, c := range cs {
						tc := math.Sqrt(gm/(c*c) + gw + gv*gv)
						if tc > 1 {
							cut[ci]++
						}
						fc[ci] += min(1, 1/tc)
					}
					nm += math.Sqrt(gm)
					nw += math.Sqrt(gw)
					nv += gv
					f += min(1, 1/tot)
				}
				fn := float64(n)
				t.Logf("ε %g, %s, sideclip %g (steps %d): mean block norms means %.3f, weights %.3f, variance %.3f; mean clip factor %.3f; under gclip 1 / 0.9 / 0.8 cells cut %.3f / %.3f / %.3f, mean factor %.3f / %.3f / %.3f", eps, src.Data.Name, side, out.Plan.Steps, nm/fn, nw/fn, nv/fn, f/fn, cut[0]/fn, cut[1]/fn, cut[2]/fn, fc[0]/fn, fc[1]/fn, fc[2]/fn)
			}
		}
	}
}
