package datasets

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestPeekH5 checks the peek of each HDF5 fixture: the shape from the
// datasets' extents and attributes (what a load then reads), the obs
// columns that can be labels (categorical and strings, not numbers:
// n_counts is left out; anndata writes the string column donor as
// categorical) and
// raw/X's presence.
func TestPeekH5(t *testing.T) {
	requireHDF5(t)
	cases := []struct {
		file         string
		format       string
		cells, genes int
		sparse       bool
		cols         []ObsColumn
		raw          bool
	}{
		{"pbmc_csr.h5ad", "AnnData .h5ad (HDF5)", 72, 1000, true, []ObsColumn{{"cell_type", 8}, {"donor", 2}}, true},
		{"pbmc_dense.h5ad", "AnnData .h5ad (HDF5)", 72, 2000, false, []ObsColumn{{"cell_type", 8}}, false},
		{"cellbench_csc.h5ad", "AnnData .h5ad (HDF5)", 113, 800, true, []ObsColumn{{"cell_line", 3}}, false},
		{"pbmc_10x.h5", "Cell Ranger .h5 (HDF5)", 171, 2002, true, nil, false},
	}
	for _, c := range cases {
		p, err := PeekData(filepath.Join(h5Fixtures, c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if p.Format != c.format || p.Cells != c.cells || p.Genes != c.genes || (p.NonZero > 0) != c.sparse || p.HasRaw != c.raw || !slices.Equal(p.ObsColumns, c.cols) {
			t.Errorf("%s: peek %s %d×%d nnz %d raw %v columns %v; want %s %d×%d sparse %v raw %v columns %v",
				c.file, p.Format, p.Cells, p.Genes, p.NonZero, p.HasRaw, p.ObsColumns, c.format, c.cells, c.genes, c.sparse, c.raw, c.cols)
		}
	}
	// The peek's shape is the loaded shape (the 10x file's two antibody
	// features are dropped only at load).
	d, err := Open(filepath.Join(h5Fixtures, "pbmc_csr.h5ad"), OpenOptions{})
	if err != nil || d.Cells() != 72 || d.Genes() != 1000 {
		t.Fatalf("load: %v", err)
	}
}

// TestPeekObsClasses counts a categorical column's classes, leaves out the
// cell without a value, and refuses a column that is not there.
func TestPeekObsClasses(t *testing.T) {
	requireHDF5(t)
	cs, err := PeekObsClasses(filepath.Join(h5Fixtures, "cellbench_csc.h5ad"), "cell_line")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cs {
		n += c.Cells
		if c.Name == "" {
			t.Errorf("classes %v hold the missing value", cs)
		}
	}
	if len(cs) != 3 || n != 112 {
		t.Errorf("classes %v (%d cells), want 3 classes of 112 cells (113, one missing)", cs, n)
	}
	d, _, err := OpenWithReport(filepath.Join(h5Fixtures, "pbmc_csr.h5ad"), OpenOptions{LabelsColumn: "donor"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err = PeekObsClasses(filepath.Join(h5Fixtures, "pbmc_csr.h5ad"), "donor")
	if err != nil || len(cs) != len(d.Classes) || cs[0].Cells+cs[1].Cells != 72 {
		t.Errorf("donor classes %v (%v), want %d classes of 72 cells", cs, err, len(d.Classes))
	}
	for _, bad := range []string{"nope", "../X", ""} {
		if _, err := PeekObsClasses(filepath.Join(h5Fixtures, "pbmc_csr.h5ad"), bad); err == nil {
			t.Errorf("column %q: no error", bad)
		}
	}
}
