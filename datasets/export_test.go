package datasets

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exportFixture is a small preprocessed built-in set with labels, some
// negative (scaled) values and, to test the missing code, one cell
// unlabelled.
func exportFixture(t *testing.T) *Table {
	t.Helper()
	d, err := Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultPreprocessConfig()
	cfg.NTopGenes = 30
	p, err := Preprocess(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tab := TableOf(p, "test")
	lab := slices.Clone(p.Labels)
	lab[3] = -1
	tab.Columns[1].Codes = lab
	return tab
}

// checkSame compares a data set read back with the table written.
func checkSame(t *testing.T, tab *Table, got *Dataset, wantLabels bool) {
	t.Helper()
	if got.Cells() != tab.Cells || got.Genes() != tab.Features {
		t.Fatalf("read %d × %d, wrote %d × %d", got.Cells(), got.Genes(), tab.Cells, tab.Features)
	}
	if !slices.Equal(got.Barcodes, tab.Barcodes) || !slices.Equal(got.GeneNames, tab.FeatureNames) {
		t.Errorf("names differ: barcodes %q… genes %q…", got.Barcodes[:2], got.GeneNames[:2])
	}
	dense := make([]float32, tab.Cells*tab.Features)
	for i := range got.Cells() {
		cols, vals := got.X.Row(i)
		for k, j := range cols {
			dense[i*tab.Features+int(j)] = vals[k]
		}
	}
	if !slices.Equal(dense, tab.X) {
		for k := range dense {
			if dense[k] != tab.X[k] {
				t.Fatalf("X[%d] = %v read, %v written", k, dense[k], tab.X[k])
			}
		}
	}
	if !wantLabels {
		return
	}
	lab := tab.Columns[1]
	for i := range tab.Cells {
		want, have := lab.cell(i), ""
		if got.Labels[i] >= 0 {
			have = got.Classes[got.Labels[i]]
		}
		if want != have {
			t.Fatalf("cell %d label %q read, %q written", i, have, want)
		}
	}
}

func TestExportMTXRoundTrip(t *testing.T) {
	tab := exportFixture(t)
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteTable("mtx", dir, tab); err != nil {
		t.Fatal(err)
	}
	got, err := Open(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, tab, got, true)
	obs, err := os.ReadFile(filepath.Join(dir, "obs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(obs), "\n")
	if lines[0] != "barcode\tsize_factor\tlabel" || !strings.HasPrefix(lines[4], tab.Barcodes[3]+"\t") || !strings.HasSuffix(lines[4], "\t") {
		t.Errorf("obs.tsv header %q, unlabelled cell row %q", lines[0], lines[4])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "export.json")); err != nil || !strings.Contains(string(b), `"export_schema": 1`) || !strings.Contains(string(b), `"dpscope_version": "test"`) {
		t.Errorf("export.json %s, %v: want the version and schema", b, err)
	}
	if err := WriteTable("mtx", dir, tab); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second export into %s: %v, want a refusal", dir, err)
	}
}

func TestExportCSVRoundTrip(t *testing.T) {
	tab := exportFixture(t)
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteTable("csv", dir, tab); err != nil {
		t.Fatal(err)
	}
	got, err := LoadDense(filepath.Join(dir, "matrix.csv"), DenseOptions{Orientation: CellsByGenes})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, tab, got, false)
	obs, _ := os.ReadFile(filepath.Join(dir, "obs.csv"))
	if !strings.HasPrefix(string(obs), "barcode,size_factor,label\n"+tab.Barcodes[0]+",") {
		t.Errorf("obs.csv starts %q", string(obs)[:60])
	}
}

func TestExportH5ADRoundTrip(t *testing.T) {
	requireHDF5(t)
	tab := exportFixture(t)
	path := filepath.Join(t.TempDir(), "out.h5ad")
	if err := WriteTable("h5ad", path, tab); err != nil {
		t.Fatal(err)
	}
	got, rep, err := LoadH5AD(path, H5Options{LabelsColumn: "label"})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, tab, got, true)
	if rep == nil || rep.Missing != 1 {
		t.Errorf("label report %+v, want 1 cell without a label", rep)
	}
	if err := WriteTable("h5ad", path, tab); err == nil {
		t.Error("a second export over the same file succeeded")
	}
}

