//go:build !purego

#include "textflag.h"

// SPARSE2X32(done, loop) is the body shared by sparseKernelAVX2 and
// sparseKernelAVX2T up to their stores: the arguments into registers
// (CX terms, SI the list, BX the panel, DI C, DX ldc in bytes), the 8
// accumulators Y0…Y7 zeroed, and the terms' FMAs, jumping to done when
// there are none. A macro, not a call: the two kernels keep the same
// instructions they had each.
#define SPARSE2X32(done, loop) \
	MOVQ n+0(FP), CX \
	MOVQ e+8(FP), SI \
	MOVQ b+16(FP), BX \
	MOVQ c+24(FP), DI \
	MOVQ ldc+32(FP), DX \
	SHLQ $2, DX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	TESTQ CX, CX \
	JE    done \
loop: \
	MOVLQSX      (SI), R8 \
	MOVLQSX      8(SI), R9 \
	VBROADCASTSS 4(SI), Y14 \
	VBROADCASTSS 12(SI), Y15 \
	VFMADD231PS  (BX)(R8*1), Y14, Y0 \
	VFMADD231PS  32(BX)(R8*1), Y14, Y1 \
	VFMADD231PS  64(BX)(R8*1), Y14, Y2 \
	VFMADD231PS  96(BX)(R8*1), Y14, Y3 \
	VFMADD231PS  (BX)(R9*1), Y15, Y4 \
	VFMADD231PS  32(BX)(R9*1), Y15, Y5 \
	VFMADD231PS  64(BX)(R9*1), Y15, Y6 \
	VFMADD231PS  96(BX)(R9*1), Y15, Y7 \
	ADDQ         $16, SI \
	DECQ         CX \
	JNE          loop

// SPARSE2X32D(done, loop) is SPARSE2X32 with each term's B row address
// formed once (ADDQ) so that the FMAs' memory operands are base plus
// displacement: Intel's cores split an indexed memory operand of a
// three-operand instruction into two µops (sparseKernelRow's comment), so
// a pair of terms is 16 fused µops instead of 22. The same FMAs in the
// same order: the same bits.
#define SPARSE2X32D(done, loop) \
	MOVQ n+0(FP), CX \
	MOVQ e+8(FP), SI \
	MOVQ b+16(FP), BX \
	MOVQ c+24(FP), DI \
	MOVQ ldc+32(FP), DX \
	SHLQ $2, DX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	TESTQ CX, CX \
	JE    done \
loop: \
	MOVLQSX      (SI), R8 \
	MOVLQSX      8(SI), R9 \
	ADDQ         BX, R8 \
	ADDQ         BX, R9 \
	VBROADCASTSS 4(SI), Y14 \
	VBROADCASTSS 12(SI), Y15 \
	VFMADD231PS  (R8), Y14, Y0 \
	VFMADD231PS  32(R8), Y14, Y1 \
	VFMADD231PS  64(R8), Y14, Y2 \
	VFMADD231PS  96(R8), Y14, Y3 \
	VFMADD231PS  (R9), Y15, Y4 \
	VFMADD231PS  32(R9), Y15, Y5 \
	VFMADD231PS  64(R9), Y15, Y6 \
	VFMADD231PS  96(R9), Y15, Y7 \
	ADDQ         $16, SI \
	DECQ         CX \
	JNE          loop

// TPAIRS interleaves 8 columns of the tile's rows ya, yb into column
// pairs: columns 0–1 in X8, 2–3 in X9, 4–5 in X10, 6–7 in X11.
#define TPAIRS(ya, yb) \
	VUNPCKLPS    yb, ya, Y8 \
	VUNPCKHPS    yb, ya, Y9 \
	VEXTRACTF128 $1, Y8, X10 \
	VEXTRACTF128 $1, Y9, X11

// TSETP stores the two column pairs of xp at DI and DI + DX, and moves DI
// two rows of C on.
#define TSETP(xp) \
	VMOVLPS xp, (DI) \
	VMOVHPS xp, (DI)(DX*1) \
	LEAQ    (DI)(DX*2), DI

// TADDP is TSETP adding the pairs already in C.
#define TADDP(xp) \
	VMOVSD  (DI), X12 \
	VMOVHPS (DI)(DX*1), X12, X12 \
	VADDPS  X12, xp, xp \
	TSETP(xp)

#define TSET8(ya, yb) \
	TPAIRS(ya, yb) \
	TSETP(X8) \
	TSETP(X9) \
	TSETP(X10) \
	TSETP(X11)

#define TADD8(ya, yb) \
	TPAIRS(ya, yb) \
	TADDP(X8) \
	TADDP(X9) \
	TADDP(X10) \
	TADDP(X11)

