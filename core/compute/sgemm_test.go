package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// testKernels returns the kernels this CPU runs: every test of one runs
// on each.
func testKernels() []*asmKernel {
	var ks []*asmKernel
	if hasAsmGemm {
		ks = append(ks, kernAVX512)
	}
	if hasAVX2Gemm {
		ks = append(ks, kernAVX2)
	}
	return ks
}

// forEachKernel runs f in one subtest per kernel, and skips when the CPU
// runs neither.
func forEachKernel(t *testing.T, f func(t *testing.T, kern *asmKernel)) {
	t.Helper()
	ks := testKernels()
	if len(ks) == 0 {
		t.Skip("no AVX-512 nor AVX2+FMA")
	}
	for _, k := range ks {
		t.Run(k.name, func(t *testing.T) { f(t, k) })
	}
}

// checkAsm runs one product on kernel kern against the float64 reference,
// and checks that C's padding is untouched.
func checkAsm(t *testing.T, kern *asmKernel, rng *rand.Rand, m, n, k, pad int, ta, tb bool, alpha, beta float32) {
	t.Helper()
	checkProduct(t, "sgemmAsm", rng, m, n, k, pad, ta, tb, alpha, beta, func(dst, a, b Matrix) {
		sgemmAsm(kern, ta, tb, m, n, k, alpha, a.Data, ld(a), b.Data, ld(b), beta, dst.Data, ld(dst))
	})
}

// TestSgemmAsmMatchesFloat64Reference checks each kernel on shapes with
// and without edge tiles (of 12×32 and of 6×16), several k blocks, every
// transposition and the three kinds of beta (0: overwrite, 1: add, other:
// scale first).
func TestSgemmAsmMatchesFloat64Reference(t *testing.T) {
	shapes := []struct{ m, n, k int }{
		{1, 1, 1}, {12, 32, 5}, {6, 16, 3}, {13, 33, 257}, {7, 17, 260}, {30, 253, 40}, {1030, 20, 9}, {14, 20, 1021}, {427, 64, 300}, {24, 96, 512}, {7, 200, 600}, {100, 1, 50},
	}
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {0.5, 2}, {-1.5, 1}}
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, s := range shapes {
			for _, sc := range scalars {
				for _, ta := range []bool{false, true} {
					for _, tb := range []bool{false, true} {
						checkAsm(t, kern, rng, s.m, s.n, s.k, 3, ta, tb, sc.alpha, sc.beta)
					}
				}
			}
		}
	})
}

// TestSgemmAsmSameBitsAnyThreads checks, for each kernel, that a product
// split over two goroutines gives the bits of one goroutine's.
func TestSgemmAsmSameBitsAnyThreads(t *testing.T) {
	forEachKernel(t, testSameBitsAnyThreads)
}

func testSameBitsAnyThreads(t *testing.T, kern *asmKernel) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range []struct {
		m, n, k int
		ta, tb  bool
	}{{427, 256, 2000, false, false}, {427, 2000, 256, false, true}, {2000, 256, 427, true, false}, {256, 2000, 427, true, false}} {
		ar, ac := s.m, s.k
		if s.ta {
			ar, ac = s.k, s.m
		}
		br, bc := s.k, s.n
		if s.tb {
			br, bc = s.n, s.k
		}
		a, b := randMatrix(rng, ar, ac, 0), randMatrix(rng, br, bc, 0)
		c1, c2 := NewMatrix(s.m, s.n, nil), NewMatrix(s.m, s.n, nil)
		prev := runtime.GOMAXPROCS(1)
		sgemmAsm(kern, s.ta, s.tb, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c1.Data, s.n)
		runtime.GOMAXPROCS(max(prev, 2))
		sgemmAsm(kern, s.ta, s.tb, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c2.Data, s.n)
		runtime.GOMAXPROCS(prev)
		for i := range c1.Data {
			if math.Float32bits(c1.Data[i]) != math.Float32bits(c2.Data[i]) {
				t.Fatalf("%+v: entry %d is %v on one goroutine, %v on two", s, i, c1.Data[i], c2.Data[i])
			}
		}
	}
}