// TestExportH5ADAnnData reads the export with Debian's anndata (when it is
// installed), the reader scanpy users have: X, names, the categorical
// labels with the missing one as NaN, and the size factors.
func TestExportH5ADAnnData(t *testing.T) {
	requireHDF5(t)
	const py = "/usr/bin/python3"
	if exec.Command(py, "-c", "import anndata").Run() != nil {
		t.Skip("python3-anndata not installed (apt-get install python3-anndata)")
	}
	tab := exportFixture(t)
	tab.Obsm = "X_dpscope"
	path := filepath.Join(t.TempDir(), "out.h5ad")
	if err := WriteTable("h5ad", path, tab); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, anndata, numpy as np
a = anndata.read_h5ad(sys.argv[1])
print(a.n_obs, a.n_vars, a.X.dtype)
print(a.obs_names[0], a.var_names[0])
print(float(np.abs(a.X - a.obsm["X_dpscope"]).max()))
print(a.obs["label"].dtype, int(a.obs["label"].isna().sum()), a.obs["label"].iloc[0])
print(repr(float(a.obs["size_factor"].iloc[0])), repr(float(a.X[1, 2])))
print(a.uns["dpscope"]["version"][0], int(a.uns["dpscope"]["schema"][0]))
`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("anndata could not read the export: %v\n%s", err, out)
	}
	lab := tab.Columns[1]
	want := strings.Join([]string{
		itoa(tab.Cells) + " " + itoa(tab.Features) + " float32",
		tab.Barcodes[0] + " " + tab.FeatureNames[0],
		"0.0",
		"category 1 " + lab.cell(0),
		pyRepr(tab.Columns[0].Values[0]) + " " + pyRepr(float64(tab.X[1*tab.Features+2])),
		"test 1",
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("anndata read:\n%s\nwant:\n%s", out, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// pyRepr is Python's repr of a float in the range the test prints (the
// shortest round-trip form, with ".0" on whole numbers).
func pyRepr(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// TestExportTextReadByPython reads the MTX and CSV exports with scipy and
// pandas (when installed), as scanpy's read_10x_mtx and read_csv do: the
// values must be the float32 matrix written, bit for bit.
func TestExportTextReadByPython(t *testing.T) {
	const py = "/usr/bin/python3"
	if exec.Command(py, "-c", "import scipy.io, pandas").Run() != nil {
		t.Skip("python3-scipy or python3-pandas not installed")
	}
	tab := exportFixture(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "x.f32")
	raw := make([]byte, 0, 4*len(tab.X))
	for _, v := range tab.X {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	if err := os.WriteFile(bin, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mtx", "csv"} {
		if err := WriteTable(f, filepath.Join(dir, f), tab); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import sys, numpy as np, scipy.io, pandas as pd
d, n, g = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want = np.fromfile(d + "/x.f32", dtype="<f4").reshape(n, g)
m = scipy.io.mmread(d + "/mtx/matrix.mtx").toarray().T.astype(np.float32)
feat = pd.read_csv(d + "/mtx/features.tsv", sep="\t", header=None)
bc = pd.read_csv(d + "/mtx/barcodes.tsv", sep="\t", header=None)
c = pd.read_csv(d + "/csv/matrix.csv", index_col=0).to_numpy(dtype=np.float32)
obs = pd.read_csv(d + "/csv/obs.csv", index_col=0)
print(m.shape == want.shape, bool((m == want).all()), bool((c == want).all()), feat.shape[1], len(bc), obs.columns.tolist(), int(obs["label"].isna().sum()))
`
	out, err := exec.Command(py, "-c", script, dir, itoa(tab.Cells), itoa(tab.Features)).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	want := "True True True 3 " + itoa(tab.Cells) + " ['size_factor', 'label'] 1\n"
	if string(out) != want {
		t.Errorf("python read %q, want %q", out, want)
	}
}
