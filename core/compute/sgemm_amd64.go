//go:build !purego

package compute

import "golang.org/x/sys/cpu"

// sgemmKernel is the 12×32 tile kernel of sgemm_amd64.s (see sgemm.go).
//
//go:noescape
func sgemmKernel(k int, a, b, c *float32, ldc int, add bool)

// hasAsmGemm reports whether the CPU runs sgemmKernel (AVX-512F).
var hasAsmGemm = cpu.X86.HasAVX512F

// packGather is the strided gather of sgemm_amd64.s: for kk < n, the
// lanes l in mask of dst[kk·stride:] get src[kk+idx[l]].
//
//go:noescape
func packGather(dst, src *float32, idx *[16]int32, n, stride int, mask uint16)