// TestSgemmAsmSameBitsAnyDeal checks, for each kernel, that a product
// split over two goroutines gives one goroutine's bits whatever the number
// of chunks its panels are dealt in (DenseDealChunks): one chunk (the
// helper idles), 5, the old 32 and the new 12, more chunks than panels, and
// the default; by A panels (byRows) and by B panels.
func TestSgemmAsmSameBitsAnyDeal(t *testing.T) {
	defer DenseDealChunks.Store(DenseDealChunks.Load())
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, s := range []struct{ m, n, k int }{{217, 64, 400}, {40, 355, 300}} {
			if s.m*s.n*s.k < asmSplitFLOP {
				t.Fatalf("%+v is below asmSplitFLOP and would not split", s)
			}
			a, b := randMatrix(rng, s.m, s.k, 0), randMatrix(rng, s.k, s.n, 0)
			want := NewMatrix(s.m, s.n, nil)
			prev := runtime.GOMAXPROCS(1)
			sgemmAsm(kern, false, false, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, want.Data, s.n)
			runtime.GOMAXPROCS(max(prev, 2))
			for _, chunks := range []int64{1, 5, 12, 32, 500, 0} {
				DenseDealChunks.Store(chunks)
				c := randMatrix(rng, s.m, s.n, 0)
				sgemmAsm(kern, false, false, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c.Data, s.n)
				for i := range c.Data {
					if math.Float32bits(c.Data[i]) != math.Float32bits(want.Data[i]) {
						runtime.GOMAXPROCS(prev)
						t.Fatalf("%+v, %d chunks: entry %d is %v, %v on one goroutine", s, chunks, i, c.Data[i], want.Data[i])
					}
				}
			}
			runtime.GOMAXPROCS(prev)
		}
	})
}

// TestSgemmKernelsSameBits checks that the AVX2 kernel gives the AVX-512
// kernel's bits (each entry is the same chain of FMAs from 0, in k order)
// on products with edge tiles of both, every transposition and beta 0, 1
// and other.
func TestSgemmKernelsSameBits(t *testing.T) {
	if !hasAsmGemm || !hasAVX2Gemm {
		t.Skip("needs both AVX-512 and AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct {
		m, n, k     int
		alpha, beta float32
	}{{427, 256, 600, 1, 0}, {131, 77, 300, 0.5, 2}, {50, 500, 257, -1, 1}} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				ar, ac := s.m, s.k
				if ta {
					ar, ac = s.k, s.m
				}
				br, bc := s.k, s.n
				if tb {
					br, bc = s.n, s.k
				}
				a, b := randMatrix(rng, ar, ac, 1), randMatrix(rng, br, bc, 1)
				c1 := randMatrix(rng, s.m, s.n, 0)
				c2 := NewMatrix(s.m, s.n, append([]float32(nil), c1.Data...))
				sgemmAsm(kernAVX512, ta, tb, s.m, s.n, s.k, s.alpha, a.Data, ld(a), b.Data, ld(b), s.beta, c1.Data, s.n)
				sgemmAsm(kernAVX2, ta, tb, s.m, s.n, s.k, s.alpha, a.Data, ld(a), b.Data, ld(b), s.beta, c2.Data, s.n)
				for i := range c1.Data {
					if math.Float32bits(c1.Data[i]) != math.Float32bits(c2.Data[i]) {
						t.Fatalf("%+v ta=%v tb=%v: entry %d is %v on AVX-512, %v on AVX2", s, ta, tb, i, c1.Data[i], c2.Data[i])
					}
				}
			}
		}
	}
}

