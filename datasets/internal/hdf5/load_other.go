//go:build !linux

package hdf5

import "fmt"

func loadLib(names []string) (*lib, error) {
	return nil, fmt.Errorf("%w: reading HDF5 files is supported on linux only", ErrUnavailable)
}
