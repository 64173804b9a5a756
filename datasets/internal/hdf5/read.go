package hdf5

import (
	"strings"
	"unsafe"
)

// Info describes a dataset or attribute: its shape, element class and
// element size in the file, and the bytes it occupies in the file.
type Info struct {
	Dims      []int // nil for a scalar
	Len       int   // number of elements: the product of Dims, 1 for a scalar
	Class     Class
	Size      int    // bytes per element in the file (a pointer's for variable-length strings)
	VarString bool   // variable-length strings
	Stored    uint64 // bytes stored in the file (datasets only; compressed size when filtered)
}

// Limits on what a corrupted file can make a reader allocate.
const (
	maxRank = 32
	// maxElements bounds any one dimension and any dataset's length.
	maxElements = 1 << 40
	// maxUnchecked is the logical size in bytes up to which a dataset is
	// read whatever its stored size; above it the logical size may be at
	// most maxRatio times the stored size. Deflate, the filter anndata and
	// Cell Ranger use, cannot compress by more than 1032:1, so a larger
	// ratio is a shape that the stored data cannot fill.
	maxUnchecked = 64 << 20
	maxRatio     = 1100
	// maxAttr bounds the elements of an attribute.
	maxAttr = 1 << 20
	// maxString bounds one variable-length string.
	maxString = 1 << 20
)

// extent reads the dimensions of a dataspace.
func (f *File) extent(obj string, space int64, info *Info) error {
	rank := f.l.sndims(space)
	if rank < 0 {
		return f.fail(obj, "dataspace rank")
	}
	if rank > maxRank {
		return f.errf(obj, "rank %d, more than %d", rank, maxRank)
	}
	info.Len = 1
	if rank == 0 {
		return nil
	}
	dims := make([]uint64, rank)
	if f.l.sdims(space, unsafe.Pointer(&dims[0]), nil) < 0 {
		return f.fail(obj, "dataspace dimensions")
	}
	info.Dims = make([]int, rank)
	for i, d := range dims {
		if d > maxElements || (d > 0 && uint64(info.Len) > maxElements/d) {
			return f.errf(obj, "shape %v holds more than %d elements", dims, uint64(maxElements))
		}
		info.Dims[i] = int(d)
		info.Len *= int(d)
	}
	return nil
}

// typeInfo reads the class and size of a datatype.
func (f *File) typeInfo(obj string, typ int64, info *Info) error {
	c := f.l.tclass(typ)
	if c < 0 {
		return f.fail(obj, "datatype class")
	}
	info.Class = Class(c)
	info.Size = int(f.l.tsize(typ))
	if info.Size <= 0 || info.Size > 1<<16 {
		return f.fail(obj, "datatype size")
	}
	if info.Class == String {
		v := f.l.tvarstr(typ)
		if v < 0 {
			return f.fail(obj, "string type")
		}
		info.VarString = v > 0
	}
	return nil
}

// withDataset opens dataset path, its dataspace and datatype, and calls fn.
func (f *File) withDataset(path string, fn func(d, space, typ int64, info Info) error) error {
	d := f.l.dopen(f.id, path, h5pDefault)
	if d < 0 {
		return f.fail(path, "open dataset")
	}
	defer f.l.dclose(d)
	space := f.l.dspace(d)
	if space < 0 {
		return f.fail(path, "dataspace")
	}
	defer f.l.sclose(space)
	typ := f.l.dtype(d)
	if typ < 0 {
		return f.fail(path, "datatype")
	}
	defer f.l.tclose(typ)
	var info Info
	if err := f.extent(path, space, &info); err != nil {
		return err
	}
	if err := f.typeInfo(path, typ, &info); err != nil {
		return err
	}
	info.Stored = f.l.dstorage(d)
	return fn(d, space, typ, info)
}

// Info describes dataset path.
func (f *File) Info(path string) (Info, error) {
	var out Info
	err := f.withDataset(path, func(_, _, _ int64, info Info) error {
		out = info
		return nil
	})
	return out, err
}

// Offset returns the byte offset of dataset path's data in the file, and
// false when the data is not stored in one contiguous block (chunked or
// not yet written). Tests use it to corrupt data and leave metadata whole.
func (f *File) Offset(path string) (offset, size uint64, ok bool) {
	d := f.l.dopen(f.id, path, h5pDefault)
	if d < 0 {
		f.l.eclear(h5eDefault)
		return 0, 0, false
	}
	defer f.l.dclose(d)
	off := f.l.doffset(d)
	f.l.eclear(h5eDefault)
	return off, f.l.dstorage(d), off != ^uint64(0)
}

// checkSize refuses to allocate for a dataset whose shape its stored bytes
// cannot fill (see maxRatio).
func (f *File) checkSize(path string, info Info, elem int) error {
	logical := uint64(info.Len) * uint64(elem)
	if logical > maxUnchecked && logical/maxRatio > info.Stored {
		return f.errf(path, "shape %v (%d bytes) is far larger than the %d bytes stored: the file is corrupted", info.Dims, logical, info.Stored)
	}
	return nil
}

// checkNumeric fails unless info is an integer or float dataset.
func (f *File) checkNumeric(path string, info Info, integerOnly bool) error {
	if info.Class == Integer || (!integerOnly && info.Class == Float) {
		return nil
	}
	want := "numbers"
	if integerOnly {
		want = "integers"
	}
	return f.errf(path, "holds %s values, want %s", info.Class, want)
}

