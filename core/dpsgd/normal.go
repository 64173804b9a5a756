package dpsgd

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dpscope/dpscope/core/compute"
)

// Standard normal draws for the noise, by the ziggurat method of Marsaglia
// and Tsang (2000) with Doornik's (2005) correction that the layer index
// and the uniform come from separate bits. math/rand/v2's NormFloat64 is
// the same method but costs 4–5 ns a draw (its generic generator interface
// and float64 arithmetic); a million draws a step made the noise a fifth of
// a DP-SGD step. Here each 32-bit word is one float32 normal: 10 bits
// choose one of 1,024 layers, 1 bit the sign and 21 bits the position in
// the layer, so the fast path is one integer compare and one multiply, and
// vectorises (kernels_amd64.s). With 1,024 layers instead of the usual 256,
// 99.6 % of draws take the fast path instead of 98.5 %: the slow path's
// exponential was half the cost of the noise.

const (
	zigBits   = 10
	zigLayers = 1 << zigBits
	zigMag    = 31 - zigBits // bits of the position within a layer
	// zigR is the R for which 1,024 layers of equal area close exactly at
	// the top: zigSolve's bisection (normal_test.go, which checks it)
	// gives it, but takes 12 ms, too long for every start of the program.
	zigR = 4.0388498461095033
)

// zig holds the layer table. Layer i ≥ 1 is the box [0, x[i]] ×
// [f(x[i]), f(x[i+1])] with f(x) = e^{−x²/2}, x decreasing from x[1] = R
// to x[N] = 0; layer 0 is the box [0, R] × [0, f(R)] plus the tail beyond
// R, of width x[0] = V/f(R) when seen as a box. Every layer has area V. A
// draw u ∈ (0, 1) in layer i lands at u·x[i]; below x[i+1] it is inside
// f, else it needs the slow test.
var zig = newZiggurat()

type ziggurat struct {
	r, v float64 // R = x[1], the start of the tail, and the area V
	x    [zigLayers + 1]float64
	f    [zigLayers + 1]float64 // f(x[i])
	fast [zigLayers]uint32      // u = (2m+1)/2²² < x[i+1]/x[i] ⇔ m < fast[i]
	w    [zigLayers]float32     // x[i]/2²²: the draw is (2m+1)·w[i]
	w64  [zigLayers]float64     // w in float64, for the slow path
}

func zigF(x float64) float64 { return math.Exp(-0.5 * x * x) }

// zigLayersFrom fills x[1..n−1] from R, layer by layer, each of area
// V(R) = R·f(R) + ∫_R^∞ f, and returns V and how far the last layer
// overshoots f(0) = 1 (negative if it falls short; +Inf if the layers
// reached the top before the n-th).
func zigLayersFrom(r float64, x []float64) (v, over float64) {
	n := len(x) - 1
	v = r*zigF(r) + math.Sqrt(math.Pi/2)*math.Erfc(r/math.Sqrt2)
	x[1] = r
	for i := 1; i < n-1; i++ {
		y := v/x[i] + zigF(x[i])
		if y >= 1 {
			return v, math.Inf(1)
		}
		x[i+1] = math.Sqrt(-2 * math.Log(y))
	}
	return v, v/x[n-1] + zigF(x[n-1]) - 1
}

func newZiggurat() *ziggurat {
	z := new(ziggurat)
	z.r = zigR
	z.v, _ = zigLayersFrom(z.r, z.x[:])
	z.x[0] = z.v / zigF(z.r)
	z.x[zigLayers] = 0
	for i := range z.x {
		z.f[i] = zigF(z.x[i])
	}
	for i := range zigLayers {
		// m < fast[i] ⇔ (2m+1) < 2²²·ratio
		lim := math.Ldexp(z.x[i+1]/z.x[i], zigMag+1)
		z.fast[i] = uint32(math.Ceil((lim - 1) / 2))
		if lim <= 1 {
			z.fast[i] = 0
		}
		z.w64[i] = math.Ldexp(z.x[i], -zigMag-1)
		z.w[i] = float32(z.w64[i])
	}
	return z
}

// zigSplit splits a word into its layer i and position m.
func zigSplit(b uint32) (i, m uint32) { return b & (zigLayers - 1), (b >> zigBits) & (1<<zigMag - 1) }

