//go:build !purego

#include "textflag.h"

// func reluAVX2(y *float32, n int)
//
// y = max(y, 0) as Go's max: +0 for ±0 and negatives, NaN kept. The first
// n &^ 7 entries.
TEXT ·reluAVX2(SB), NOSPLIT, $0-16
	MOVQ   y+0(FP), DI
	MOVQ   n+8(FP), CX
	SHRQ   $3, CX
	VXORPS Y1, Y1, Y1

reluloop:
	TESTQ   CX, CX
	JE      reludone
	VMOVUPS (DI), Y0
	VCMPPS  $0x16, Y1, Y0, Y2 // not (y <= 0): y > 0 or NaN
	VANDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JMP     reluloop

reludone:
	VZEROUPPER
	RET

// func reluDerivAVX2(dst, y *float32, n int)
//
// g = g where y's bits read as a positive int32, else +0 (ReLU's mulDeriv).
// The first n &^ 7 entries.
TEXT ·reluDerivAVX2(SB), NOSPLIT, $0-24
	MOVQ   dst+0(FP), DI
	MOVQ   y+8(FP), SI
	MOVQ   n+16(FP), CX
	SHRQ   $3, CX
	VPXOR  Y1, Y1, Y1

derivloop:
	TESTQ    CX, CX
	JE       derivdone
	VMOVDQU  (SI), Y0
	VPCMPGTD Y1, Y0, Y2 // int32(y) > 0
	VPAND    (DI), Y2, Y2
	VMOVDQU  Y2, (DI)
	ADDQ     $32, DI
	ADDQ     $32, SI
	DECQ     CX
	JMP      derivloop

derivdone:
	VZEROUPPER
	RET

// func mseAVX2(d, y, x *float32, n int, c float32, sums *[8]float32)
//
// For the first n &^ 7 entries: e = y − x, d += c·e, and lane k of sums
// accumulates e² of the entries j ≡ k (mod 8), with separate roundings
// (no FMA) as MSE's Go loop.
TEXT ·mseAVX2(SB), NOSPLIT, $0-48
	MOVQ         d+0(FP), DI
	MOVQ         y+8(FP), SI
	MOVQ         x+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS c+32(FP), Y5
	MOVQ         sums+40(FP), AX
	VMOVUPS      (AX), Y4
	SHRQ         $3, CX

mseloop:
	TESTQ   CX, CX
	JE      msedone
	VMOVUPS (SI), Y0
	VSUBPS  (DX), Y0, Y0 // e = y − x
	VMULPS  Y0, Y0, Y1
	VADDPS  Y1, Y4, Y4   // sums += e·e
	VMULPS  Y0, Y5, Y2
	VADDPS  (DI), Y2, Y2 // d + c·e
	VMOVUPS Y2, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JMP     mseloop

msedone:
	VMOVUPS Y4, (AX)
	VZEROUPPER
	RET

// func scaleAVX2(dst, src *float32, n int, a float32)
//
// dst = a·src for the first n &^ 7 entries (dst may be src).
TEXT ·scaleAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS a+24(FP), Y1
	SHRQ         $3, CX

scaleloop:
	TESTQ   CX, CX
	JE      scaledone
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	DECQ    CX
	JMP     scaleloop

scaledone:
	VZEROUPPER
	RET
