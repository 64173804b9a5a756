package sounddcan

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestTarget: option target reaches the start whatever total the Source
// was built with (Fit normalises to o.Target), changes the start's rows,
// and the guarantee names the total.
func TestTarget(t *testing.T) {
	d := fixture.Separated(3, 100, 300, 1)
	fit := func(srcTarget float64, vals map[string]string) *Outcome {
		t.Helper()
		src, err := dppca.NewSourceTarget(d, 0, srcTarget)
		if err != nil {
			t.Fatal(err)
		}
		o := mustParse(t, vals)
		rng := rand.New(rand.NewPCG(3, 0))
		pl, err := NewPlan(src, true, 8, 1e-5, o, rng)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Fit(context.Background(), src, pl, o, rng, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := fit(dppca.PublicTarget, map[string]string{"target": "1000"})
	b := fit(1000, map[string]string{"target": "1000"})
	if !slices.Equal(a.Codes, b.Codes) || !slices.Equal(a.Labels, b.Labels) {
		t.Error("target=1000 gives other codes or labels on a Source built with 10⁴ than on one built with 10³: the option does not reach the start")
	}
	c := fit(dppca.PublicTarget, nil)
	if slices.Equal(a.Start.Matrix.Z, c.Start.Matrix.Z) {
		t.Error("target=1000 and the default 10⁴ give the same scaled rows: the total is not applied")
	}
	_, evs := runTest(t, d, soundConfig(8, 1, map[string]string{"target": "1000"}))
	g, ok := lastOf[core.GuaranteeEvent](evs)
	if !ok || !slices.ContainsFunc(g.Reasons, func(r string) bool { return strings.Contains(r, "public total 1000 ") }) {
		t.Errorf("guarantee %v does not name the public total 1000", g.Reasons)
	}
}
