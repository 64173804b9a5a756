package hdf5

import (
	"runtime"
	"strings"
	"unsafe"
)

// writeFns are the C functions and global types of libhdf5's write API.
type writeFns struct {
	fcreate      func(name string, flags uint32, fcpl, fapl int64) int64
	gcreate      func(loc int64, name string, lcpl, gcpl, gapl int64) int64
	dcreate      func(loc int64, name string, typ, space, lcpl, dcpl, dapl int64) int64
	dwrite       func(id, mem, memSpace, fileSpace, xfer int64, buf unsafe.Pointer) int32
	acreate      func(obj int64, name string, typ, space, acpl, aapl int64) int64
	awrite       func(id, mem int64, buf unsafe.Pointer) int32
	screate      func(class int32) int64
	tsetSize     func(id int64, size uintptr) int32
	tsetCset     func(id int64, cset int32) int32
	tenumCreate  func(base int64) int64
	tenumInsert  func(id int64, name string, value unsafe.Pointer) int32
	cString      int64 // H5T_C_S1
	nativeDouble int64 // H5T_NATIVE_DOUBLE
	nativeInt32  int64 // H5T_NATIVE_INT
	nativeInt8   int64 // H5T_NATIVE_SCHAR
}

// Constants of the write API (H5Fpublic.h, H5Spublic.h, H5Tpublic.h).
const (
	h5fAccExcl  = 0x0004      // H5F_ACC_EXCL: fail if the file exists
	h5sScalar   = 0           // H5S_SCALAR
	h5tVariable = ^uintptr(0) // H5T_VARIABLE
	h5tCsetUTF8 = 1           // H5T_CSET_UTF8
)

// Create creates a new HDF5 file at path for writing; it fails when path
// exists, so a writer never truncates a file it did not make. Like Open,
// the File holds the library until Close. The readers work on it too.
func Create(path string) (*File, error) {
	return lockFile(path, "cannot create", func(l *lib) int64 {
		return l.w.fcreate(path, h5fAccExcl, h5pDefault, h5pDefault)
	})
}

// CreateGroup makes group path (its parent must exist).
func (f *File) CreateGroup(path string) error {
	id := f.l.w.gcreate(f.id, path, h5pDefault, h5pDefault, h5pDefault)
	if id < 0 {
		return f.fail(path, "create group")
	}
	f.l.oclose(id)
	return nil
}

// simple makes a simple dataspace of dims; nil dims make a scalar one.
func (f *File) simple(obj string, dims []int) (int64, error) {
	var s int64
	if dims == nil {
		s = f.l.w.screate(h5sScalar)
	} else {
		d := make([]uint64, len(dims))
		for i, v := range dims {
			d[i] = uint64(v)
		}
		s = f.l.screate(int32(len(d)), unsafe.Pointer(&d[0]), nil)
	}
	if s < 0 {
		return 0, f.fail(obj, "create dataspace")
	}
	return s, nil
}

// writeDataset creates dataset path of type typ and shape dims and writes
// buf, which holds the values in memory type typ.
func (f *File) writeDataset(path string, typ int64, dims []int, buf unsafe.Pointer) error {
	space, err := f.simple(path, dims)
	if err != nil {
		return err
	}
	defer f.l.sclose(space)
	d := f.l.w.dcreate(f.id, path, typ, space, h5pDefault, h5pDefault, h5pDefault)
	if d < 0 {
		return f.fail(path, "create dataset")
	}
	defer f.l.dclose(d)
	if buf != nil && f.l.w.dwrite(d, typ, h5sAll, h5sAll, h5pDefault, buf) < 0 {
		return f.fail(path, "write")
	}
	return nil
}

// checkShape makes sure dims hold n values.
func (f *File) checkShape(path string, dims []int, n int) error {
	m := 1
	for _, d := range dims {
		if d < 0 {
			return f.errf(path, "negative dimension %d", d)
		}
		m *= d
	}
	if m != n {
		return f.errf(path, "shape %v holds %d values, got %d", dims, m, n)
	}
	return nil
}

// WriteFloat32 writes data as a float32 dataset of shape dims (row-major).
func (f *File) WriteFloat32(path string, dims []int, data []float32) error {
	if err := f.checkShape(path, dims, len(data)); err != nil {
		return err
	}
	defer runtime.KeepAlive(data)
	return f.writeDataset(path, f.l.nativeFloat, dims, dataPtr(data))
}

// WriteFloat64 writes data as a float64 dataset of shape dims.
func (f *File) WriteFloat64(path string, dims []int, data []float64) error {
	if err := f.checkShape(path, dims, len(data)); err != nil {
		return err
	}
	defer runtime.KeepAlive(data)
	return f.writeDataset(path, f.l.w.nativeDouble, dims, dataPtr(data))
}

