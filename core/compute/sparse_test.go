package compute

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestFma32RoundsOnce checks fma32 against a·b + c formed exactly in
// big.Float and rounded once, on random operands and on the case where
// rounding the float64 sum again rounds the wrong way (exact sum just
// below the halfway point 1 + 3·2⁻²⁴).
func TestFma32RoundsOnce(t *testing.T) {
	exact := func(a, b, c float32) float32 {
		x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
		f, _ := x.Float32()
		return f
	}
	a := float32(math.Ldexp(1+math.Ldexp(1, -18), -12))
	b := float32(math.Ldexp(1-math.Ldexp(1, -18), -12))
	c := float32(1 + math.Ldexp(1, -23))
	if naive := float32(float64(a)*float64(b) + float64(c)); naive == exact(a, b, c) {
		t.Fatalf("the crafted case does not round twice wrongly (%v)", naive)
	}
	if got, want := fma32(a, b, c), exact(a, b, c); got != want {
		t.Errorf("fma32(crafted) = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		a, b, c := float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		if rng.IntN(2) == 0 {
			c *= 1 << 20 // sums whose product is far below c's ulp
		}
		if got, want := fma32(a, b, c), exact(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}

// TestSparseKernelMatchesGo checks the assembly tiles against sparseTileGo
// (FMA for FMA, hardware against fma32), overwriting and adding, stored
// as they are and transposed (both transposed kernels, indexed and
// base-plus-displacement), on lists with padding terms and on an empty
// list; C's entries outside the tile must stay as they were.
func TestSparseKernelMatchesGo(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const kc = 100
	b := make([]float32, kc*sparseNR)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	for _, n := range []int{0, 1, 7, kc} {
		e := make([]sparseEntry, n+1)
		for i := range e[:n] {
			e[i] = sparseEntry{int32(rng.IntN(kc) * sparseNR * 4), float32(rng.NormFloat64()), int32(rng.IntN(kc) * sparseNR * 4), float32(rng.NormFloat64())}
		}
		if n > 1 {
			e[n-1].k1, e[n-1].v1 = 0, 0 // a padding term
		}
		for _, trans := range []bool{false, true} {
			for _, add := range []bool{false, true} {
				c0 := make([]float32, 32*35)
				for i := range c0 {
					c0[i] = float32(rng.NormFloat64())
				}
				c1 := slices.Clone(c0)
				c2 := slices.Clone(c0)
				if trans {
					sparseKernelAVX2TD(n, &e[0], &b[0], &c2[0], 35, add)
					sparseKernelAVX2T(n, &e[0], &b[0], &c0[0], 35, add)
				} else {
					sparseKernelAVX2(n, &e[0], &b[0], &c0[0], 35, add)
				}
				sparseTileGo(n, &e[0], &b[0], &c1[0], 35, add, trans)
				for i := range c2 {
					if trans && math.Float32bits(c2[i]) != math.Float32bits(c1[i]) {
						t.Fatalf("n %d add %v: entry %d is %v in sparseKernelAVX2TD, %v in Go", n, add, i, c2[i], c1[i])
					}
				}
				for i := range c0 {
					if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
						t.Fatalf("n %d trans %v add %v: entry %d is %v in assembly, %v in Go", n, trans, add, i, c0[i], c1[i])
					}
				}
			}
		}
	}
}

// TestSparseRowKernelMatchesGo checks sparseKernelRow against sparseRowGo
// (FMA for FMA, hardware against fma32): from 0 and from saved partial
// sums, stored and added to C, on an empty list and longer ones.
func TestSparseRowKernelMatchesGo(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(17, 18))
	const kc = 100
	b := make([]float32, kc*sparseRowNR)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	for _, n := range []int{0, 1, 7, kc} {
		e := make([]sparseTerm, n+1)
		for i := range e[:n] {
			e[i] = sparseTerm{int32(rng.IntN(kc) * sparseRowNR * 4), float32(rng.NormFloat64())}
		}
		for flags := range 4 {
			in := make([]float32, sparseRowNR)
			c0 := make([]float32, sparseRowNR+8)
			for i := range in {
				in[i] = float32(rng.NormFloat64())
			}
			for i := range c0 {
				c0[i] = float32(rng.NormFloat64())
			}
			c1, orig := slices.Clone(c0), slices.Clone(c0)
			sparseKernelRow(n, &e[0], &b[0], &in[0], &c0[0], flags)
			sparseRowGo(n, &e[0], &b[0], &in[0], &c1[0], flags)
			for i := range c0 {
				if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
					t.Fatalf("n %d flags %d: entry %d is %v in assembly, %v in Go", n, flags, i, c0[i], c1[i])
				}
			}
			if !slices.Equal(c0[sparseRowNR:], orig[sparseRowNR:]) {
				t.Fatalf("n %d flags %d: the kernel wrote past the row", n, flags)
			}
			if n > 0 && c0[0] == orig[0] {
				t.Fatalf("n %d flags %d: the row was not written", n, flags)
			}
		}
	}
}