// TestParseGemm checks DPSCOPE_SGEMM's values and that a bad one is named.
func TestParseGemm(t *testing.T) {
	for _, tc := range []struct {
		v            string
		has512, has2 bool
		want         *asmKernel
		wantErr      bool
	}{{"", true, true, kernAVX512, false}, {" auto ", true, true, kernAVX512, false}, {"auto", false, true, kernAVX2, false},
		{"auto", false, false, nil, false}, {"openblas", true, true, nil, false}, {" avx2", true, true, kernAVX2, false},
		{"avx2", false, true, kernAVX2, false}, {"avx2", true, false, nil, true}, {"avx", true, true, nil, true}} {
		got, err := parseGemm(tc.v, tc.has512, tc.has2)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("parseGemm(%q, %v, %v) = %v, %v, want %v, error %v", tc.v, tc.has512, tc.has2, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.v)) {
			t.Errorf("parseGemm(%q) error %q does not name the value", tc.v, err)
		}
	}
}

// TestAsmGemmTakes checks which products the kernel takes: at least
// AsmGemmMin multiply-adds, and no more than a quarter of its tiles
// padding.
func TestAsmGemmTakes(t *testing.T) {
	type takeCase struct {
		m, n, k int
		want    bool
	}
	cases := map[*asmKernel][]takeCase{
		kernAVX512: {{427, 256, 2000, true}, {427, 2000, 256, true}, {63, 64, 64, false}, {64, 64, 64, true}, {1, 2000, 500, false},
			{2000, 1, 500, false}, {2000, 16, 500, false}, {2000, 28, 500, true}, {10, 2000, 500, true}},
		// 6×16 tiles: 16 columns or 5 rows fill them well enough.
		kernAVX2: {{427, 256, 2000, true}, {63, 64, 64, false}, {64, 64, 64, true}, {4, 2000, 500, false}, {5, 2000, 500, true},
			{2000, 8, 500, false}, {1998, 12, 500, true}, {2000, 16, 500, true}},
	}
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		for _, tc := range cases[kern] {
			a := make([]float32, tc.m*tc.k)
			b := make([]float32, tc.k*tc.n)
			c := make([]float32, tc.m*tc.n)
			if got := asmGemm(kern, blas.NoTrans, blas.NoTrans, tc.m, tc.n, tc.k, 1, a, tc.k, b, tc.n, 0, c, tc.n); got != tc.want {
				t.Errorf("asmGemm(%d×%d×%d) took it: %v, want %v", tc.m, tc.n, tc.k, got, tc.want)
			}
		}
	})
}

// FuzzParseGemm: any DPSCOPE_SGEMM value gives a choice or an error that
// quotes it, never a panic; only auto (or empty), avx2 and openblas are
// accepted, with spaces around them.
func FuzzParseGemm(f *testing.F) {
	for _, s := range []string{"", "auto", " openblas\t", "AVX", "avx2 ", "AVX2", "open blas", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseGemm(v, true, true)
		switch strings.TrimSpace(v) {
		case "", ModeAuto:
			if got != kernAVX512 || err != nil {
				t.Fatalf("parseGemm(%q) = %v, %v, want the AVX-512 kernel", v, got, err)
			}
		case gemmAVX2:
			if got != kernAVX2 || err != nil {
				t.Fatalf("parseGemm(%q) = %v, %v, want the AVX2 kernel", v, got, err)
			}
		case ModeOpenBLAS:
			if got != nil || err != nil {
				t.Fatalf("parseGemm(%q) = %v, %v, want OpenBLAS", v, got, err)
			}
		default:
			if got != nil || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", v)) {
				t.Fatalf("parseGemm(%q) = %v, %v, want an error quoting the value", v, got, err)
			}
		}
	})
}

// TestSgemmAsmDoesNotAllocate runs products whose edges are short of a
// full tile, in both directions, on one goroutine (below asmSplitFLOP): the
// short tiles go through a stack buffer that must stay on the stack.
func TestSgemmAsmDoesNotAllocate(t *testing.T) {
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(3, 4))
		const m, n, k = 13, 35, 20 // one full tile and short ones on each kernel
		a, b, c := randMatrix(rng, m, k, 0), randMatrix(rng, k, n, 0), randMatrix(rng, m, n, 0)
		run := func() { sgemmAsm(kern, false, false, m, n, k, 1, a.Data, k, b.Data, n, 0, c.Data, n) }
		run() // warm the buffers
		if got := testing.AllocsPerRun(50, run); got != 0 {
			t.Errorf("AllocsPerRun(sgemmAsm %d×%d×%d) = %v, want 0", m, n, k, got)
		}
	})
}

