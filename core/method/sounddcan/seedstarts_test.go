package sounddcan

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestSeedStartsOptions: seedstarts=N sets SeedStarts and nothing else;
// 10 (dppca's seeding's own starts) is the default; the stage's dppca
// options differ from the default's in SeedStarts alone, under every
// start; bad values are refused.
func TestSeedStartsOptions(t *testing.T) {
	checkStartsOption(t, "seedstarts", "10", func(o *Options) *int { return &o.SeedStarts }, "9", "0", "x", "100001", "-5", "1e3")
	for _, start := range []string{"stage", "alone", "dppca", "merge"} {
		so, err := mustParse(t, map[string]string{"start": start, "seedstarts": "1000"}).dppcaOptions()
		if err != nil {
			t.Fatal(err)
		}
		sd, err := mustParse(t, map[string]string{"start": start}).dppcaOptions()
		if err != nil {
			t.Fatal(err)
		}
		if so.SeedStarts != 1000 || sd.SeedStarts != 0 {
			t.Errorf("start=%s: the stage's SeedStarts %d and %d, want 1000 and 0", start, so.SeedStarts, sd.SeedStarts)
		}
		so.SeedStarts = 0
		if !reflect.DeepEqual(so, sd) {
			t.Errorf("start=%s: seedstarts moves more of the stage's options:\n%+v\nwant\n%+v", start, so, sd)
		}
	}
}

// TestSeedStartsRun: a run with seedstarts=1000 has the default's plan
// (every σ) and records the default's ledger event for event, composing
// to at most the target within 1 %, on four separated populations at
// ε 4 and 8.
func TestSeedStartsRun(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{4, 8} {
		cand := map[string]string{"seedstarts": "1000"}
		pa, err := NewPlan(src, true, eps, 1e-5, mustParse(t, cand), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		pd, err := NewPlan(src, true, eps, 1e-5, mustParse(t, nil), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pa, pd) {
			t.Errorf("ε %g: seedstarts=1000's plan\n%+v\nwant the default's\n%+v", eps, pa, pd)
		}
		ea, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, cand))
		ed, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, nil))
		if !reflect.DeepEqual(ea.Ledger().All(), ed.Ledger().All()) || !slices.Equal(ea.Ledger().Components(), ed.Ledger().Components()) {
			t.Errorf("ε %g: seedstarts=1000's ledger %v\nwant the default's %v", eps, ea.Ledger().Components(), ed.Ledger().Components())
		}
		if _, got := ledgerBudget(t, ea); got > eps || got < 0.99*eps {
			t.Errorf("ε %g: the ledger composes to ε %.9g, want at most the target and within 1 %%", eps, got)
		}
	}
}