// normalSource draws standard normals in bulk and adds them, scaled, to
// a slice: the noise of a DP-SGD step. Its words come in blocks from
// words (eight xoshiro256++ lanes, or ChaCha8 in secure mode); the 0.43 %
// of draws that miss the ziggurat's fast path take more bits from extra.
type normalSource struct {
	words wordFiller
	extraBits
	block  [zigBlock]uint32
	missed [zigBlock / 16]uint16 // per 16 draws, those that missed the fast path
	split  *noiseSplitJob        // addScaledSplit's job and buffers, made on first use
}

// zigBlock is the number of draws per block: 16 KB of words, in L1.
const zigBlock = 4096

// wordFiller fills dst, whose length is a multiple of 16, with uniform
// 32-bit words.
type wordFiller interface{ fill16(dst []uint32) }

// newNormalSource returns the noise generator for (seed, stream):
// xoshiro256++ lanes seeded by SplitMix64, or ChaCha8 keyed from
// crypto/rand when secure is set.
func newNormalSource(seed, stream uint64, secure bool) *normalSource {
	if secure {
		c := chachaWords{secureChaCha8()}
		return &normalSource{words: c, extraBits: extraBits{c}}
	}
	seeds := splitMix(seed, stream, 4*xoLanes+4)
	x := new(xoshiro8)
	for i, v := range seeds[:4*xoLanes] {
		x.s[i/xoLanes][i%xoLanes] = v
	}
	return &normalSource{words: x, extraBits: extraBits{&xoshiro{s: [4]uint64(seeds[4*xoLanes:])}}}
}

// addScaled adds std·z to each g[k], for independent N(0, 1) draws z.
// Each block of up to zigBlock draws takes ⌈n/16⌉·16 words, so a call for
// n draws uses the same words however the machine runs it. Each 32-bit
// word is one draw: layer b&1023, position m = bits 10–30, sign bit 31. The
// fast path, m < fast[i], gives ±(2m+1)·w[i]; slowNormal finishes the
// rest, in order, after the block's fast path.
func (n *normalSource) addScaled(g []float32, std float32) {
	if x, ok := n.words.(*xoshiro8); ok && noiseSplit && (hasAVX512 || hasAVX2) &&
		len(g) >= noiseSplitMin && runtime.GOMAXPROCS(0) >= 2 {
		full := len(g) / zigBlock * zigBlock
		n.addScaledSplit(x, g[:full], std)
		g = g[full:]
	}
	for len(g) > 0 {
		k := min(len(g), zigBlock)
		words := n.block[:(k+15)&^15]
		n.words.fill16(words)
		done := zigAddVector(g[:k], words, n.missed[:], std)
		for j := range done / 16 {
			for miss := n.missed[j]; miss != 0; miss &= miss - 1 {
				i := 16*j + bits.TrailingZeros16(miss)
				g[i] += float32(std * n.slowNormal(words[i]))
			}
		}
		zigAddScalar(g[done:k], words[done:k], std, n)
		g = g[k:]
	}
}

// noiseSplitMin is the least number of draws addScaled shares between two
// goroutines: compute.Split's own threshold, 8 blocks.
const noiseSplitMin = 8 * zigBlock

// noiseSplit says whether addScaled shares its full blocks between two
// goroutines (addScaledSplit); a variable for the tests and benchmarks
// that compare the two ways.
var noiseSplit = true

// noiseMiss is a draw that missed the vector kernel's fast path: its index
// in the gradient and its word.
type noiseMiss struct {
	i int
	w uint32
}

// noisePart is the buffers of one goroutine of addScaledSplit: a block's
// words and misses, as normalSource's.
type noisePart struct {
	block  [zigBlock]uint32
	missed [zigBlock / 16]uint16
}

// addBlock draws a block's words from x into p and adds std·z to g
// (zigBlock long) on the vector kernel's fast path, and returns miss with
// the block's other draws appended (their index, from s, and word), for
// slowNormal to finish in order.
func (p *noisePart) addBlock(g []float32, s int, x *xoshiro8, std float32, miss []noiseMiss) []noiseMiss {
	x.fill16(p.block[:])
	done := zigAddVector(g, p.block[:], p.missed[:], std)
	for k := range done / 16 {
		for m := p.missed[k]; m != 0; m &= m - 1 {
			i := 16*k + bits.TrailingZeros16(m)
			miss = append(miss, noiseMiss{s + i, p.block[i]})
		}
	}
	// Draws past the kernel's (none with a vector kernel): slowNormal
	// gives a fast-path word its fast value, as zigAddScalar does.
	for i := done; i < zigBlock; i++ {
		miss = append(miss, noiseMiss{s + i, p.block[i]})
	}
	return miss
}

