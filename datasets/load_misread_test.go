package datasets

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Regression tests for issue 14 points 14 and 16: bounded reads and silent
// misreads.

const bom = "\ufeff"

func TestDenseBOM(t *testing.T) {
	for _, tc := range []struct{ desc, in string }{
		{"unnamed first column", bom + ",c1,c2\ng1,1,0\ng2,0,3\ng3,2,0\n"},
		{"R style header", bom + "c1\tc2\ng1\t1\t0\ng2\t0\t3\ng3\t2\t0\n"},
		{"quoted R style header", bom + "\"c1\",\"c2\"\ng1,1,0\ng2,0,3\ng3,2,0\n"},
	} {
		for _, zipped := range []bool{false, true} {
			in := []byte(tc.in)
			if zipped {
				in = gz(t, tc.in)
			}
			d, err := ReadDense(bytes.NewReader(in), "x.csv", DenseOptions{Orientation: GenesByCells})
			if err != nil {
				t.Fatalf("%s (gzip %v): %v", tc.desc, zipped, err)
			}
			if !slices.Equal(d.Barcodes, []string{"c1", "c2"}) || !slices.Equal(d.GeneIDs, []string{"g1", "g2", "g3"}) {
				t.Errorf("%s (gzip %v): cells %q, genes %q; want c1, c2 and g1…g3 without the BOM", tc.desc, zipped, d.Barcodes, d.GeneIDs)
			}
		}
	}
}

func TestLabelsBOM(t *testing.T) {
	for _, zipped := range []bool{false, true} {
		in := bom + "AAAC-1\tT cell\nAAAG-1\tB cell\ncell\tB cell\n"
		r := io.Reader(strings.NewReader(in))
		if zipped {
			r = bytes.NewReader(gz(t, in))
		}
		d := tinyDataset()
		known := map[string]int{"AAAC-1": 0, "AAAG-1": 1, "cell": 2}
		tab, err := ReadLabels(r, "labels.tsv", known)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := JoinLabels(d, tab)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Labelled != 3 || rep.Unknown != 0 || tab.Header {
			t.Errorf("headerless labels with a BOM (gzip %v): %s, header %v; want 3 labelled, none unknown, no header", zipped, rep, tab.Header)
		}
	}
}

