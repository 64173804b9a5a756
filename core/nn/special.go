package nn

import "math"

// float32 exp and log for the ZINB heads and loss, eight lanes at a time
// where the CPU has AVX2 (special_amd64.s) and in the Go loops below
// everywhere else. Both do the same float32 operations in the same order,
// each rounded (no FMA; the float32 conversions stop compilers that fuse
// from fusing), so they give the same bits. The algorithms are Cephes'
// expf and logf (S. Moshier): about 1 ulp, against 0.5 for a float64
// function rounded to float32. In float64 the heads' exp, log1p and
// sigmoid and the loss's zero-count terms were most of a DCAN step.

// Constants of exp32 and log32.
const (
	expLo   = -87.33654 // e^expLo ≈ 2^-126, the smallest normal float32
	expHi   = 88.0      // below ln(MaxFloat32) with 2^round(x·log2e) finite
	log2e   = 1.44269504088896341
	ln2Hi   = 0.693359375 // ln 2 = ln2Hi + ln2Lo, ln2Hi exact in 9 bits
	ln2Lo   = -2.12194440e-4
	sqrtHf  = 0.707106781186547524
	minNorm = 0x1p-126
)

// expPoly are Cephes expf's coefficients, highest degree first.
var expPoly = [6]float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}

// logPoly are Cephes logf's coefficients, highest degree first.
var logPoly = [9]float32{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
	-1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1}

// exp32 returns e^x for x clamped to [expLo, expHi] (so below expLo it
// returns about 2^-126 instead of a smaller number or 0, and above expHi
// e^88 ≈ 1.65e38 instead of a larger one or +Inf); NaN stays NaN. Every
// caller clamps or adds its result where that does not matter.
func exp32(x float32) float32 {
	x = min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(float32(x * log2e))))
	r := float32(x - float32(n*ln2Hi))
	r = float32(r - float32(n*ln2Lo))
	z := float32(r * r)
	p := expPoly[0]
	for _, c := range expPoly[1:] {
		p = float32(float32(p*r) + c)
	}
	y := float32(float32(float32(p*z)+r) + 1)
	return float32(y * math.Float32frombits(uint32(int32(n)+127)<<23))
}

// log32 returns the natural logarithm of x for x in [2^-126, MaxFloat32]
// (positive normal numbers) and NaN (all bits set) for every other x: 0,
// negatives, subnormals, +Inf and NaN. Every caller's argument is at least
// 1e-10.
func log32(x float32) float32 {
	if !(x >= minNorm && x <= math.MaxFloat32) {
		return math.Float32frombits(0xffffffff)
	}
	b := math.Float32bits(x)
	e := float32(int32(b>>23) - 126)
	m := math.Float32frombits(b&0x807fffff | 0x3f000000) // x = m·2^e, m in [0.5, 1)
	f := float32(m - 1)
	if m < sqrtHf {
		e = float32(e - 1)
		f = float32(f + m) // 2m − 1, exact
	}
	z := float32(f * f)
	p := logPoly[0]
	for _, c := range logPoly[1:] {
		p = float32(float32(p*f) + c)
	}
	y := float32(float32(p*f) * z)
	y = float32(y + float32(e*ln2Lo))
	y = float32(y - float32(0.5*z))
	r := float32(f + y)
	return float32(r + float32(e*ln2Hi))
}

// exp32Slice sets dst[i] = exp32(src[i]); dst may be src.
func exp32Slice(dst, src []float32) {
	src = src[:len(dst)]
	for i := exp32Vector(dst, src); i < len(dst); i++ {
		dst[i] = exp32(src[i])
	}
}

// log32Slice sets dst[i] = log32(src[i]); dst may be src.
func log32Slice(dst, src []float32) {
	src = src[:len(dst)]
	for i := log32Vector(dst, src); i < len(dst); i++ {
		dst[i] = log32(src[i])
	}
}

// log1p32Slice sets dst[i] = log(1 + src[i]) for src[i] ≥ 0 without the
// loss of 1 + u's rounding (Goldberg's correction: log(w)·u/(w − 1) with
// w = 1 + u, and u itself where w rounds to 1). dst must not overlap src
// (u is read after dst is written); tmp must be as long as dst.
func log1p32Slice(dst, src, tmp []float32) {
	src, tmp = src[:len(dst)], tmp[:len(dst)]
	for i, u := range src {
		tmp[i] = 1 + u
	}
	log32Slice(dst, tmp)
	for i, w := range tmp {
		u := src[i]
		if w == 1 {
			dst[i] = u
		} else {
			dst[i] = float32(dst[i]*u) / float32(w-1)
		}
	}
}