// noiseChunk is the number of blocks addScaledSplit deals to a goroutine
// at a time: 32K draws, about 30 µs of work. Dealt in chunks, a goroutine
// that starts late or loses its core to another process takes fewer
// chunks instead of holding the other up (with two fixed halves the noise
// took 1.3–1.6× as long as on one goroutine while other processes held
// the cores); the jump to a chunk is 8 table lookups a state word.
const noiseChunk = 8

// noiseSplitJob is addScaledSplit's compute.RangeJob: two workers that
// take chunks of the full blocks in turn.
type noiseSplitJob struct {
	x0, end xoshiro8 // the words' state at block 0, and after the last block
	g       []float32
	std     float32
	blocks  int
	next    atomic.Int64  // the next chunk to take
	miss    [][]noiseMiss // per chunk, the draws left for the slow path, in order
	parts   [2]noisePart  // each worker's buffers
}

// Run takes chunks until none is left: part lo of two (compute.Split with
// n = 2). Each chunk's blocks are drawn and added as addScaled's loop does
// (each block's words in L1), from the generator's state jumped to the
// chunk's first block, and the misses listed.
func (j *noiseSplitJob) Run(lo, hi int) {
	p := &j.parts[min(lo, 1)]
	chunks := (j.blocks + noiseChunk - 1) / noiseChunk
	x, at := j.x0, 0 // x is the state at block at
	for {
		c := int(j.next.Add(1)) - 1
		if c >= chunks {
			return
		}
		b0 := c * noiseChunk
		x.jumpBlocks(b0 - at)
		miss := j.miss[c][:0]
		for b := b0; b < min(b0+noiseChunk, j.blocks); b++ {
			s := b * zigBlock
			miss = p.addBlock(j.g[s:s+zigBlock], s, &x, j.std, miss)
		}
		j.miss[c] = miss
		at = min(b0+noiseChunk, j.blocks)
		if at == j.blocks {
			j.end = x
		}
	}
}

// addScaledSplit is addScaled on g, a whole number of blocks, with the
// blocks dealt in chunks to two goroutines (compute.Split). A goroutine
// starts each chunk from the generator's state jumped ahead by the words
// of the blocks before it (xoshiro8.jumpBlocks), so each block gets the
// same words as in addScaled's loop, and each draw that misses the fast
// path is finished here afterwards, in the loop's order, drawing the same
// extra words: every g[k] sees the same operations, so the result is the
// same bit for bit (TestNoiseSplitSameBits). The whole step's words drawn
// first and shared out left L2 and were slower than one goroutine
// (speed10); here each goroutine keeps its block in L1.
func (n *normalSource) addScaledSplit(x *xoshiro8, g []float32, std float32) {
	if n.split == nil {
		n.split = new(noiseSplitJob)
	}
	j := n.split
	j.x0, j.g, j.std, j.blocks = *x, g, std, len(g)/zigBlock
	chunks := (j.blocks + noiseChunk - 1) / noiseChunk
	for len(j.miss) < chunks {
		// 0.43 % of a chunk's 32,768 draws miss, 141 ± 12: room for
		// 512, so that a step allocates nothing after the first.
		j.miss = append(j.miss, make([]noiseMiss, 0, 512))
	}
	j.next.Store(0)
	compute.Split(2, 1, compute.SplitMin, j)
	for c := range chunks {
		for _, m := range j.miss[c] {
			g[m.i] += float32(std * n.slowNormal(m.w))
		}
	}
	*x = j.end
	j.g = nil
}

// zigAddScalar is addScaled's work for one run of words in Go: the
// vector kernel's tail, and every draw where there is no kernel. Its
// results equal the kernel's bit for bit: the same float32 operations,
// rounded in the same order, and slow draws in the same order.
func zigAddScalar(g []float32, words []uint32, std float32, n *normalSource) {
	fast, w := &zig.fast, &zig.w
	for k, b := range words[:len(g)] {
		i, m := zigSplit(b)
		if m < fast[i] {
			x := math.Float32frombits(math.Float32bits(float32(2*m+1)*w[i]) | b&(1<<31))
			g[k] += float32(std * x)
			continue
		}
		g[k] += float32(std * n.slowNormal(b))
	}
}

