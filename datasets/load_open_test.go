package datasets

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// writeFiles creates dir/name for each entry, gzipping names ending in .gz.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		b := []byte(content)
		if strings.HasSuffix(name, ".gz") {
			b = gz(tb, content)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// tenx is a valid 3 genes × 2 cells 10x folder.
var tenx = map[string]string{
	"matrix.mtx.gz":   mtxHead + "% written by a test\n3 2 3\n1 1 1\n3 1 2\n2 2 3\n",
	"features.tsv.gz": "ENSG1\tA1\tGene Expression\nENSG2\tB2\tGene Expression\nENSG3\t\tGene Expression\n",
	"barcodes.tsv.gz": "AAAC-1\nAAAG-1\n",
	"labels.tsv":      "barcode\tlabel\nAAAC-1\tT cell\nAAAG-1\tB cell\n",
}

func withFiles(base map[string]string, changes map[string]string) map[string]string {
	out := make(map[string]string)
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

func TestOpenMTXDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny10x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, tenx)
	d, rep, err := OpenWithReport(dir, OpenOptions{})
	if err != nil {
		t.Fatalf("OpenWithReport(%s) = %v, want no error", dir, err)
	}
	if d.Name != "tiny10x" || d.Source != dir || d.Cells() != 2 || d.Genes() != 3 || d.ValueType != Counts {
		t.Errorf("Open = %s %s %d×%d %v, want tiny10x, the dir, 2×3, counts", d.Name, d.Source, d.Cells(), d.Genes(), d.ValueType)
	}
	if want := []string{"A1", "B2", "ENSG3"}; !slices.Equal(d.GeneNames, want) {
		t.Errorf("Open: GeneNames = %q, want %q (id when no name)", d.GeneNames, want)
	}
	if want := []string{"B cell", "T cell"}; !slices.Equal(d.Classes, want) || !slices.Equal(d.Labels, []int{1, 0}) {
		t.Errorf("Open: Classes %q Labels %v, want %q [1 0]", d.Classes, d.Labels, want)
	}
	if rep == nil || rep.Labelled != 2 || !rep.Header {
		t.Errorf("Open: report %v, want 2 labelled with a header", rep)
	}
	if got := csrDense(d.X); !slices.EqualFunc(got, [][]float32{{1, 0, 2}, {0, 3, 0}}, slices.Equal) {
		t.Errorf("Open: X = %v", got)
	}

	// A path to the matrix file opens its folder; NoLabels skips labels.
	d, err = Open(filepath.Join(dir, "matrix.mtx.gz"), OpenOptions{NoLabels: true})
	if err != nil || d.Labels != nil {
		t.Errorf("Open(matrix.mtx.gz, NoLabels) = %v, labels %v, want no error and no labels", err, d)
	}

	// Labels overrides the folder's labels.tsv.
	other := filepath.Join(t.TempDir(), "other.tsv")
	writeFiles(t, filepath.Dir(other), map[string]string{"other.tsv": "AAAG-1\t7\n"})
	d, rep, err = OpenWithReport(dir, OpenOptions{Labels: other})
	if err != nil || !slices.Equal(d.Classes, []string{"7"}) || !slices.Equal(d.Labels, []int{-1, 0}) || rep.Missing != 1 {
		t.Errorf("Open(Labels: other) = %v, report %v, want class 7 on cell 2 and one cell missing", err, rep)
	}
}

