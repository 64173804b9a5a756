package sounddcan

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestOffsetOption: offset=dir reaches the stage as dppca's Offset and
// changes nothing else of its options; offset=off is the default; other
// values are refused.
func TestOffsetOption(t *testing.T) {
	def := mustParse(t, nil)
	ddo, err := def.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"offset": "dir"})
	if o.Offset != dppca.OffsetDir || o.String() == def.String() {
		t.Errorf("offset=dir resolves to %s", o)
	}
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	if do.Offset != dppca.OffsetDir || ddo.Offset == dppca.OffsetDir {
		t.Errorf("offset: the stage's %q (default %q), want dir (not dir)", do.Offset, ddo.Offset)
	}
	do.Offset = ddo.Offset
	if !reflect.DeepEqual(do, ddo) {
		t.Errorf("offset=dir: the stage's options\n%+v\nwant the default's\n%+v", do, ddo)
	}
	if off := mustParse(t, map[string]string{"offset": "off"}); !reflect.DeepEqual(off, def) {
		t.Errorf("offset=off resolves to %s, want the default %s", off, def)
	}
	if _, err := Parse(map[string]string{"offset": "x"}); err == nil {
		t.Error("offset=x: no error")
	}
	if _, err := Parse(map[string]string{"offset": "dir", "prep": "public"}); err == nil {
		t.Error("offset=dir prep=public: no error (dppca refuses it)")
	}
}

// TestOffset: under offset=dir alone and in the combination with dppca's
// rows (genes=whole:18 target=1000 offset=dir), where the stage's
// prediction fires (a small ε) and where it does not, the engine's ledger
// composes to at most the target and within 1 %, and it holds the
// offset's release exactly when the stage's preprocessing made it (the
// mechanisms recorded are the stage's as they ran); where it fired and
// the direction was long, it was projected out of the rows.
func TestOffset(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	fired := false
	for _, opts := range []map[string]string{{"offset": "dir"}, {"offset": "dir", "genes": "whole:18", "target": "1000"}} {
		for _, eps := range []float64{0.5, 8} {
			e, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, opts))
			_, got := ledgerBudget(t, e)
			if got > eps || got < 0.99*eps {
				t.Errorf("%v ε %g: the ledger composes to ε %.9g, want at most the target and within 1 %%", opts, eps, got)
			}
			out := e.Outcome()
			if out == nil {
				t.Fatalf("%v ε %g: no outcome", opts, eps)
			}
			st := out.Start
			has := slices.Contains(e.Ledger().Components(), dppca.MechOffset)
			if made := st.Plan.Offset > 0; has != made {
				t.Errorf("%v ε %g: the ledger holds the offset's release %v, the stage made it %v", opts, eps, has, made)
			}
			if st.Plan.Offset > 0 {
				fired = true
				if st.Matrix.OffsetRemoved != (st.Matrix.OffsetLen >= 0.5) {
					t.Errorf("%v ε %g: offset length %.3f, removed %v", opts, eps, st.Matrix.OffsetLen, st.Matrix.OffsetRemoved)
				}
			}
			t.Logf("%v ε %g: ledger ε %.6g, offset predicted %.3g·R, released %v, length %.3f, removed %v, h %d", opts, eps, got, st.Matrix.OffsetPred, st.Plan.Offset > 0, st.Matrix.OffsetLen, st.Matrix.OffsetRemoved, st.Matrix.H)
		}
	}
	if !fired {
		t.Error("the offset's prediction fired in no case: the test reads nothing of its release")
	}
}

// TestGenesAlone: genes=alone:18 reads dppca's own rule at the whole
// run's μ without grow's floor of 200 (h = ñ·μ/18 within [50, 1000]); it
// prints as given and is whole:18 where that rule gives at least 200.
func TestGenesAlone(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "alone:18"})
	w := mustParse(t, map[string]string{"genes": "whole:18"})
	if !o.GenesWhole || o.GenesFloor != 0 || o.GenesScale != 18 || w.GenesFloor != dppca.DefaultGenes {
		t.Fatalf("alone:18 resolves to %+v", o)
	}
	if !strings.Contains(o.String(), "genes=alone:18") {
		t.Errorf("alone:18 prints as %s", o)
	}
	for _, c := range []struct {
		n, mu float64
		want  int
	}{{2000, 0.9, 100}, {300, 0.9, 50}, {2700, 1.7, 255}, {1e5, 1, 1000}} {
		if got := o.scaledGenes(c.n, c.mu); got != c.want {
			t.Errorf("alone:18 at ñ %g, μ %g: h %d, want %d", c.n, c.mu, got, c.want)
		}
		if got, want := w.scaledGenes(c.n, c.mu), max(c.want, dppca.DefaultGenes); got != want {
			t.Errorf("whole:18 at ñ %g, μ %g: h %d, want %d", c.n, c.mu, got, want)
		}
	}
}

// TestGenesAloneStart: under genes=alonestart:18 the staged split reads ρ
// at the default's h (grow:19 at the stage's μ), so its ρ and its
// decision are the default's draw for draw, while the start's h is
// dppca's rule at the whole μ (alone:18's, no floor); alone:18 reads ρ at
// its own h.
func TestGenesAloneStart(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"genes": "alonestart:18"})
	if !o.GenesRulesAtDefault || o.GenesFloor != 0 || !strings.Contains(o.String(), "genes=alonestart:18") {
		t.Fatalf("alonestart:18 resolves to %s", o)
	}
	a := mustParse(t, map[string]string{"genes": "alone:18"})
	def := mustParse(t, nil)
	for _, eps := range []float64{1, 4} {
		plan := func(o Options) Plan {
			pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			return pl
		}
		pd, po, pa := plan(def), plan(o), plan(a)
		if po.Rho != pd.Rho || po.NetOff != pd.NetOff {
			t.Errorf("ε %g: alonestart's ρ %v (network off %v), the default's %v (%v)", eps, po.Rho, po.NetOff, pd.Rho, pd.NetOff)
		}
		if po.DPPCA.H != pa.DPPCA.H || po.DPPCA.H >= pd.DPPCA.H {
			t.Errorf("ε %g: alonestart's h %d, alone's %d, the default's %d; want alone's, below the default's floor", eps, po.DPPCA.H, pa.DPPCA.H, pd.DPPCA.H)
		}
		if pa.Rho == pd.Rho {
			t.Errorf("ε %g: alone's ρ is the default's (%v): the test cannot tell them apart", eps, pa.Rho)
		}
		t.Logf("ε %g: h default %d, alone %d, alonestart %d; ρ %.4f, %.4f, %.4f", eps, pd.DPPCA.H, pa.DPPCA.H, po.DPPCA.H, pd.Rho, pa.Rho, po.Rho)
	}
}
