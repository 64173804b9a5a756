package sounddcan

import (
	"reflect"
	"testing"
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
	checkSameReleases(t, map[string]string{"seedstarts": "1000"}, nil)
}
