//go:build !purego

#include "textflag.h"

// Constants of exp32 and log32 (special.go), each in 8 lanes so that an
// instruction can read it from memory. K_i127 and K_i126 are int32, K_mant
// a bit mask; the rest float32.
// explo at 0
DATA specialConst<>+0(SB)/4, $0xc2aeac4f
DATA specialConst<>+4(SB)/4, $0xc2aeac4f
DATA specialConst<>+8(SB)/4, $0xc2aeac4f
DATA specialConst<>+12(SB)/4, $0xc2aeac4f
DATA specialConst<>+16(SB)/4, $0xc2aeac4f
DATA specialConst<>+20(SB)/4, $0xc2aeac4f
DATA specialConst<>+24(SB)/4, $0xc2aeac4f
DATA specialConst<>+28(SB)/4, $0xc2aeac4f
// exphi at 32
DATA specialConst<>+32(SB)/4, $0x42b00000
DATA specialConst<>+36(SB)/4, $0x42b00000
DATA specialConst<>+40(SB)/4, $0x42b00000
DATA specialConst<>+44(SB)/4, $0x42b00000
DATA specialConst<>+48(SB)/4, $0x42b00000
DATA specialConst<>+52(SB)/4, $0x42b00000
DATA specialConst<>+56(SB)/4, $0x42b00000
DATA specialConst<>+60(SB)/4, $0x42b00000
// log2e at 64
DATA specialConst<>+64(SB)/4, $0x3fb8aa3b
DATA specialConst<>+68(SB)/4, $0x3fb8aa3b
DATA specialConst<>+72(SB)/4, $0x3fb8aa3b
DATA specialConst<>+76(SB)/4, $0x3fb8aa3b
DATA specialConst<>+80(SB)/4, $0x3fb8aa3b
DATA specialConst<>+84(SB)/4, $0x3fb8aa3b
DATA specialConst<>+88(SB)/4, $0x3fb8aa3b
DATA specialConst<>+92(SB)/4, $0x3fb8aa3b
// ln2hi at 96
DATA specialConst<>+96(SB)/4, $0x3f318000
DATA specialConst<>+100(SB)/4, $0x3f318000
DATA specialConst<>+104(SB)/4, $0x3f318000
DATA specialConst<>+108(SB)/4, $0x3f318000
DATA specialConst<>+112(SB)/4, $0x3f318000
DATA specialConst<>+116(SB)/4, $0x3f318000
DATA specialConst<>+120(SB)/4, $0x3f318000
DATA specialConst<>+124(SB)/4, $0x3f318000
// ln2lo at 128
DATA specialConst<>+128(SB)/4, $0xb95e8083
DATA specialConst<>+132(SB)/4, $0xb95e8083
DATA specialConst<>+136(SB)/4, $0xb95e8083
DATA specialConst<>+140(SB)/4, $0xb95e8083
DATA specialConst<>+144(SB)/4, $0xb95e8083
DATA specialConst<>+148(SB)/4, $0xb95e8083
DATA specialConst<>+152(SB)/4, $0xb95e8083
DATA specialConst<>+156(SB)/4, $0xb95e8083
// one at 160
DATA specialConst<>+160(SB)/4, $0x3f800000
DATA specialConst<>+164(SB)/4, $0x3f800000
DATA specialConst<>+168(SB)/4, $0x3f800000
DATA specialConst<>+172(SB)/4, $0x3f800000
DATA specialConst<>+176(SB)/4, $0x3f800000
DATA specialConst<>+180(SB)/4, $0x3f800000
DATA specialConst<>+184(SB)/4, $0x3f800000
DATA specialConst<>+188(SB)/4, $0x3f800000
// half at 192
DATA specialConst<>+192(SB)/4, $0x3f000000
DATA specialConst<>+196(SB)/4, $0x3f000000
DATA specialConst<>+200(SB)/4, $0x3f000000
DATA specialConst<>+204(SB)/4, $0x3f000000
DATA specialConst<>+208(SB)/4, $0x3f000000
DATA specialConst<>+212(SB)/4, $0x3f000000
DATA specialConst<>+216(SB)/4, $0x3f000000
DATA specialConst<>+220(SB)/4, $0x3f000000
// i127 at 224
DATA specialConst<>+224(SB)/4, $0x0000007f
DATA specialConst<>+228(SB)/4, $0x0000007f
DATA specialConst<>+232(SB)/4, $0x0000007f
DATA specialConst<>+236(SB)/4, $0x0000007f
DATA specialConst<>+240(SB)/4, $0x0000007f
DATA specialConst<>+244(SB)/4, $0x0000007f
DATA specialConst<>+248(SB)/4, $0x0000007f
DATA specialConst<>+252(SB)/4, $0x0000007f
// i126 at 256
DATA specialConst<>+256(SB)/4, $0x0000007e
DATA specialConst<>+260(SB)/4, $0x0000007e
DATA specialConst<>+264(SB)/4, $0x0000007e
DATA specialConst<>+268(SB)/4, $0x0000007e
DATA specialConst<>+272(SB)/4, $0x0000007e
DATA specialConst<>+276(SB)/4, $0x0000007e
DATA specialConst<>+280(SB)/4, $0x0000007e
DATA specialConst<>+284(SB)/4, $0x0000007e
// ep0 at 288
DATA specialConst<>+288(SB)/4, $0x39506967
DATA specialConst<>+292(SB)/4, $0x39506967
DATA specialConst<>+296(SB)/4, $0x39506967
DATA specialConst<>+300(SB)/4, $0x39506967
DATA specialConst<>+304(SB)/4, $0x39506967
DATA specialConst<>+308(SB)/4, $0x39506967
DATA specialConst<>+312(SB)/4, $0x39506967
DATA specialConst<>+316(SB)/4, $0x39506967
// ep1 at 320
DATA specialConst<>+320(SB)/4, $0x3ab743ce
DATA specialConst<>+324(SB)/4, $0x3ab743ce
DATA specialConst<>+328(SB)/4, $0x3ab743ce
DATA specialConst<>+332(SB)/4, $0x3ab743ce
DATA specialConst<>+336(SB)/4, $0x3ab743ce
DATA specialConst<>+340(SB)/4, $0x3ab743ce
DATA specialConst<>+344(SB)/4, $0x3ab743ce
DATA specialConst<>+348(SB)/4, $0x3ab743ce
// ep2 at 352
DATA specialConst<>+352(SB)/4, $0x3c088908
DATA specialConst<>+356(SB)/4, $0x3c088908
DATA specialConst<>+360(SB)/4, $0x3c088908
DATA specialConst<>+364(SB)/4, $0x3c088908
DATA specialConst<>+368(SB)/4, $0x3c088908
DATA specialConst<>+372(SB)/4, $0x3c088908
DATA specialConst<>+376(SB)/4, $0x3c088908
DATA specialConst<>+380(SB)/4, $0x3c088908
// ep3 at 384
DATA specialConst<>+384(SB)/4, $0x3d2aa9c1
DATA specialConst<>+388(SB)/4, $0x3d2aa9c1
DATA specialConst<>+392(SB)/4, $0x3d2aa9c1
DATA specialConst<>+396(SB)/4, $0x3d2aa9c1
DATA specialConst<>+400(SB)/4, $0x3d2aa9c1
DATA specialConst<>+404(SB)/4, $0x3d2aa9c1
DATA specialConst<>+408(SB)/4, $0x3d2aa9c1
DATA specialConst<>+412(SB)/4, $0x3d2aa9c1
// ep4 at 416
DATA specialConst<>+416(SB)/4, $0x3e2aaaaa
DATA specialConst<>+420(SB)/4, $0x3e2aaaaa
DATA specialConst<>+424(SB)/4, $0x3e2aaaaa
DATA specialConst<>+428(SB)/4, $0x3e2aaaaa
DATA specialConst<>+432(SB)/4, $0x3e2aaaaa
DATA specialConst<>+436(SB)/4, $0x3e2aaaaa
DATA specialConst<>+440(SB)/4, $0x3e2aaaaa
DATA specialConst<>+444(SB)/4, $0x3e2aaaaa
// ep5 at 448
DATA specialConst<>+448(SB)/4, $0x3f000000
DATA specialConst<>+452(SB)/4, $0x3f000000
DATA specialConst<>+456(SB)/4, $0x3f000000
DATA specialConst<>+460(SB)/4, $0x3f000000
DATA specialConst<>+464(SB)/4, $0x3f000000
DATA specialConst<>+468(SB)/4, $0x3f000000
DATA specialConst<>+472(SB)/4, $0x3f000000
DATA specialConst<>+476(SB)/4, $0x3f000000
// minnorm at 480
DATA specialConst<>+480(SB)/4, $0x00800000
DATA specialConst<>+484(SB)/4, $0x00800000
DATA specialConst<>+488(SB)/4, $0x00800000
DATA specialConst<>+492(SB)/4, $0x00800000
DATA specialConst<>+496(SB)/4, $0x00800000
DATA specialConst<>+500(SB)/4, $0x00800000
DATA specialConst<>+504(SB)/4, $0x00800000
DATA specialConst<>+508(SB)/4, $0x00800000
// maxf at 512
DATA specialConst<>+512(SB)/4, $0x7f7fffff
DATA specialConst<>+516(SB)/4, $0x7f7fffff
DATA specialConst<>+520(SB)/4, $0x7f7fffff
DATA specialConst<>+524(SB)/4, $0x7f7fffff
DATA specialConst<>+528(SB)/4, $0x7f7fffff
DATA specialConst<>+532(SB)/4, $0x7f7fffff
DATA specialConst<>+536(SB)/4, $0x7f7fffff
DATA specialConst<>+540(SB)/4, $0x7f7fffff
// mant at 544
DATA specialConst<>+544(SB)/4, $0x807fffff
DATA specialConst<>+548(SB)/4, $0x807fffff
DATA specialConst<>+552(SB)/4, $0x807fffff
DATA specialConst<>+556(SB)/4, $0x807fffff
DATA specialConst<>+560(SB)/4, $0x807fffff
DATA specialConst<>+564(SB)/4, $0x807fffff
DATA specialConst<>+568(SB)/4, $0x807fffff
DATA specialConst<>+572(SB)/4, $0x807fffff
// sqrthf at 576
DATA specialConst<>+576(SB)/4, $0x3f3504f3
DATA specialConst<>+580(SB)/4, $0x3f3504f3
DATA specialConst<>+584(SB)/4, $0x3f3504f3
DATA specialConst<>+588(SB)/4, $0x3f3504f3
DATA specialConst<>+592(SB)/4, $0x3f3504f3
DATA specialConst<>+596(SB)/4, $0x3f3504f3
DATA specialConst<>+600(SB)/4, $0x3f3504f3
DATA specialConst<>+604(SB)/4, $0x3f3504f3
// lp0 at 608
DATA specialConst<>+608(SB)/4, $0x3d9021bb
DATA specialConst<>+612(SB)/4, $0x3d9021bb
DATA specialConst<>+616(SB)/4, $0x3d9021bb
DATA specialConst<>+620(SB)/4, $0x3d9021bb
DATA specialConst<>+624(SB)/4, $0x3d9021bb
DATA specialConst<>+628(SB)/4, $0x3d9021bb
DATA specialConst<>+632(SB)/4, $0x3d9021bb
DATA specialConst<>+636(SB)/4, $0x3d9021bb
// lp1 at 640
DATA specialConst<>+640(SB)/4, $0xbdebd1b8
DATA specialConst<>+644(SB)/4, $0xbdebd1b8
DATA specialConst<>+648(SB)/4, $0xbdebd1b8
DATA specialConst<>+652(SB)/4, $0xbdebd1b8
DATA specialConst<>+656(SB)/4, $0xbdebd1b8
DATA specialConst<>+660(SB)/4, $0xbdebd1b8
DATA specialConst<>+664(SB)/4, $0xbdebd1b8
DATA specialConst<>+668(SB)/4, $0xbdebd1b8
// lp2 at 672
DATA specialConst<>+672(SB)/4, $0x3def251a
DATA specialConst<>+676(SB)/4, $0x3def251a
DATA specialConst<>+680(SB)/4, $0x3def251a
DATA specialConst<>+684(SB)/4, $0x3def251a
DATA specialConst<>+688(SB)/4, $0x3def251a
DATA specialConst<>+692(SB)/4, $0x3def251a
DATA specialConst<>+696(SB)/4, $0x3def251a
DATA specialConst<>+700(SB)/4, $0x3def251a
// lp3 at 704
DATA specialConst<>+704(SB)/4, $0xbdfe5d4f
DATA specialConst<>+708(SB)/4, $0xbdfe5d4f
DATA specialConst<>+712(SB)/4, $0xbdfe5d4f
DATA specialConst<>+716(SB)/4, $0xbdfe5d4f
DATA specialConst<>+720(SB)/4, $0xbdfe5d4f
DATA specialConst<>+724(SB)/4, $0xbdfe5d4f
DATA specialConst<>+728(SB)/4, $0xbdfe5d4f
DATA specialConst<>+732(SB)/4, $0xbdfe5d4f
// lp4 at 736
DATA specialConst<>+736(SB)/4, $0x3e11e9bf
DATA specialConst<>+740(SB)/4, $0x3e11e9bf
DATA specialConst<>+744(SB)/4, $0x3e11e9bf
DATA specialConst<>+748(SB)/4, $0x3e11e9bf
DATA specialConst<>+752(SB)/4, $0x3e11e9bf
DATA specialConst<>+756(SB)/4, $0x3e11e9bf
DATA specialConst<>+760(SB)/4, $0x3e11e9bf
DATA specialConst<>+764(SB)/4, $0x3e11e9bf
// lp5 at 768
DATA specialConst<>+768(SB)/4, $0xbe2aae50
DATA specialConst<>+772(SB)/4, $0xbe2aae50
DATA specialConst<>+776(SB)/4, $0xbe2aae50
DATA specialConst<>+780(SB)/4, $0xbe2aae50
DATA specialConst<>+784(SB)/4, $0xbe2aae50
DATA specialConst<>+788(SB)/4, $0xbe2aae50
DATA specialConst<>+792(SB)/4, $0xbe2aae50
DATA specialConst<>+796(SB)/4, $0xbe2aae50
// lp6 at 800
DATA specialConst<>+800(SB)/4, $0x3e4cceac
DATA specialConst<>+804(SB)/4, $0x3e4cceac
DATA specialConst<>+808(SB)/4, $0x3e4cceac
DATA specialConst<>+812(SB)/4, $0x3e4cceac
DATA specialConst<>+816(SB)/4, $0x3e4cceac
DATA specialConst<>+820(SB)/4, $0x3e4cceac
DATA specialConst<>+824(SB)/4, $0x3e4cceac
DATA specialConst<>+828(SB)/4, $0x3e4cceac
// lp7 at 832
DATA specialConst<>+832(SB)/4, $0xbe7ffffc
DATA specialConst<>+836(SB)/4, $0xbe7ffffc
DATA specialConst<>+840(SB)/4, $0xbe7ffffc
DATA specialConst<>+844(SB)/4, $0xbe7ffffc
DATA specialConst<>+848(SB)/4, $0xbe7ffffc
DATA specialConst<>+852(SB)/4, $0xbe7ffffc
DATA specialConst<>+856(SB)/4, $0xbe7ffffc
DATA specialConst<>+860(SB)/4, $0xbe7ffffc
// lp8 at 864
DATA specialConst<>+864(SB)/4, $0x3eaaaaaa
DATA specialConst<>+868(SB)/4, $0x3eaaaaaa
DATA specialConst<>+872(SB)/4, $0x3eaaaaaa
DATA specialConst<>+876(SB)/4, $0x3eaaaaaa
DATA specialConst<>+880(SB)/4, $0x3eaaaaaa
DATA specialConst<>+884(SB)/4, $0x3eaaaaaa
DATA specialConst<>+888(SB)/4, $0x3eaaaaaa
DATA specialConst<>+892(SB)/4, $0x3eaaaaaa
GLOBL specialConst<>(SB), RODATA|NOPTR, $896
#define K_explo specialConst<>+0(SB)
#define K_exphi specialConst<>+32(SB)
#define K_log2e specialConst<>+64(SB)
#define K_ln2hi specialConst<>+96(SB)
#define K_ln2lo specialConst<>+128(SB)
#define K_one specialConst<>+160(SB)
#define K_half specialConst<>+192(SB)
#define K_i127 specialConst<>+224(SB)
#define K_i126 specialConst<>+256(SB)
#define K_ep0 specialConst<>+288(SB)
#define K_ep1 specialConst<>+320(SB)
#define K_ep2 specialConst<>+352(SB)
#define K_ep3 specialConst<>+384(SB)
#define K_ep4 specialConst<>+416(SB)
#define K_ep5 specialConst<>+448(SB)
#define K_minnorm specialConst<>+480(SB)
#define K_maxf specialConst<>+512(SB)
#define K_mant specialConst<>+544(SB)
#define K_sqrthf specialConst<>+576(SB)
#define K_lp0 specialConst<>+608(SB)
#define K_lp1 specialConst<>+640(SB)
#define K_lp2 specialConst<>+672(SB)
#define K_lp3 specialConst<>+704(SB)
#define K_lp4 specialConst<>+736(SB)
#define K_lp5 specialConst<>+768(SB)
#define K_lp6 specialConst<>+800(SB)
#define K_lp7 specialConst<>+832(SB)
#define K_lp8 specialConst<>+864(SB)

