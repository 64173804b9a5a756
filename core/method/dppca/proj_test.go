package dppca

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParseProj: proj=random:P sets P and shows in String; pca is the
// default and keeps the default's String; a bad P, another form, or
// select=leverage (whose covariance takes a share of the PCA's) is
// refused naming the option.
func TestParseProj(t *testing.T) {
	o := mustParse(t, map[string]string{"proj": "random:3"})
	if o.ProjRandom != 3 || !strings.Contains(o.String(), " proj=random:3") || o.pcaShare() != 0 {
		t.Errorf("proj=random:3: P %d, share %g, String %q", o.ProjRandom, o.pcaShare(), o.String())
	}
	d := mustParse(t, nil)
	if s := mustParse(t, map[string]string{"proj": "pca"}).String(); s != d.String() || strings.Contains(s, "proj") {
		t.Errorf("proj=pca's String %q, want the default's %q", s, d.String())
	}
	if math.Abs(o.kmShare()-d.kmShare()-d.Split) > 1e-12 {
		t.Errorf("k-means share %g with proj=random, want the default's %g + split %g", o.kmShare(), d.kmShare(), d.Split)
	}
	for _, bad := range []map[string]string{{"proj": "random:0"}, {"proj": "random:31"}, {"proj": "random"}, {"proj": "gauss:2"}, {"proj": "random:2", "select": "leverage"}} {
		if _, err := Parse(bad); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "option proj") {
			t.Errorf("%v: %v, want ErrOptions naming option proj", bad, err)
		}
	}
}

// TestRandomBasis: orthonormal columns, and the same generator state
// gives the same basis (it reads nothing else).
func TestRandomBasis(t *testing.T) {
	const h, p = 50, 3
	b := randomBasis(h, p, rand.New(rand.NewPCG(1, 2)))
	for j := range p {
		for k := range p {
			var d float64
			for i := range h {
				d += b[i*p+j] * b[i*p+k]
			}
			want := 0.0
			if j == k {
				want = 1
			}
			if math.Abs(d-want) > 1e-12 {
				t.Errorf("column %d · column %d = %g, want %g", j, k, d, want)
			}
		}
	}
	c := randomBasis(h, p, rand.New(rand.NewPCG(1, 2)))
	for i := range b {
		if b[i] != c[i] {
			t.Fatalf("entry %d differs between two draws of one seed", i)
		}
	}
}

// TestProjRelease: with proj=random:2 the ledger has no covariance
// release, the plan's mechanisms compose to the target μ and the ledger
// to the target ε (the PCA's share went to the k-means: its sums' noise,
// in units of their Δ, is below the default's), every projected row is
// within the plan's radius Rp = 1.5·R·√(2/h), and the labels are valid.
func TestProjRelease(t *testing.T) {
	d := fixture.Separated(4, 40, 300, 5)
	const eps = 2.0
	e, evs := runTest(t, d, fixture.SoundConfig(eps, 3, map[string]string{"proj": "random:2"}), nil)
	out := e.Outcomes()[0]
	pl := out.Plan
	for _, c := range e.Ledger().Components() {
		if strings.Contains(c, MechPCA) {
			t.Errorf("ledger has %q under proj=random", c)
		}
	}
	if mu := ComposedMu(pl.Mechanisms()); math.Abs(mu-pl.Mu) > 1e-9 {
		t.Errorf("plan composes to μ %g, want the target's %g", mu, pl.Mu)
	}
	b, _ := fixture.LastOf[core.BudgetEvent](evs)
	if got := b.Spent[0].Epsilon; math.Abs(got-eps) > 1e-6 {
		t.Errorf("ledger's ε %g, want the target %g", got, eps)
	}
	h := out.Matrix.H
	rp := projClip * DefaultClip * math.Sqrt(float64(h)) * math.Sqrt(2/float64(h))
	if len(out.Eigen) != 2 || math.Abs(pl.R-rp) > 1e-9 || pl.PCA != 0 {
		t.Fatalf("p %d, R %g, σ_PCA %g; want 2, Rp = %g, 0", len(out.Eigen), pl.R, pl.PCA, rp)
	}
	for i := range out.Matrix.N {
		if n := math.Hypot(out.Proj[2*i], out.Proj[2*i+1]); n > rp*(1+1e-12) {
			t.Fatalf("row %d projected norm %g > Rp %g", i, n, rp)
		}
	}
	ed, _ := runTest(t, d, fixture.SoundConfig(eps, 3, nil), nil)
	pd := ed.Outcomes()[0].Plan.WithP(2)
	if pl.Sums/pl.R >= pd.Sums/pd.R {
		t.Errorf("sums noise per Δ %g, want below the default's %g at p = 2", pl.Sums/pl.R, pd.Sums/pd.R)
	}
	for _, l := range out.Labels {
		if l < 0 || l >= out.K {
			t.Fatalf("label %d outside [0, %d)", l, out.K)
		}
	}
}