// TestSparseDefault checks EnvSparse's settings: by default the sparse
// path runs with the AVX2 kernel only, and not on an AMD of family 19h;
// "off" turns it off and "on" on, and it never runs without dpscope's
// kernel.
func TestSparseDefault(t *testing.T) {
	cases := []struct {
		env    string
		kern   *asmKernel
		amd19h bool
		want   bool
	}{
		{"", kernAVX2, false, true},
		{"", kernAVX2, true, false},
		{"", kernAVX512, false, false},
		{"", nil, false, false},
		{"auto", kernAVX2, false, true},
		{" off ", kernAVX2, false, false},
		{"on", kernAVX2, true, true},
		{"on", kernAVX512, false, true},
		{"on", nil, false, false},
		{"off", kernAVX512, false, false},
	}
	for _, c := range cases {
		if got := sparseOn(parseSparse(c.env), c.kern, c.amd19h); got != c.want {
			name := "OpenBLAS"
			if c.kern != nil {
				name = c.kern.name
			}
			t.Errorf("%s=%q with %s, AMD family 19h %v: on %v, want %v", EnvSparse, c.env, name, c.amd19h, got, c.want)
		}
	}
	restore := SetSparse(false)
	if sparseKernel() != nil {
		t.Error("SetSparse(false) left the path on")
	}
	restore()
}

// TestSparseNote checks what the backend's description says of the
// sparse path: the AVX2 kernel's threshold by default, the AVX-512
// kernel's when forced on, that the products stay dense where the CPU
// alone decides it, nothing where the path does not run.
func TestSparseNote(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no sparse kernel on this platform")
	}
	cases := []struct {
		env    string
		kern   *asmKernel
		amd19h bool
		want   string // a part of the note, "" for none
	}{
		{"", kernAVX2, false, "density at most 0.7 (DPSCOPE_SPARSE=off"},
		{"", kernAVX2, true, "dense products on this AMD family 19h CPU (DPSCOPE_SPARSE=on"},
		{"on", kernAVX2, true, "density at most 0.7 ("},
		{"on", kernAVX512, false, "density at most 0.3 ("},
		{"", kernAVX512, true, ""},
		{"off", kernAVX2, true, ""},
		{"off", kernAVX2, false, ""},
		{"", nil, false, ""},
	}
	for _, c := range cases {
		got := sparseNote(parseSparse(c.env), c.kern, c.amd19h)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s=%q, AMD family 19h %v: note %q, want one containing %q", EnvSparse, c.env, c.amd19h, got, c.want)
		}
	}
}

// reluMatrix is randMatrix with the negative entries of the view set to
// +0, about half of them: a ReLU output or a masked gradient. Rows listed
// in zeroRows are all zeros, rows in fullRows have no zero.
func reluMatrix(rng *rand.Rand, r, c, pad int, zeroRows, fullRows []int) Matrix {
	m := randMatrix(rng, r, c, pad)
	for i := range r {
		row := m.Data[i*m.Stride:][:c]
		for j, v := range row {
			switch {
			case slices.Contains(zeroRows, i):
				row[j] = 0
			case slices.Contains(fullRows, i):
				row[j] = float32(math.Abs(float64(v))) + 0.1
			case v < 0:
				row[j] = 0
			}
		}
	}
	return m
}

// runSparse runs the sparse job for C = op(a)·op(b) + beta·C, the zeros
// taken from op(b) when sparseB, whatever the density.
func runSparse(t *testing.T, m, n, k int, a Matrix, ta bool, b Matrix, tb bool, c Matrix, beta float32, sparseB bool) {
	t.Helper()
	s := getSparseJob()
	defer putSparseJob(s)
	if !sparseProduct(s, m, n, k, a, ta, b, tb, c, beta, sparseB) {
		t.Fatal("the sparse job refused")
	}
}

// sparseProduct runs s on the AVX2 kernel for C = op(a)·op(b) + beta·C,
// the zeros taken from op(b) when sparseB (then s forms Cᵀ), whatever the
// density; false when the job refused.
func sparseProduct(s *sparseJob, m, n, k int, a Matrix, ta bool, b Matrix, tb bool, c Matrix, beta float32, sparseB bool) bool {
	if sparseB {
		s.setup(kernAVX2, n, m, k, b, !tb, a, !ta, c, true, beta)
	} else {
		s.setup(kernAVX2, m, n, k, a, ta, b, tb, c, false, beta)
	}
	s.maxDens = 2
	return s.run()
}

