//go:build !purego

package dpsgd

import (
	"math"
	"os"
	"strings"

	"github.com/dpscope/dpscope/core/compute"
	"golang.org/x/sys/cpu"
)

// AVX-512 kernels for DP-SGD's own work, in kernels_amd64.s: the noise
// and the ghost norms' dot products. Go cannot use vector registers, and a
// million draws a step made the noise, at 2.4 ns a draw in Go, about a
// sixth of a DP-SGD step of the peers' autoencoder. On CPUs with AVX2 but
// not AVX-512 the same work runs on AVX2 kernels (…AVX2), with the same
// results to the bit: without them an AVX2-only machine did the noise in
// Go, 3.5 ms a step of the peers' autoencoder against 1.0 with AVX-512.

// xoshiro8Fill steps the eight lanes of s steps times, writing each step's
// eight 64-bit words to dst.
//
//go:noescape
func xoshiro8Fill(s *[4][xoLanes]uint64, dst *uint32, steps int)

// zigAddAVX512 runs the ziggurat's fast path on the first n &^ 15 words
// (see zigAddScalar): g[k] += std·z for each draw that hits it, and in
// missed, per 16 draws, a bit for each that did not (g[k] unchanged).
//
//go:noescape
func zigAddAVX512(dst *float32, words *uint32, missed *uint16, n int, std float32, pairs *uint64, perm *[32]uint32)

// zigPairs holds (fast[i], w[i]) as one 64-bit word per layer, fast in
// the low half, for zigAddAVX512's gathers; zigPerm splits gathered pairs
// into their halves (even dwords, then odd ones).
var (
	zigPairs = func() (p [zigLayers]uint64) {
		for i := range p {
			p[i] = uint64(zig.fast[i]) | uint64(math.Float32bits(zig.w[i]))<<32
		}
		return p
	}()
	zigPerm = func() (p [32]uint32) {
		for k := range 16 {
			p[k], p[16+k] = uint32(2*k), uint32(2*k+1)
		}
		return p
	}()
)

// dotAVX512 adds x[j]·y[j] to acc[j mod 64] for the first n &^ 63 entries.
//
//go:noescape
func dotAVX512(x, y *float32, n int, acc *[dotLanes]float32)

// hasAVX512 reports whether the AVX-512 kernels run: the CPU has AVX-512F
// and compute.EnvGemm does not ask for the AVX2 kernel ("avx2"), which
// times dpscope on an AVX-512 CPU as on one without it: the noise and the
// dots then run on the AVX2 kernels as well (1.6 ns a draw against 0.9).
var hasAVX512 = cpu.X86.HasAVX512F && strings.TrimSpace(os.Getenv(compute.EnvGemm)) != "avx2"

// hasAVX2 reports whether the AVX2 kernels run (where AVX-512 does not).
var hasAVX2 = cpu.X86.HasAVX2

// dotAVX2 is dotAVX512 with AVX2.
//
//go:noescape
func dotAVX2(x, y *float32, n int, acc *[dotLanes]float32)

// xoshiro8FillAVX2 is xoshiro8Fill with AVX2.
//
//go:noescape
func xoshiro8FillAVX2(s *[4][xoLanes]uint64, dst *uint32, steps int)

// zigAddAVX2 is zigAddAVX512 with AVX2.
//
//go:noescape
func zigAddAVX2(dst *float32, words *uint32, missed *uint16, n int, std float32, pairs *uint64)

// dotVector runs dot's loop on the leading multiple of 64 entries with the
// vector kernel and returns how many it did.
func dotVector(x, y []float32, acc *[dotLanes]float32) int {
	n := len(x) &^ (dotLanes - 1)
	switch {
	case n == 0:
		return 0
	case hasAVX512:
		dotAVX512(&x[0], &y[0], n, acc)
	case hasAVX2:
		dotAVX2(&x[0], &y[0], n, acc)
	default:
		return 0
	}
	return n
}

// xoshiro8Vector fills the largest multiple of 16 words of dst it can with
// the vector kernel and returns how many it filled.
func xoshiro8Vector(x *xoshiro8, dst []uint32) int {
	steps := len(dst) / (2 * xoLanes)
	switch {
	case steps == 0:
		return 0
	case hasAVX512:
		xoshiro8Fill(&x.s, &dst[0], steps)
	case hasAVX2:
		xoshiro8FillAVX2(&x.s, &dst[0], steps)
	default:
		return 0
	}
	return steps * 2 * xoLanes
}

// zigAddVector runs the fast path on the first len(g) &^ 15 draws with
// the vector kernel, marking misses in missed, and returns how many draws
// it covered.
func zigAddVector(g []float32, words []uint32, missed []uint16, std float32) int {
	n := len(g) &^ 15
	switch {
	case n == 0:
		return 0
	case hasAVX512:
		zigAddAVX512(&g[0], &words[0], &missed[0], n, std, &zigPairs[0], &zigPerm)
	case hasAVX2:
		zigAddAVX2(&g[0], &words[0], &missed[0], n, std, &zigPairs[0])
	default:
		return 0
	}
	return n
}
