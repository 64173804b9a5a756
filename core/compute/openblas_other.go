//go:build !linux

package compute

import (
	"errors"

	"gonum.org/v1/gonum/blas/gonum"
)

// openBLAS stands in for the OpenBLAS backend on systems where it is not
// loaded; loadOpenBLAS always fails there.
type openBLAS struct {
	gonum.Implementation
	path               string
	minGemm, minGemv   int
	minDgemm, minDgemv int
	kern               *asmKernel // never set: the kernel runs with OpenBLAS only
}

func loadOpenBLAS([]string) (*openBLAS, error) {
	return nil, errors.New("loading OpenBLAS is supported on linux only")
}

func (o *openBLAS) threads() int   { return 1 }
func (o *openBLAS) setThreads(int) {}
func (o *openBLAS) config() string { return "OpenBLAS" }
