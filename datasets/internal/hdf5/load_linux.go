//go:build linux

package hdf5

import (
	"fmt"
	"unsafe"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/ebitengine/purego"
)

// loadLib opens the first of names that loads and exports every function
// lib needs, initialises it and turns off its printing of errors to stderr
// (they are returned as *Error instead).
func loadLib(names []string) (*lib, error) {
	var errs []error
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l, err := bind(h, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		return l, nil
	}
	return nil, unavailable(names, errs)
}

func bind(h uintptr, name string) (*lib, error) {
	l := &lib{path: name}
	var getVersion func(maj, min, rel unsafe.Pointer) int32
	fns := []struct {
		sym string
		fn  any
	}{
		{"H5open", &l.open}, {"H5Eset_auto2", &l.esetAuto}, {"H5Eprint2", &l.eprint}, {"H5Eclear2", &l.eclear},
		{"H5Fopen", &l.fopen}, {"H5Fclose", &l.fclose}, {"H5Lexists", &l.lexists},
		{"H5Oopen", &l.oopen}, {"H5Oclose", &l.oclose}, {"H5Iget_type", &l.igetType},
		{"H5Gget_info", &l.ginfo}, {"H5Lget_name_by_idx", &l.lnameByIdx},
		{"H5Dopen2", &l.dopen}, {"H5Dclose", &l.dclose}, {"H5Dget_space", &l.dspace}, {"H5Dget_type", &l.dtype},
		{"H5Dread", &l.dread}, {"H5Dget_storage_size", &l.dstorage}, {"H5Dget_offset", &l.doffset},
		{"H5Sget_simple_extent_ndims", &l.sndims}, {"H5Sget_simple_extent_dims", &l.sdims},
		{"H5Screate_simple", &l.screate}, {"H5Sselect_hyperslab", &l.shyperslab}, {"H5Sclose", &l.sclose},
		{"H5Tget_class", &l.tclass}, {"H5Tget_size", &l.tsize}, {"H5Tis_variable_str", &l.tvarstr},
		{"H5Tcopy", &l.tcopy}, {"H5Tclose", &l.tclose},
		{"H5Aexists", &l.aexists}, {"H5Aopen", &l.aopen}, {"H5Aget_space", &l.aspace}, {"H5Aget_type", &l.atype},
		{"H5Aread", &l.aread}, {"H5Aclose", &l.aclose}, {"H5free_memory", &l.freeMemory},
		{"H5get_libversion", &getVersion},
	}
	for _, f := range fns {
		addr, err := purego.Dlsym(h, f.sym)
		if err != nil {
			return nil, err
		}
		purego.RegisterFunc(f.fn, addr)
	}
	if l.open() < 0 {
		return nil, fmt.Errorf("H5open failed")
	}
	// The native types are global hid_t variables that H5open sets.
	for _, g := range []struct {
		sym string
		id  *int64
	}{{"H5T_NATIVE_FLOAT_g", &l.nativeFloat}, {"H5T_NATIVE_INT64_g", &l.nativeInt64}} {
		addr, err := purego.Dlsym(h, g.sym)
		if err != nil {
			return nil, err
		}
		*g.id = **(**int64)(unsafe.Pointer(&addr))
	}
	if err := bindWrite(h, &l.w); err != nil {
		return nil, err
	}
	getVersion(unsafe.Pointer(&l.versionMajor), unsafe.Pointer(&l.versionMinor), unsafe.Pointer(&l.versionRelease))
	if l.versionMajor != 1 || l.versionMinor < 10 {
		// hid_t became 64-bit in 1.10, so older libraries would be
		// called with the wrong argument sizes; 2.x is untested.
		return nil, fmt.Errorf("libhdf5 %d.%d.%d is not supported, need 1.10 to 1.14", l.versionMajor, l.versionMinor, l.versionRelease)
	}
	l.esetAuto(h5eDefault, 0, 0)
	if p := mappedPath(h, "H5open"); p != "" {
		l.path = p
	}
	bindLibc(l)
	return l, nil
}

// bindLibc finds open_memstream, fclose and free, with which errorDetail
// captures libhdf5's error stack; without them errors carry no detail.
func bindLibc(l *lib) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return
	}
	var ms, fc, fr uintptr
	for _, s := range []struct {
		name string
		addr *uintptr
	}{{"open_memstream", &ms}, {"fclose", &fc}, {"free", &fr}} {
		if *s.addr, err = purego.Dlsym(h, s.name); err != nil {
			return
		}
	}
	purego.RegisterFunc(&l.memstream, ms)
	purego.RegisterFunc(&l.cfclose, fc)
	purego.RegisterFunc(&l.cfree, fr)
}

// mappedPath returns the file that holds symbol sym of h, read from
// /proc/self/maps, or "".
func mappedPath(h uintptr, sym string) string {
	addr, err := purego.Dlsym(h, sym)
	if err != nil {
		return ""
	}
	return compute.MappedPath(addr)
}
