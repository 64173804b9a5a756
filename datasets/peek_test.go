package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPeekSharedSets checks that the peek of every shared MTX folder gives
// the shape and class count the README lists, without loading it.
func TestPeekSharedSets(t *testing.T) {
	root := sharedDataDir(t)
	if root == "" {
		t.Skip("no ../shared/data")
	}
	for _, s := range sharedSets {
		p, err := PeekData(filepath.Join(root, s.name))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if p.Cells != s.cells || p.Genes != s.genes || len(p.Classes) != s.classes || p.NonZero <= 0 || p.Bytes <= 0 {
			t.Errorf("%s: peek %d cells × %d genes, %d classes, %d entries, %d bytes; want %d × %d, %d classes",
				s.name, p.Cells, p.Genes, len(p.Classes), p.NonZero, p.Bytes, s.cells, s.genes, s.classes)
		}
		n := 0
		for _, c := range p.Classes {
			n += c.Cells
		}
		if n > s.cells+1 || n == 0 { // a labels file may have a header line read as data
			t.Errorf("%s: classes count %d cells, the matrix has %d", s.name, n, s.cells)
		}
	}
}

func TestPeekBuiltinAndDense(t *testing.T) {
	p, err := PeekData("builtin:default")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := GetBuiltinSpec("default")
	sum := 0
	for _, c := range p.Classes {
		sum += c.Cells
	}
	if p.Cells != spec.Cells || p.Genes != spec.Genes || len(p.Classes) != len(spec.Groups) || sum < spec.Cells-len(spec.Groups) || sum > spec.Cells+len(spec.Groups) {
		t.Errorf("builtin:default peek %+v, want %d × %d in %d groups", p, spec.Cells, spec.Genes, len(spec.Groups))
	}
	if _, err := PeekData("builtin:nope"); err == nil {
		t.Error("builtin:nope: no error")
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "m.csv")
	os.WriteFile(csv, []byte("gene,c1,c2,c3\ng1,1,0,2\n\ng2,0,0,1\n"), 0o644)
	p, err = PeekData(csv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cells != 2 || p.Genes != 3 || !p.Unoriented || p.Format != "dense CSV/TSV" {
		t.Errorf("dense peek %+v, want 2 rows × 3 columns, unoriented", p)
	}
	// A text file that is not a matrix is refused by the peek in the
	// loader's words, not shown with a shape the load then refuses.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("# My notes\n\nThese cells came from the lab on Monday.\nsee also: plots\n"), 0o644)
	_, _, loadErr := Load(notes, OpenOptions{})
	if _, err := PeekData(notes); err == nil || loadErr == nil || err.Error() != loadErr.Error() {
		t.Errorf("peek of a text file: error %v, want the loader's %v", err, loadErr)
	}
	// A row longer than the peek's buffer is counted, not parsed.
	long := filepath.Join(dir, "long.csv")
	row := "c1" + strings.Repeat(",1", 40000) + "\n"
	os.WriteFile(long, []byte("id"+strings.Repeat(",g", 40000)+"\n"+row+row), 0o644)
	if p, err := PeekData(long); err != nil || p.Cells != 2 || p.Genes != 40000 {
		t.Errorf("peek of long rows: %+v, %v; want 2 rows × 40000 columns", p, err)
	}
	empty := filepath.Join(dir, "e.tsv")
	os.WriteFile(empty, nil, 0o644)
	if _, err := PeekData(empty); err == nil || !strings.Contains(err.Error(), "e.tsv") {
		t.Errorf("empty file: error %v, want one naming e.tsv", err)
	}
	if _, err := PeekData(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing path: error %v", err)
	}
	h5 := filepath.Join(dir, "x.h5ad")
	os.WriteFile(h5, []byte("not really"), 0o644)
	// With libhdf5 the peek opens the file and says it is not HDF5;
	// without, it names the format and leaves the rest to the load.
	if _, _, libErr := HDF5Library(); libErr == nil {
		if _, err := PeekData(h5); err == nil || !strings.Contains(err.Error(), "x.h5ad") {
			t.Errorf("h5ad peek of a non-HDF5 file: error %v, want one naming x.h5ad", err)
		}
	} else if p, err := PeekData(h5); err != nil || p.Cells != 0 || !strings.Contains(p.Format, "h5ad") || p.Later == "" {
		t.Errorf("h5ad peek %+v, %v: want its format and no shape before loading", p, err)
	}
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "matrix.mtx"), []byte("%%MatrixMarket matrix coordinate integer general\n3 x 5\n"), 0o644)
	if _, err := PeekData(bad); err == nil || !strings.Contains(err.Error(), "matrix.mtx") {
		t.Errorf("bad MTX header: error %v, want one naming matrix.mtx", err)
	}
}

// FuzzPeekData peeks arbitrary dense files and MTX headers: never a panic,
// and a dense peek never counts more rows than the file has lines.
func FuzzPeekData(f *testing.F) {
	f.Add([]byte("gene,a,b\ng1,1,2\n"), false)
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 5\n"), true)
	f.Add([]byte("\xef\xbb\xbfx\ty\n\n"), false)
	f.Fuzz(func(t *testing.T, b []byte, mtx bool) {
		dir := t.TempDir()
		path := filepath.Join(dir, "d.csv")
		if mtx {
			path = filepath.Join(dir, "matrix.mtx")
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := PeekData(path)
		if err != nil {
			return
		}
		if !mtx && p.Cells > strings.Count(string(b), "\n")+1 {
			t.Errorf("%d rows from %d lines", p.Cells, strings.Count(string(b), "\n")+1)
		}
	})
}
