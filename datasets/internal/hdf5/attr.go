package hdf5

import "unsafe"

// withAttr opens attribute name of object obj and calls fn; found is false,
// with no error, when obj has no such attribute.
func (f *File) withAttr(obj, name string, fn func(a, typ int64, info Info) error) (found bool, err error) {
	where := obj + "@" + name
	o := f.l.oopen(f.id, obj, h5pDefault)
	if o < 0 {
		return false, f.fail(obj, "open")
	}
	defer f.l.oclose(o)
	switch ex := f.l.aexists(o, name); {
	case ex < 0:
		return false, f.fail(where, "attribute exists")
	case ex == 0:
		return false, nil
	}
	a := f.l.aopen(o, name, h5pDefault)
	if a < 0 {
		return true, f.fail(where, "open attribute")
	}
	defer f.l.aclose(a)
	space := f.l.aspace(a)
	if space < 0 {
		return true, f.fail(where, "dataspace")
	}
	defer f.l.sclose(space)
	typ := f.l.atype(a)
	if typ < 0 {
		return true, f.fail(where, "datatype")
	}
	defer f.l.tclose(typ)
	var info Info
	if err := f.extent(where, space, &info); err != nil {
		return true, err
	}
	if err := f.typeInfo(where, typ, &info); err != nil {
		return true, err
	}
	if info.Len > maxAttr {
		return true, f.errf(where, "attribute has %d elements, more than %d", info.Len, maxAttr)
	}
	return true, fn(a, typ, info)
}

// AttrStrings reads string attribute name of object obj (a scalar or an
// array). A numeric attribute with no elements (how h5py writes an empty
// list) reads as none. found is false when obj has no such attribute.
func (f *File) AttrStrings(obj, name string) (vals []string, found bool, err error) {
	found, err = f.withAttr(obj, name, func(a, typ int64, info Info) error {
		if info.Class != String {
			if info.Len == 0 {
				return nil
			}
			return f.errf(obj+"@"+name, "attribute holds %s values, want strings", info.Class)
		}
		var err error
		vals, err = f.readStrings(obj+"@"+name, info, typ, func(mem int64, buf unsafe.Pointer) int32 {
			return f.l.aread(a, mem, buf)
		})
		return err
	})
	return vals, found, err
}

// AttrInts reads integer attribute name of object obj as int64.
func (f *File) AttrInts(obj, name string) (vals []int64, found bool, err error) {
	found, err = f.withAttr(obj, name, func(a, _ int64, info Info) error {
		if info.Class != Integer {
			return f.errf(obj+"@"+name, "attribute holds %s values, want integers", info.Class)
		}
		vals = make([]int64, info.Len)
		if info.Len > 0 && f.l.aread(a, f.l.nativeInt64, unsafe.Pointer(&vals[0])) < 0 {
			return f.fail(obj+"@"+name, "read attribute")
		}
		return nil
	})
	return vals, found, err
}