// TestPackBRowsSameBits checks that packing a B stored in order across
// its panels (packBRows) gives the products of packing it panel by panel,
// bit for bit, and the float64 reference's values with C's padding
// untouched: B's rows a multiple of 256 floats apart (so B is packed), a
// short last panel (read as NaN padding if packBRows took it), k a few
// rows, not a multiple of the row group, and several k blocks, on one and
// two goroutines.
func TestPackBRowsSameBits(t *testing.T) {
	defer func(v bool) { asmPackBRows = v }(asmPackBRows)
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, s := range []struct{ m, n, k, pad int }{
			{30, 256, 260, 0}, {30, 250, 600, 6}, {13, 512, 9, 0}, {7, 768, 1, 0}, {427, 256, 2000, 0}, {40, 500, 131, 12},
		} {
			for _, procs := range []int{1, 2} {
				prev := runtime.GOMAXPROCS(procs)
				asmPackBRows = true
				if procs == 1 && s.m*s.n*s.k <= 1<<24 {
					// The float64 reference does not depend on the goroutines, and
					// for the 427×256×2000 product it took 30 s under -race while
					// the bit comparison below takes milliseconds. Panel-by-panel
					// packing, which it must equal, is checked against the
					// reference in TestSgemmAsmMatchesFloat64Reference (427×64×300
					// and more k blocks).
					checkAsm(t, kern, rng, s.m, s.n, s.k, s.pad, false, false, 1, 0)
				}
				a, b := randMatrix(rng, s.m, s.k, s.pad), randMatrix(rng, s.k, s.n, s.pad)
				c1, c2 := NewMatrix(s.m, s.n, nil), NewMatrix(s.m, s.n, nil)
				sgemmAsm(kern, false, false, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c1.Data, s.n)
				asmPackBRows = false
				sgemmAsm(kern, false, false, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c2.Data, s.n)
				runtime.GOMAXPROCS(prev)
				for i := range c1.Data {
					if math.Float32bits(c1.Data[i]) != math.Float32bits(c2.Data[i]) {
						t.Fatalf("%+v, %d goroutines: entry %d is %v packed across panels, %v panel by panel", s, procs, i, c1.Data[i], c2.Data[i])
					}
				}
			}
		}
	})
}