// TestProjAuto: proj=auto:3 parses and shows; on 300 cells of K = 11 with
// h = 50 (pollen's shape) the rule fires at ε 1 and not at ε 4: where it
// fires the ledger has no covariance, the plan composes to the target μ
// and the ledger to the target ε, and the k-means sums' noise per Δ is
// below the default's at p = 3 (the PCA's share went to them); where it
// does not, the release is the default's (same ledger, same labels).
func TestProjAuto(t *testing.T) {
	o := mustParse(t, map[string]string{"proj": "auto:3"})
	if o.ProjRandom != 3 || !o.ProjAuto || !strings.Contains(o.String(), " proj=auto:3") || o.pcaShare() != o.Split {
		t.Fatalf("proj=auto:3: %+v, String %q", o, o.String())
	}
	if _, err := Parse(map[string]string{"proj": "auto:0"}); !errors.Is(err, ErrOptions) {
		t.Errorf("proj=auto:0: %v, want ErrOptions", err)
	}
	// the rule's boundary: edge ≥ ñ·R²/k
	pl := Plan{Mu: 1, PCA: 1, H: 50, R: 1}
	e := pl.Edge()
	if !projAutoRule(pl, e*11, 11) || projAutoRule(pl, e*11*(1+1e-9), 11) {
		t.Errorf("rule at ñ·R²/K = edge: want fire, just above: want not")
	}
	if projAutoRule(Plan{PCA: 1, H: 50, R: 1}, 1, 11) {
		t.Errorf("nonprivate plan: rule fired")
	}
	d := fixture.Separated(11, 27, 400, 7) // 297 cells
	for _, c := range []struct {
		eps  float64
		fire bool
	}{{1, true}, {4, false}} {
		ea, evs := runTest(t, d, fixture.SoundConfig(c.eps, 3, map[string]string{"proj": "auto:3", "genes": "50"}), nil)
		ed, _ := runTest(t, d, fixture.SoundConfig(c.eps, 3, map[string]string{"genes": "50"}), nil)
		out, def := ea.Outcomes()[0], ed.Outcomes()[0]
		if out.ProjFired != c.fire {
			t.Fatalf("ε %g: fired %v, want %v (edge %g, ñ·R²/K %g; %+v)", c.eps, out.ProjFired, c.fire, def.Plan.Edge(), def.Matrix.NoisyN*def.Plan.R*def.Plan.R/11, ea.Options())
		}
		checkSpentIsPlanned(t, c.eps, evs, out.Plan)
		comps := strings.Join(ea.Ledger().Components(), "\n")
		if strings.Contains(comps, MechPCA) == c.fire {
			t.Errorf("ε %g (fired %v): ledger %q", c.eps, c.fire, comps)
		}
		if c.fire {
			pd := def.Plan.WithP(3)
			if len(out.Eigen) != 3 || out.Plan.Sums/out.Plan.R >= pd.Sums/pd.R {
				t.Errorf("ε 1: p %d, sums noise per Δ %g; want 3 and below the default's %g", len(out.Eigen), out.Plan.Sums/out.Plan.R, pd.Sums/pd.R)
			}
			continue
		}
		for i := range out.Labels {
			if out.Labels[i] != def.Labels[i] {
				t.Fatalf("ε %g: not fired, label %d differs from the default's", c.eps, i)
			}
		}
	}
}
