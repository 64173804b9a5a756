package hdf5

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// File is an HDF5 file open for reading. It holds the library's lock and
// its goroutine's OS thread until Close, so it must be used and closed by
// the goroutine that opened it, and closed promptly (defer f.Close()).
type File struct {
	l      *lib
	id     int64
	path   string
	closed bool
}

// Error is a failed libhdf5 call: the file, the object (a path inside the
// file, "" for the file itself), the operation and what libhdf5 said.
type Error struct {
	File, Object, Op, Detail string
}

// Error returns "hdf5: FILE: OBJECT: OP: DETAIL".
func (e *Error) Error() string {
	s := "hdf5: " + e.File
	if e.Object != "" {
		s += ": " + e.Object
	}
	s += ": " + e.Op
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Open opens the HDF5 file at path read-only. It returns an error wrapping
// ErrUnavailable when libhdf5 cannot be loaded, and an *Error when the file
// is not a readable HDF5 file.
func Open(path string) (*File, error) {
	return lockFile(path, "cannot open as HDF5", func(l *lib) int64 {
		return l.fopen(path, h5fAccRDO, h5pDefault)
	})
}

// lockFile takes the library's lock and this goroutine's OS thread, as a
// File holds them until Close, and returns the File of the id that open
// returns; on a negative id it releases both and reports op as failed.
func lockFile(path, op string, open func(l *lib) int64) (*File, error) {
	l, err := loaded()
	if err != nil {
		return nil, err
	}
	mu.Lock()
	runtime.LockOSThread()
	// Thread-safe builds (Debian's) keep the automatic printing of errors
	// per thread: turn it off on this one, as Load did on its own.
	l.esetAuto(h5eDefault, 0, 0)
	f := &File{l: l, path: path}
	f.id = open(l)
	if f.id < 0 {
		err := f.fail("", op)
		f.unlock()
		return nil, err
	}
	return f, nil
}

func (f *File) unlock() {
	runtime.UnlockOSThread()
	mu.Unlock()
}

// Close closes the file and releases the library. Closing twice is a no-op.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	defer f.unlock()
	if f.l.fclose(f.id) < 0 {
		return f.fail("", "close")
	}
	return nil
}

// Path returns the file's path, as given to Open.
func (f *File) Path() string { return f.path }

// fail returns an *Error for a call that just failed, with libhdf5's
// error stack as its detail, and clears the stack.
func (f *File) fail(obj, op string) error {
	return &Error{File: f.path, Object: obj, Op: op, Detail: f.l.errorDetail()}
}

// errf returns an *Error the reader found itself.
func (f *File) errf(obj, format string, args ...any) error {
	return &Error{File: f.path, Object: obj, Op: fmt.Sprintf(format, args...)}
}

// errorDetail prints libhdf5's error stack into memory and returns its
// descriptions, outermost and innermost, or "" when libc's open_memstream
// is not at hand.
func (l *lib) errorDetail() string {
	defer l.eclear(h5eDefault)
	if l.memstream == nil {
		return ""
	}
	out := new(struct{ p, n uintptr })
	stream := l.memstream(unsafe.Pointer(&out.p), unsafe.Pointer(&out.n))
	if stream == 0 {
		return ""
	}
	l.eprint(h5eDefault, stream)
	l.cfclose(stream)
	runtime.KeepAlive(out)
	if out.p == 0 {
		return ""
	}
	defer l.cfree(out.p)
	text := string(unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&out.p))), min(out.n, 1<<16)))
	return summarizeStack(text)
}

// summarizeStack keeps the descriptions of a printed error stack's entries
// ("  #001: H5Dint.c line 1478 in H5D__open_name(): not found"), the first
// (what the API call could not do) and the last (why).
func summarizeStack(text string) string {
	var descs []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			continue
		}
		if _, d, ok := strings.Cut(line, "(): "); ok && d != "" {
			descs = append(descs, d)
		}
	}
	switch len(descs) {
	case 0:
		return ""
	case 1:
		return descs[0]
	}
	if descs[0] == descs[len(descs)-1] {
		return descs[0]
	}
	return descs[0] + ": " + descs[len(descs)-1]
}

// Exists reports whether path names an object: every component is checked
// in turn, because libhdf5 fails, rather than answers false, when a
// component before the last is missing.
func (f *File) Exists(path string) bool {
	cur := ""
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		cur += "/" + part
		if f.l.lexists(f.id, cur, h5pDefault) <= 0 {
			f.l.eclear(h5eDefault)
			return false
		}
	}
	return true
}

// IsGroup reports whether path is a group (false for a dataset or any
// other object); it fails when path cannot be opened.
func (f *File) IsGroup(path string) (bool, error) {
	id := f.l.oopen(f.id, path, h5pDefault)
	if id < 0 {
		return false, f.fail(path, "open")
	}
	defer f.l.oclose(id)
	return f.l.igetType(id) == h5iGroup, nil
}

// maxLinks bounds the members of a group Children lists.
const maxLinks = 1 << 20

// Children returns the names of the members of group path, in name order.
func (f *File) Children(path string) ([]string, error) {
	id := f.l.oopen(f.id, path, h5pDefault)
	if id < 0 {
		return nil, f.fail(path, "open")
	}
	defer f.l.oclose(id)
	if f.l.igetType(id) != h5iGroup {
		return nil, f.errf(path, "is not a group")
	}
	// H5G_info_t: storage type (int32, padded), nlinks (hsize_t), ….
	var info [8]uint64
	if f.l.ginfo(id, unsafe.Pointer(&info[0])) < 0 {
		return nil, f.fail(path, "group info")
	}
	n := info[1]
	if n > maxLinks {
		return nil, f.errf(path, "group has %d members, more than %d", n, maxLinks)
	}
	names := make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		size := f.l.lnameByIdx(id, ".", 0, 0, i, nil, 0, h5pDefault)
		if size < 0 || size > 1<<16 {
			return nil, f.fail(path, fmt.Sprintf("name of member %d", i))
		}
		buf := make([]byte, size+1)
		if f.l.lnameByIdx(id, ".", 0, 0, i, unsafe.Pointer(&buf[0]), uintptr(len(buf)), h5pDefault) < 0 {
			return nil, f.fail(path, fmt.Sprintf("name of member %d", i))
		}
		names = append(names, string(buf[:size]))
	}
	return names, nil
}