// TestSparseMatchesDense checks that the sparse product gives the dense
// kernels' bits, every entry of C and its NaN padding, for sparse A and
// sparse B, every transposition, odd m (a pair short of a row), n short of
// a panel, several k blocks, beta 0, 1 and 0.5, and rows of A all zero or
// without a zero; B is finite (see sparse.go for what NaN, Inf and
// underflow change).
func TestSparseMatchesDense(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	shapes := []struct{ m, n, k int }{
		{2, 32, 1}, {3, 33, 5}, {64, 64, 256}, {37, 70, 300}, {61, 200, 427}, {256, 96, 600},
	}
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, sh := range shapes {
			for _, sparseB := range []bool{false, true} {
				for _, ta := range []bool{false, true} {
					for _, tb := range []bool{false, true} {
						for _, beta := range []float32{0, 1, 0.5} {
							m, n, k := sh.m, sh.n, sh.k
							ar, ac, br, bc := operandShapes(m, n, k, ta, tb)
							var a, b Matrix
							if sparseB {
								a = randMatrix(rng, ar, ac, 3)
								b = reluMatrix(rng, br, bc, 3, []int{0}, []int{br - 1})
							} else {
								a = reluMatrix(rng, ar, ac, 3, []int{0}, []int{ar - 1})
								b = randMatrix(rng, br, bc, 3)
							}
							c0 := randMatrix(rng, m, n, 2)
							c1 := Matrix{Rows: m, Cols: n, Stride: c0.Stride, Data: slices.Clone(c0.Data)}
							sgemmAsm(kern, ta, tb, m, n, k, 1, a.Data, ld(a), b.Data, ld(b), beta, c0.Data, ld(c0))
							runSparse(t, m, n, k, a, ta, b, tb, c1, beta, sparseB)
							for i := range c0.Data {
								if math.Float32bits(c0.Data[i]) != math.Float32bits(c1.Data[i]) {
									t.Fatalf("%d×%d×%d sparseB %v tA %v tB %v beta %v: entry %d (row %d) is %v dense, %v sparse",
										m, n, k, sparseB, ta, tb, beta, i, i/c0.Stride, c0.Data[i], c1.Data[i])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestMulSparseMatchesMulTo checks the exported entry points through the
// selected backend on the autoencoder's three sparse products (batch 427,
// ReLU zeros): the bits are MulTo's, the sparse path ran when the backend
// runs dpscope's AVX2 kernel (with the AVX-512 one the density 0.5 is
// above its threshold), and it gives way to MulTo on a dense operand.
func TestMulSparseMatchesMulTo(t *testing.T) {
	defer SetSparse(true)() // off by default with the AVX-512 kernel (EnvSparse)
	rng := rand.New(rand.NewPCG(11, 12))
	const batch = 427
	h := reluMatrix(rng, batch, 256, 0, nil, nil)
	g := reluMatrix(rng, batch, 256, 0, nil, nil)
	x := randMatrix(rng, batch, 2000, 0)
	w := randMatrix(rng, 256, 2000, 0)
	g6 := randMatrix(rng, batch, 2000, 0)
	dense := randMatrix(rng, batch, 256, 0)
	cases := []struct {
		name    string
		a       Matrix
		ta      bool
		b       Matrix
		sparseB bool
		rows    int
		ran     bool
	}{
		{"Y=H5·W6", h, false, w, false, batch, true},
		{"dW6=H5ᵀ·G6", h, true, g6, false, 256, true},
		{"dW1=Xᵀ·G1", x, true, g, true, 2000, true},
		{"dense", dense, false, w, false, batch, false},
	}
	for _, c := range cases {
		_, n := opDims(c.b, false)
		for _, beta := range []float32{0, 1} {
			want := randMatrix(rng, c.rows, n, 0)
			got := Matrix{Rows: c.rows, Cols: n, Stride: n, Data: slices.Clone(want.Data)}
			MulTo(want, c.a, c.ta, c.b, false, 1, beta)
			before := sparseRuns.Load()
			if c.sparseB {
				MulSparseBTo(got, c.a, c.ta, c.b, false, beta)
			} else {
				MulSparseTo(got, c.a, c.ta, c.b, false, beta)
			}
			ran := sparseRuns.Load() > before
			k := sparseKernel()
			if wantRan := c.ran && k != nil && maxDensity(k) >= 0.55; ran != wantRan {
				t.Errorf("%s: sparse path ran %v, want %v", c.name, ran, wantRan)
			}
			for i := range want.Data {
				if math.Float32bits(want.Data[i]) != math.Float32bits(got.Data[i]) {
					t.Fatalf("%s beta %v: entry %d is %v by MulTo, %v sparse", c.name, beta, i, want.Data[i], got.Data[i])
				}
			}
		}
	}
}

// TestListTermsMatchesGo checks listTerms (listNonzeros on AVX2 for the
// leading multiple of 4) against listTermsGo: the same count and the same
// terms to the bit, for lengths 0–70 (tails of 1–3), rows all zero, none
// zero, ±0, NaN, Inf and subnormals, from a count n below lo; and that
// neither writes at or past lo + len(src) (a sentinel there) nor below n.
func TestListTermsMatchesGo(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2: listTerms is listTermsGo")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40, -3}
	sentinel := sparseTerm{k: -7, v: 12345}
	for _, stride := range []int{4, 128, 256, 8000} {
		for length := range 71 {
			for _, density := range []float64{0, 0.3, 0.5, 1} {
				src := make([]float32, length)
				for i := range src {
					switch r := rng.Float64(); {
					case r < 0.1:
						src[i] = specials[rng.IntN(len(specials))]
					case r < density:
						src[i] = float32(rng.NormFloat64())
					}
				}
				lo := rng.IntN(200)
				n0 := rng.IntN(lo + 1)
				room := lo + length + 8
				got, want := make([]sparseTerm, room), make([]sparseTerm, room)
				for i := range got {
					got[i], want[i] = sentinel, sentinel
				}
				ng := listTerms(got, n0, src, lo, stride)
				nw := listTermsGo(want, n0, src, lo, stride)
				if ng != nw {
					t.Fatalf("stride %d, length %d, density %g: %d terms, want %d", stride, length, density, ng, nw)
				}
				for i := n0; i < ng; i++ {
					if got[i].k != want[i].k || math.Float32bits(got[i].v) != math.Float32bits(want[i].v) {
						t.Fatalf("stride %d, length %d: term %d is %+v, want %+v", stride, length, i, got[i], want[i])
					}
				}
				for i, e := range got {
					if (i < n0 || i >= lo+length) && e != sentinel {
						t.Fatalf("stride %d, length %d, n %d, lo %d: entry %d written (%+v), outside [n, lo+len)", stride, length, n0, lo, i, e)
					}
				}
			}
		}
	}
}

// TestSparseSameBitsAnyThreads checks that the sparse products of the
// autoencoder's shapes (batch 427, ReLU density 0.5; the row kernel, the
// pair kernel with C transposed, and a product too narrow to share out by
// panels) give the same bits on one goroutine as on two, beta 0 and 0.5.
func TestSparseSameBitsAnyThreads(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct {
		m, n, k         int
		ta, tb, sparseB bool
	}{
		{427, 2000, 256, false, false, false}, // Y = H5·W6
		{256, 2000, 427, true, false, false},  // dW6 = H5ᵀ·G6
		{2000, 256, 427, true, false, true},   // dW1 = Xᵀ·G1, zeros of G1
		{427, 100, 256, false, false, false},  // two B panels: rows dealt
	} {
		for _, beta := range []float32{0, 0.5} {
			ar, ac, br, bc := operandShapes(sh.m, sh.n, sh.k, sh.ta, sh.tb)
			a, b := randMatrix(rng, ar, ac, 0), randMatrix(rng, br, bc, 0)
			sp := a
			if sh.sparseB {
				sp = b
			}
			for i := range sp.Data {
				if rng.IntN(2) == 0 {
					sp.Data[i] = 0
				}
			}
			c0 := randMatrix(rng, sh.m, sh.n, 0)
			var got [2]Matrix
			for v := range got {
				got[v] = NewMatrix(sh.m, sh.n, nil)
				copy(got[v].Data, c0.Data)
				procs := 2
				if v == 0 {
					procs = 1
				}
				prev := runtime.GOMAXPROCS(procs)
				runSparse(t, sh.m, sh.n, sh.k, a, sh.ta, b, sh.tb, got[v], beta, sh.sparseB)
				runtime.GOMAXPROCS(prev)
			}
			for i := range got[0].Data {
				if math.Float32bits(got[1].Data[i]) != math.Float32bits(got[0].Data[i]) {
					t.Fatalf("%+v beta %g: entry %d is %v on two goroutines, %v on one", sh, beta, i, got[1].Data[i], got[0].Data[i])
				}
			}
		}
	}
}
