package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// testManifest is a manifest of a grid with every axis, preprocessing and
// a shard, as a sweep writes it.
func testManifest(t testing.TB) []byte {
	base := defaultRunConfig()
	base.Options = map[string]string{"p": "5"}
	g := sweep.Grid{Base: base, Methods: []string{"test-graded"}, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate},
		Epsilons: []float64{0.5, 8}, Seeds: []uint64{0, 9223372036854775807}, Options: map[string][]string{"k": {"3", "4"}}}
	b, err := marshalManifest(newSweepManifest(g, &sweep.Shard{Index: 2, Count: 3}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestManifestRoundTrip: what a sweep writes reads back to the same grid
// (its hash still matches), and each damage is refused with its reason.
func TestManifestRoundTrip(t *testing.T) {
	b := testManifest(t)
	m, err := parseSweepManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Grid.Hash() != m.Hash || m.Shard == nil || *m.Shard != (sweep.Shard{Index: 2, Count: 3}) || m.Grid.Base.Options["p"] != "5" {
		t.Errorf("read back %+v", m)
	}
	s := string(b)
	for name, tc := range map[string]struct{ in, want string }{
		"newer schema":  {strings.Replace(s, `"schema": 1`, `"schema": 2`, 1), "newer than this dpscope reads"},
		"no schema":     {strings.Replace(s, `"schema": 1`, `"schema": 0`, 1), "schema is 0"},
		"unknown field": {strings.Replace(s, `"schema": 1`, `"schema": 1, "colour": 3`, 1), "colour"},
		"edited grid":   {strings.Replace(s, `"epsilons": [`, `"epsilons": [4, `, 1), "edited or damaged"},
		"bad shard":     {strings.Replace(s, `"index": 2`, `"index": 4`, 1), "shard 4/3"},
		"no version":    {regexp.MustCompile(`"version": "[^"]*"`).ReplaceAllString(s, `"version": ""`), "no dpscope version"},
		"trailing data": {s + "{}", "after top-level value"},
		"not JSON":      {"summary", "not a sweep manifest"},
	} {
		if _, err := parseSweepManifest([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}

// FuzzParseSweepManifest: never panics; an accepted manifest's grid hashes
// to its recorded hash, its schema and shard are valid, it writes back to a
// manifest that reads the same, and expanding its grid does not panic.
func FuzzParseSweepManifest(f *testing.F) {
	f.Add(testManifest(f))
	f.Add([]byte(`{"schema":1,"version":"v","grid_hash":"","grid":{}}`))
	f.Add([]byte(`{"schema":1,"version":"v","grid_hash":"x","grid":{"methods":["a"],"seeds":[1]},"shard":{"index":1,"count":1}}`))
	f.Add([]byte(`{"schema":9}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseSweepManifest(b)
		if err != nil {
			return
		}
		if m.Schema < 1 || m.Schema > sweepSchema || m.Version == "" || m.Grid.Hash() != m.Hash {
			t.Fatalf("accepted %+v", m)
		}
		if m.Shard != nil && m.Shard.Validate() != nil {
			t.Fatalf("accepted shard %v", m.Shard)
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("accepted manifest does not write back: %v", err)
		}
		again, err := parseSweepManifest(out)
		if err != nil || again.Hash != m.Hash {
			t.Fatalf("written back, it reads as %v, %v", again.Hash, err)
		}
		_, _ = m.Grid.Points()
	})
}