// WriteInt32 writes data as a 1-D int32 dataset.
func (f *File) WriteInt32(path string, data []int32) error {
	defer runtime.KeepAlive(data)
	return f.writeDataset(path, f.l.w.nativeInt32, []int{len(data)}, dataPtr(data))
}

// dataPtr is the address of s's first element, or nil when s is empty
// (libhdf5 then writes nothing).
func dataPtr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// vlenString returns a new variable-length UTF-8 string type, which is
// what h5py writes for Python str and what anndata reads.
func (f *File) vlenString(obj string) (int64, error) {
	t := f.l.tcopy(f.l.w.cString)
	if t < 0 {
		return 0, f.fail(obj, "copy string type")
	}
	if f.l.w.tsetSize(t, h5tVariable) < 0 || f.l.w.tsetCset(t, h5tCsetUTF8) < 0 {
		f.l.tclose(t)
		return 0, f.fail(obj, "make string type")
	}
	return t, nil
}

// cStrings lays out strs as NUL-terminated bytes and a table of pointers
// into them, the memory form of variable-length strings. The bytes are Go
// memory that the garbage collector does not move; the caller keeps them
// alive until libhdf5 has copied them.
func (f *File) cStrings(obj string, strs []string) ([]byte, []uintptr, error) {
	n := 0
	for i, s := range strs {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, nil, f.errf(obj, "string %d holds a NUL byte, which HDF5 strings cannot", i+1)
		}
		n += len(s) + 1
	}
	buf := make([]byte, n)
	ptrs := make([]uintptr, len(strs))
	at := 0
	for i, s := range strs {
		copy(buf[at:], s)
		ptrs[i] = uintptr(unsafe.Pointer(&buf[at]))
		at += len(s) + 1
	}
	return buf, ptrs, nil
}

// WriteStrings writes strs as a 1-D dataset of variable-length UTF-8
// strings.
func (f *File) WriteStrings(path string, strs []string) error {
	buf, ptrs, err := f.cStrings(path, strs)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(buf)
	t, err := f.vlenString(path)
	if err != nil {
		return err
	}
	defer f.l.tclose(t)
	return f.writeDataset(path, t, []int{len(strs)}, dataPtr(ptrs))
}

// writeAttr creates attribute name on object obj, of type typ and shape
// dims (nil: scalar), and writes buf.
func (f *File) writeAttr(obj, name string, typ int64, dims []int, buf unsafe.Pointer) error {
	o := f.l.oopen(f.id, obj, h5pDefault)
	if o < 0 {
		return f.fail(obj, "open")
	}
	defer f.l.oclose(o)
	space, err := f.simple(obj, dims)
	if err != nil {
		return err
	}
	defer f.l.sclose(space)
	a := f.l.w.acreate(o, name, typ, space, h5pDefault, h5pDefault)
	if a < 0 {
		return f.fail(obj, "create attribute "+name)
	}
	defer f.l.aclose(a)
	if f.l.w.awrite(a, typ, buf) < 0 {
		return f.fail(obj, "write attribute "+name)
	}
	return nil
}

// SetAttrString sets a scalar string attribute, as h5py does for a str.
func (f *File) SetAttrString(obj, name, value string) error {
	return f.setAttrStrings(obj, name, []string{value}, nil)
}

// SetAttrStrings sets a 1-D string attribute (anndata's column-order).
// An empty list becomes an empty float64 array, as h5py writes one.
func (f *File) SetAttrStrings(obj, name string, values []string) error {
	if len(values) == 0 {
		// libhdf5 wants a buffer even for no elements.
		var none float64
		return f.writeAttr(obj, name, f.l.w.nativeDouble, []int{0}, unsafe.Pointer(&none))
	}
	return f.setAttrStrings(obj, name, values, []int{len(values)})
}

func (f *File) setAttrStrings(obj, name string, values []string, dims []int) error {
	buf, ptrs, err := f.cStrings(obj, values)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(buf)
	t, err := f.vlenString(obj)
	if err != nil {
		return err
	}
	defer f.l.tclose(t)
	return f.writeAttr(obj, name, t, dims, dataPtr(ptrs))
}

// SetAttrBool sets a scalar boolean attribute the way h5py stores numpy's
// bool: an 8-bit enum with members FALSE = 0 and TRUE = 1 (pandas refuses
// a plain integer where it wants a bool).
func (f *File) SetAttrBool(obj, name string, v bool) error {
	t := f.l.w.tenumCreate(f.l.w.nativeInt8)
	if t < 0 {
		return f.fail(obj, "create enum type")
	}
	defer f.l.tclose(t)
	zero, one := int8(0), int8(1)
	if f.l.w.tenumInsert(t, "FALSE", unsafe.Pointer(&zero)) < 0 || f.l.w.tenumInsert(t, "TRUE", unsafe.Pointer(&one)) < 0 {
		return f.fail(obj, "make enum type")
	}
	val := int8(0)
	if v {
		val = 1
	}
	return f.writeAttr(obj, name, t, nil, unsafe.Pointer(&val))
}
