//go:build !purego

#include "textflag.h"

// func adamAVX(p, grad, m, v *float32, n int, k *adamConsts) int
//
// Eight lanes of Adam.Step's loop per iteration, with the same operations
// in the same order (no FMA), so the results equal the Go loop's bit for
// bit. It handles the largest multiple of 8 not above n and returns it.
// k holds b1, 1−b1, b2, 1−b2, step, inv, eps.
TEXT ·adamAVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	VBROADCASTSS 0(AX), Y8   // b1
	VBROADCASTSS 4(AX), Y9   // 1 - b1
	VBROADCASTSS 8(AX), Y10  // b2
	VBROADCASTSS 12(AX), Y11 // 1 - b2
	VBROADCASTSS 16(AX), Y12 // step
	VBROADCASTSS 20(AX), Y13 // inv
	VBROADCASTSS 24(AX), Y14 // eps
	XORQ BX, BX
	ANDQ $-8, CX

loop:
	CMPQ BX, CX
	JGE  done
	VMOVUPS (SI)(BX*4), Y0       // g
	VMULPS  (R8)(BX*4), Y8, Y1   // b1·m
	VMULPS  Y0, Y9, Y2           // (1−b1)·g
	VADDPS  Y2, Y1, Y1           // m'
	VMOVUPS Y1, (R8)(BX*4)
	VMULPS  (R9)(BX*4), Y10, Y4  // b2·v
	VMULPS  Y0, Y11, Y3          // (1−b2)·g
	VMULPS  Y0, Y3, Y3           // ((1−b2)·g)·g
	VADDPS  Y3, Y4, Y4           // v'
	VMOVUPS Y4, (R9)(BX*4)
	VSQRTPS Y4, Y5
	VMULPS  Y13, Y5, Y5          // √v'·inv
	VADDPS  Y14, Y5, Y5          // + eps
	VMULPS  Y1, Y12, Y6          // step·m'
	VDIVPS  Y5, Y6, Y6           // (step·m') / (√v'·inv + eps)
	VMOVUPS (DI)(BX*4), Y7
	VSUBPS  Y6, Y7, Y7
	VMOVUPS Y7, (DI)(BX*4)
	ADDQ    $8, BX
	JMP     loop

done:
	VZEROUPPER
	MOVQ BX, ret+48(FP)
	RET

// func adadeltaAVX(p, grad, s, a *float32, n int, k *adadeltaConsts) int
//
// Eight lanes of Adadelta.Step's loop per iteration, with the same
// operations in the same order (no FMA), so the same bits as the Go loop.
// It handles the largest multiple of 8 not above n and returns it. k holds
// rho, 1−rho, eps, lr.
TEXT ·adadeltaAVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ s+16(FP), R8
	MOVQ a+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	VBROADCASTSS 0(AX), Y8   // rho
	VBROADCASTSS 4(AX), Y9   // 1 - rho
	VBROADCASTSS 8(AX), Y10  // eps
	VBROADCASTSS 12(AX), Y11 // lr
	XORQ BX, BX
	ANDQ $-8, CX

adaloop:
	CMPQ BX, CX
	JGE  adadone
	VMOVUPS (SI)(BX*4), Y0       // g
	VMULPS  (R8)(BX*4), Y8, Y1   // rho·s
	VMULPS  Y0, Y9, Y2           // (1−rho)·g
	VMULPS  Y0, Y2, Y2           // ((1−rho)·g)·g
	VADDPS  Y2, Y1, Y1           // s'
	VMOVUPS Y1, (R8)(BX*4)
	VMOVUPS (R9)(BX*4), Y3       // a
	VADDPS  Y10, Y3, Y4
	VSQRTPS Y4, Y4               // √(a + eps)
	VADDPS  Y10, Y1, Y5
	VSQRTPS Y5, Y5               // √(s' + eps)
	VDIVPS  Y5, Y4, Y4
	VMULPS  Y0, Y4, Y4           // d
	VMULPS  Y3, Y8, Y3           // rho·a
	VMULPS  Y4, Y9, Y6           // (1−rho)·d
	VMULPS  Y4, Y6, Y6           // ((1−rho)·d)·d
	VADDPS  Y6, Y3, Y3
	VMOVUPS Y3, (R9)(BX*4)
	VMULPS  Y4, Y11, Y7          // lr·d
	VMOVUPS (DI)(BX*4), Y6
	VSUBPS  Y7, Y6, Y6
	VMOVUPS Y6, (DI)(BX*4)
	ADDQ    $8, BX
	JMP     adaloop

adadone:
	VZEROUPPER
	MOVQ BX, ret+48(FP)
	RET
