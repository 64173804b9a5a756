package datasets

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// envRequireHDF5, set to 1 (as CI does), turns the skip of the HDF5 tests
// on a machine without libhdf5 into a failure.
const envRequireHDF5 = "DPSCOPE_REQUIRE_HDF5"

// requireHDF5 skips the test when libhdf5 cannot be loaded, or fails it
// when DPSCOPE_REQUIRE_HDF5=1.
func requireHDF5(tb testing.TB) {
	tb.Helper()
	if _, _, err := hdf5.Load(); err != nil {
		if os.Getenv(envRequireHDF5) == "1" {
			tb.Fatalf("libhdf5 required (%s=1) but not loaded: %v", envRequireHDF5, err)
		}
		tb.Skipf("libhdf5 not loaded, HDF5 tests skipped (apt-get install libhdf5-103-1; set %s=1 to fail instead): %v", envRequireHDF5, err)
	}
}

const h5Fixtures = "testdata/h5"

// subsetOf returns the cells × genes of orig named by barcodes and gene
// ids, as a dense matrix, with the cells' labels (by class name, "" for
// none): what a fixture written by make_fixtures.py must hold.
func subsetOf(t *testing.T, orig *Dataset, barcodes, ids []string) ([][]float32, []string) {
	t.Helper()
	row := map[string]int{}
	for i, b := range orig.Barcodes {
		row[b] = i
	}
	col := map[string]int{}
	for j, g := range orig.GeneIDs {
		col[g] = j
	}
	dense := make([][]float32, len(barcodes))
	labels := make([]string, len(barcodes))
	for k, b := range barcodes {
		i, ok := row[b]
		if !ok {
			t.Fatalf("barcode %q of the fixture is not in %s", b, orig.Name)
		}
		full := make([]float32, orig.Genes())
		cols, vals := orig.X.Row(i)
		for n, j := range cols {
			full[j] = vals[n]
		}
		dense[k] = make([]float32, len(ids))
		for m, g := range ids {
			j, ok := col[g]
			if !ok {
				t.Fatalf("gene %q of the fixture is not in %s", g, orig.Name)
			}
			dense[k][m] = full[j]
		}
		if l := orig.Labels[i]; l >= 0 {
			labels[k] = orig.Classes[l]
		}
	}
	return dense, labels
}

