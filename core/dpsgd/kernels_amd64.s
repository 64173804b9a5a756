//go:build !purego

#include "textflag.h"

// func xoshiro8Fill(s *[4][8]uint64, dst *uint32, steps int)
//
// Eight xoshiro256++ streams, one per 64-bit lane of Z0..Z3 (state words
// s0..s3). Each step stores the eight outputs, lane 0 first.
TEXT ·xoshiro8Fill(SB), NOSPLIT, $0-24
	MOVQ s+0(FP), AX
	MOVQ dst+8(FP), DI
	MOVQ steps+16(FP), CX
	VMOVDQU64 0(AX), Z0
	VMOVDQU64 64(AX), Z1
	VMOVDQU64 128(AX), Z2
	VMOVDQU64 192(AX), Z3

xoloop:
	TESTQ CX, CX
	JE    xodone
	VPADDQ    Z3, Z0, Z4 // s0 + s3
	VPROLQ    $23, Z4, Z4
	VPADDQ    Z0, Z4, Z4 // rotl(s0+s3, 23) + s0
	VMOVDQU64 Z4, (DI)
	VPSLLQ    $17, Z1, Z5 // t = s1 << 17
	VPXORQ    Z0, Z2, Z2  // s2 ^= s0
	VPXORQ    Z1, Z3, Z3  // s3 ^= s1
	VPXORQ    Z2, Z1, Z1  // s1 ^= s2
	VPXORQ    Z3, Z0, Z0  // s0 ^= s3
	VPXORQ    Z5, Z2, Z2  // s2 ^= t
	VPROLQ    $45, Z3, Z3
	ADDQ      $64, DI
	DECQ      CX
	JMP       xoloop

xodone:
	VMOVDQU64 Z0, 0(AX)
	VMOVDQU64 Z1, 64(AX)
	VMOVDQU64 Z2, 128(AX)
	VMOVDQU64 Z3, 192(AX)
	VZEROUPPER
	RET

// func zigAddAVX512(dst *float32, words *uint32, missed *uint16, n int, std float32, pairs *uint64, perm *[32]uint32)
//
// Sixteen draws per iteration, as zigAddScalar's fast path: i = b & 1023,
// m = (b >> 10) & (2²¹−1); where m < fast[i] (unsigned), g += std·x with
// x = ±(float32(2m+1)·w[i]), the sign from bit 31, multiplied and added
// with separate roundings (no FMA) so that the Go loop gives the same
// bits. The other lanes keep g and set their bit in missed. fast[i] and
// w[i] come as one 64-bit pair (fast low, w high), so that two gathers of
// eight pairs fetch what took two gathers of sixteen words: gathers load
// one element at a time and were the kernel's bottleneck. perm holds the
// dword indices that split the pairs: the even ones, then the odd ones.
TEXT ·zigAddAVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         words+8(FP), SI
	MOVQ         missed+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS std+32(FP), Z13
	MOVQ         pairs+40(FP), R8
	MOVQ         perm+48(FP), R9
	VMOVDQU32    0(R9), Z20    // even dwords: fast
	VMOVDQU32    64(R9), Z21   // odd dwords: w
	MOVL         $1023, AX
	VPBROADCASTD AX, Z10
	MOVL         $0x1fffff, AX
	VPBROADCASTD AX, Z11
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, Z12
	MOVL         $1, AX
	VPBROADCASTD AX, Z14
	SHRQ         $4, CX

zigloop:
	TESTQ          CX, CX
	JE             zigdone
	VMOVDQU32      (SI), Z0         // b
	VPANDD         Z10, Z0, Z1      // i
	VPSRLD         $10, Z0, Z2
	VPANDD         Z11, Z2, Z2      // m
	VEXTRACTI64X4  $1, Z1, Y7       // i of lanes 8–15
	KXNORW         K1, K1, K1
	VPGATHERDQ     (R8)(Y1*8), K1, Z3 // pairs of lanes 0–7
	KXNORW         K2, K2, K2
	VPGATHERDQ     (R8)(Y7*8), K2, Z8 // pairs of lanes 8–15
	VMOVDQA64      Z20, Z15
	VPERMI2D       Z8, Z3, Z15      // fast[i]
	VMOVDQA64      Z21, Z4
	VPERMI2D       Z8, Z3, Z4       // w[i]
	VPCMPUD        $1, Z15, Z2, K3  // m < fast[i]
	VPSLLD         $1, Z2, Z5
	VPORD          Z14, Z5, Z5      // 2m + 1
	VCVTDQ2PS      Z5, Z5
	VMULPS         Z4, Z5, Z5       // (2m+1)·w[i]
	VPANDD         Z12, Z0, Z6
	VPORD          Z6, Z5, Z5       // sign
	VMULPS         Z13, Z5, Z5      // std·x
	VADDPS         (DI), Z5, Z5     // g + std·x
	VMOVUPS        Z5, K3, (DI)
	KNOTW          K3, K4
	KMOVW          K4, (DX)
	ADDQ           $64, DI
	ADDQ           $64, SI
	ADDQ           $2, DX
	DECQ           CX
	JMP            zigloop

zigdone:
	VZEROUPPER
	RET

// func dotAVX512(x, y *float32, n int, acc *[64]float32)
//
// acc[l] += x[j]·y[j] for j ≡ l (mod 64) over the first n &^ 63 entries,
// in four 16-lane registers, multiplied and added with separate roundings.
TEXT ·dotAVX512(SB), NOSPLIT, $0-32
	MOVQ      x+0(FP), SI
	MOVQ      y+8(FP), DI
	MOVQ      n+16(FP), CX
	MOVQ      acc+24(FP), AX
	VMOVUPS   0(AX), Z0
	VMOVUPS   64(AX), Z1
	VMOVUPS   128(AX), Z2
	VMOVUPS   192(AX), Z3
	SHRQ      $6, CX

dotloop:
	TESTQ   CX, CX
	JE      dotdone
	VMOVUPS 0(SI), Z4
	VMULPS  0(DI), Z4, Z4
	VADDPS  Z4, Z0, Z0
	VMOVUPS 64(SI), Z5
	VMULPS  64(DI), Z5, Z5
	VADDPS  Z5, Z1, Z1
	VMOVUPS 128(SI), Z6
	VMULPS  128(DI), Z6, Z6
	VADDPS  Z6, Z2, Z2
	VMOVUPS 192(SI), Z7
	VMULPS  192(DI), Z7, Z7
	VADDPS  Z7, Z3, Z3
	ADDQ    $256, SI
	ADDQ    $256, DI
	DECQ    CX
	JMP     dotloop

dotdone:
	VMOVUPS Z0, 0(AX)
	VMOVUPS Z1, 64(AX)
	VMOVUPS Z2, 128(AX)
	VMOVUPS Z3, 192(AX)
	VZEROUPPER
	RET
