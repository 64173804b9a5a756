package cluster

import "github.com/dpscope/dpscope/core/compute"

// init makes gonum's blas64, which PCA, mat.SVD, mat.EigenSym and the
// distance products of Silhouette and NeighbourhoodPurity call, the float64
// backend of core/compute (OpenBLAS's dgemm_ for large products when
// DPSCOPE_BLAS allows it). Package initialisation runs in one goroutine
// before main, which is when compute.UseOpenBLAS64 is safe to call.
func init() { compute.UseOpenBLAS64() }
