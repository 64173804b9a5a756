package dppca

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParseCentre: centre=auto is the default under prep=private (rule
// G21) and keeps the default's String; off shows; prep=public and
// library callers' zero Options are off; a bad value is refused naming
// the option.
func TestParseCentre(t *testing.T) {
	def := mustParse(t, nil)
	o := mustParse(t, map[string]string{"centre": "auto"})
	if def.Centre != CentreAuto || o.Centre != CentreAuto || o.String() != def.String() || strings.Contains(def.String(), "centre") {
		t.Fatalf("default %v, centre=auto %v, String %q against the default's %q", def.Centre, o.Centre, o.String(), def.String())
	}
	if off := mustParse(t, map[string]string{"centre": "off"}); off.Centre != CentreOff || !strings.Contains(off.String(), " centre=off") {
		t.Errorf("centre=off: %v, String %q", off.Centre, off.String())
	}
	if pub := mustParse(t, map[string]string{"prep": "public"}); pub.Centre == CentreAuto {
		t.Errorf("prep=public: centre %q, want off", pub.Centre)
	}
	if lib, err := (Options{P: 4}).Resolve(); err != nil || lib.Centre == CentreAuto {
		t.Errorf("library Options: centre %q (%v), want off", lib.Centre, err)
	}
	if _, err := Parse(map[string]string{"centre": "on"}); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "centre") {
		t.Errorf("centre=on: %v, want ErrOptions naming centre", err)
	}
}

// TestCentreRelease: on 297 cells of K = 11 at h = 50, centre=auto fires
// at ε 1 (projAutoRule) and not at ε 4. Fired: the ledger holds the
// covariance and the centre's sum once each, the plan composes to the
// target μ and the ledger to the target ε, the covariance keeps its
// radius R in the ledger while the rounds run at Rc = 1.5·R·√(p/h) < R
// with a smaller share (sums noise per Δ above the default's at the same
// p is allowed: the share fell by 0.05 of μ² over T rounds), every
// projected row lies within Rc and the rows' mean is near 0. Not fired:
// the labels and the ledger are the default's.
func TestCentreRelease(t *testing.T) {
	d := fixture.Separated(11, 27, 400, 7) // 297 cells
	for _, c := range []struct {
		eps  float64
		fire bool
	}{{1, true}, {4, false}} {
		ec, evs := runTest(t, d, fixture.SoundConfig(c.eps, 3, map[string]string{"centre": "auto", "genes": "50"}), nil)
		ed, _ := runTest(t, d, fixture.SoundConfig(c.eps, 3, map[string]string{"centre": "off", "genes": "50"}), nil)
		out, def := ec.Outcomes()[0], ed.Outcomes()[0]
		if out.CentreFired != c.fire {
			t.Fatalf("ε %g: fired %v, want %v (edge %g, ñ·R²/K %g)", c.eps, out.CentreFired, c.fire, def.Plan.Edge(), def.Matrix.NoisyN*def.Plan.R*def.Plan.R/11)
		}
		checkSpentIsPlanned(t, c.eps, evs, out.Plan)
		comps := strings.Join(ec.Ledger().Components(), "\n")
		if strings.Contains(comps, MechCentre) != c.fire || !strings.Contains(comps, MechPCA) {
			t.Errorf("ε %g (fired %v): ledger %q", c.eps, c.fire, comps)
		}
		if !c.fire {
			for i := range out.Labels {
				if out.Labels[i] != def.Labels[i] {
					t.Fatalf("ε %g: not fired, label %d differs from the default's", c.eps, i)
				}
			}
			if comps != strings.Join(ed.Ledger().Components(), "\n") {
				t.Errorf("ε %g: not fired, ledger differs from the default's", c.eps)
			}
			continue
		}
		pl, p, m := out.Plan, len(out.Eigen), out.Matrix
		R := def.Plan.R
		rc := projClip * R * math.Sqrt(float64(p)/float64(m.H))
		if pl.PCAR != R || math.Abs(pl.R-rc) > 1e-12 || rc >= R {
			t.Errorf("radii: covariance %g (want %g), rounds %g (want %g < R)", pl.PCAR, R, pl.R, rc)
		}
		for _, mc := range pl.Mechanisms() {
			switch mc.Name {
			case MechPCA:
				if mc.Sens != R*R {
					t.Errorf("covariance Δ %g, want R² = %g", mc.Sens, R*R)
				}
			case MechCentre:
				if mc.Sens != R || math.Abs(mc.Sigma-R/(pl.Mu*math.Sqrt(ShareCentre))) > 1e-9 {
					t.Errorf("centre Δ %g σ %g, want R = %g and R/(μ√%g)", mc.Sens, mc.Sigma, R, ShareCentre)
				}
			case MechSums:
				if mc.Sens != pl.R {
					t.Errorf("sums Δ %g, want Rc = %g", mc.Sens, pl.R)
				}
			}
		}
		mean := make([]float64, p)
		for i := range m.N {
			row := out.Proj[i*p : (i+1)*p]
			nrm := 0.0
			for j, v := range row {
				nrm += v * v
				mean[j] += v / float64(m.N)
			}
			if math.Sqrt(nrm) > pl.R*(1+1e-12) {
				t.Fatalf("row %d norm %g above Rc %g", i, math.Sqrt(nrm), pl.R)
			}
		}
		for j, v := range mean {
			// the released mean is off by σ/ñ per coordinate; 6 of those
			if math.Abs(v) > 6*pl.Centre/m.NoisyN {
				t.Errorf("coordinate %d: mean %g after recentring, noise scale %g", j, v, pl.Centre/m.NoisyN)
			}
		}
	}
}

// checkSpentIsPlanned checks that a run at target ε reports that ε spent in
// its last budget event and that its plan's mechanisms compose to the
// plan's μ: what an option that adds or drops a release must keep.
func checkSpentIsPlanned(t *testing.T, eps float64, evs []core.Event, plan Plan) {
	t.Helper()
	b, _ := fixture.LastOf[core.BudgetEvent](evs)
	if got := b.Spent[0].Epsilon; math.Abs(got-eps) > 1e-6 {
		t.Errorf("ε %g: ledger's ε %g, want the target", eps, got)
	}
	if mu := ComposedMu(plan.Mechanisms()); math.Abs(mu-plan.Mu) > 1e-9 {
		t.Errorf("ε %g: plan composes to μ %g, want %g", eps, mu, plan.Mu)
	}
}
