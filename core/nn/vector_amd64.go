//go:build !purego

package nn

import "golang.org/x/sys/cpu"

// Eight-wide AVX2 kernels for the elementwise work around the GEMMs
// (vector_amd64.s): ReLU, its derivative and MSE were together a tenth
// of a training step of the peers' autoencoder in Go loops. Each gives
// the same bits as the Go loop it replaces; the Go loops do the tails and
// everything on CPUs without AVX2.

//go:noescape
func reluAVX2(y *float32, n int)

//go:noescape
func reluDerivAVX2(dst, y *float32, n int)

//go:noescape
func mseAVX2(d, y, x *float32, n int, c float32, sums *[8]float32)

//go:noescape
func scaleAVX2(dst, src *float32, n int, a float32)

var hasAVX2 = cpu.X86.HasAVX2

// scaleVector sets the leading multiple of 8 entries of dst to a·src and
// returns how many it did.
func scaleVector(dst, src []float32, a float32) int {
	n := len(dst) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	scaleAVX2(&dst[0], &src[0], n, a)
	return n
}

// reluVector applies ReLU to the leading multiple of 8 entries of y and
// returns how many it did.
func reluVector(y []float32) int {
	n := len(y) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	reluAVX2(&y[0], n)
	return n
}

// reluDerivVector runs ReLU's mulDeriv on the leading multiple of 8
// entries of g and returns how many it did.
func reluDerivVector(g, y []float32) int {
	n := len(g) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	reluDerivAVX2(&g[0], &y[0], n)
	return n
}

// mseVector runs MSE's inner loop on the leading multiple of 8 entries
// and returns how many it did.
func mseVector(d, y, x []float32, c float32, sums *[8]float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	mseAVX2(&d[0], &y[0], &x[0], n, c, sums)
	return n
}
