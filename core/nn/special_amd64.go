//go:build !purego

package nn

// The AVX2 kernels of exp32 and log32 (special_amd64.s).

//go:noescape
func exp32AVX2(dst, src *float32, n int)

//go:noescape
func log32AVX2(dst, src *float32, n int)

// exp32Vector sets the leading multiple of 8 entries of dst to exp32 of
// src's and returns how many it did.
func exp32Vector(dst, src []float32) int {
	n := len(dst) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	exp32AVX2(&dst[0], &src[0], n)
	return n
}

// log32Vector sets the leading multiple of 8 entries of dst to log32 of
// src's and returns how many it did.
func log32Vector(dst, src []float32) int {
	n := len(dst) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	log32AVX2(&dst[0], &src[0], n)
	return n
}