// extraBits is the stream of extra bits that the draws missing the fast
// path take, in order.
type extraBits struct{ extra interface{ Uint64() uint64 } }

// slowNormal returns a normal from the 32 bits b that missed the fast
// path, drawing more bits from extra as it needs them.
func (n extraBits) slowNormal(b uint32) float32 {
	for {
		i, m := zigSplit(b)
		if m < zig.fast[i] {
			x := float32(2*m+1) * zig.w[i]
			return math.Float32frombits(math.Float32bits(x) | b&(1<<31))
		}
		if x, ok := n.slow(i, m); ok {
			return math.Float32frombits(math.Float32bits(float32(x)) | b&(1<<31))
		}
		b = uint32(n.extra.Uint64())
	}
}

// slow finishes a draw outside the fast region of layer i: from the tail
// for layer 0, else by testing a uniform height in the layer's box
// against f. It returns ok = false for a rejection (draw again).
func (n extraBits) slow(i, m uint32) (float64, bool) {
	if i == 0 {
		// Marsaglia (1964): the tail beyond R.
		for {
			a := -math.Log(n.unit()) / zig.r
			if -2*math.Log(n.unit()) > a*a {
				return zig.r + a, true
			}
		}
	}
	x := float64(2*m+1) * zig.w64[i]
	y := zig.f[i] + n.unit()*(zig.f[i+1]-zig.f[i])
	return x, y < math.Exp(-0.5*x*x)
}

// unit returns a uniform draw from (0, 1].
func (n extraBits) unit() float64 {
	return (float64(n.extra.Uint64()>>11) + 1) * 0x1p-53
}

// xoshiro is xoshiro256++ (Blackman and Vigna 2021), one stream: the
// extra bits of the slow path. Not cryptographic; secure noise uses
// ChaCha8.
type xoshiro struct{ s [4]uint64 }

func (x *xoshiro) Uint64() uint64 {
	var r uint64
	r, x.s[0], x.s[1], x.s[2], x.s[3] = xoshiroNext(x.s[0], x.s[1], x.s[2], x.s[3])
	return r
}

// xoshiroNext is one step of xoshiro256++: the output and the next state.
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

// xoLanes is the number of xoshiro256++ streams that xoshiro8 runs side by
// side: one 512-bit register per state word.
const xoLanes = 8

// xoshiro8 is eight independent xoshiro256++ streams, stepped together:
// each step gives one 64-bit word per lane, lane 0 first, and each word
// is two 32-bit words, low half first. With AVX-512 a step is a dozen
// instructions for eight words (xoshiro8Fill); elsewhere the lanes step
// one after another in Go, giving the same words.
type xoshiro8 struct{ s [4][xoLanes]uint64 } // s[j][lane]: state word j

func (x *xoshiro8) fill16(dst []uint32) {
	done := xoshiro8Vector(x, dst)
	for k := done; k < len(dst); k += 2 * xoLanes {
		for l := range xoLanes {
			var r uint64
			r, x.s[0][l], x.s[1][l], x.s[2][l], x.s[3][l] = xoshiroNext(x.s[0][l], x.s[1][l], x.s[2][l], x.s[3][l])
			dst[k+2*l], dst[k+2*l+1] = uint32(r), uint32(r>>32)
		}
	}
}

// splitMix returns n words of SplitMix64 started from (seed, stream), the
// seeding the xoshiro authors recommend.
func splitMix(seed, stream uint64, n int) []uint64 {
	out := make([]uint64, n)
	z := seed ^ bits.RotateLeft64(stream, 32) ^ 0x6a09e667f3bcc909
	for i := range out {
		z += 0x9e3779b97f4a7c15
		v := z
		v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
		v = (v ^ v>>27) * 0x94d049bb133111eb
		out[i] = v ^ v>>31
	}
	return out
}

// chachaWords adapts ChaCha8 (secure noise) to wordFiller.
type chachaWords struct{ *rand.ChaCha8 }

