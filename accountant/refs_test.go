package accountant

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// refsDir returns ../shared/refs/accountant relative to the module root (the
// nearest parent directory holding go.mod). The reference values were made by
// running Opacus, TensorFlow Privacy, dp_accounting, the Balle–Wang script,
// Steinke's cdp2adp and mpmath; see that folder's README.md.
func refsDir(t *testing.T) string {
	t.Helper()
	return fixture.Shared(t, "refs", "accountant")
}

// refRow is one CSV row keyed by column name.
type refRow map[string]string

// f parses column col as float64, failing the test if it is absent or bad.
func (r refRow) f(t *testing.T, col string) float64 {
	t.Helper()
	s, ok := r[col]
	if !ok {
		t.Fatalf("reference column %q missing", col)
	}
	s = strings.TrimSpace(s)
	switch s {
	case "inf":
		s = "+Inf"
	case "-inf":
		s = "-Inf"
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("reference column %q = %q: %v", col, s, err)
	}
	return v
}

// i parses column col as int.
func (r refRow) i(t *testing.T, col string) int {
	t.Helper()
	v := r.f(t, col)
	return int(v)
}

// readRefs reads a reference CSV, failing if it is missing from a present
// reference folder (refsDir skips or fails when the folder is absent).
func readRefs(t *testing.T, name string) []refRow {
	t.Helper()
	path := filepath.Join(refsDir(t), name)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("reference file %s: %v", path, err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if len(recs) < 2 {
		t.Fatalf("reference file %s has no rows", path)
	}
	rows := make([]refRow, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		row := refRow{}
		for j, h := range recs[0] {
			if j < len(rec) {
				row[h] = rec[j]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// relErr returns |got − want| / |want| (|got − want| when want is 0).
func relErr(got, want float64) float64 {
	d := got - want
	if d < 0 {
		d = -d
	}
	if want == 0 {
		return d
	}
	if want < 0 {
		want = -want
	}
	return d / want
}
