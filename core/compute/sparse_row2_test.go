package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// TestSparseRow2KernelMatchesGo checks sparseKernelRow2 against
// sparseRow2Go (FMA for FMA) and each of its rows against the one-row
// kernel sparseKernelRow on the same terms (its B panel 64 wide, the
// first 56 columns the same): every pair of list lengths 0, 1, 7 and kc
// (either row the longer), every flag, rows ldc apart with a gap, and
// nothing written in the gap, past the rows, or to row 1 with flags&4.
func TestSparseRow2KernelMatchesGo(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const kc, ldc = 100, sparseRow2NR + 5
	b56 := make([]float32, kc*sparseRow2NR)
	b64 := make([]float32, kc*sparseRowNR)
	for k := range kc {
		for x := range sparseRowNR {
			v := float32(rng.NormFloat64())
			b64[k*sparseRowNR+x] = v
			if x < sparseRow2NR {
				b56[k*sparseRow2NR+x] = v
			}
		}
	}
	terms := func(n int) (e56, e64 []sparseTerm) {
		e56, e64 = make([]sparseTerm, n+1), make([]sparseTerm, n+1)
		for i := range n {
			k, v := rng.IntN(kc), float32(rng.NormFloat64())
			e56[i], e64[i] = sparseTerm{int32(k * sparseRow2NR * 4), v}, sparseTerm{int32(k * sparseRowNR * 4), v}
		}
		return e56, e64
	}
	for _, n0 := range []int{0, 1, 7, kc} {
		for _, n1 := range []int{0, 1, 7, kc} {
			e0, e0w := terms(n0)
			e1, e1w := terms(n1)
			for flags := range 8 {
				if flags&4 != 0 && n1 != 0 {
					continue
				}
				in := make([]float32, 2*sparseRow2NR)
				for i := range in {
					in[i] = float32(rng.NormFloat64())
				}
				c0 := make([]float32, ldc+sparseRow2NR+8)
				for i := range c0 {
					c0[i] = float32(rng.NormFloat64())
				}
				c1, orig := slices.Clone(c0), slices.Clone(c0)
				sparseKernelRow2(n0, n1, &e0[0], &e1[0], &b56[0], &in[0], &c0[0], ldc, flags)
				sparseRow2Go(n0, n1, &e0[0], &e1[0], &b56[0], &in[0], &c1[0], ldc, flags)
				name := fmt.Sprintf("n0 %d n1 %d flags %d", n0, n1, flags)
				for i := range c0 {
					if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
						t.Fatalf("%s: entry %d is %v in assembly, %v in Go", name, i, c0[i], c1[i])
					}
				}
				rows := 2
				if flags&4 != 0 {
					rows = 1
				}
				for i := range c0 {
					inRow := i < sparseRow2NR || (rows == 2 && i >= ldc && i < ldc+sparseRow2NR)
					if !inRow && c0[i] != orig[i] {
						t.Fatalf("%s: entry %d outside the rows was written", name, i)
					}
				}
				// Row r against the one-row kernel on the same terms.
				for r, ew := range [][]sparseTerm{e0w, e1w}[:rows] {
					n := []int{n0, n1}[r]
					in64 := make([]float32, sparseRowNR)
					copy(in64, in[r*sparseRow2NR:][:sparseRow2NR])
					c64 := make([]float32, sparseRowNR)
					copy(c64, orig[r*ldc:][:sparseRow2NR])
					sparseKernelRow(n, &ew[0], &b64[0], &in64[0], &c64[0], flags&3)
					for x := range sparseRow2NR {
						if math.Float32bits(c64[x]) != math.Float32bits(c0[r*ldc+x]) {
							t.Fatalf("%s: row %d entry %d is %v on the two-row kernel, %v on the one-row kernel", name, r, x, c0[r*ldc+x], c64[x])
						}
					}
				}
			}
		}
	}
}