// TestPackTrans16MatchesGo checks packTrans16 against the Go loop entry by
// entry, to the bit (±0, NaN with a payload, ±Inf, subnormals), for kc a
// multiple of 8 from 0 to 64 and strides with and without padding, and
// that it writes nothing past kc·16 floats; and that products with B
// transposed give the same bits with it and without it (asmPackTrans).
func TestPackTrans16MatchesGo(t *testing.T) {
	if !hasAVX2Gemm {
		t.Skip("no AVX2+FMA")
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc01234), math.Float32frombits(0x00000003), 1.5, -2.25}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, stride := range []int{64, 67, 2000} {
		for kc := 0; kc <= 64; kc += 8 {
			if kc > stride {
				continue
			}
			src := make([]float32, 16*stride)
			for i := range src {
				if rng.IntN(4) == 0 {
					src[i] = specials[rng.IntN(len(specials))]
				} else {
					src[i] = float32(rng.NormFloat64())
				}
			}
			const guard = 40
			dst := make([]float32, kc*16+guard)
			sentinel := math.Float32frombits(0x7fa5a5a5)
			for i := range dst {
				dst[i] = sentinel
			}
			if kc > 0 {
				packTrans16(&dst[0], &src[0], kc, stride)
			}
			for kk := range kc {
				for c := range 16 {
					got, want := math.Float32bits(dst[kk*16+c]), math.Float32bits(src[c*stride+kk])
					if got != want {
						t.Fatalf("stride %d, kc %d: dst[%d·16+%d] = %#x, want %#x", stride, kc, kk, c, got, want)
					}
				}
			}
			for i := kc * 16; i < len(dst); i++ {
				if math.Float32bits(dst[i]) != math.Float32bits(sentinel) {
					t.Fatalf("stride %d, kc %d: wrote dst[%d], past the panel", stride, kc, i)
				}
			}
		}
	}
	defer func(v bool) { asmPackTrans = v }(asmPackTrans)
	for _, s := range []struct{ m, n, k, pad int }{{427, 256, 2000, 0}, {30, 40, 261, 3}, {13, 17, 7, 1}, {50, 64, 300, 0}} {
		for _, ta := range []bool{false, true} {
			asmPackTrans = true
			if s.m*s.n*s.k < 1<<22 {
				checkAsm(t, kernAVX2, rng, s.m, s.n, s.k, s.pad, ta, true, 1, 0)
			}
			ar, ac := s.m, s.k
			if ta {
				ar, ac = s.k, s.m
			}
			a, b := randMatrix(rng, ar, ac, s.pad), randMatrix(rng, s.n, s.k, s.pad)
			c1, c2 := NewMatrix(s.m, s.n, nil), NewMatrix(s.m, s.n, nil)
			sgemmAsm(kernAVX2, ta, true, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c1.Data, s.n)
			asmPackTrans = false
			sgemmAsm(kernAVX2, ta, true, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c2.Data, s.n)
			for i := range c1.Data {
				if math.Float32bits(c1.Data[i]) != math.Float32bits(c2.Data[i]) {
					t.Fatalf("%+v ta=%v: entry %d is %v with packTrans16, %v without", s, ta, i, c1.Data[i], c2.Data[i])
				}
			}
		}
	}
}

