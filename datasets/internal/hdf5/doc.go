// Package hdf5 reads HDF5 files through the system's libhdf5, loaded at run
// time with purego (no cgo), for the .h5ad and Cell Ranger .h5 readers of
// package datasets. It binds only what those readers need: opening a file
// read-only, walking groups, reading attributes, and reading whole numeric
// and string datasets or row blocks of 2-D ones.
//
// The library is optional, like OpenBLAS: Load reports ErrUnavailable,
// wrapped with the names tried and how to install it, when no libhdf5 can
// be opened. Only Linux is supported.
//
// libhdf5 is not safe for concurrent use in its usual (serial) builds, and
// it keeps its error stack per thread, so an open File holds a process-wide
// lock and its goroutine's OS thread until Close: files are read one at a
// time. Every failed call becomes an *Error naming the file, the object and
// what libhdf5 said; no read allocates more than the dataset's stored size
// allows (see checkSize), so a corrupted shape cannot exhaust memory.
package hdf5