// TestSparseRowPairsSameBits checks whole products on the row path with
// SparseRowPairs on against off (the one-row kernel) and against the
// dense AVX2 kernel, to the bit: odd and even m (a row left alone), n
// short of, at, and past a 56-column panel (where row2Fits), k at and
// around the pieces (sparseKS) and the k blocks, A at density 0 and 1 and with rows
// from empty to full (the pairs formed by the lists' lengths), both
// transpositions of A, beta 0, 1 and 0.5, and the autoencoder's shapes
// at two goroutines.
func TestSparseRowPairsSameBits(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	defer SparseRowPairs.Store(SparseRowPairs.Load())
	rng := rand.New(rand.NewPCG(23, 24))
	shapes := []struct{ m, n, k, procs int }{
		{1, 56, 1, 1}, {2, 33, 127, 1}, {3, 1, 128, 1}, {5, 100, 129, 1}, {4, 55, 256, 1},
		{7, 200, 257, 1}, {61, 165, 427, 1}, {30, 112, 600, 1},
		{427, 2000, 256, 2}, {256, 2000, 427, 2}, {255, 330, 300, 2},
	}
	for _, sh := range shapes {
		if !row2Fits(sh.n) {
			t.Fatalf("n %d: the two-row tile would not run", sh.n)
		}
		for _, dens := range []float64{0, 0.5, 1} {
			for _, ta := range []bool{false, true} {
				for _, beta := range []float32{0, 1, 0.5} {
					if sh.procs == 2 && beta == 1 {
						continue // the large shapes: fewer runs
					}
					ar, ac, br, bc := operandShapes(sh.m, sh.n, sh.k, ta, false)
					a := withDensity(rng, ar, ac, dens)
					if dens == 0.5 {
						// Rows of op(A) from empty to full, as a ReLU
						// layer's units: the pairs are formed by length.
						for i := range sh.m {
							d := float64(i%7) / 6
							for kk := range sh.k {
								at := i*a.Stride + kk
								if ta {
									at = kk*a.Stride + i
								}
								if rng.Float64() >= d {
									a.Data[at] = 0
								} else if a.Data[at] == 0 {
									a.Data[at] = 1
								}
							}
						}
					}
					b := randMatrix(rng, br, bc, 3)
					c0 := randMatrix(rng, sh.m, sh.n, 2)
					got := offOnDense(t, &SparseRowPairs, sh.procs, sh.m, sh.n, sh.k, a, ta, b, false, c0, beta, false)
					for i := range c0.Data {
						one, two, dense := got[0].Data[i], got[1].Data[i], got[2].Data[i]
						if math.Float32bits(one) != math.Float32bits(two) || math.Float32bits(dense) != math.Float32bits(two) {
							t.Fatalf("%d×%d×%d density %v tA %v beta %v: entry %d (row %d) is %v with two-row tiles, %v with one-row, %v dense",
								sh.m, sh.n, sh.k, dens, ta, beta, i, i/c0.Stride, two, one, dense)
						}
					}
				}
			}
		}
	}
}

// TestSparseRow2KernelTransposed checks sparseKernelRow2's transposed
// store (flags&8) against sparseRow2Go, to the bit, for list lengths 0, 1,
// 7 and kc, from 0 and from partial sums, stored and added: column x of
// the tile as the pair of entries at c + x·ldc, nothing else written.
func TestSparseRow2KernelTransposed(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(25, 26))
	const kc, ldc = 100, 5
	b := make([]float32, kc*sparseRow2NR)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	terms := func(n int) []sparseTerm {
		e := make([]sparseTerm, n+1)
		for i := range n {
			e[i] = sparseTerm{int32(rng.IntN(kc) * sparseRow2NR * 4), float32(rng.NormFloat64())}
		}
		return e
	}
	for _, n0 := range []int{0, 1, 7, kc} {
		for _, n1 := range []int{0, 1, 7, kc} {
			e0, e1 := terms(n0), terms(n1)
			for flags := range 4 {
				in := make([]float32, 2*sparseRow2NR)
				for i := range in {
					in[i] = float32(rng.NormFloat64())
				}
				c0 := make([]float32, sparseRow2NR*ldc+3)
				for i := range c0 {
					c0[i] = float32(rng.NormFloat64())
				}
				c1, orig := slices.Clone(c0), slices.Clone(c0)
				sparseKernelRow2(n0, n1, &e0[0], &e1[0], &b[0], &in[0], &c0[0], ldc, flags|8)
				sparseRow2Go(n0, n1, &e0[0], &e1[0], &b[0], &in[0], &c1[0], ldc, flags|8)
				for i := range c0 {
					if math.Float32bits(c0[i]) != math.Float32bits(c1[i]) {
						t.Fatalf("n0 %d n1 %d flags %d: entry %d is %v in assembly, %v in Go", n0, n1, flags|8, i, c0[i], c1[i])
					}
					if i < sparseRow2NR*ldc && i%ldc < 2 {
						if (n0 > 0 || flags&1 != 0) && i%ldc == 0 && c0[i] == orig[i] {
							t.Fatalf("n0 %d n1 %d flags %d: entry %d was not written", n0, n1, flags|8, i)
						}
					} else if c0[i] != orig[i] {
						t.Fatalf("n0 %d n1 %d flags %d: entry %d outside the tile was written", n0, n1, flags|8, i)
					}
				}
			}
		}
	}
}

