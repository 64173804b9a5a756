package compute

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// fillThenMul is what MulBiasTo must equal to the bit: dst's rows filled
// with bias, then the product added on kernel kern (beta 1).
func fillThenMul(kern *asmKernel, dst, a Matrix, ta bool, b Matrix, tb bool, bias []float32) {
	for i := range dst.Rows {
		copy(dst.RawRowView(i), bias)
	}
	m, k := opDims(a, ta)
	_, n := opDims(b, tb)
	if !asmGemm(kern, transpose(ta), transpose(tb), m, n, k, 1, a.Data, ld(a), b.Data, ld(b), 1, dst.Data, ld(dst)) {
		panic(fmt.Sprintf("fillThenMul: the kernel did not take the %d×%d×%d product", m, n, k))
	}
}

// TestSgemmAsmBiasSameBits checks that each kernel, with the bias written
// into its panels as it forms them, gives the bits of filling C with the
// bias first and adding the product (beta 1): on one goroutine and two,
// in every transposition, with edge tiles, several k blocks, a product in
// pieces beyond asmMaxK and asmMaxN, and NaN in C before (ignored).
func TestSgemmAsmBiasSameBits(t *testing.T) {
	shapes := []struct{ m, n, k int }{
		{24, 64, 200}, {45, 90, 260}, {427, 256, 2000}, {427, 2000, 256}, {100, 90, 600}, {30, asmMaxN + 40, 70}, {48, 64, asmMaxK + 300},
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	forEachKernel(t, func(t *testing.T, kern *asmKernel) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, s := range shapes {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					a, b := randOperands(rng, s.m, s.n, s.k, 3, ta, tb)
					bias := make([]float32, s.n)
					for i := range bias {
						bias[i] = float32(rng.NormFloat64())
					}
					want := randMatrix(rng, s.m, s.n, 2)
					fillThenMul(kern, want, a, ta, b, tb, bias)
					for _, procs := range []int{1, 2} {
						runtime.GOMAXPROCS(procs)
						got := randMatrix(rng, s.m, s.n, 2)
						for i := range got.Rows {
							row := got.RawRowView(i)
							for x := range row {
								row[x] = float32(math.NaN())
							}
						}
						if !asmGemmBias(kern, transpose(ta), transpose(tb), s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, got.Data, ld(got), bias) {
							t.Fatalf("%d×%d×%d: the kernel did not take the product", s.m, s.n, s.k)
						}
						for i := range s.m {
							for x := range s.n {
								if g, w := got.At(i, x), want.At(i, x); math.Float32bits(g) != math.Float32bits(w) {
									t.Fatalf("%d×%d×%d tA %v tB %v GOMAXPROCS %d: C[%d][%d] = %v, want %v", s.m, s.n, s.k, ta, tb, procs, i, x, g, w)
								}
							}
							// The padding past n is not written.
							if pad := got.Data[i*got.Stride+s.n : (i+1)*got.Stride]; !math.IsNaN(float64(pad[0])) {
								t.Fatalf("%d×%d×%d: C's padding written in row %d", s.m, s.n, s.k, i)
							}
						}
					}
				}
			}
		}
	})
}

// TestMulBiasTo checks the exported product against filling dst with the
// bias and MulSparseTo (beta 1) under the backend in use, with the fold on
// and off and the sparse path on and off, on a ReLU-like operand (half
// zeros) and a dense one; that k = 0 leaves the bias; and its errors.
func TestMulBiasTo(t *testing.T) {
	defer BiasFold.Store(BiasFold.Load())
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range []struct{ m, n, k int }{{427, 256, 2000}, {427, 2000, 256}, {5, 7, 3}, {40, 33, 0}} {
		for _, sparse := range []bool{false, true} {
			restore := SetSparse(sparse)
			a := randMatrix(rng, s.m, s.k, 0)
			if sparse {
				for i := range a.Data {
					a.Data[i] = max(a.Data[i], 0)
				}
			}
			b := randMatrix(rng, s.k, s.n, 0)
			bias := make([]float32, s.n)
			for i := range bias {
				bias[i] = float32(rng.NormFloat64())
			}
			want := NewMatrix(s.m, s.n, nil)
			for i := range want.Rows {
				copy(want.RawRowView(i), bias)
			}
			MulSparseTo(want, a, false, b, false, 1)
			for _, fold := range []bool{false, true} {
				BiasFold.Store(fold)
				got := NewMatrix(s.m, s.n, nil)
				for i := range got.Data {
					got.Data[i] = float32(math.NaN())
				}
				MulBiasTo(got, a, false, b, false, bias)
				for i, w := range want.Data {
					if math.Float32bits(got.Data[i]) != math.Float32bits(w) {
						t.Fatalf("%d×%d×%d sparse %v fold %v: entry %d = %v, want %v", s.m, s.n, s.k, sparse, fold, i, got.Data[i], w)
					}
				}
			}
			restore()
		}
	}
	a, b, dst := NewMatrix(3, 4, nil), NewMatrix(4, 5, nil), NewMatrix(3, 5, nil)
	for _, tc := range []struct {
		name string
		run  func()
		want error
	}{
		{"short bias", func() { MulBiasTo(dst, a, false, b, false, make([]float32, 4)) }, ErrShape},
		{"bad k", func() { MulBiasTo(dst, a, true, b, false, make([]float32, 5)) }, ErrShape},
		{"bias in dst", func() { MulBiasTo(dst, a, false, b, false, dst.Data[:5]) }, ErrOverlap},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, tc.want) {
					t.Errorf("%s: panic %v, want one wrapping %v", tc.name, err, tc.want)
				}
			}()
			tc.run()
		}()
	}
}