// func exp32AVX2(dst, src *float32, n int)
//
// dst = exp32(src) for the first n &^ 7 entries, with exp32's operations
// in its order (no FMA), so the same bits. dst may be src. The clamps put
// src first (Intel's second operand), which MAXPS and MINPS return when
// either is NaN, so NaN stays NaN as with Go's max and min.
TEXT ·exp32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), CX
	SHRQ    $3, CX
	VMOVUPS K_explo, Y14
	VMOVUPS K_exphi, Y15

exploop:
	TESTQ      CX, CX
	JE         expdone
	VMOVUPS    (SI), Y0
	VMAXPS     Y0, Y14, Y0
	VMINPS     Y0, Y15, Y0
	VMULPS     K_log2e, Y0, Y1
	VROUNDPS   $0, Y1, Y1      // n, to nearest even
	VMULPS     K_ln2hi, Y1, Y2
	VSUBPS     Y2, Y0, Y0
	VMULPS     K_ln2lo, Y1, Y2
	VSUBPS     Y2, Y0, Y0      // r
	VMULPS     Y0, Y0, Y2      // z = r²
	VMOVUPS    K_ep0, Y3
	VMULPS     Y0, Y3, Y3
	VADDPS     K_ep1, Y3, Y3
	VMULPS     Y0, Y3, Y3
	VADDPS     K_ep2, Y3, Y3
	VMULPS     Y0, Y3, Y3
	VADDPS     K_ep3, Y3, Y3
	VMULPS     Y0, Y3, Y3
	VADDPS     K_ep4, Y3, Y3
	VMULPS     Y0, Y3, Y3
	VADDPS     K_ep5, Y3, Y3
	VMULPS     Y2, Y3, Y3
	VADDPS     Y0, Y3, Y3
	VADDPS     K_one, Y3, Y3
	VCVTTPS2DQ Y1, Y1
	VPADDD     K_i127, Y1, Y1
	VPSLLD     $23, Y1, Y1     // 2^n
	VMULPS     Y1, Y3, Y3
	VMOVUPS    Y3, (DI)
	ADDQ       $32, DI
	ADDQ       $32, SI
	DECQ       CX
	JMP        exploop