// TestSparseRowPairsTSameBits checks MulSparseBTo's products (the zeros
// taken from op(b), C formed transposed) with SparseRowPairsT on against
// off (the pair kernel) and against the dense AVX2 kernel, to the bit:
// op(b) with an odd number of columns (a row of the formed product
// alone), C's rows short of, at and past a 56-column panel (where
// row2Fits), k around the
// pieces and k blocks, density 0, 0.5 and 1, every transposition, beta
// 0, 1 and 0.5, and dW1's shape at two goroutines.
func TestSparseRowPairsTSameBits(t *testing.T) {
	if !hasSparseAsm {
		t.Skip("no AVX2+FMA")
	}
	defer SparseRowPairsT.Store(SparseRowPairsT.Load())
	rng := rand.New(rand.NewPCG(27, 28))
	shapes := []struct{ m, n, k, procs int }{
		{56, 1, 1, 1}, {33, 3, 5, 1}, {1, 2, 127, 1}, {100, 5, 129, 1}, {55, 4, 256, 1},
		{200, 7, 257, 1}, {165, 61, 300, 1}, {2000, 256, 427, 2}, {330, 255, 300, 2},
	}
	for _, sh := range shapes {
		if !row2Fits(sh.m) {
			t.Fatalf("m %d: the two-row tile would not run", sh.m)
		}
		for _, dens := range []float64{0, 0.5, 1} {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					for _, beta := range []float32{0, 1, 0.5} {
						if sh.procs == 2 && (beta == 1 || ta == tb) {
							continue // the large shapes: fewer runs
						}
						ar, ac, br, bc := operandShapes(sh.m, sh.n, sh.k, ta, tb)
						a := randMatrix(rng, ar, ac, 3)
						b := withDensity(rng, br, bc, dens)
						c0 := randMatrix(rng, sh.m, sh.n, 2)
						got := offOnDense(t, &SparseRowPairsT, sh.procs, sh.m, sh.n, sh.k, a, ta, b, tb, c0, beta, true)
						for i := range c0.Data {
							pair, two, dense := got[0].Data[i], got[1].Data[i], got[2].Data[i]
							if math.Float32bits(pair) != math.Float32bits(two) || math.Float32bits(dense) != math.Float32bits(two) {
								t.Fatalf("%d×%d×%d density %v tA %v tB %v beta %v: entry %d (row %d) is %v with two-row tiles, %v with the pair kernel, %v dense",
									sh.m, sh.n, sh.k, dens, ta, tb, beta, i, i/c0.Stride, two, pair, dense)
							}
						}
					}
				}
			}
		}
	}
}

// TestRow2Fits checks where the two-row tile's 56-column panels are
// taken: not for the small layers' 64 and 256 columns, for 2000.
func TestRow2Fits(t *testing.T) {
	for n, want := range map[int]bool{1: true, 55: true, 56: true, 57: false, 64: false, 100: true, 256: false, 2000: true} {
		if got := row2Fits(n); got != want {
			t.Errorf("row2Fits(%d) = %v, want %v", n, got, want)
		}
	}
}

// offOnDense forms C = A·B + beta·c0 three ways: the sparse product with
// knob off, with it on (both at procs threads), and the dense AVX2
// kernel, for the tests that want all three bit for bit.
func offOnDense(t *testing.T, knob *atomic.Bool, procs, m, n, k int, a Matrix, ta bool, b Matrix, tb bool, c0 Matrix, beta float32, sparseB bool) [3]Matrix {
	t.Helper()
	var got [3]Matrix
	for v := range got {
		got[v] = Matrix{Rows: m, Cols: n, Stride: c0.Stride, Data: slices.Clone(c0.Data)}
	}
	prev := runtime.GOMAXPROCS(procs)
	for v, on := range []bool{false, true} {
		knob.Store(on)
		runSparse(t, m, n, k, a, ta, b, tb, got[v], beta, sparseB)
	}
	runtime.GOMAXPROCS(prev)
	sgemmAsm(kernAVX2, ta, tb, m, n, k, 1, a.Data, ld(a), b.Data, ld(b), beta, got[2].Data, ld(got[2]))
	return got
}
