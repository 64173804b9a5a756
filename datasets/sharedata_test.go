package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// Data sets of ../shared/data, with the counts of its README table. Source and
// licence of each are in its PROVENANCE.md.
var sharedSets = []struct {
	name                  string
	cells, genes, classes int
	valueType             ValueType
	big                   bool // skipped in -short mode
}{
	{name: "yan", cells: 90, genes: 20214, classes: 6, valueType: NonCounts},
	{name: "biase", cells: 56, genes: 2000, classes: 4, valueType: NonCounts},
	{name: "goolam", cells: 124, genes: 28218, classes: 5, valueType: Counts, big: true},
	{name: "pollen", cells: 299, genes: 23794, classes: 11, valueType: Counts, big: true},
	{name: "mouse_bladder", cells: 2746, genes: 2003, classes: 16, valueType: Counts},
	{name: "mouse_bladder_2100", cells: 2100, genes: 20670, classes: 16, valueType: Counts, big: true},
	{name: "pbmc_4k", cells: 4271, genes: 2000, classes: 8, valueType: Counts, big: true},
	{name: "cellbench_celseq2_3cl", cells: 274, genes: 28204, classes: 3, valueType: Counts, big: true},
	{name: "cellbench_dropseq_3cl", cells: 225, genes: 15127, classes: 3, valueType: Counts},
}

// sharedDataDir returns ../shared/data relative to the module root (the
// nearest ancestor holding go.mod), or $DPSCOPE_DATA when set. It returns ""
// when the folder is missing: the test fails in CI (CI set) and skips
// elsewhere.
func sharedDataDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("DPSCOPE_DATA")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			tb.Fatalf("os.Getwd() = %v", err)
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(d, "..", "shared", "data")
				break
			}
			if filepath.Dir(d) == d {
				tb.Fatalf("no go.mod above %s", wd)
			}
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if os.Getenv("CI") != "" {
			tb.Fatalf("shared data folder %s is missing (CI is set, so this fails): %v", dir, err)
		}
		tb.Skipf("shared data folder %s is missing; set DPSCOPE_DATA or run with the data present", dir)
	}
	return dir
}

// TestSharedData opens every data set of ../shared/data and checks the cell,
// gene and class counts of its README, the value type, and that every cell
// got a label. The five largest sets (about 30 MB of gzip) are skipped with
// -short, and under the race detector unless CI is set (they take about 10 s
// there); every set is always loaded without -race.
func TestSharedData(t *testing.T) {
	root := sharedDataDir(t)
	for _, tc := range sharedSets {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.big && testing.Short() {
				t.Skipf("%s skipped in -short mode", tc.name)
			}
			if tc.big && raceEnabled && os.Getenv("CI") == "" {
				t.Skipf("%s skipped under -race outside CI; run without -race to load it", tc.name)
			}
			dir := filepath.Join(root, tc.name)
			if _, err := os.Stat(dir); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("data set folder missing (CI is set): %v", err)
				}
				t.Skipf("data set folder missing: %v", err)
			}
			d, rep, err := OpenWithReport(dir, OpenOptions{})
			if err != nil {
				t.Fatalf("OpenWithReport(%q) = %v, want no error", dir, err)
			}
			if got := d.Cells(); got != tc.cells {
				t.Errorf("Open(%s).Cells() = %d, want %d", tc.name, got, tc.cells)
			}
			if got := d.Genes(); got != tc.genes {
				t.Errorf("Open(%s).Genes() = %d, want %d", tc.name, got, tc.genes)
			}
			if got := len(d.Classes); got != tc.classes {
				t.Errorf("Open(%s) has %d classes, want %d", tc.name, got, tc.classes)
			}
			if d.ValueType != tc.valueType {
				t.Errorf("Open(%s).ValueType = %v, want %v", tc.name, d.ValueType, tc.valueType)
			}
			if d.Name != tc.name {
				t.Errorf("Open(%s).Name = %q, want %q", tc.name, d.Name, tc.name)
			}
			if rep == nil {
				t.Fatalf("Open(%s) joined no labels, want labels.tsv joined", tc.name)
			}
			if rep.Missing != 0 || rep.Unknown != 0 || rep.Labelled != tc.cells {
				t.Errorf("Open(%s) labels report = %v, want all %d cells labelled", tc.name, rep, tc.cells)
			}
			for i, l := range d.Labels {
				if l < 0 {
					t.Fatalf("Open(%s): cell %d (%s) has no label", tc.name, i, d.Barcodes[i])
				}
			}
		})
	}
}