func TestBOMReaderPieces(t *testing.T) {
	// A reader that returns one byte at a time splits the mark.
	for _, in := range []string{bom + "abc", "abc", "\xef\xbbx", "\xef", "", bom} {
		got, err := io.ReadAll(&bomReader{r: &oneByte{s: in}})
		want := strings.TrimPrefix(in, bom)
		if err != nil || string(got) != want {
			t.Errorf("bomReader(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}

func TestDenseHeaderOfNumbers(t *testing.T) {
	for _, tc := range []struct {
		desc, in string
		ok       bool
	}{
		{"headerless counts", "g1,0,3,1\ng2,1,0,0\ng3,2,2,0\n", false},
		{"headerless decimals", "g1\t0.5\t3.25\ng2\t1\t0\n", false},
		{"R style headerless", "1\t4\ng1\t1\t0\ng2\t0\t3\n", false},
		{"pandas index header from 0", ",0,1,2\ng1,0,3,1\ng2,1,0,0\n", true},
		{"header counting from 1", "gene,1,2\ng1,0,3\ng2,1,0\n", true},
		{"names", "gene,c1,2\ng1,0,3\ng2,1,0\n", true},
	} {
		_, err := ReadDense(strings.NewReader(tc.in), "x.csv", DenseOptions{})
		if tc.ok && err != nil {
			t.Errorf("%s: %v, want no error", tc.desc, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "looks like a data row") || !strings.Contains(err.Error(), "x.csv:1")) {
			t.Errorf("%s: %v, want an error saying line 1 of x.csv looks like data", tc.desc, err)
		}
	}
}

// endless is an endless line of 'a', counting what was read.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += len(p)
	return len(p), nil
}

func TestDenseEndlessLine(t *testing.T) {
	for _, tc := range []struct {
		desc string
		r    io.Reader
		line string
	}{
		{"endless header", nil, "x.csv:1"},
		{"endless data row", strings.NewReader("gene,c1,c2\ng1,"), "x.csv:2"},
	} {
		src := &endless{}
		r := io.Reader(src)
		if tc.r != nil {
			r = io.MultiReader(tc.r, src)
		}
		_, err := ReadDense(r, "x.csv", DenseOptions{})
		if err == nil || !strings.Contains(err.Error(), "longer than") || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%s: %v, want a line-length error at %s", tc.desc, err, tc.line)
		}
		if src.n > 2*maxLineLen {
			t.Errorf("%s: read %d bytes before giving up, want ≤ %d", tc.desc, src.n, 2*maxLineLen)
		}
	}
}

func TestLabelsEndlessLine(t *testing.T) {
	src := &endless{}
	_, err := ReadLabels(io.MultiReader(strings.NewReader("barcode\tlabel\nAAAC-1\tT\n"), src), "labels.tsv", nil)
	if err == nil || !strings.Contains(err.Error(), "labels.tsv:3") || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("endless labels line: %v, want a line-length error at labels.tsv:3", err)
	}
	if src.n > 4*maxTextLine {
		t.Errorf("read %d bytes of an endless labels line, want ≤ %d", src.n, 4*maxTextLine)
	}
}

func TestDuplicateFeatureIDs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, withFiles(tenx, map[string]string{
		"features.tsv.gz": "ENSG1\tA1\nENSG2\tB2\nENSG1\tA1\n",
	}))
	_, err := Open(dir, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "duplicate feature id \"ENSG1\" (also on line 1)") || !strings.Contains(err.Error(), "features.tsv.gz:3") {
		t.Errorf("duplicate feature ids: %v, want an error naming ENSG1 on lines 1 and 3", err)
	}
	// Repeated names with distinct ids are normal in 10x folders.
	dir2 := t.TempDir()
	writeFiles(t, dir2, withFiles(tenx, map[string]string{
		"features.tsv.gz": "ENSG1\tA1\nENSG2\tA1\nENSG3\tA1\n",
	}))
	if _, err := Open(dir2, OpenOptions{}); err != nil {
		t.Errorf("repeated gene names with distinct ids: %v, want no error", err)
	}
}

func TestDenseDuplicateGeneNamesWarn(t *testing.T) {
	d, err := ReadDense(strings.NewReader("gene,c1,c2\nGAPDH,1,0\nACTB,0,3\nGAPDH,2,0\n"), "x.csv", DenseOptions{Orientation: GenesByCells})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], `"GAPDH" at gene 1 and 3`) {
		t.Errorf("warnings = %q, want one naming GAPDH at genes 1 and 3", d.Warnings)
	}
}

func TestLabelsOneClassWarns(t *testing.T) {
	d := tinyDataset()
	tab, err := ReadLabels(strings.NewReader("AAAC-1\tT cell\nAAAG-1\tT cell\n"), "labels.tsv", map[string]int{"AAAC-1": 0, "AAAG-1": 1, "cell": 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := JoinLabels(d, tab); err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "same label \"T cell\"") || !strings.Contains(d.Warnings[0], "labels.tsv") {
		t.Errorf("one-class labels: warnings %q, want one naming the file and the class", d.Warnings)
	}
	if s := Summarize(d, nil, nil); len(s.Warnings) != 1 {
		t.Errorf("Summarize carries %d warnings, want 1", len(s.Warnings))
	}
}

func TestFolderWithoutPermission(t *testing.T) {
	// A path through a file fails with ENOTDIR, not "does not exist": the
	// same branch as a folder without permission, which root cannot test.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	_, err := findOne(file, mtxMatrixNames, "matrix.mtx[.gz]")
	if err == nil || strings.Contains(err.Error(), "no matrix") || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("findOne through a file: %v, want 'cannot read', not 'no matrix'", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder: the permission case needs another user")
	}
	dir := filepath.Join(t.TempDir(), "locked")
	os.Mkdir(dir, 0o755)
	writeFiles(t, dir, tenx)
	os.Chmod(dir, 0)
	defer os.Chmod(dir, 0o755)
	_, err = Open(dir, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "no matrix") {
		t.Errorf("folder without permission: %v, want 'permission denied', not 'no matrix'", err)
	}
}