// func sgemmKernel(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool)
//
// The 12×32 tile of C at c (row stride ldc entries) becomes, when add is
// true, c + Σ_k a_k b_kᵀ, else Σ_k a_k b_kᵀ. Entry i of a_k is the float32
// at a + i·arow + k·astep (bytes), b_k the 32 at b + k·bstep: a packed
// panel (arow 4, astep 48; bstep 128) or a matrix read in place. Row i
// of the tile lives in Z(2i), Z(2i+1); each term is one FMA with its a
// entry broadcast from memory, so an entry of C sums its k terms in
// order, one rounding per term. Rows 0–2 are addressed from AX, 3–5
// from R10, 6–8 from R11, 9–11 from R12, each plus 0, 1 or 2 arow (R9).
TEXT ·sgemmKernel(SB), NOSPLIT, $0-65
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ arow+16(FP), R9
	MOVQ astep+24(FP), R8
	MOVQ b+32(FP), BX
	MOVQ bstep+40(FP), R13
	MOVQ c+48(FP), DI
	MOVQ ldc+56(FP), DX
	SHLQ $2, DX
	LEAQ (R9)(R9*2), R14 // 3·arow
	LEAQ (AX)(R14*1), R10
	LEAQ (R10)(R14*1), R11
	LEAQ (R11)(R14*1), R12
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	TESTQ CX, CX
	JE store
loop:
	VMOVUPS (BX), Z24
	VMOVUPS 64(BX), Z25
	VFMADD231PS.BCST (AX), Z24, Z0
	VFMADD231PS.BCST (AX), Z25, Z1
	VFMADD231PS.BCST (AX)(R9*1), Z24, Z2
	VFMADD231PS.BCST (AX)(R9*1), Z25, Z3
	VFMADD231PS.BCST (AX)(R9*2), Z24, Z4
	VFMADD231PS.BCST (AX)(R9*2), Z25, Z5
	VFMADD231PS.BCST (R10), Z24, Z6
	VFMADD231PS.BCST (R10), Z25, Z7
	VFMADD231PS.BCST (R10)(R9*1), Z24, Z8
	VFMADD231PS.BCST (R10)(R9*1), Z25, Z9
	VFMADD231PS.BCST (R10)(R9*2), Z24, Z10
	VFMADD231PS.BCST (R10)(R9*2), Z25, Z11
	VFMADD231PS.BCST (R11), Z24, Z12
	VFMADD231PS.BCST (R11), Z25, Z13
	VFMADD231PS.BCST (R11)(R9*1), Z24, Z14
	VFMADD231PS.BCST (R11)(R9*1), Z25, Z15
	VFMADD231PS.BCST (R11)(R9*2), Z24, Z16
	VFMADD231PS.BCST (R11)(R9*2), Z25, Z17
	VFMADD231PS.BCST (R12), Z24, Z18
	VFMADD231PS.BCST (R12), Z25, Z19
	VFMADD231PS.BCST (R12)(R9*1), Z24, Z20
	VFMADD231PS.BCST (R12)(R9*1), Z25, Z21
	VFMADD231PS.BCST (R12)(R9*2), Z24, Z22
	VFMADD231PS.BCST (R12)(R9*2), Z25, Z23
	ADDQ R8, AX
	ADDQ R8, R10
	ADDQ R8, R11
	ADDQ R8, R12
	ADDQ R13, BX
	DECQ CX
	JNE loop
store:
	MOVBLZX add+64(FP), R8
	TESTQ R8, R8
	JE overwrite
	VADDPS (DI), Z0, Z0
	VADDPS 64(DI), Z1, Z1
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z2, Z2
	VADDPS 64(DI), Z3, Z3
	VMOVUPS Z2, (DI)
	VMOVUPS Z3, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z4, Z4
	VADDPS 64(DI), Z5, Z5
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z6, Z6
	VADDPS 64(DI), Z7, Z7
	VMOVUPS Z6, (DI)
	VMOVUPS Z7, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z8, Z8
	VADDPS 64(DI), Z9, Z9
	VMOVUPS Z8, (DI)
	VMOVUPS Z9, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z10, Z10
	VADDPS 64(DI), Z11, Z11
	VMOVUPS Z10, (DI)
	VMOVUPS Z11, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z12, Z12
	VADDPS 64(DI), Z13, Z13
	VMOVUPS Z12, (DI)
	VMOVUPS Z13, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z14, Z14
	VADDPS 64(DI), Z15, Z15
	VMOVUPS Z14, (DI)
	VMOVUPS Z15, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z16, Z16
	VADDPS 64(DI), Z17, Z17
	VMOVUPS Z16, (DI)
	VMOVUPS Z17, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z18, Z18
	VADDPS 64(DI), Z19, Z19
	VMOVUPS Z18, (DI)
	VMOVUPS Z19, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z20, Z20
	VADDPS 64(DI), Z21, Z21
	VMOVUPS Z20, (DI)
	VMOVUPS Z21, 64(DI)
	ADDQ DX, DI
	VADDPS (DI), Z22, Z22
	VADDPS 64(DI), Z23, Z23
	VMOVUPS Z22, (DI)
	VMOVUPS Z23, 64(DI)
	VZEROUPPER
	RET
