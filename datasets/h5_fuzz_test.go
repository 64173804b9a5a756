package datasets

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// FuzzH5Compressed feeds arbitrary CSR/CSC arrays to the checks and
// conversion every HDF5 reader uses: they must return an error or a valid
// CSR holding the same sum, never panic. It needs no libhdf5.
func FuzzH5Compressed(f *testing.F) {
	f.Add(uint8(2), uint8(3), false, []byte{0, 1, 3, 0, 2, 1, 1, 2, 3})
	f.Add(uint8(3), uint8(2), true, []byte{0, 2, 2, 3, 1, 0, 2, 5, 0, 7})
	f.Add(uint8(1), uint8(4), false, []byte{0, 3, 2, 2, 0, 1, 1, 0})
	f.Fuzz(func(t *testing.T, rows, cols uint8, csc bool, b []byte) {
		major := int(rows)
		if csc {
			major = int(cols)
		}
		// b: major+1 indptr bytes, then (index, value) byte pairs.
		if len(b) < major+1 {
			return
		}
		s := &compressed{obj: "/X", csc: csc, rows: int(rows), cols: int(cols)}
		for _, p := range b[:major+1] {
			s.indptr = append(s.indptr, int64(int8(p)))
		}
		sum := 0.0
		for k := major + 1; k+1 < len(b); k += 2 {
			s.indices = append(s.indices, int64(int8(b[k])))
			v := float32(int8(b[k+1])) / 4
			s.data = append(s.data, v)
			sum += float64(v)
		}
		m, err := s.toCSR("fuzz")
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("toCSR returned an invalid CSR: %v", err)
		}
		if m.Rows != int(rows) || m.Cols != int(cols) {
			t.Fatalf("toCSR gave %d×%d, want %d×%d", m.Rows, m.Cols, rows, cols)
		}
		got := 0.0
		for _, v := range m.Data {
			got += float64(v)
		}
		if math.Abs(got-sum) > 1e-6 {
			t.Fatalf("entries sum to %v, want %v", got, sum)
		}
	})
}

// fuzzRegions returns the byte ranges of the raw data of every dataset
// in paths that is stored contiguously in file.
func fuzzRegions(tb testing.TB, file string, paths []string) [][2]uint64 {
	tb.Helper()
	h, err := hdf5.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer h.Close()
	var out [][2]uint64
	for _, p := range paths {
		if off, size, ok := h.Offset(p); ok && size > 0 {
			out = append(out, [2]uint64{off, size})
		}
	}
	if len(out) != len(paths) {
		tb.Fatalf("%s: %d of %d datasets are contiguous; the fuzz seeds must be written without compression", file, len(out), len(paths))
	}
	return out
}

// FuzzH5 overwrites bytes of the data of the uncompressed fixtures
// fuzz_seed.h5ad and fuzz_seed_10x.h5 (shapes, indptr, indices, values,
// category codes, fixed-length names) and reads them: the readers must
// return an error naming the file or a valid data set, never panic.
//
// The metadata (object headers, B-trees) and the heap references of
// variable-length strings are left whole: they are parsed by libhdf5, C
// code no Go check can guard (a corrupted string length makes libhdf5
// 1.10 allocate and fill gigabytes, for seconds, before it fails), and are
// not what dpscope adds. Without libhdf5 it skips (or fails with
// DPSCOPE_REQUIRE_HDF5=1).
func FuzzH5(f *testing.F) {
	requireHDF5(f)
	seeds := []struct {
		file  string
		paths []string
		opts  OpenOptions
	}{
		{filepath.Join(h5Fixtures, "fuzz_seed.h5ad"),
			[]string{"/X/data", "/X/indices", "/X/indptr", "/obs/cell_type/codes"},
			OpenOptions{LabelsColumn: "cell_type"}},
		{filepath.Join(h5Fixtures, "fuzz_seed_10x.h5"),
			[]string{"/matrix/data", "/matrix/indices", "/matrix/indptr", "/matrix/shape", "/matrix/barcodes", "/matrix/features/id", "/matrix/features/feature_type"},
			OpenOptions{}},
	}
	type seed struct {
		data    []byte
		regions [][2]uint64
	}
	loaded := make([]seed, len(seeds))
	for i, s := range seeds {
		b, err := os.ReadFile(s.file)
		if err != nil {
			f.Fatal(err)
		}
		loaded[i] = seed{b, fuzzRegions(f, s.file, s.paths)}
	}
	for which := range seeds {
		for r := range loaded[which].regions {
			f.Add(uint8(which), uint8(r), uint32(0), []byte{0xff, 0xff, 0xff, 0x7f})
			f.Add(uint8(which), uint8(r), uint32(8), binary.LittleEndian.AppendUint64(nil, 1<<40))
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, which, region uint8, at uint32, patch []byte) {
		s := loaded[int(which)%len(loaded)]
		reg := s.regions[int(region)%len(s.regions)]
		b := append([]byte(nil), s.data...)
		start := reg[0] + uint64(at)%reg[1]
		for k := 0; k < len(patch) && start+uint64(k) < reg[0]+reg[1]; k++ {
			b[start+uint64(k)] = patch[k]
		}
		file := filepath.Join(dir, "f"+filepath.Ext(seeds[int(which)%len(seeds)].file))
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		// The picker's peek reads the same file's extents and obs columns:
		// it must not panic on a corrupted one either.
		if p, err := PeekData(file); err == nil && (p.Cells < 0 || p.Genes < 0 || p.NonZero < 0) {
			t.Fatalf("peek without error but a negative shape: %+v", p)
		}
		if p, err := PeekData(file); err == nil && len(p.ObsColumns) > 0 {
			_, _ = PeekObsClasses(file, p.ObsColumns[0].Name)
		}
		d, _, err := OpenWithReport(file, seeds[int(which)%len(seeds)].opts)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("read without error but invalid: %v", err)
		}
	})
}