// TestSgemmKernelAVX2U4 checks the AVX2 kernel unrolled by four k against
// the rolled one (the same bits: the same FMAs per accumulator in the same
// order) and against a float64 loop in Go (within the rounding of k
// float32 FMAs; NaN and ±Inf where the Go loop has them), for k from 0 to
// 13 and around the k block (every remainder mod 4), A in place with rows
// of k+3 floats and of 2000, entries including NaNs with payloads, ±Inf,
// −0 and subnormals, adding to C and overwriting it; and that no entry of
// C outside the 6×16 tile is written.
func TestSgemmKernelAVX2U4(t *testing.T) {
	if !hasAVX2Gemm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float32{float32(math.NaN()), math.Float32frombits(0x7fc00123), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.Copysign(0, -1)), math.Float32frombits(1)}
	const ldc = 19
	for _, k := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 208, 255, 256, 257} {
		for _, lda := range []int{k + 3, 2000} {
			for _, specials := range []bool{false, true} {
				for _, add := range []bool{false, true} {
					a := randMatrix(rng, 6, lda, 0).Data
					b := randMatrix(rng, max(k, 1), 16, 0).Data
					if specials && k > 0 {
						a[rng.IntN(6)*lda+rng.IntN(k)] = special[rng.IntN(len(special))]
						b[rng.IntN(k)*16+rng.IntN(16)] = special[rng.IntN(len(special))]
					}
					c0 := randMatrix(rng, 6, ldc, 0).Data
					c1, c2 := slices.Clone(c0), slices.Clone(c0)
					sgemmKernelAVX2(k, &a[0], lda*4, 4, &b[0], 64, &c1[0], ldc, add)
					sgemmKernelAVX2U4(k, &a[0], lda*4, &b[0], &c2[0], ldc, add)
					for x := range c1 {
						if math.Float32bits(c1[x]) != math.Float32bits(c2[x]) {
							t.Fatalf("k %d, lda %d, add %v: C[%d] is %v rolled, %v unrolled", k, lda, add, x, c1[x], c2[x])
						}
						r, col := x/ldc, x%ldc
						if col >= 16 {
							if math.Float32bits(c2[x]) != math.Float32bits(c0[x]) {
								t.Fatalf("k %d: C[%d][%d], outside the tile, was written", k, r, col)
							}
							continue
						}
						want, scale := 0.0, 0.0
						if add {
							want, scale = float64(c0[x]), math.Abs(float64(c0[x]))
						}
						for kk := range k {
							p := float64(a[r*lda+kk]) * float64(b[kk*16+col])
							want += p
							scale += math.Abs(p)
						}
						got := float64(c2[x])
						switch {
						case math.IsNaN(want) || math.IsInf(want, 0) || math.IsNaN(scale) || math.IsInf(scale, 0):
							if !math.IsNaN(got) && got != want {
								t.Fatalf("k %d: C[%d][%d] is %v, want %v", k, r, col, got, want)
							}
						case math.Abs(got-want) > 1e-5*scale+1e-30:
							t.Fatalf("k %d, lda %d, add %v: C[%d][%d] is %v, want %v", k, lda, add, r, col, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSgemmAsmAVX2PackBSameBits checks that the AVX2 products give the
// same bits with B packed for the unrolled kernel (AVX2PackB) as with B
// read in place: H5·W6's shape (B's rows of 2000 floats), edge tiles, k
// not a multiple of 4 (all with n ≥ avx2PackBMinCols), and a transposed A
// (which AVX2PackB leaves alone).
func TestSgemmAsmAVX2PackBSameBits(t *testing.T) {
	avx2KnobSameBits(t, AVX2PackB, rand.New(rand.NewPCG(19, 20)), [2]string{"with B in place", "packed"},
		[]knobShape{{427, 2000, 256, false, false}, {13, 1037, 261, false, false}, {50, 1030, 7, false, false}, {64, 48, 300, true, false}})
}

// TestSgemmAsmUnrollSameBits checks that the AVX2 products give the same
// bits with the unrolled kernel (AVX2Unroll) as without, on products whose
// A is read in place (427 rows with k blocks of 256 and 208, edge tiles,
// k not a multiple of 4) and one whose A is packed. (No padding: B's rows
// of 256 floats are packed, bstep 64.)
func TestSgemmAsmUnrollSameBits(t *testing.T) {
	avx2KnobSameBits(t, AVX2Unroll, rand.New(rand.NewPCG(17, 18)), [2]string{"rolled", "unrolled"},
		[]knobShape{{427, 256, 2000, false, false}, {427, 256, 2000, false, true}, {13, 33, 257, false, false}, {50, 64, 7, false, false}, {64, 48, 300, true, false}})
}

// knobShape is a product's shape for avx2KnobSameBits.
type knobShape struct {
	m, n, k int
	ta, tb  bool
}

// avx2KnobSameBits checks that each product of shapes on the AVX2 kernel
// gives the same bits with knob off and on (named by sides in the
// failure), and restores the knob.
func avx2KnobSameBits(t *testing.T, knob *atomic.Bool, rng *rand.Rand, sides [2]string, shapes []knobShape) {
	t.Helper()
	if !hasAVX2Gemm {
		t.Skip("no AVX2+FMA")
	}
	defer knob.Store(knob.Load())
	for _, s := range shapes {
		a, bm := randOperands(rng, s.m, s.n, s.k, 0, s.ta, s.tb)
		var cs [2]Matrix
		for side := range cs {
			knob.Store(side == 1)
			cs[side] = NewMatrix(s.m, s.n, nil)
			sgemmAsm(kernAVX2, s.ta, s.tb, s.m, s.n, s.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, cs[side].Data, s.n)
		}
		for i := range cs[0].Data {
			if math.Float32bits(cs[0].Data[i]) != math.Float32bits(cs[1].Data[i]) {
				t.Fatalf("%+v: entry %d is %v %s, %v %s", s, i, cs[0].Data[i], sides[0], cs[1].Data[i], sides[1])
			}
		}
	}
}