overwrite:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z2, (DI)
	VMOVUPS Z3, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z6, (DI)
	VMOVUPS Z7, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z8, (DI)
	VMOVUPS Z9, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z10, (DI)
	VMOVUPS Z11, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z12, (DI)
	VMOVUPS Z13, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z14, (DI)
	VMOVUPS Z15, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z16, (DI)
	VMOVUPS Z17, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z18, (DI)
	VMOVUPS Z19, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z20, (DI)
	VMOVUPS Z21, 64(DI)
	ADDQ DX, DI
	VMOVUPS Z22, (DI)
	VMOVUPS Z23, 64(DI)
	VZEROUPPER
	RET

// func packGather(dst, src *float32, idx *[16]int32, n, stride int, mask uint16)
//
// For kk in [0, n): gathers src[kk + idx[l]] for the lanes l set in mask
// and stores them at dst[kk·stride + l] (the other lanes of dst are not
// written): a transposition of up to 16 strided rows, for packing.
TEXT ·packGather(SB), NOSPLIT, $0-42
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    idx+16(FP), AX
	MOVQ    n+24(FP), CX
	MOVQ    stride+32(FP), DX
	SHLQ    $2, DX
	MOVWLZX mask+40(FP), R8
	VMOVDQU32 (AX), Z0
	TESTQ   CX, CX
	JE      gdone

gloop:
	KMOVW      R8, K1
	KMOVW      R8, K2
	VPXORD     Z1, Z1, Z1
	VGATHERDPS (SI)(Z0*4), K1, Z1
	VMOVUPS    Z1, K2, (DI)
	ADDQ       $4, SI
	ADDQ       DX, DI
	DECQ       CX
	JNE        gloop

gdone:
	VZEROUPPER
	RET

