package dpsgd

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Standard normal draws for the noise, by the ziggurat method of Marsaglia
// and Tsang (2000) with Doornik's (2005) correction that the layer index
// and the uniform come from separate bits. math/rand/v2's NormFloat64 is
// the same method but costs 4–5 ns a draw (its generic generator interface
// and float64 arithmetic); a million draws a step made the noise a fifth of
// a DP-SGD step. Here one 64-bit draw yields two float32 normals: per
// normal 8 bits choose one of 256 layers, 1 bit the sign and 23 bits the
// position in the layer, so the fast path is one integer compare and one
// multiply.

const (
	zigLayers = 256
	zigR      = 3.6541528853610088 // start of the tail: x₁
	zigV      = 0.00492867323399   // area of each layer under e^{−x²/2}
)

// zig holds the layer table. Layer i ≥ 1 is the box [0, x[i]] ×
// [f(x[i]), f(x[i+1])] with f(x) = e^{−x²/2}, x decreasing from x[1] = R
// to x[256] = 0; layer 0 is the box [0, R] × [0, f(R)] plus the tail beyond
// R, of width x[0] = V/f(R) when seen as a box. A draw u ∈ (0, 1) in
// layer i lands at u·x[i]; below x[i+1] it is inside f, else it needs the
// slow test.
var zig = newZiggurat()

type ziggurat struct {
	x    [zigLayers + 1]float64
	f    [zigLayers + 1]float64 // f(x[i])
	fast [zigLayers]uint32      // u = (2m+1)/2²⁴ < x[i+1]/x[i] ⇔ m < fast[i]
	w    [zigLayers]float32     // x[i]/2²⁴: the draw is (2m+1)·w[i]
	w64  [zigLayers]float64     // w in float64, for the slow path
}

func newZiggurat() *ziggurat {
	z := new(ziggurat)
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	z.x[0], z.x[1] = zigV/f(zigR), zigR
	for i := 1; i < zigLayers-1; i++ {
		z.x[i+1] = math.Sqrt(-2 * math.Log(zigV/z.x[i]+f(z.x[i])))
	}
	z.x[zigLayers] = 0
	for i := range z.x {
		z.f[i] = f(z.x[i])
	}
	for i := range zigLayers {
		// m < fast[i] ⇔ (2m+1) < 2²⁴·ratio
		lim := math.Ldexp(z.x[i+1]/z.x[i], 24)
		z.fast[i] = uint32(math.Ceil((lim - 1) / 2))
		if lim <= 1 {
			z.fast[i] = 0
		}
		z.w64[i] = math.Ldexp(z.x[i], -24)
		z.w[i] = float32(z.w64[i])
	}
	return z
}

// wordSource gives uniform 64-bit words, singly or in bulk.
type wordSource interface {
	Uint64() uint64
	fill(dst []uint64)
}

// normalSource turns a generator's 64-bit words into standard normals.
type normalSource struct {
	src   wordSource
	words [256]uint64 // a block of words, drawn in one call
}

// fill sets dst to independent N(0, 1) draws. Each 32-bit half of a word
// is one draw: layer b&255, magnitude m = bits 8–30, sign bit 31. The fast
// path (98.5 % of draws) is written out here so that it compiles to a few
// instructions; slowNormal finishes the rest.
func (n *normalSource) fill(dst []float32) {
	fast, w := &zig.fast, &zig.w
	for len(dst) > 0 {
		words := n.words[:min(len(n.words), (len(dst)+1)/2)]
		n.src.fill(words)
		for j, word := range words {
			for h := range 2 {
				k := 2*j + h
				if k == len(dst) {
					break
				}
				b := uint32(word >> (32 * h))
				i, m := uint8(b), (b>>8)&(1<<23-1)
				if m < fast[i] {
					x := float32(2*m+1) * w[i]
					dst[k] = math.Float32frombits(math.Float32bits(x) | b&(1<<31))
					continue
				}
				dst[k] = n.slowNormal(b)
			}
		}
		dst = dst[min(len(dst), 2*len(words)):]
	}
}

// slowNormal returns a normal from the 32 bits b that missed the fast
// path, drawing more bits as it needs them.
func (n *normalSource) slowNormal(b uint32) float32 {
	for {
		i, m := uint32(uint8(b)), (b>>8)&(1<<23-1)
		if m < zig.fast[i] {
			x := float32(2*m+1) * zig.w[i]
			return math.Float32frombits(math.Float32bits(x) | b&(1<<31))
		}
		if x, ok := n.slow(i, m); ok {
			return math.Float32frombits(math.Float32bits(float32(x)) | b&(1<<31))
		}
		b = uint32(n.src.Uint64())
	}
}

// slow finishes a draw outside the fast region of layer i: from the tail
// for layer 0, else by testing a uniform height in the layer's box
// against f. It returns ok = false for a rejection (draw again).
func (n *normalSource) slow(i, m uint32) (float64, bool) {
	if i == 0 {
		// Marsaglia (1964): the tail beyond R.
		for {
			a := -math.Log(n.unit()) / zigR
			if -2*math.Log(n.unit()) > a*a {
				return zigR + a, true
			}
		}
	}
	x := float64(2*m+1) * zig.w64[i]
	y := zig.f[i] + n.unit()*(zig.f[i+1]-zig.f[i])
	return x, y < math.Exp(-0.5*x*x)
}

// unit returns a uniform draw from (0, 1].
func (n *normalSource) unit() float64 {
	return (float64(n.src.Uint64()>>11) + 1) * 0x1p-53
}

// xoshiro is xoshiro256++ (Blackman and Vigna 2021): 0.8 ns a word in
// bulk here, against 1.9 ns for PCG-DXSM, whose 128-bit multiply is on
// the dependency chain. Not cryptographic; secure noise uses ChaCha8.
type xoshiro struct{ s [4]uint64 }

// newXoshiro seeds the state by SplitMix64 from (seed, stream), as the
// authors recommend.
func newXoshiro(seed, stream uint64) *xoshiro {
	x := new(xoshiro)
	z := seed ^ bits.RotateLeft64(stream, 32) ^ 0x6a09e667f3bcc909
	for i := range x.s {
		z += 0x9e3779b97f4a7c15
		v := z
		v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
		v = (v ^ v>>27) * 0x94d049bb133111eb
		x.s[i] = v ^ v>>31
	}
	return x
}

func (x *xoshiro) Uint64() uint64 {
	var r uint64
	r, x.s[0], x.s[1], x.s[2], x.s[3] = xoshiroNext(x.s[0], x.s[1], x.s[2], x.s[3])
	return r
}

func (x *xoshiro) fill(dst []uint64) {
	s0, s1, s2, s3 := x.s[0], x.s[1], x.s[2], x.s[3]
	for i := range dst {
		dst[i], s0, s1, s2, s3 = xoshiroNext(s0, s1, s2, s3)
	}
	x.s = [4]uint64{s0, s1, s2, s3}
}

// xoshiroNext is one step of xoshiro256++: the output and the next state,
// passed by value so that fill keeps the state in registers.
func xoshiroNext(s0, s1, s2, s3 uint64) (r, n0, n1, n2, n3 uint64) {
	r = bits.RotateLeft64(s0+s3, 23) + s0
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	return r, s0, s1, s2, bits.RotateLeft64(s3, 45)
}

// chachaWords adapts ChaCha8 (secure noise) to wordSource.
type chachaWords struct{ *rand.ChaCha8 }

func (c chachaWords) fill(dst []uint64) {
	for i := range dst {
		dst[i] = c.ChaCha8.Uint64()
	}
}