// checkAgainst fails unless d's matrix and labels equal those of the
// shared set's cells and genes d names; cell unlabelled (-1: none) may
// lack its label.
func checkAgainst(t *testing.T, d *Dataset, set string, tol float64, unlabelled int) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	orig, err := Open(filepath.Join(sharedDataDir(t), set), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, wantLabels := subsetOf(t, orig, d.Barcodes, d.GeneIDs)
	diffs := 0
	for i := range want {
		cols, vals := d.X.Row(i)
		got := make([]float32, d.Genes())
		for n, j := range cols {
			got[j] = vals[n]
		}
		for j := range got {
			if math.Abs(float64(got[j]-want[i][j])) > tol {
				if diffs < 3 {
					t.Errorf("cell %s gene %s = %v, want %v", d.Barcodes[i], d.GeneIDs[j], got[j], want[i][j])
				}
				diffs++
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d entries differ from %s", diffs, set)
	}
	if d.Labels != nil {
		for i, l := range d.Labels {
			got := ""
			if l >= 0 {
				got = d.Classes[l]
			}
			if got != wantLabels[i] && !(got == "" && i == unlabelled) {
				t.Errorf("cell %s label %q, want %q", d.Barcodes[i], got, wantLabels[i])
			}
		}
	}
}

func TestH5ADCSRWithRaw(t *testing.T) {
	requireHDF5(t)
	path := filepath.Join(h5Fixtures, "pbmc_csr.h5ad")
	d, rep, err := OpenWithReport(path, OpenOptions{LabelsColumn: "cell_type", UseRaw: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 72 || d.Genes() != 1000 || d.ValueType != Counts || d.Name != "pbmc_csr" {
		t.Errorf("got %s %d×%d %v, want pbmc_csr 72×1000 counts", d.Name, d.Cells(), d.Genes(), d.ValueType)
	}
	if rep == nil || rep.Labelled != 72 || rep.Missing != 0 || !strings.HasSuffix(rep.File, "pbmc_csr.h5ad:obs/cell_type") {
		t.Errorf("label report %+v, want 72 labelled from …pbmc_csr.h5ad:obs/cell_type", rep)
	}
	if d.Barcodes[1] != "cell_00061" || d.GeneIDs[0] != "gene_00001" || d.GeneNames[999] != "gene_01000" {
		t.Errorf("names: barcode 2 %q, gene id 1 %q, name 1000 %q", d.Barcodes[1], d.GeneIDs[0], d.GeneNames[999])
	}
	checkAgainst(t, d, "pbmc_4k", 0, -1)

	// X itself is log1p of counts per 10^4: non-counts, with a warning
	// that points at --use-raw, and ln(1 + 10^4·c/total) where the counts
	// are non-zero.
	x, _, err := OpenWithReport(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.ValueType != NonCounts || x.Labels != nil {
		t.Errorf("X: %v with labels %v, want non-counts without labels", x.ValueType, x.Labels != nil)
	}
	warned := strings.Join(x.Warnings, "\n")
	if !strings.Contains(warned, "--use-raw") || !strings.Contains(warned, "cell_type (8 values)") {
		t.Errorf("warnings %q, want hints at --use-raw and --labels-column cell_type", warned)
	}
	totals := rowTotals(d.X)
	for i := 0; i < x.Cells(); i++ {
		cols, vals := x.X.Row(i)
		rc, rv := d.X.Row(i)
		if !slices.Equal(cols, rc) {
			t.Fatalf("cell %d: X and raw/X store different genes", i)
		}
		for k, v := range vals {
			want := math.Log1p(1e4 * float64(rv[k]) / totals[i])
			if math.Abs(float64(v)-want) > 1e-5*want+1e-6 {
				t.Fatalf("cell %d X = %v, want log1p(1e4·%v/%v) = %v", i, v, rv[k], totals[i], want)
			}
		}
	}
}

func TestH5ADDense(t *testing.T) {
	requireHDF5(t)
	d, rep, err := OpenWithReport(filepath.Join(h5Fixtures, "pbmc_dense.h5ad"), OpenOptions{LabelsColumn: "cell_type"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 72 || d.Genes() != 2000 || rep.Labelled != 72 || len(d.Classes) != 8 {
		t.Errorf("got %d×%d, %d labelled in %d classes; want 72×2000, 72 in 8", d.Cells(), d.Genes(), rep.Labelled, len(d.Classes))
	}
	checkAgainst(t, d, "pbmc_4k", 0, -1)
}

func TestH5ADCSCWithMissingLabel(t *testing.T) {
	requireHDF5(t)
	d, rep, err := OpenWithReport(filepath.Join(h5Fixtures, "cellbench_csc.h5ad"), OpenOptions{LabelsColumn: "cell_line"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 113 || d.Genes() != 800 || d.ValueType != Counts {
		t.Errorf("got %d×%d %v, want 113×800 counts", d.Cells(), d.Genes(), d.ValueType)
	}
	// The fixture's cell 4 has a missing category (code -1).
	if rep.Missing != 1 || rep.MissingExamples[0] != d.Barcodes[3] || d.Labels[3] != -1 {
		t.Errorf("report %+v, label of cell 4 %d; want cell 4 (%s) unlabelled", rep, d.Labels[3], d.Barcodes[3])
	}
	if !slices.Equal(d.Classes, []string{"H1975", "H2228", "HCC827"}) {
		t.Errorf("classes %q", d.Classes)
	}
	checkAgainst(t, d, "cellbench_dropseq_3cl", 0, 3)
}

func TestCellRangerH5(t *testing.T) {
	requireHDF5(t)
	path := filepath.Join(h5Fixtures, "pbmc_10x.h5")
	d, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 171 || d.Genes() != 2000 || d.Labels != nil || d.ValueType != Counts {
		t.Errorf("got %d×%d labels %v %v, want 171×2000 counts without labels", d.Cells(), d.Genes(), d.Labels != nil, d.ValueType)
	}
	if w := strings.Join(d.Warnings, "\n"); !strings.Contains(w, "left out 2 Antibody Capture") {
		t.Errorf("warnings %q, want the 2 antibody features left out", w)
	}
	checkAgainst(t, d, "pbmc_4k", 0, -1)

	// The original's labels join by barcode, as for an MTX folder.
	labels := filepath.Join(sharedDataDir(t), "pbmc_4k", "labels.tsv")
	d, rep, err := OpenWithReport(path, OpenOptions{Labels: labels})
	if err != nil || rep.Labelled != 171 || rep.Unknown != 4271-171 {
		t.Fatalf("labels join: %+v, %v; want 171 labelled, %d unknown", rep, err, 4271-171)
	}
	checkAgainst(t, d, "pbmc_4k", 0, -1)
}

// TestH5OptionErrors checks that misapplied options and bad columns give
// errors naming the input.
func TestH5OptionErrors(t *testing.T) {
	requireHDF5(t)
	ad := filepath.Join(h5Fixtures, "pbmc_dense.h5ad")
	dense := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(dense, []byte("gene,c1,c2\ng1,1,2\ng2,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		opts OpenOptions
		want string
	}{
		{ad, OpenOptions{LabelsColumn: "nope"}, `obs has no column "nope"`},
		{ad, OpenOptions{LabelsColumn: "cell_type/codes"}, `obs has no column "cell_type/codes"`},
		{ad, OpenOptions{LabelsColumn: "cell_type", Labels: "x.tsv"}, "give one"},
		{ad, OpenOptions{UseRaw: true}, "has no raw/X"},
		{filepath.Join(h5Fixtures, "pbmc_10x.h5"), OpenOptions{LabelsColumn: "x"}, "apply to .h5ad files"},
		{dense, OpenOptions{LabelsColumn: "x"}, "not one"},
		{dense, OpenOptions{UseRaw: true}, "not one"},
	} {
		_, _, err := OpenWithReport(tc.path, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("OpenWithReport(%s, %+v) = %v, want an error naming the file and saying %q", tc.path, tc.opts, err, tc.want)
		}
	}
	if _, _, err := Load("builtin:default", OpenOptions{LabelsColumn: "x"}); err == nil {
		t.Error("a labels column on a built-in set: no error")
	}
}

func TestH5ADLegacy07(t *testing.T) {
	requireHDF5(t)
	d, rep, err := OpenWithReport(filepath.Join(h5Fixtures, "legacy07.h5ad"), OpenOptions{LabelsColumn: "louvain"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 15 || d.Genes() != 50 || rep.Labelled != 15 {
		t.Errorf("got %d×%d, %d labelled; want 15×50, all labelled", d.Cells(), d.Genes(), rep.Labelled)
	}
	checkAgainst(t, d, "pbmc_4k", 0, -1)
}