// func sgemmKernelAVX2(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool)
//
// sgemmKernel for CPUs with AVX2 and FMA but not AVX-512: a 6×16 tile,
// the register blocking of OpenBLAS's Haswell sgemm. Row i of the tile
// lives in Y(2i), Y(2i+1) (12 accumulators: with two FMA ports of 4
// cycles' latency, 8 chains keep them busy), b_k in Y12, Y13, and the a
// entries are broadcast into Y14 and Y15 in turn (AVX2 FMAs take no
// broadcast operand). Same contract and same order of the sums as
// sgemmKernel, so the two give the same bits. Rows 0–2 are addressed from
// AX, 3–5 from R10, each plus 0, 1 or 2 arow (R9).
TEXT ·sgemmKernelAVX2(SB), NOSPLIT, $0-65
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ arow+16(FP), R9
	MOVQ astep+24(FP), R8
	MOVQ b+32(FP), BX
	MOVQ bstep+40(FP), R13
	MOVQ c+48(FP), DI
	MOVQ ldc+56(FP), DX
	SHLQ $2, DX
	LEAQ (R9)(R9*2), R14 // 3·arow
	LEAQ (AX)(R14*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JE    ystore
yloop:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ R8, AX
	ADDQ R8, R10
	ADDQ R13, BX
	DECQ CX
	JNE  yloop
ystore:
	MOVBLZX add+64(FP), R8
	TESTQ R8, R8
	JE    yoverwrite
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y2, Y2
	VADDPS 32(DI), Y3, Y3
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y4, Y4
	VADDPS 32(DI), Y5, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y6, Y6
	VADDPS 32(DI), Y7, Y7
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y8, Y8
	VADDPS 32(DI), Y9, Y9
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y10, Y10
	VADDPS 32(DI), Y11, Y11
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET
yoverwrite:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET

// func sgemmKernelAVX2U4(k int, a *float32, arow int, b *float32, c *float32, ldc int, add bool)
//
// sgemmKernelAVX2 for the tiles of the large products, whose A is read in
// place along its rows (astep 4 bytes) and whose B panel is packed (bstep
// 64 bytes): four k an iteration with every load at a constant
// displacement, so the loop is 83 fused µops for four k (the rolled loop
// 24 for one, at the rename width of a Haswell core: the FMAs need 6
// cycles a k), then the last k mod 4 one at a time. Same registers, same
// FMAs in the same order per accumulator, same stores: the same bits as
// sgemmKernelAVX2.
TEXT ·sgemmKernelAVX2U4(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ arow+16(FP), R9
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX
	LEAQ (R9)(R9*2), R14 // 3·arow
	LEAQ (AX)(R14*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ  CX, R8
	SHRQ  $2, R8
	ANDQ  $3, CX
	TESTQ R8, R8
	JE    u4tail
u4loop:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	VMOVUPS 64(BX), Y12
	VMOVUPS 96(BX), Y13
	VBROADCASTSS 4(AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 4(AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 4(AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 4(R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 4(R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 4(R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	VMOVUPS 128(BX), Y12
	VMOVUPS 160(BX), Y13
	VBROADCASTSS 8(AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 8(AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 8(AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 8(R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 8(R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 8(R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	VMOVUPS 192(BX), Y12
	VMOVUPS 224(BX), Y13
	VBROADCASTSS 12(AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 12(AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 12(AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 12(R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 12(R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 12(R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $16, AX
	ADDQ $16, R10
	ADDQ $256, BX
	DECQ R8
	JNE  u4loop
u4tail:
	TESTQ CX, CX
	JE    u4store
u4one:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (AX)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (AX)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (R10), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (R10)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (R10)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, AX
	ADDQ $4, R10
	ADDQ $64, BX
	DECQ CX
	JNE  u4one
u4store:
	MOVBLZX add+48(FP), R8
	TESTQ R8, R8
	JE    u4overwrite
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y2, Y2
	VADDPS 32(DI), Y3, Y3
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y4, Y4
	VADDPS 32(DI), Y5, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y6, Y6
	VADDPS 32(DI), Y7, Y7
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y8, Y8
	VADDPS 32(DI), Y9, Y9
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ DX, DI
	VADDPS (DI), Y10, Y10
	VADDPS 32(DI), Y11, Y11
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET
u4overwrite:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ DX, DI
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET

// func sparseKernelAVX2(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)
//
// Two rows of a 2×32 tile of C from the nonzero terms of two rows of A
// (sparse.go): entry t of e holds, for each row, a k index and A's value
// there; the term adds value·(row k of the packed B panel, 32 floats at
// b + off bytes, off = 128·k as listed). Row r of the tile lives in Y(4r)…Y(4r+3), 8
// accumulators for the two FMA ports. Each row's terms are FMAs in its
// list's order from 0, then added to C (add) or stored, as in
// sgemmKernelAVX2, so a list of A's nonzeros in k order gives the dense
// kernel's bits. The B loads are the FMAs' memory operands: one load per
// FMA, plus an index and a broadcast per row and term.
TEXT ·sparseKernelAVX2(SB), NOSPLIT, $0-41
	SPARSE2X32(sstore, sloop)
sstore:
	MOVBLZX add+40(FP), R8
	TESTQ   R8, R8
	JE      soverwrite
	VADDPS  (DI), Y0, Y0
	VADDPS  32(DI), Y1, Y1
	VADDPS  64(DI), Y2, Y2
	VADDPS  96(DI), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    DX, DI
	VADDPS  (DI), Y4, Y4
	VADDPS  32(DI), Y5, Y5
	VADDPS  64(DI), Y6, Y6
	VADDPS  96(DI), Y7, Y7
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	VZEROUPPER
	RET
soverwrite:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    DX, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	VZEROUPPER
	RET

// func sparseKernelAVX2T(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)
//
// sparseKernelAVX2 storing the tile transposed: column x of the 2×32 tile
// (its two rows' entries, side by side) goes to c + x·ldc floats, for a C
// formed as Cᵀ (MulSparseBTo). The FMAs are sparseKernelAVX2's, and C is
// added to each pair as there, so the bits are the same.
TEXT ·sparseKernelAVX2T(SB), NOSPLIT, $0-41
	SPARSE2X32(tstore, tloop)
tstore:
	MOVBLZX add+40(FP), R8
	TESTQ   R8, R8
	JE      tset
	TADD8(Y0, Y4)
	TADD8(Y1, Y5)
	TADD8(Y2, Y6)
	TADD8(Y3, Y7)
	VZEROUPPER
	RET
tset:
	TSET8(Y0, Y4)
	TSET8(Y1, Y5)
	TSET8(Y2, Y6)
	TSET8(Y3, Y7)
	VZEROUPPER
	RET

// func sparseKernelAVX2TD(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool)
//
// sparseKernelAVX2T with base-plus-displacement FMA operands
// (SPARSE2X32D): the same bits.
TEXT ·sparseKernelAVX2TD(SB), NOSPLIT, $0-41
	SPARSE2X32D(dstore, dloop)
dstore:
	MOVBLZX add+40(FP), R8
	TESTQ   R8, R8
	JE      dset
	TADD8(Y0, Y4)
	TADD8(Y1, Y5)
	TADD8(Y2, Y6)
	TADD8(Y3, Y7)
	VZEROUPPER
	RET
dset:
	TSET8(Y0, Y4)
	TSET8(Y1, Y5)
	TSET8(Y2, Y6)
	TSET8(Y3, Y7)
	VZEROUPPER
	RET

// func sparseKernelRow(n int, e *sparseTerm, b *float32, in *float32, c *float32, flags int)
//
// One row of a 1×64 tile of C from the terms of one row of A (sparse.go,
// sparseRowNR): term t adds e[t].v·(the 64 floats at b + e[t].k bytes).
// The row lives in Y0…Y7, 8 chains for the two FMA ports, and each term
// costs an index, a broadcast and 8 B loads (the FMAs' memory operands)
// for 8 FMAs: 1.25 loads an FMA against sparseKernelAVX2's 1.5. The
// accumulators start from the 64 floats at in when flags&1 (a k block
// done in pieces: the partial sums saved and reloaded exactly), else from
// 0; at the end they are added to the 64 floats at c when flags&2, and
// stored there. The row's address is formed once a term (ADDQ) so that
// the FMAs' memory operands are base plus displacement: Intel's cores
// split an indexed operand of a three-operand instruction into two µops
// (BenchmarkSparseKernelRate, density 0.5: 75.7 GFLOP/s against 73.3
// indexed, and 66.8 for sparseKernelAVX2).
TEXT ·sparseKernelRow(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ e+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ in+24(FP), AX
	MOVQ c+32(FP), DI
	MOVQ flags+40(FP), DX
	TESTQ $1, DX
	JE    rzero
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS 128(AX), Y4
	VMOVUPS 160(AX), Y5
	VMOVUPS 192(AX), Y6
	VMOVUPS 224(AX), Y7
	JMP   rstart
rzero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
rstart:
	TESTQ CX, CX
	JE    rdone
rloop:
	MOVLQSX      (SI), R8
	VBROADCASTSS 4(SI), Y15
	ADDQ         BX, R8
	VFMADD231PS  (R8), Y15, Y0
	VFMADD231PS  32(R8), Y15, Y1
	VFMADD231PS  64(R8), Y15, Y2
	VFMADD231PS  96(R8), Y15, Y3
	VFMADD231PS  128(R8), Y15, Y4
	VFMADD231PS  160(R8), Y15, Y5
	VFMADD231PS  192(R8), Y15, Y6
	VFMADD231PS  224(R8), Y15, Y7
	ADDQ         $8, SI
	DECQ         CX
	JNE          rloop
rdone:
	TESTQ $2, DX
	JE    rstore
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VADDPS 128(DI), Y4, Y4
	VADDPS 160(DI), Y5, Y5
	VADDPS 192(DI), Y6, Y6
	VADDPS 224(DI), Y7, Y7
rstore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET

// R2SETP stores the two column pairs of xp at DI and DI + DX, and moves
// DI two rows of C on (sparseKernelRow2's transposed store; TSETP).
#define R2SETP(xp) \
	VMOVLPS xp, (DI) \
	VMOVHPS xp, (DI)(DX*1) \
	LEAQ    (DI)(DX*2), DI

// R2ADDP is R2SETP adding the pairs already in C, loaded into xt.
#define R2ADDP(xp, xt) \
	VMOVSD  (DI), xt \
	VMOVHPS (DI)(DX*1), xt, xt \
	VADDPS  xt, xp, xp \
	R2SETP(xp)

// R2SET8 writes 8 columns of the tile's rows ya, yb (free afterwards)
// transposed: column x as the pair (ya[x], yb[x]) at DI + x·DX, with
// xa, xb their lower halves. Columns 0–1 and 4–5 are paired in Y14, 2–3
// and 6–7 in ya; the upper halves are taken out (to xb, X14) before an
// instruction on a lower half clears them.
#define R2SET8(ya, yb, xa, xb) \
	VUNPCKLPS    yb, ya, Y14 \
	VUNPCKHPS    yb, ya, ya \
	VEXTRACTF128 $1, Y14, xb \
	R2SETP(X14) \
	VEXTRACTF128 $1, ya, X14 \
	R2SETP(xa) \
	R2SETP(xb) \
	R2SETP(X14)

// R2ADD8 is R2SET8 adding the pairs already in C (loaded into X15).
#define R2ADD8(ya, yb, xa, xb) \
	VUNPCKLPS    yb, ya, Y14 \
	VUNPCKHPS    yb, ya, ya \
	VEXTRACTF128 $1, Y14, xb \
	R2ADDP(X14, X15) \
	VEXTRACTF128 $1, ya, X14 \
	R2ADDP(xa, X15) \
	R2ADDP(xb, X15) \
	R2ADDP(X14, X15)

// func sparseKernelRow2(n0, n1 int, e0, e1 *sparseTerm, b, in, c *float32, ldc, flags int)
//
// Two rows of a 2×56 tile of C (sparse.go, sparseRow2NR) from the terms of
// two rows of A: row 0's n0 terms at e0, row 1's n1 at e1, each term
// adding v·(the 56 floats at b + k bytes) to its row. Row 0 lives in
// Y0…Y6, row 1 in Y7…Y13: 14 chains against sparseKernelRow's 8, so that
// the FMAs' 4-cycle latency is hidden with room to spare. The first
// min(n0, n1) terms of both rows go in turn, then the longer list's rest
// alone; each row's chain takes its own terms in k order, so the bits are
// sparseKernelRow's. Row r starts from the 56 floats at in + r·56 when
// flags&1, else from 0; at the end it is added to the 56 floats at
// c + r·ldc (entries) when flags&2, and stored there. With flags&4 there
// is only row 0 (n1 must be 0): row 1 is neither read nor written. With
// flags&8 (two rows only) the tile is stored transposed, column x as the
// pair of adjacent entries at c + x·ldc, as sparseKernelAVX2T's.
TEXT ·sparseKernelRow2(SB), NOSPLIT, $0-72
	MOVQ n0+0(FP), R10
	MOVQ n1+8(FP), R13
	MOVQ e0+16(FP), SI
	MOVQ e1+24(FP), R11
	MOVQ b+32(FP), BX
	MOVQ in+40(FP), AX
	MOVQ c+48(FP), DI
	MOVQ ldc+56(FP), DX
	SHLQ $2, DX
	MOVQ flags+64(FP), R12
	TESTQ $1, R12
	JE    r2zero
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS 128(AX), Y4
	VMOVUPS 160(AX), Y5
	VMOVUPS 192(AX), Y6
	TESTQ $4, R12
	JNE   r2start
	VMOVUPS 224(AX), Y7
	VMOVUPS 256(AX), Y8
	VMOVUPS 288(AX), Y9
	VMOVUPS 320(AX), Y10
	VMOVUPS 352(AX), Y11
	VMOVUPS 384(AX), Y12
	VMOVUPS 416(AX), Y13
	JMP   r2start
r2zero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
r2start:
	MOVQ    R10, CX
	CMPQ    R13, CX
	CMOVQLT R13, CX
	SUBQ    CX, R10
	SUBQ    CX, R13
	TESTQ   CX, CX
	JE      r2tail0
r2loop:
	MOVLQSX      (SI), R8
	MOVLQSX      (R11), R9
	ADDQ         BX, R8
	ADDQ         BX, R9
	VBROADCASTSS 4(SI), Y14
	VBROADCASTSS 4(R11), Y15
	VFMADD231PS  (R8), Y14, Y0
	VFMADD231PS  32(R8), Y14, Y1
	VFMADD231PS  64(R8), Y14, Y2
	VFMADD231PS  96(R8), Y14, Y3
	VFMADD231PS  128(R8), Y14, Y4
	VFMADD231PS  160(R8), Y14, Y5
	VFMADD231PS  192(R8), Y14, Y6
	VFMADD231PS  (R9), Y15, Y7
	VFMADD231PS  32(R9), Y15, Y8
	VFMADD231PS  64(R9), Y15, Y9
	VFMADD231PS  96(R9), Y15, Y10
	VFMADD231PS  128(R9), Y15, Y11
	VFMADD231PS  160(R9), Y15, Y12
	VFMADD231PS  192(R9), Y15, Y13
	ADDQ         $8, SI
	ADDQ         $8, R11
	DECQ         CX
	JNE          r2loop
r2tail0:
	TESTQ R10, R10
	JE    r2tail1
r2loop0:
	MOVLQSX      (SI), R8
	VBROADCASTSS 4(SI), Y14
	ADDQ         BX, R8
	VFMADD231PS  (R8), Y14, Y0
	VFMADD231PS  32(R8), Y14, Y1
	VFMADD231PS  64(R8), Y14, Y2
	VFMADD231PS  96(R8), Y14, Y3
	VFMADD231PS  128(R8), Y14, Y4
	VFMADD231PS  160(R8), Y14, Y5
	VFMADD231PS  192(R8), Y14, Y6
	ADDQ         $8, SI
	DECQ         R10
	JNE          r2loop0
r2tail1:
	TESTQ R13, R13
	JE    r2done
r2loop1:
	MOVLQSX      (R11), R9
	VBROADCASTSS 4(R11), Y15
	ADDQ         BX, R9
	VFMADD231PS  (R9), Y15, Y7
	VFMADD231PS  32(R9), Y15, Y8
	VFMADD231PS  64(R9), Y15, Y9
	VFMADD231PS  96(R9), Y15, Y10
	VFMADD231PS  128(R9), Y15, Y11
	VFMADD231PS  160(R9), Y15, Y12
	VFMADD231PS  192(R9), Y15, Y13
	ADDQ         $8, R11
	DECQ         R13
	JNE          r2loop1
r2done:
	TESTQ $8, R12
	JNE   r2trans
	LEAQ  (DI)(DX*1), R8
	TESTQ $2, R12
	JE    r2store
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VADDPS 128(DI), Y4, Y4
	VADDPS 160(DI), Y5, Y5
	VADDPS 192(DI), Y6, Y6
	TESTQ $4, R12
	JNE   r2store
	VADDPS (R8), Y7, Y7
	VADDPS 32(R8), Y8, Y8
	VADDPS 64(R8), Y9, Y9
	VADDPS 96(R8), Y10, Y10
	VADDPS 128(R8), Y11, Y11
	VADDPS 160(R8), Y12, Y12
	VADDPS 192(R8), Y13, Y13
r2store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	TESTQ $4, R12
	JNE   r2end
	VMOVUPS Y7, (R8)
	VMOVUPS Y8, 32(R8)
	VMOVUPS Y9, 64(R8)
	VMOVUPS Y10, 96(R8)
	VMOVUPS Y11, 128(R8)
	VMOVUPS Y12, 160(R8)
	VMOVUPS Y13, 192(R8)
r2end:
	VZEROUPPER
	RET
r2trans:
	TESTQ $2, R12
	JE    r2tset
	R2ADD8(Y0, Y7, X0, X7)
	R2ADD8(Y1, Y8, X1, X8)
	R2ADD8(Y2, Y9, X2, X9)
	R2ADD8(Y3, Y10, X3, X10)
	R2ADD8(Y4, Y11, X4, X11)
	R2ADD8(Y5, Y12, X5, X12)
	R2ADD8(Y6, Y13, X6, X13)
	VZEROUPPER
	RET
r2tset:
	R2SET8(Y0, Y7, X0, X7)
	R2SET8(Y1, Y8, X1, X8)
	R2SET8(Y2, Y9, X2, X9)
	R2SET8(Y3, Y10, X3, X10)
	R2SET8(Y4, Y11, X4, X11)
	R2SET8(Y5, Y12, X5, X12)
	R2SET8(Y6, Y13, X6, X13)
	VZEROUPPER
	RET

// func packRows(dst, src *float32, rows, stride, nr int)
//
// Copies rows rows of nr floats (8·q + 0, 2, 4 or 6) from src, stride
// floats apart, to dst, nr floats apart: a panel packed for a kernel. Go
// compiles a fixed-size array copy between two pointers that may overlap
// into a call to memmove, one per row; this moves up to 32 bytes an
// instruction.
TEXT ·packRows(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ stride+24(FP), DX
	SHLQ $2, DX
	MOVQ nr+32(FP), R8
	MOVQ R8, R11
	ANDQ $7, R11
	SHRQ $3, R8
	TESTQ CX, CX
	JE    pdone
prow:
	XORQ R10, R10
	MOVQ R8, R9
	TESTQ R9, R9
	JE    ptail
pcol:
	VMOVUPS (SI)(R10*1), Y0
	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    $32, R10
	DECQ    R9
	JNE     pcol
ptail:
	CMPQ R11, $4
	JL   ptwo
	VMOVUPS (SI)(R10*1), X0
	VMOVUPS X0, (DI)(R10*1)
	ADDQ    $16, R10
	CMPQ R11, $6
	JNE  pnext
	MOVQ (SI)(R10*1), R12
	MOVQ R12, (DI)(R10*1)
	ADDQ $8, R10
	JMP  pnext
ptwo:
	CMPQ R11, $2
	JNE  pnext
	MOVQ (SI)(R10*1), R12
	MOVQ R12, (DI)(R10*1)
	ADDQ $8, R10
pnext:
	ADDQ R10, DI
	ADDQ DX, SI
	DECQ CX
	JNE  prow
pdone:
	VZEROUPPER
	RET

// func spinPause()
// One PAUSE: a polling loop's hint to the core (less power, and on a
// core shared by two hardware threads, the sibling's issue slots).
TEXT ·spinPause(SB), NOSPLIT, $0-0
	PAUSE
	RET

// func listNonzeros(dst *sparseTerm, src *float32, n int, k0, step int32) int
// For the n/4 groups of 4 entries of src (n a multiple of 4): the
// nonzero entries (NaN included; ±0 left out) as terms {k0 + kk·step,
// src[kk]}, packed in order from dst; returns their number. Each group
// stores 4 terms (32 bytes) at the next free place, so it writes at most
// dst[0:n]. AVX2: compare, the 4-bit mask picks a VPERMD pattern from
// listPerm that moves the kept (k, v) pairs to the front.
TEXT ·listNonzeros(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL k0+24(FP), AX
	MOVL step+28(FP), BX
	VMOVD        AX, X2
	VPBROADCASTD X2, X2
	VMOVD        BX, X3
	VPBROADCASTD X3, X3
	VPMULLD      ·listIdx(SB), X3, X5
	VPADDD       X5, X2, X2          // X2 = k0 + [0 1 2 3]·step
	VPSLLD       $2, X3, X4          // X4 = 4·step
	VXORPS       X1, X1, X1
	LEAQ         ·listPerm(SB), R9
	XORQ         R8, R8
	SHRQ         $2, CX
	JZ           ldone
lloop:
	VMOVUPS     (SI), X0
	VCMPPS      $4, X1, X0, X6       // v != 0 or NaN
	VMOVMSKPS   X6, R10
	VPUNPCKLDQ  X0, X2, X6           // k0 v0 k1 v1
	VPUNPCKHDQ  X0, X2, X7           // k2 v2 k3 v3
	VINSERTI128 $1, X7, Y6, Y6
	MOVQ        R10, R11
	SHLQ        $5, R11
	VMOVDQU     (R9)(R11*1), Y8
	VPERMD      Y6, Y8, Y6
	VMOVDQU     Y6, (DI)(R8*8)
	POPCNTL     R10, R10
	ADDQ        R10, R8
	VPADDD      X4, X2, X2
	ADDQ        $16, SI
	DECQ        CX
	JNE         lloop
ldone:
	MOVQ R8, ret+32(FP)
	VZEROUPPER
	RET

// TRANS8 transposes the 8×8 block in Y0–Y7 (row i in Yi) into Y8–Y15
// (row i of the transpose in Y8+i), using the inputs as scratch.
#define TRANS8 \
	VUNPCKLPS Y1, Y0, Y8  \
	VUNPCKHPS Y1, Y0, Y9  \
	VUNPCKLPS Y3, Y2, Y10 \
	VUNPCKHPS Y3, Y2, Y11 \
	VUNPCKLPS Y5, Y4, Y12 \
	VUNPCKHPS Y5, Y4, Y13 \
	VUNPCKLPS Y7, Y6, Y14 \
	VUNPCKHPS Y7, Y6, Y15 \
	VSHUFPS $0x44, Y10, Y8, Y0  \
	VSHUFPS $0xEE, Y10, Y8, Y1  \
	VSHUFPS $0x44, Y11, Y9, Y2  \
	VSHUFPS $0xEE, Y11, Y9, Y3  \
	VSHUFPS $0x44, Y14, Y12, Y4 \
	VSHUFPS $0xEE, Y14, Y12, Y5 \
	VSHUFPS $0x44, Y15, Y13, Y6 \
	VSHUFPS $0xEE, Y15, Y13, Y7 \
	VPERM2F128 $0x20, Y4, Y0, Y8  \
	VPERM2F128 $0x20, Y5, Y1, Y9  \
	VPERM2F128 $0x20, Y6, Y2, Y10 \
	VPERM2F128 $0x20, Y7, Y3, Y11 \
	VPERM2F128 $0x31, Y4, Y0, Y12 \
	VPERM2F128 $0x31, Y5, Y1, Y13 \
	VPERM2F128 $0x31, Y6, Y2, Y14 \
	VPERM2F128 $0x31, Y7, Y3, Y15

// func packTrans16(dst, src *float32, kc, stride int)
//
// Packs a B panel of 16 columns from B stored transposed: dst[kk·16 + c]
// = src[c·stride + kk] for c < 16 and kk < kc, kc a multiple of 8, as two
// 8×8 transposes per 8 kk (packB's loop in Go did one entry at a time).
TEXT ·packTrans16(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), AX
	MOVQ kc+16(FP), CX
	MOVQ stride+24(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), R11 // 3·stride
	SHRQ $3, CX
	TESTQ CX, CX
	JE    ttdone
	XORQ R10, R10 // byte offset of the 8 kk in each row
ttloop:
	// Columns 0–7: rows 0–7 of src.
	MOVQ AX, SI
	LEAQ (SI)(DX*4), R12
	ADDQ R10, SI
	ADDQ R10, R12
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R11*1), Y3
	VMOVUPS (R12), Y4
	VMOVUPS (R12)(DX*1), Y5
	VMOVUPS (R12)(DX*2), Y6
	VMOVUPS (R12)(R11*1), Y7
	TRANS8
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 64(DI)
	VMOVUPS Y10, 128(DI)
	VMOVUPS Y11, 192(DI)
	VMOVUPS Y12, 256(DI)
	VMOVUPS Y13, 320(DI)
	VMOVUPS Y14, 384(DI)
	VMOVUPS Y15, 448(DI)
	// Columns 8–15: rows 8–15 of src.
	LEAQ (R12)(DX*4), SI
	LEAQ (SI)(DX*4), R12
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(R11*1), Y3
	VMOVUPS (R12), Y4
	VMOVUPS (R12)(DX*1), Y5
	VMOVUPS (R12)(DX*2), Y6
	VMOVUPS (R12)(R11*1), Y7
	TRANS8
	VMOVUPS Y8, 32(DI)
	VMOVUPS Y9, 96(DI)
	VMOVUPS Y10, 160(DI)
	VMOVUPS Y11, 224(DI)
	VMOVUPS Y12, 288(DI)
	VMOVUPS Y13, 352(DI)
	VMOVUPS Y14, 416(DI)
	VMOVUPS Y15, 480(DI)
	ADDQ $512, DI
	ADDQ $32, R10
	DECQ CX
	JNE  ttloop
ttdone:
	VZEROUPPER
	RET