// actBlock is the number of entries the float32 activations take at a
// time through their stack scratch.
const actBlock = 256

// sigmoid32Slice sets y = 1/(1 + exp32(−y)) in place.
func sigmoid32Slice(y []float32) {
	var e [actBlock]float32
	for lo := 0; lo < len(y); lo += actBlock {
		b := y[lo:min(lo+actBlock, len(y))]
		t := e[:len(b)]
		for i, v := range b {
			t[i] = -v
		}
		exp32Slice(t, t)
		for i, v := range t {
			b[i] = 1 / (1 + v)
		}
	}
}

// softplusClamp32Slice sets y = clamp(log(1 + e^y), ThetaMin, ThetaMax)
// in place, as max(y, 0) + log1p(e^−|y|), which neither overflows nor
// loses the small values.
func softplusClamp32Slice(y []float32) {
	var e, l, tmp [actBlock]float32
	for lo := 0; lo < len(y); lo += actBlock {
		b := y[lo:min(lo+actBlock, len(y))]
		n := len(b)
		for i, v := range b {
			e[i] = -abs32f(v)
		}
		exp32Slice(e[:n], e[:n])
		log1p32Slice(l[:n], e[:n], tmp[:n])
		for i, v := range b {
			b[i] = min(max(max(v, 0)+l[i], ThetaMin), ThetaMax)
		}
	}
}

// softplusDeriv32Slice sets g = g·(1 − e^−y) where ThetaMin < y <
// ThetaMax and 0 elsewhere (SoftplusClamp's mulDeriv): 1 − e^−y is
// −expm1(−y), computed as Kahan's (u − 1)·x/log u with x = −y and
// u = exp32(x), which keeps its relative accuracy for small y.
func softplusDeriv32Slice(g, y []float32) {
	var u, lu [actBlock]float32
	y = y[:len(g)]
	for lo := 0; lo < len(g); lo += actBlock {
		gb, yb := g[lo:min(lo+actBlock, len(g))], y[lo:min(lo+actBlock, len(g))]
		n := len(gb)
		for i, v := range yb {
			u[i] = -v
		}
		exp32Slice(u[:n], u[:n])
		log32Slice(lu[:n], u[:n])
		for i, v := range yb {
			switch w := u[i]; {
			case v <= ThetaMin || v >= ThetaMax:
				gb[i] = 0
			case w == 1:
				gb[i] *= v
			case w-1 == -1:
				// e^−y is below float32's resolution around 1: the factor is 1.
			default:
				gb[i] *= (w - 1) * v / lu[i] // −(u − 1)·(−y)/log u
			}
		}
	}
}

// abs32f returns |v| by clearing the sign bit.
func abs32f(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// tanhPoly are Cephes tanhf's coefficients for |x| < 0.625, highest
// degree first.
var tanhPoly = [5]float32{-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1}

// tanh32Slice sets y = tanh y in place as Cephes' tanhf (about 1 ulp):
// x + x·z·P(z) with z = x² for |x| < 0.625, else ±(1 − 2/(e^{2|x|} + 1)),
// where exp32's clamp gives ±1 for |x| ≥ 44. NaN stays NaN.
func tanh32Slice(y []float32) {
	var e [actBlock]float32
	for lo := 0; lo < len(y); lo += actBlock {
		b := y[lo:min(lo+actBlock, len(y))]
		t := e[:len(b)]
		for i, v := range b {
			t[i] = 2 * abs32f(v)
		}
		exp32Slice(t, t)
		for i, v := range b {
			if a := abs32f(v); a < 0.625 {
				z := float32(v * v)
				p := tanhPoly[0]
				for _, c := range tanhPoly[1:] {
					p = float32(float32(p*z) + c)
				}
				b[i] = float32(float32(float32(p*z)*v) + v)
			} else if a >= 0.625 {
				r := 1 - 2/(t[i]+1)
				if v < 0 {
					r = -r
				}
				b[i] = r
			} // NaN: neither branch, left as it is
		}
	}
}