func TestOpenMTXDirErrors(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		changes map[string]string
		file    string // base name of the file the error must name
		msg     string
	}{
		{desc: "no matrix", changes: map[string]string{"matrix.mtx.gz": ""}, msg: "no matrix.mtx[.gz] in folder"},
		{desc: "no features", changes: map[string]string{"features.tsv.gz": ""}, msg: "no features.tsv[.gz] or genes.tsv[.gz]"},
		{desc: "too few features", changes: map[string]string{"features.tsv.gz": "ENSG1\tA1\nENSG2\tB2\n"},
			file: "matrix.mtx.gz:3", msg: "header promises 3 rows (genes), features.tsv.gz has 2"},
		{desc: "too many barcodes", changes: map[string]string{"barcodes.tsv.gz": "a\nb\nc\n"},
			file: "matrix.mtx.gz:3", msg: "header promises 2 columns (cells), barcodes.tsv.gz has 3"},
		{desc: "duplicate barcode", changes: map[string]string{"barcodes.tsv.gz": "a\na\n"},
			file: "barcodes.tsv.gz:2", msg: "duplicate barcode \"a\" (also on line 1)"},
		{desc: "empty barcodes", changes: map[string]string{"barcodes.tsv.gz": "\n"}, file: "barcodes.tsv.gz:1", msg: "empty id"},
		{desc: "no barcodes", changes: map[string]string{"barcodes.tsv": "", "barcodes.tsv.gz": ""}, msg: "no barcodes.tsv[.gz]"},
		{desc: "empty labels file barcodes unknown", changes: map[string]string{"labels.tsv": "zz\tT\n"},
			file: "labels.tsv", msg: "no label matches any of the 2 barcodes"},
		{desc: "labels duplicate", changes: map[string]string{"labels.tsv": "AAAC-1\tT\nAAAC-1\tB\n"},
			file: "labels.tsv:2", msg: "duplicate barcode"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, withFiles(tenx, tc.changes))
			_, err := Open(dir, OpenOptions{})
			if err == nil {
				t.Fatalf("Open(%s) = nil error, want …%s…", tc.desc, tc.msg)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), tc.file) {
				t.Errorf("Open(%s) = %q, want …%s…%s…", tc.desc, err, tc.file, tc.msg)
			}
		})
	}
}

func TestOpenGenesTSVPlain(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"matrix.mtx":   "%%MatrixMarket matrix coordinate real general\n2 1 1\n2 1 0.5\n",
		"genes.tsv":    "g1\ng2\n",
		"barcodes.tsv": "c1\n",
	})
	d, err := Open(dir, OpenOptions{})
	if err != nil {
		t.Fatalf("Open(plain files) = %v, want no error", err)
	}
	if d.ValueType != NonCounts || d.Labels != nil || !slices.Equal(d.GeneNames, []string{"g1", "g2"}) {
		t.Errorf("Open(plain files) = %v %v %q, want non-counts, no labels, names = ids", d.ValueType, d.Labels, d.GeneNames)
	}
}

func TestOpenDenseFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// Named .txt but gzipped: detected by the magic bytes.
		"expr.txt":   string(gz(t, "gene\tc1\tc2\nENSG00000000003\t1\t0\nENSG00000000005\t4\t2\n")),
		"labels.tsv": "c2\tx\nc1\ty\n",
	})
	path := filepath.Join(dir, "expr.txt")
	d, rep, err := OpenWithReport(path, OpenOptions{Labels: filepath.Join(dir, "labels.tsv")})
	if err != nil {
		t.Fatalf("Open(%s) = %v, want no error", path, err)
	}
	if d.Name != "expr" || d.Cells() != 2 || d.Genes() != 2 || rep.Labelled != 2 || !slices.Equal(d.Labels, []int{1, 0}) {
		t.Errorf("Open(dense) = %s %d×%d labels %v report %v, want expr 2×2 labels [1 0]", d.Name, d.Cells(), d.Genes(), d.Labels, rep)
	}
	if _, err := Open(filepath.Join(dir, "missing.csv"), OpenOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing file) = %v, want fs.ErrNotExist", err)
	}
}

func TestOpenLabelsMissing(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, tenx)
	_, err := Open(dir, OpenOptions{Labels: filepath.Join(dir, "nope.tsv")})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.tsv") {
		t.Errorf("Open(Labels: missing file) = %v, want fs.ErrNotExist naming nope.tsv", err)
	}
}

func TestPipeReaderNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	big := gz(t, mtxHead+"3 2 1\n1 1 1\n"+strings.Repeat("% padding comment line\n", 50000))
	junk := append(gz(t, "junk\n"), big...)
	for range 5 {
		// Fails on the first line, long before the gunzip goroutine is done.
		if _, err := ReadMTX(bytes.NewReader(junk), "x"); err == nil {
			t.Fatal("ReadMTX(junk) = nil error, want one")
		}
		if _, err := ReadMTX(bytes.NewReader(big), "x"); err != nil {
			t.Fatalf("ReadMTX(big) = %v", err)
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("runtime.NumGoroutine() = %d after 10 reads, want at most %d", after, before)
	}
}
