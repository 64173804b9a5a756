package cluster

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// refsDir returns ../shared/refs/metrics relative to the repository root
// (the nearest ancestor holding go.mod). When the folder is missing it fails
// the test in CI (CI set) and skips it elsewhere.
func refsDir(t testing.TB) string {
	t.Helper()
	return fixture.Shared(t, "refs", "metrics")
}

// readRefCSV reads a reference CSV into maps from column name to value.
func readRefCSV(t testing.TB, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(refsDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s: %d records, want a header and at least one case", name, len(recs))
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := make(map[string]string, len(r))
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func parseInts(t testing.TB, s string) []int {
	t.Helper()
	var out []int
	for f := range strings.FieldsSeq(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func parseFloats(t testing.TB, s string) []float64 {
	t.Helper()
	var out []float64
	for f := range strings.FieldsSeq(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func parseFloat(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