// ReadFloat32 reads the whole of numeric dataset path as float32, in
// row-major order, converted by libhdf5 from the stored type.
func (f *File) ReadFloat32(path string) ([]float32, Info, error) {
	var out []float32
	var inf Info
	err := f.withDataset(path, func(d, _, _ int64, info Info) error {
		inf = info
		if err := f.checkNumeric(path, info, false); err != nil {
			return err
		}
		if err := f.checkSize(path, info, info.Size); err != nil {
			return err
		}
		out = make([]float32, info.Len)
		if info.Len == 0 {
			return nil
		}
		if f.l.dread(d, f.l.nativeFloat, h5sAll, h5sAll, h5pDefault, unsafe.Pointer(&out[0])) < 0 {
			return f.fail(path, "read")
		}
		return nil
	})
	return out, inf, err
}

// ReadInt64 reads the whole of integer dataset path as int64.
func (f *File) ReadInt64(path string) ([]int64, Info, error) {
	var out []int64
	var inf Info
	err := f.withDataset(path, func(d, _, _ int64, info Info) error {
		inf = info
		if err := f.checkNumeric(path, info, true); err != nil {
			return err
		}
		if err := f.checkSize(path, info, info.Size); err != nil {
			return err
		}
		out = make([]int64, info.Len)
		if info.Len == 0 {
			return nil
		}
		if f.l.dread(d, f.l.nativeInt64, h5sAll, h5sAll, h5pDefault, unsafe.Pointer(&out[0])) < 0 {
			return f.fail(path, "read")
		}
		return nil
	})
	return out, inf, err
}

// ReadRows reads rows [row0, row0+len(dst)/cols) of the 2-D numeric
// dataset path, which must have cols columns, into dst as float32. The
// caller checks the shape with Info first.
func (f *File) ReadRows(path string, row0, cols int, dst []float32) error {
	return f.withDataset(path, func(d, space, _ int64, info Info) error {
		if err := f.checkNumeric(path, info, false); err != nil {
			return err
		}
		if cols <= 0 || len(dst)%cols != 0 || len(info.Dims) != 2 || info.Dims[1] != cols || row0 < 0 || row0+len(dst)/cols > info.Dims[0] {
			return f.errf(path, "rows %d..%d of %d columns are outside shape %v", row0, row0+len(dst)/max(cols, 1), cols, info.Dims)
		}
		if len(dst) == 0 {
			return nil
		}
		start := [2]uint64{uint64(row0), 0}
		count := [2]uint64{uint64(len(dst) / cols), uint64(cols)}
		if f.l.shyperslab(space, h5sSelSet, unsafe.Pointer(&start[0]), nil, unsafe.Pointer(&count[0]), nil) < 0 {
			return f.fail(path, "select rows")
		}
		mem := f.l.screate(2, unsafe.Pointer(&count[0]), nil)
		if mem < 0 {
			return f.fail(path, "memory dataspace")
		}
		defer f.l.sclose(mem)
		if f.l.dread(d, f.l.nativeFloat, mem, space, h5pDefault, unsafe.Pointer(&dst[0])) < 0 {
			return f.fail(path, "read rows")
		}
		return nil
	})
}

// ReadStrings reads the whole of string dataset path, fixed or variable
// length, in row-major order.
func (f *File) ReadStrings(path string) ([]string, error) {
	var out []string
	err := f.withDataset(path, func(d, _, typ int64, info Info) error {
		if info.Class != String {
			return f.errf(path, "holds %s values, want strings", info.Class)
		}
		// A variable-length string is stored as a 16-byte heap reference.
		elem := info.Size
		if info.VarString {
			elem = 16
		}
		if err := f.checkSize(path, info, elem); err != nil {
			return err
		}
		var err error
		out, err = f.readStrings(path, info, typ, func(mem int64, buf unsafe.Pointer) int32 {
			return f.l.dread(d, mem, h5sAll, h5sAll, h5pDefault, buf)
		})
		return err
	})
	return out, err
}

// readStrings reads info.Len strings of file type typ with read, which
// reads into buf in memory type mem.
func (f *File) readStrings(obj string, info Info, typ int64, read func(mem int64, buf unsafe.Pointer) int32) ([]string, error) {
	out := make([]string, info.Len)
	if info.Len == 0 {
		return out, nil
	}
	// The memory type is the file's own, so libhdf5 converts nothing (it
	// converts no character sets).
	mem := f.l.tcopy(typ)
	if mem < 0 {
		return nil, f.fail(obj, "copy string type")
	}
	defer f.l.tclose(mem)
	if !info.VarString {
		buf := make([]byte, info.Len*info.Size)
		if read(mem, unsafe.Pointer(&buf[0])) < 0 {
			return nil, f.fail(obj, "read")
		}
		for i := range out {
			s := buf[i*info.Size : (i+1)*info.Size]
			if k := strings.IndexByte(string(s), 0); k >= 0 {
				s = s[:k]
			}
			out[i] = strings.TrimRight(string(s), " ")
		}
		return out, nil
	}
	ptrs := make([]uintptr, info.Len)
	if read(mem, unsafe.Pointer(&ptrs[0])) < 0 {
		return nil, f.fail(obj, "read")
	}
	var tooLong int = -1
	for i, p := range ptrs {
		if p == 0 {
			continue
		}
		s, ok := cString(p)
		if !ok && tooLong < 0 {
			tooLong = i
		}
		out[i] = s
		f.l.freeMemory(p)
	}
	if tooLong >= 0 {
		return nil, f.errf(obj, "string %d is longer than %d bytes", tooLong, maxString)
	}
	return out, nil
}

// cString copies the NUL-terminated string at p, at most maxString bytes;
// ok is false when it is longer.
func cString(p uintptr) (string, bool) {
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	for n := 0; n <= maxString; n++ {
		if *(*byte)(unsafe.Add(base, n)) == 0 {
			return string(unsafe.Slice((*byte)(base), n)), true
		}
	}
	return "", false
}
