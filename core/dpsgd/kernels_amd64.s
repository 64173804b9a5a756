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

// func dotAVX2(x, y *float32, n int, acc *[64]float32)
//
// dotAVX512 with eight 8-lane registers: acc[l] += x[j]·y[j] for
// j ≡ l (mod 64), multiplied and added with separate roundings.
TEXT ·dotAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    y+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVQ    acc+24(FP), AX
	VMOVUPS 0(AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS 128(AX), Y4
	VMOVUPS 160(AX), Y5
	VMOVUPS 192(AX), Y6
	VMOVUPS 224(AX), Y7
	SHRQ    $6, CX

d2loop:
	TESTQ   CX, CX
	JE      d2done
	VMOVUPS 0(SI), Y8
	VMULPS  0(DI), Y8, Y8
	VADDPS  Y8, Y0, Y0
	VMOVUPS 32(SI), Y9
	VMULPS  32(DI), Y9, Y9
	VADDPS  Y9, Y1, Y1
	VMOVUPS 64(SI), Y10
	VMULPS  64(DI), Y10, Y10
	VADDPS  Y10, Y2, Y2
	VMOVUPS 96(SI), Y11
	VMULPS  96(DI), Y11, Y11
	VADDPS  Y11, Y3, Y3
	VMOVUPS 128(SI), Y12
	VMULPS  128(DI), Y12, Y12
	VADDPS  Y12, Y4, Y4
	VMOVUPS 160(SI), Y13
	VMULPS  160(DI), Y13, Y13
	VADDPS  Y13, Y5, Y5
	VMOVUPS 192(SI), Y14
	VMULPS  192(DI), Y14, Y14
	VADDPS  Y14, Y6, Y6
	VMOVUPS 224(SI), Y15
	VMULPS  224(DI), Y15, Y15
	VADDPS  Y15, Y7, Y7
	ADDQ    $256, SI
	ADDQ    $256, DI
	DECQ    CX
	JMP     d2loop

d2done:
	VMOVUPS Y0, 0(AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 96(AX)
	VMOVUPS Y4, 128(AX)
	VMOVUPS Y5, 160(AX)
	VMOVUPS Y6, 192(AX)
	VMOVUPS Y7, 224(AX)
	VZEROUPPER
	RET

// XO2HALF(s0, s1, s2, s3, off) steps the four lanes of one half of the
// eight streams (state words in s0..s3) and stores their outputs at
// off(DI). AVX2 has no 64-bit rotate: shifts and an OR.
#define XO2HALF(s0, s1, s2, s3, off) \
	VPADDQ  s3, s0, Y8    \ // s0 + s3
	VPSLLQ  $23, Y8, Y9   \
	VPSRLQ  $41, Y8, Y8   \
	VPOR    Y9, Y8, Y8    \ // rotl(s0+s3, 23)
	VPADDQ  s0, Y8, Y8    \
	VMOVDQU Y8, off(DI)   \
	VPSLLQ  $17, s1, Y10  \ // t = s1 << 17
	VPXOR   s0, s2, s2    \ // s2 ^= s0
	VPXOR   s1, s3, s3    \ // s3 ^= s1
	VPXOR   s2, s1, s1    \ // s1 ^= s2
	VPXOR   s3, s0, s0    \ // s0 ^= s3
	VPXOR   Y10, s2, s2   \ // s2 ^= t
	VPSLLQ  $45, s3, Y11  \
	VPSRLQ  $19, s3, s3   \
	VPOR    Y11, s3, s3   // rotl(s3, 45)

// func xoshiro8FillAVX2(s *[4][8]uint64, dst *uint32, steps int)
//
// xoshiro8Fill with each state word in two 4-lane registers (lanes 0–3
// and 4–7); each step stores the eight outputs, lane 0 first.
TEXT ·xoshiro8FillAVX2(SB), NOSPLIT, $0-24
	MOVQ    s+0(FP), AX
	MOVQ    dst+8(FP), DI
	MOVQ    steps+16(FP), CX
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 128(AX), Y4
	VMOVDQU 160(AX), Y5
	VMOVDQU 192(AX), Y6
	VMOVDQU 224(AX), Y7

x2loop:
	TESTQ CX, CX
	JE    x2done
	XO2HALF(Y0, Y2, Y4, Y6, 0)
	XO2HALF(Y1, Y3, Y5, Y7, 32)
	ADDQ  $64, DI
	DECQ  CX
	JMP   x2loop

x2done:
	VMOVDQU Y0, 0(AX)
	VMOVDQU Y1, 32(AX)
	VMOVDQU Y2, 64(AX)
	VMOVDQU Y3, 96(AX)
	VMOVDQU Y4, 128(AX)
	VMOVDQU Y5, 160(AX)
	VMOVDQU Y6, 192(AX)
	VMOVDQU Y7, 224(AX)
	VZEROUPPER
	RET

// ZIG2HALF(off) runs the fast path on the 8 draws at off(SI), off(DI)
// and leaves in BX the bits of the lanes that took it. (fast[i], w[i])
// come as 64-bit pairs, four a gather (gathers load one element at a
// time: 1.3–1.6 ns a draw with two 8-lane gathers of fast and w).
#define ZIG2HALF(off) \
	VMOVDQU      off(SI), Y0        \ // b
	VPAND        Y10, Y0, Y1        \ // i
	VPSRLD       $10, Y0, Y2        \
	VPAND        Y11, Y2, Y2        \ // m
	VEXTRACTI128 $1, Y1, X7         \
	VPCMPEQD     Y9, Y9, Y9         \
	VPGATHERDQ   Y9, (R8)(X1*8), Y3 \ // pairs of lanes 0–3
	VPCMPEQD     Y9, Y9, Y9         \
	VPGATHERDQ   Y9, (R8)(X7*8), Y4 \ // pairs of lanes 4–7
	VSHUFPS      $0x88, Y4, Y3, Y5  \ // fast, lanes 0 1 4 5 2 3 6 7
	VPERMQ       $0xD8, Y5, Y5      \ // fast[i]
	VSHUFPS      $0xDD, Y4, Y3, Y6  \
	VPERMQ       $0xD8, Y6, Y4      \ // w[i]
	VPCMPGTD     Y2, Y5, Y5         \ // fast[i] > m (both below 2³¹)
	VPSLLD       $1, Y2, Y6         \
	VPOR         Y14, Y6, Y6        \ // 2m + 1
	VCVTDQ2PS    Y6, Y6             \
	VMULPS       Y4, Y6, Y6         \ // (2m+1)·w[i]
	VPAND        Y12, Y0, Y7        \
	VPOR         Y7, Y6, Y6         \ // sign
	VMULPS       Y13, Y6, Y6        \ // std·x
	VMOVUPS      off(DI), Y8        \
	VADDPS       Y8, Y6, Y6         \ // g + std·x
	VBLENDVPS    Y5, Y6, Y8, Y8     \ // where fast, else g
	VMOVUPS      Y8, off(DI)        \
	VMOVMSKPS    Y5, BX

// func zigAddAVX2(dst *float32, words *uint32, missed *uint16, n int, std float32, pairs *uint64)
//
// zigAddAVX512 for AVX2: sixteen draws per iteration in two halves of
// eight; the lanes off the fast path keep g and set their bit in missed.
TEXT ·zigAddAVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         words+8(FP), SI
	MOVQ         missed+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS std+32(FP), Y13
	MOVQ         pairs+40(FP), R8
	MOVL         $1023, AX
	VMOVD        AX, X10
	VPBROADCASTD X10, Y10
	MOVL         $0x1fffff, AX
	VMOVD        AX, X11
	VPBROADCASTD X11, Y11
	MOVL         $0x80000000, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12
	MOVL         $1, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	SHRQ         $4, CX

z2loop:
	TESTQ CX, CX
	JE    z2done
	ZIG2HALF(0)
	MOVQ  BX, R10
	ZIG2HALF(32)
	SHLQ  $8, BX
	ORQ   R10, BX
	NOTQ  BX
	MOVW  BX, (DX)
	ADDQ  $64, DI
	ADDQ  $64, SI
	ADDQ  $2, DX
	DECQ  CX
	JMP   z2loop

z2done:
	VZEROUPPER
	RET
