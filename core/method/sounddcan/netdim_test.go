package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestNetDimOptions: netdim reads genes or an integer in [2, 100], is
// named in the string only when set, and refuses other values.
func TestNetDimOptions(t *testing.T) {
	if o := mustParse(t, map[string]string{"netdim": "30"}); o.NetDim != 30 || !strings.Contains(o.String(), "netdim=30") {
		t.Errorf("netdim=30 resolves to %d (%s)", o.NetDim, o)
	}
	if o := mustParse(t, map[string]string{"netdim": "genes"}); o.NetDim != 0 {
		t.Errorf("netdim=genes resolves to %d, want 0", o.NetDim)
	}
	if s := mustParse(t, nil).String(); strings.Contains(s, "netdim") {
		t.Errorf("the default's string %q names netdim", s)
	}
	for _, bad := range []string{"1", "0", "101", "-3", "wide"} {
		if _, err := Parse(map[string]string{"netdim": bad}); err == nil {
			t.Errorf("netdim=%s accepted", bad)
		}
	}
}

// fitWith runs NewPlan and Fit of opts on src at ε with the engine's
// generator of seed, recording the gradient size the network asked
// canaries for.
func fitWith(t *testing.T, src *dppca.Source, private bool, eps float64, opts map[string]string, seed uint64) (*Outcome, int) {
	t.Helper()
	o := mustParse(t, opts)
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := NewPlan(src, private, eps, 1e-5, o, rng)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	out, err := Fit(context.Background(), src, pl, o, rng, Hooks{Canaries: func(n int) *audit.SumCanaries { size = n; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return out, size
}

// TestNetDimStart: under netdim=q the start's releases are the genes
// network's to the digit (the wide basis is post-processing of the same
// noisy covariance), the wide basis holds the start's p directions first
// and is orthonormal, the network's gradient has K·q + K + 1 coordinates
// (K·h + K + 1 in genes), the trained means come back to gene space inside
// that basis's span, and where no step runs (steps=0) the run is the
// genes network's.
func TestNetDimStart(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSourceTarget(d, 0, TargetHigh)
	if err != nil {
		t.Fatal(err)
	}
	const q, eps, seed = 30, 30, 5
	gen, gsize := fitWith(t, src, true, eps, map[string]string{"net": "0.4"}, seed)
	wid, wsize := fitWith(t, src, true, eps, map[string]string{"net": "0.4", "netdim": "30"}, seed)
	if wid.Plan.Steps == 0 {
		t.Fatal("the network did not run at ε 30")
	}
	h, k, p := wid.Start.Matrix.H, src.K, len(wid.Start.Eigen)
	if !reflect.DeepEqual(gen.Start.Labels, wid.Start.Labels) || !reflect.DeepEqual(gen.Start.Centres, wid.Start.Centres) || !reflect.DeepEqual(gen.Start.Eigen, wid.Start.Eigen) || !reflect.DeepEqual(gen.Start.Basis, wid.Start.Basis) || !reflect.DeepEqual(gen.StartWeights, wid.StartWeights) {
		t.Fatal("netdim changed the start's releases")
	}
	if gen.Start.WideEigen != nil || len(wid.Start.WideEigen) != q || len(wid.Start.WideBasis) != h*q {
		t.Fatalf("wide eigenpairs: genes %d, netdim %d values and %d basis entries, want 0, %d, %d", len(gen.Start.WideEigen), len(wid.Start.WideEigen), len(wid.Start.WideBasis), q, h*q)
	}
	w := wid.Start.WideBasis
	for a := range q {
		if a < p && wid.Start.WideEigen[a] != wid.Start.Eigen[a] {
			t.Errorf("wide eigenvalue %d is %g, the start's %g", a, wid.Start.WideEigen[a], wid.Start.Eigen[a])
		}
		if a > 0 && wid.Start.WideEigen[a] > wid.Start.WideEigen[a-1] {
			t.Errorf("wide eigenvalues not decreasing at %d", a)
		}
		for b := range q {
			var s float64
			for g := range h {
				s += w[g*q+a] * w[g*q+b]
				if b == 0 && a < p && w[g*q+a] != wid.Start.Basis[g*p+a] {
					t.Fatalf("wide basis column %d differs from the start's at gene %d", a, g)
				}
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(s-want) > 1e-9 {
				t.Fatalf("wide basis columns %d·%d = %g, want %g", a, b, s, want)
			}
		}
	}
	if gsize != k*h+k+1 || wsize != k*q+k+1 {
		t.Errorf("gradient sizes %d (genes) and %d (netdim), want %d and %d", gsize, wsize, k*h+k+1, k*q+k+1)
	}
	if len(wid.Centres) != k*h {
		t.Fatalf("%d centre values, want K·h = %d", len(wid.Centres), k*h)
	}
	for j := range k {
		c := wid.Centres[j*h : (j+1)*h]
		coef := make([]float64, q)
		var norm float64
		for g, v := range c {
			norm += float64(v) * float64(v)
			for a := range q {
				coef[a] += float64(v) * w[g*q+a]
			}
		}
		var in float64
		for _, v := range coef {
			in += v * v
		}
		if math.Abs(norm-in) > 1e-4*(1+norm) {
			t.Errorf("centre %d: squared norm %g, %g of it in the wide span", j, norm, in)
		}
	}
	// no step: the genes network's run
	g0, _ := fitWith(t, src, true, 4, map[string]string{"steps": "0"}, seed)
	w0, _ := fitWith(t, src, true, 4, map[string]string{"steps": "0", "netdim": "30"}, seed)
	if w0.Start.WideEigen != nil || !reflect.DeepEqual(g0.Labels, w0.Labels) || !reflect.DeepEqual(g0.Centres, w0.Centres) {
		t.Error("steps=0 under netdim differs from the genes null")
	}
}

// TestNetDimLearns: without noise, on four separated populations, the
// network in the 30 leading directions finds them (ARI ≥ 0.99): a
// projection on the wrong basis, or means and rows in different
// coordinates, would not. Through the engine, a private run's ledger
// composes to the target with its 50 DP-SGD releases.
func TestNetDimLearns(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSourceTarget(d, 0, TargetHigh)
	if err != nil {
		t.Fatal(err)
	}
	out, size := fitWith(t, src, false, 0, map[string]string{"netdim": "30"}, 1)
	if k := src.K; size != k*30+k+1 {
		t.Fatalf("nonprivate: gradient size %d, want the 30-dimensional network's %d", size, k*30+k+1)
	}
	s, err := cluster.Score(out.Start.Matrix.Labels, out.Labels)
	if err != nil {
		t.Fatal(err)
	}
	if s.ARI < 0.99 {
		t.Errorf("nonprivate netdim=30: ARI %.3f on separated populations, want ≥ 0.99", s.ARI)
	}
	opts := map[string]string{"netdim": "30", "net": "0.4"}
	e, _ := runTest(t, d, fixture.SoundConfig(30, 2, opts))
	_, eps := ledgerBudget(t, e)
	if eps > 30 || eps < 30-1e-5 {
		t.Errorf("the ledger composes to ε %.9g, want 30", eps)
	}
	n := 0
	for _, ev := range e.Ledger().Events(MechSGD) {
		n += ev.Steps
	}
	if n != DefaultSteps {
		t.Errorf("%d DP-SGD releases, want %d", n, DefaultSteps)
	}
}
