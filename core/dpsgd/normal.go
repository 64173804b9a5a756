package dpsgd

import (
	"math"
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
		z.w[i] = float32(math.Ldexp(z.x[i], -24))
	}
	return z
}

// normalSource turns a generator's 64-bit words into standard normals.
type normalSource struct {
	src rand.Source
}

// fill sets dst to independent N(0, 1) draws. Each 32-bit half of a
// 64-bit word is one draw: layer b&255, magnitude m = bits 8–30, sign bit
// 31. The fast path (over 99 % of draws) is written out here so that it
// compiles to a few instructions; slowNormal finishes the rest.
func (n *normalSource) fill(dst []float32) {
	src, fast, w := n.src, &zig.fast, &zig.w
	var word uint64
	for k := range dst {
		if k&1 == 0 {
			word = src.Uint64()
		} else {
			word >>= 32
		}
		b := uint32(word)
		i, m := uint8(b), (b>>8)&(1<<23-1)
		if m < fast[i] {
			x := float32(2*m+1) * w[i]
			dst[k] = math.Float32frombits(math.Float32bits(x) | b&(1<<31))
			continue
		}
		dst[k] = n.slowNormal(b)
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
	x := float64(2*m+1) * math.Ldexp(zig.x[i], -24)
	y := zig.f[i] + n.unit()*(zig.f[i+1]-zig.f[i])
	return x, y < math.Exp(-0.5*x*x)
}

// unit returns a uniform draw from (0, 1].
func (n *normalSource) unit() float64 {
	return (float64(n.src.Uint64()>>11) + 1) * 0x1p-53
}
