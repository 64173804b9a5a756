package datasets

import (
	"path/filepath"
	"testing"
)

// TestPreprocessMatchesBaselines runs the default preprocessing on the shared
// data sets and checks the number of genes it keeps against the "genes used"
// column of ../shared/data/BASELINES.md, which scanpy produced with the same
// settings (filter_genes min_cells=3, filter_cells min_genes=200 only where it
// removes < 5 % of cells, 2,000 seurat HVGs): the count pins the gene filter,
// the cell-filter rule and the HVG cut-off together.
func TestPreprocessMatchesBaselines(t *testing.T) {
	tests := []struct {
		name    string
		cells   int // cells kept
		genes   int // BASELINES.md "genes used"
		skipped []string
		big     bool
	}{
		{name: "biase", cells: 56, genes: 1999, skipped: []string{"size factors", "normalise total", "log1p"}},
		{name: "yan", cells: 90, genes: 2000, skipped: []string{"size factors", "normalise total"}},
		{name: "mouse_bladder", cells: 2746, genes: 1924, skipped: []string{"filter cells"}},
		{name: "cellbench_dropseq_3cl", cells: 225, genes: 2000},
		{name: "pbmc_4k", cells: 4271, genes: 1989, skipped: []string{"filter cells"}, big: true},
		{name: "mouse_bladder_2100", cells: 2100, genes: 2000, big: true},
	}
	dir := sharedDataDir(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.big && testing.Short() {
				t.Skip("large data set skipped in -short mode")
			}
			d, err := Open(filepath.Join(dir, tc.name), OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Preprocess(d, DefaultPreprocessConfig())
			if err != nil {
				t.Fatal(err)
			}
			if p.Cells != tc.cells || p.Genes != tc.genes {
				t.Errorf("Preprocess(%s) = %d cells × %d genes, want %d × %d", tc.name, p.Cells, p.Genes, tc.cells, tc.genes)
			}
			skipped := map[string]bool{}
			for _, s := range p.Steps {
				if s.Skipped && s.Name != "gene selection" {
					skipped[s.Name] = true
				}
			}
			for _, name := range tc.skipped {
				if !skipped[name] {
					t.Errorf("Preprocess(%s): step %q ran, want it skipped with a reason", tc.name, name)
				}
				delete(skipped, name)
			}
			for name := range skipped {
				t.Errorf("Preprocess(%s): step %q skipped, want it run", tc.name, name)
			}
			if len(p.Labels) != p.Cells {
				t.Errorf("Preprocess(%s): %d labels for %d cells", tc.name, len(p.Labels), p.Cells)
			}
		})
	}
}
