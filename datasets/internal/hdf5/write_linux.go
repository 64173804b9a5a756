//go:build linux

package hdf5

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// bindWrite binds the functions and global types Create and the writers
// need; H5open must have run (the globals are set by it).
func bindWrite(h uintptr, w *writeFns) error {
	fns := []struct {
		sym string
		fn  any
	}{
		{"H5Fcreate", &w.fcreate}, {"H5Gcreate2", &w.gcreate}, {"H5Dcreate2", &w.dcreate},
		{"H5Dwrite", &w.dwrite}, {"H5Acreate2", &w.acreate}, {"H5Awrite", &w.awrite},
		{"H5Screate", &w.screate}, {"H5Tset_size", &w.tsetSize}, {"H5Tset_cset", &w.tsetCset},
		{"H5Tenum_create", &w.tenumCreate}, {"H5Tenum_insert", &w.tenumInsert},
	}
	for _, f := range fns {
		addr, err := purego.Dlsym(h, f.sym)
		if err != nil {
			return err
		}
		purego.RegisterFunc(f.fn, addr)
	}
	for _, g := range []struct {
		sym string
		id  *int64
	}{{"H5T_C_S1_g", &w.cString}, {"H5T_NATIVE_DOUBLE_g", &w.nativeDouble}, {"H5T_NATIVE_INT_g", &w.nativeInt32}, {"H5T_NATIVE_SCHAR_g", &w.nativeInt8}} {
		addr, err := purego.Dlsym(h, g.sym)
		if err != nil {
			return err
		}
		*g.id = **(**int64)(unsafe.Pointer(&addr))
	}
	return nil
}
