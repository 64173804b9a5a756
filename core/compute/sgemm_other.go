//go:build !amd64 || purego

package compute

// sgemmKernel is never called where hasAsmGemm is false.
func sgemmKernel(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool) {
	panic("compute: sgemmKernel without AVX-512")
}

// sgemmKernelAVX2 is never called where hasAVX2Gemm is false.
func sgemmKernelAVX2(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool) {
	panic("compute: sgemmKernelAVX2 without AVX2")
}

// sgemmKernelAVX2U4 is never called where hasAVX2Gemm is false.
func sgemmKernelAVX2U4(k int, a *float32, arow int, b *float32, c *float32, ldc int, add bool) {
	panic("compute: sgemmKernelAVX2U4 without AVX2")
}

// hasAsmGemm is false: no AVX-512 kernel on this platform.
const hasAsmGemm = false

// hasAVX2Gemm is false: no AVX2 kernel on this platform.
const hasAVX2Gemm = false

func packGather(dst, src *float32, idx *[16]int32, n, stride int, mask uint16) {
	panic("compute: packGather without AVX-512")
}

// sparseKernelAVX2 is never called where hasSparseAsm is false.
func sparseKernelAVX2(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool) {
	panic("compute: sparseKernelAVX2 without AVX2")
}

// hasSparseAsm is false: the sparse tiles run on sparseTileGo.
const hasSparseAsm = false

// sparseKernelAVX2TD is never called where hasSparseAsm is false.
func sparseKernelAVX2TD(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool) {
	panic("compute: sparseKernelAVX2TD without AVX2")
}

// sparseKernelAVX2T is never called where hasSparseAsm is false.
func sparseKernelAVX2T(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool) {
	panic("compute: sparseKernelAVX2T without AVX2")
}

// sparseKernelRow2 is never called where hasSparseAsm is false.
func sparseKernelRow2(n0, n1 int, e0, e1 *sparseTerm, b, in, c *float32, ldc, flags int) {
	panic("compute: sparseKernelRow2 without AVX2")
}

// sparseKernelRow is never called where hasSparseAsm is false.
func sparseKernelRow(n int, e *sparseTerm, b *float32, in *float32, c *float32, flags int) {
	panic("compute: sparseKernelRow without AVX2")
}

// packRows is never called where hasAVX2Gemm is false.
func packRows(dst, src *float32, rows, stride, nr int) {
	panic("compute: packRows without AVX2")
}

// spinPause does nothing here: Split's polling loops just poll.
func spinPause() {}

// listNonzeros is never called where hasSparseAsm is false.
func listNonzeros(dst *sparseTerm, src *float32, n int, k0, step int32) int {
	panic("compute: listNonzeros without AVX2")
}

// packTrans16 is never called where hasAVX2Gemm is false.
func packTrans16(dst, src *float32, kc, stride int) {
	panic("compute: packTrans16 without AVX2")
}

// amdFamily19h is false: the CPU family is not read on this platform.
const amdFamily19h = false
