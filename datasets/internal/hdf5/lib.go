package hdf5

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// ErrUnavailable is wrapped by the error Load and Open return when no
// libhdf5 can be loaded.
var ErrUnavailable = errors.New("hdf5: libhdf5 is not available")

// EnvLibrary names an environment variable that, when set, is the path or
// soname of the libhdf5 to load instead of the usual names.
const EnvLibrary = "DPSCOPE_HDF5"

// Names are the sonames tried, in order: Debian and Ubuntu ship the serial
// build as libhdf5_serial.so.N (libhdf5-103-1 in bookworm and jammy,
// libhdf5-310 in trixie), other distributions as libhdf5.so.N, and the
// unversioned names come with the -dev packages and Homebrew-like prefixes.
var Names = []string{
	"libhdf5_serial.so.103", "libhdf5.so.103",
	"libhdf5_serial.so.310", "libhdf5.so.310",
	"libhdf5_serial.so.320", "libhdf5.so.320",
	"libhdf5_serial.so.200", "libhdf5.so.200",
	"libhdf5_serial.so.100", "libhdf5.so.100",
	"libhdf5_serial.so", "libhdf5.so",
}

// InstallHint says how to get libhdf5, for messages.
const InstallHint = "install libhdf5: apt-get install libhdf5-103-1 (Debian 12, Ubuntu 22.04), " +
	"apt-get install libhdf5-310 (Debian 13), dnf install hdf5 (Fedora), or conda install hdf5; " +
	"or set " + EnvLibrary + " to the library's path"

// HDF5 constants of the C API (H5Ppublic.h, H5Spublic.h, H5Tpublic.h,
// H5Ipublic.h); they are the same in 1.10, 1.12 and 1.14.
const (
	h5pDefault = 0 // H5P_DEFAULT
	h5sAll     = 0 // H5S_ALL
	h5eDefault = 0 // H5E_DEFAULT
	h5fAccRDO  = 0 // H5F_ACC_RDONLY
	h5sSelSet  = 0 // H5S_SELECT_SET

	h5iGroup   = 2 // H5I_GROUP
	h5iDataset = 5 // H5I_DATASET
)

// Class is an HDF5 datatype class (H5T_class_t).
type Class int32

// The datatype classes a reader tells apart.
const (
	Integer Class = 0
	Float   Class = 1
	String  Class = 3
	Enum    Class = 8
)

// String names the class.
func (c Class) String() string {
	switch c {
	case Integer:
		return "integer"
	case Float:
		return "float"
	case String:
		return "string"
	case Enum:
		return "enum (boolean)"
	}
	return fmt.Sprintf("class %d", int32(c))
}

// lib holds the C functions. hid_t is int64 (HDF5 ≥ 1.10), herr_t and
// htri_t int32, hsize_t uint64.
type lib struct {
	path string

	open           func() int32
	esetAuto       func(estack int64, fn, data uintptr) int32
	eprint         func(estack int64, stream uintptr) int32
	eclear         func(estack int64) int32
	fopen          func(name string, flags uint32, fapl int64) int64
	fclose         func(id int64) int32
	lexists        func(loc int64, name string, lapl int64) int32
	oopen          func(loc int64, name string, lapl int64) int64
	oclose         func(id int64) int32
	igetType       func(id int64) int32
	ginfo          func(id int64, info unsafe.Pointer) int32
	lnameByIdx     func(loc int64, group string, idx, order int32, n uint64, name unsafe.Pointer, size uintptr, lapl int64) int64
	dopen          func(loc int64, name string, dapl int64) int64
	dclose         func(id int64) int32
	dspace         func(id int64) int64
	dtype          func(id int64) int64
	dread          func(id, mem, memSpace, fileSpace, xfer int64, buf unsafe.Pointer) int32
	dstorage       func(id int64) uint64
	doffset        func(id int64) uint64
	sndims         func(id int64) int32
	sdims          func(id int64, dims, maxdims unsafe.Pointer) int32
	screate        func(rank int32, dims, maxdims unsafe.Pointer) int64
	shyperslab     func(id int64, op int32, start, stride, count, block unsafe.Pointer) int32
	sclose         func(id int64) int32
	tclass         func(id int64) int32
	tsize          func(id int64) uintptr
	tvarstr        func(id int64) int32
	tcopy          func(id int64) int64
	tclose         func(id int64) int32
	aexists        func(obj int64, name string) int32
	aopen          func(obj int64, name string, aapl int64) int64
	aspace         func(id int64) int64
	atype          func(id int64) int64
	aread          func(id, mem int64, buf unsafe.Pointer) int32
	aclose         func(id int64) int32
	freeMemory     func(p uintptr) int32
	nativeFloat    int64                                  // H5T_NATIVE_FLOAT
	nativeInt64    int64                                  // H5T_NATIVE_INT64
	memstream      func(ptr, size unsafe.Pointer) uintptr // libc open_memstream, or nil
	cfclose        func(f uintptr) int32
	cfree          func(p uintptr)
	w              writeFns // the write API (write.go)
	versionMajor   uint32
	versionMinor   uint32
	versionRelease uint32
}

// mu serialises every use of the library (see the package doc).
var mu sync.Mutex

var loaded = sync.OnceValues(func() (*lib, error) {
	names := Names
	if p := os.Getenv(EnvLibrary); p != "" {
		names = []string{p}
	}
	return loadLib(names)
})

// Load loads libhdf5 once and returns its path and version, or an error
// wrapping ErrUnavailable that names what was tried and says how to
// install it.
func Load() (path, version string, err error) {
	l, err := loaded()
	if err != nil {
		return "", "", err
	}
	return l.path, fmt.Sprintf("%d.%d.%d", l.versionMajor, l.versionMinor, l.versionRelease), nil
}

// unavailable builds the error for a library that could not be loaded.
func unavailable(names []string, errs []error) error {
	// The first error says why (usually "cannot open shared object
	// file"); the others repeat it for each name.
	var first error = errors.New("no library names to try")
	if len(errs) > 0 {
		first = errs[0]
	}
	return fmt.Errorf("%w (tried %s): %v; %s", ErrUnavailable, strings.Join(names, ", "), first, InstallHint)
}
