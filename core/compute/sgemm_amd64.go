//go:build !purego

package compute

import "golang.org/x/sys/cpu"

// sgemmKernel is the 12×32 tile kernel of sgemm_amd64.s (see sgemm.go):
// entry i of A's k-th column at a + i·arow + k·astep bytes, B's k-th row
// (32 entries) at b + k·bstep.
//
//go:noescape
func sgemmKernel(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool)

// sgemmKernelAVX2 is sgemmKernel with a 6×16 tile, for AVX2 and FMA.
//
//go:noescape
func sgemmKernelAVX2(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool)

// sgemmKernelAVX2U4 is sgemmKernelAVX2 for astep 4 and bstep 64 bytes (A
// read in place along its rows, B packed), four k an iteration.
//
//go:noescape
func sgemmKernelAVX2U4(k int, a *float32, arow int, b *float32, c *float32, ldc int, add bool)

// hasAsmGemm reports whether the CPU runs sgemmKernel (AVX-512F).
var hasAsmGemm = cpu.X86.HasAVX512F

// hasAVX2Gemm reports whether the CPU runs sgemmKernelAVX2 (AVX2, FMA).
var hasAVX2Gemm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// packGather is the strided gather of sgemm_amd64.s: for kk < n, the
// lanes l in mask of dst[kk·stride:] get src[kk+idx[l]].
//
//go:noescape
func packGather(dst, src *float32, idx *[16]int32, n, stride int, mask uint16)

// sparseKernelAVX2 is the 2×32 sparse tile kernel of sgemm_amd64.s (see
// sparse.go): n entries of e, each naming a row of the packed B panel b by
// its offset in bytes.
//
//go:noescape
func sparseKernelAVX2(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)

// hasSparseAsm reports whether sparseKernelAVX2 runs here.
var hasSparseAsm = hasAVX2Gemm

// sparseKernelAVX2T is sparseKernelAVX2 writing the tile transposed:
// column x at c + x·ldc.
//
//go:noescape
func sparseKernelAVX2T(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)

// sparseKernelAVX2TD is sparseKernelAVX2T with base-plus-displacement
// memory operands for its FMAs: the same bits.
//
//go:noescape
func sparseKernelAVX2TD(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)

// sparseKernelRow is the 1×64 sparse row kernel of sgemm_amd64.s (see
// sparse.go, sparseRowNR): n terms of e, the accumulators from in when
// flags&1, added to c when flags&2, stored at c.
//
//go:noescape
func sparseKernelRow(n int, e *sparseTerm, b *float32, in *float32, c *float32, flags int)

// sparseKernelRow2 is the 2×56 sparse row kernel of sgemm_amd64.s (see
// sparse.go, sparseRow2NR): row 0 from n0 terms at e0, row 1 from n1 at
// e1, the accumulators from in (rows sparseRow2NR apart) when flags&1,
// added to c (rows ldc apart) when flags&2, stored at c; row 0 only when
// flags&4; transposed (column x at c + x·ldc) when flags&8.
//
//go:noescape
func sparseKernelRow2(n0, n1 int, e0, e1 *sparseTerm, b, in, c *float32, ldc, flags int)

// packRows copies rows rows of nr floats (8·q + 0, 2, 4 or 6), stride
// floats apart at src, to dst, nr floats apart (sgemm_amd64.s).
//
//go:noescape
func packRows(dst, src *float32, rows, stride, nr int)

// spinPause is one PAUSE instruction, for Split's polling loops.
func spinPause()

// listNonzeros writes the nonzero entries of src[0:n) (n a multiple of 4;
// NaN counts as nonzero, ±0 not) as terms {k0 + kk·step, src[kk]} in
// order from dst and returns their number; it may write anywhere in
// dst[0:n). See listTerms.
//
//go:noescape
func listNonzeros(dst *sparseTerm, src *float32, n int, k0, step int32) int

// listIdx and listPerm are listNonzeros's constants: the lanes' k
// multipliers, and for each 4-bit mask of kept entries the VPERMD pattern
// that moves their (k, v) dword pairs, in order, to the front.
// Only the assembly reads them, which staticcheck's U1000 cannot see.
var (
	//lint:ignore U1000 read by listNonzeros in sgemm_amd64.s
	listIdx = [4]int32{0, 1, 2, 3}
	//lint:ignore U1000 read by listNonzeros in sgemm_amd64.s
	listPerm = func() (p [16][8]int32) {
		for m := range p {
			o := 0
			for j := range 4 {
				if m>>j&1 != 0 {
					p[m][o], p[m][o+1] = int32(2*j), int32(2*j+1)
					o += 2
				}
			}
		}
		return p
	}()
)

// packTrans16 packs a 16-column B panel from B stored transposed:
// dst[kk·16 + c] = src[c·stride + kk] for c < 16, kk < kc, kc a multiple
// of 8 (sgemm_amd64.s).
//
//go:noescape
func packTrans16(dst, src *float32, kc, stride int)