expdone:
	VZEROUPPER
	RET

// func log32AVX2(dst, src *float32, n int)
//
// dst = log32(src) for the first n &^ 7 entries, with log32's operations
// in its order, so the same bits; all bits set (NaN) outside
// [2^-126, MaxFloat32]. dst may be src.
TEXT ·log32AVX2(SB), NOSPLIT, $0-24
	MOVQ     dst+0(FP), DI
	MOVQ     src+8(FP), SI
	MOVQ     n+16(FP), CX
	SHRQ     $3, CX
	VPCMPEQD Y15, Y15, Y15 // all ones

logloop:
	TESTQ     CX, CX
	JE        logdone
	VMOVUPS   (SI), Y0
	VCMPPS    $0x1d, K_minnorm, Y0, Y5 // x ≥ 2^-126 (false for NaN)
	VCMPPS    $0x12, K_maxf, Y0, Y6    // x ≤ MaxFloat32
	VANDPS    Y6, Y5, Y5               // valid
	VPSRLD    $23, Y0, Y1
	VPSUBD    K_i126, Y1, Y1
	VCVTDQ2PS Y1, Y1                   // e
	VANDPS    K_mant, Y0, Y2
	VORPS     K_half, Y2, Y2           // m in [0.5, 1)
	VSUBPS    K_one, Y2, Y3            // f = m − 1
	VCMPPS    $0x11, K_sqrthf, Y2, Y4  // m < √½
	VANDPS    Y4, Y2, Y6
	VADDPS    Y6, Y3, Y3               // f + m where m < √½, else f + 0
	VANDPS    K_one, Y4, Y6
	VSUBPS    Y6, Y1, Y1               // e − 1 where m < √½
	VMULPS    Y3, Y3, Y4               // z = f²
	VMOVUPS   K_lp0, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp1, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp2, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp3, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp4, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp5, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp6, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp7, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VADDPS    K_lp8, Y6, Y6
	VMULPS    Y3, Y6, Y6
	VMULPS    Y4, Y6, Y6               // y = p·f·z
	VMULPS    K_ln2lo, Y1, Y7
	VADDPS    Y7, Y6, Y6
	VMULPS    K_half, Y4, Y7
	VSUBPS    Y7, Y6, Y6
	VADDPS    Y6, Y3, Y6               // f + y
	VMULPS    K_ln2hi, Y1, Y7
	VADDPS    Y7, Y6, Y6
	VANDPS    Y5, Y6, Y6
	VANDNPS   Y15, Y5, Y7              // not valid
	VORPS     Y7, Y6, Y6
	VMOVUPS   Y6, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	DECQ      CX
	JMP       logloop

logdone:
	VZEROUPPER
	RET
