package hdf5

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// envRequire, set to 1 (as CI does), turns the skip of tests on a machine
// without libhdf5 into a failure.
const envRequire = "DPSCOPE_REQUIRE_HDF5"

func requireLib(t *testing.T) {
	t.Helper()
	if _, _, err := Load(); err != nil {
		if os.Getenv(envRequire) == "1" {
			t.Fatalf("libhdf5 required (%s=1) but not loaded: %v", envRequire, err)
		}
		t.Skipf("libhdf5 not loaded (apt-get install libhdf5-103-1; set %s=1 to fail instead): %v", envRequire, err)
	}
}

const fixtures = "../../testdata/h5"

func TestReadAnnDataParts(t *testing.T) {
	requireLib(t)
	f, err := Open(filepath.Join(fixtures, "pbmc_csr.h5ad"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kids, err := f.Children("/obs")
	if err != nil || !slices.Equal(kids, []string{"_index", "cell_type", "donor", "n_counts"}) {
		t.Errorf("Children(/obs) = %q, %v", kids, err)
	}
	enc, found, err := f.AttrStrings("/X", "encoding-type")
	if err != nil || !found || !slices.Equal(enc, []string{"csr_matrix"}) {
		t.Errorf("X@encoding-type = %q, %v, %v", enc, found, err)
	}
	order, _, err := f.AttrStrings("/obs", "column-order")
	if err != nil || !slices.Equal(order, []string{"cell_type", "n_counts", "donor"}) {
		t.Errorf("obs@column-order = %q, %v", order, err)
	}
	shape, _, err := f.AttrInts("/X", "shape")
	if err != nil || !slices.Equal(shape, []int64{72, 1000}) {
		t.Errorf("X@shape = %v, %v", shape, err)
	}
	if _, found, err := f.AttrInts("/X", "nope"); found || err != nil {
		t.Errorf("missing attribute: found %v, err %v", found, err)
	}
	indptr, info, err := f.ReadInt64("/X/indptr")
	if err != nil || len(indptr) != 73 || indptr[0] != 0 || !slices.Equal(info.Dims, []int{73}) {
		t.Errorf("indptr: %d entries, dims %v, err %v", len(indptr), info.Dims, err)
	}
	names, err := f.ReadStrings("/obs/_index")
	if err != nil || len(names) != 72 || names[0] != "cell_00001" {
		t.Errorf("obs/_index = %d names starting %q, %v", len(names), names[:min(1, len(names))], err)
	}
	if !f.Exists("/obs/cell_type/codes") || f.Exists("/obs/nope/codes") || f.Exists("/X/data/x") {
		t.Error("Exists answers wrongly")
	}
	_, _, err = f.ReadInt64("/X/nope")
	var he *Error
	if !errors.As(err, &he) || he.Object != "/X/nope" || !strings.Contains(err.Error(), "pbmc_csr.h5ad") || he.Detail == "" {
		t.Errorf("reading a missing dataset: %v, want an *Error naming the file and object with libhdf5's reason", err)
	}
	if _, err := f.ReadStrings("/X/data"); err == nil || !strings.Contains(err.Error(), "want strings") {
		t.Errorf("ReadStrings on floats: %v", err)
	}
}

func TestReadFixedStringsAndRows(t *testing.T) {
	requireLib(t)
	f, err := Open(filepath.Join(fixtures, "pbmc_10x.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bc, err := f.ReadStrings("/matrix/barcodes")
	if err != nil || len(bc) != 171 || bc[1] != "cell_00026" {
		t.Errorf("barcodes = %d, %q, %v", len(bc), bc[:min(2, len(bc))], err)
	}
	f.Close()
	// Rows 1..2 of the dense X equal those rows of the whole.
	d, err := Open(filepath.Join(fixtures, "pbmc_dense.h5ad"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	all, info, err := d.ReadFloat32("/X")
	if err != nil || len(info.Dims) != 2 {
		t.Fatalf("X: dims %v, %v", info.Dims, err)
	}
	cols := info.Dims[1]
	rows := make([]float32, 2*cols)
	if err := d.ReadRows("/X", 1, cols, rows); err != nil || !slices.Equal(rows, all[cols:3*cols]) {
		t.Errorf("ReadRows(1, 2 rows) differs from rows 1..2 of the whole, err %v", err)
	}
	if err := d.ReadRows("/X", info.Dims[0]-1, cols, rows); err == nil {
		t.Error("ReadRows past the last row: no error")
	}
}

func TestOpenErrors(t *testing.T) {
	requireLib(t)
	dir := t.TempDir()
	notH5 := filepath.Join(dir, "x.h5ad")
	os.WriteFile(notH5, []byte("hello, not hdf5"), 0o644)
	_, err := Open(notH5)
	var he *Error
	if !errors.As(err, &he) || he.File != notH5 {
		t.Errorf("Open(non-HDF5) = %v, want an *Error naming the file", err)
	}
	b, _ := os.ReadFile(filepath.Join(fixtures, "pbmc_csr.h5ad"))
	trunc := filepath.Join(dir, "t.h5ad")
	os.WriteFile(trunc, b[:len(b)/3], 0o644)
	if f, err := Open(trunc); err == nil {
		f.Close()
		t.Error("Open(truncated) succeeded")
	} else {
		t.Log(err)
	}
}

// TestUnavailable checks the message a user without libhdf5 sees.
func TestUnavailable(t *testing.T) {
	_, err := loadLib([]string{"libhdf5_nonexistent.so.999"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install libhdf5-103-1") || !strings.Contains(err.Error(), "libhdf5_nonexistent.so.999") {
		t.Errorf("loadLib(missing) = %v, want ErrUnavailable naming the library and how to install it", err)
	}
}

// TestErrorsOnEveryThread opens a bad file from many goroutines, hence OS
// threads: every error must come back as an *Error with libhdf5's reason,
// none printed by libhdf5 itself (thread-safe builds keep that setting per
// thread).
func TestErrorsOnEveryThread(t *testing.T) {
	requireLib(t)
	bad := filepath.Join(t.TempDir(), "bad.h5")
	os.WriteFile(bad, []byte("not hdf5 at all"), 0o644)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			_, err := Open(bad)
			errs <- err
		}()
	}
	for range 16 {
		var he *Error
		if err := <-errs; !errors.As(err, &he) || !strings.Contains(he.Detail, "signature") {
			t.Errorf("Open(bad) = %v, want an *Error saying the signature is missing", err)
		}
	}
}