func (c chachaWords) fill16(dst []uint32) {
	for k := 0; k < len(dst); k += 2 {
		r := c.ChaCha8.Uint64()
		dst[k], dst[k+1] = uint32(r), uint32(r>>32)
	}
}

// gf2Map is a linear map of xoshiro256's 256-bit state over GF(2) (its
// state transition is linear; only the ++ output is not): col[j] is the
// image of bit j, bit j%64 of state word j/64.
type gf2Map [256][4]uint64

// gf2Table is a gf2Map as 64 tables of 16 images, one per 4 bits of the
// state: applying it is 64 lookups (about 0.1 µs against 1.2 for
// gf2Map.apply's bit by bit).
type gf2Table [64][16][4]uint64

// table returns m's gf2Table.
func (m *gf2Map) table() *gf2Table {
	t := new(gf2Table)
	for q := range t {
		for v := range 16 {
			for b := range 4 {
				if v>>b&1 == 1 {
					c := &m[4*q+b]
					t[q][v][0] ^= c[0]
					t[q][v][1] ^= c[1]
					t[q][v][2] ^= c[2]
					t[q][v][3] ^= c[3]
				}
			}
		}
	}
	return t
}

// apply returns the image of s.
func (t *gf2Table) apply(s [4]uint64) (r [4]uint64) {
	for w := range 4 {
		x := s[w]
		for q := 16 * w; q < 16*w+16; q++ {
			c := &t[q][x&15]
			r[0] ^= c[0]
			r[1] ^= c[1]
			r[2] ^= c[2]
			r[3] ^= c[3]
			x >>= 4
		}
	}
	return r
}

// apply returns the image of s.
func (m *gf2Map) apply(s [4]uint64) (r [4]uint64) {
	for w := range 4 {
		for x := s[w]; x != 0; x &= x - 1 {
			c := &m[64*w+bits.TrailingZeros64(x)]
			r[0] ^= c[0]
			r[1] ^= c[1]
			r[2] ^= c[2]
			r[3] ^= c[3]
		}
	}
	return r
}

// then returns the map m followed by a.
func (m *gf2Map) then(a *gf2Map) *gf2Map {
	r := new(gf2Map)
	for j := range r {
		r[j] = a.apply(m[j])
	}
	return r
}

// xoJumps holds pow[i], the map of 2^i blocks' steps (2^i·zigBlock/16
// steps of xoshiro256, each lane's share of 2^i blocks of words), made as
// needed: 8 squarings of one step for pow[0], one more for each next.
var xoJumps struct {
	sync.Mutex
	pow []*gf2Map
	tab []*gf2Table // pow's tables
}

// xoJump returns the table of the map of 2^i blocks' steps.
func xoJump(i int) *gf2Table {
	xoJumps.Lock()
	defer xoJumps.Unlock()
	for len(xoJumps.pow) <= i {
		if len(xoJumps.pow) == 0 {
			m := new(gf2Map)
			for j := range m {
				var e [4]uint64
				e[j/64] = 1 << (j % 64)
				_, m[j][0], m[j][1], m[j][2], m[j][3] = xoshiroNext(e[0], e[1], e[2], e[3])
			}
			for range bits.TrailingZeros(zigBlock / (2 * xoLanes)) {
				m = m.then(m)
			}
			xoJumps.pow = append(xoJumps.pow, m)
			continue
		}
		last := xoJumps.pow[len(xoJumps.pow)-1]
		xoJumps.pow = append(xoJumps.pow, last.then(last))
	}
	for len(xoJumps.tab) < len(xoJumps.pow) {
		xoJumps.tab = append(xoJumps.tab, xoJumps.pow[len(xoJumps.tab)].table())
	}
	return xoJumps.tab[i]
}

// jumpBlocks advances every lane by the steps that fill16 takes for
// blocks blocks of zigBlock words, without drawing them.
func (x *xoshiro8) jumpBlocks(blocks int) {
	for i := 0; blocks>>i != 0; i++ {
		if blocks>>i&1 == 0 {
			continue
		}
		m := xoJump(i)
		for l := range xoLanes {
			s := m.apply([4]uint64{x.s[0][l], x.s[1][l], x.s[2][l], x.s[3][l]})
			x.s[0][l], x.s[1][l], x.s[2][l], x.s[3][l] = s[0], s[1], s[2], s[3]
		}
	}
}
