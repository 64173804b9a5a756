package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// withoutAVX2 runs f with the vector kernels switched off, so that the Go
// loops do every entry.
func withoutAVX2(f func()) {
	saved := hasAVX2
	hasAVX2 = false
	defer func() { hasAVX2 = saved }()
	f()
}

// edgyValues returns n values mixing normals with ±0, ±Inf, NaNs of both
// signs and subnormals, the inputs where a vector compare could differ
// from Go's max and sign test.
func edgyValues(rng *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(math.Float32bits(float32(math.NaN())) | 1<<31),
		math.Float32frombits(1), -math.Float32frombits(1)}
	v := make([]float32, n)
	for i := range v {
		if rng.IntN(4) == 0 {
			v[i] = special[rng.IntN(len(special))]
		} else {
			v[i] = float32(rng.NormFloat64())
		}
	}
	return v
}

// sameBits returns the first index where a and b differ in their bits,
// counting any two NaNs as equal (Go's max does not promise which NaN it
// returns), or -1.
func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(isNaN32(a[i]) && isNaN32(b[i])) {
			return i
		}
	}
	return -1
}

// TestVectorKernelsMatchGo checks that ReLU, its derivative and MSE give
// the same bits with the AVX2 kernels as with the Go loops, at lengths
// around the kernels' 8 lanes and MSE's chunks of 256.
func TestVectorKernelsMatchGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this machine: there is no vector kernel to compare")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 255, 256, 257, 2000} {
		y := edgyValues(rng, n)
		a, b := append([]float32(nil), y...), append([]float32(nil), y...)
		ReLU.apply(a)
		withoutAVX2(func() { ReLU.apply(b) })
		if i := sameBits(a, b); i >= 0 {
			t.Fatalf("n = %d: relu(%v) = %v with AVX2, %v in Go", n, y[i], a[i], b[i])
		}
		g := edgyValues(rng, n)
		a, b = append([]float32(nil), g...), append([]float32(nil), g...)
		ReLU.mulDeriv(a, y)
		withoutAVX2(func() { ReLU.mulDeriv(b, y) })
		if i := sameBits(a, b); i >= 0 {
			t.Fatalf("n = %d: relu'(y = %v)·%v = %v with AVX2, %v in Go", n, y[i], g[i], a[i], b[i])
		}
		a, b = make([]float32, n), make([]float32, n)
		scaleInto(a, g, 0.3)
		withoutAVX2(func() { scaleInto(b, g, 0.3) })
		if i := sameBits(a, b); i >= 0 {
			t.Fatalf("n = %d: 0.3·%v = %v with AVX2, %v in Go", n, g[i], a[i], b[i])
		}
		if n == 0 {
			continue
		}
		x, out := compute.NewMatrix(3, n, nil), compute.NewMatrix(3, n, nil)
		for i := range x.Data {
			x.Data[i], out.Data[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		da, db := compute.NewMatrix(3, n, nil), compute.NewMatrix(3, n, nil)
		for i := range da.Data {
			da.Data[i] = float32(rng.NormFloat64())
		}
		copy(db.Data, da.Data)
		la := MSE(da, out, x, 0.7)
		var lb float64
		withoutAVX2(func() { lb = MSE(db, out, x, 0.7) })
		if la != lb {
			t.Fatalf("n = %d: MSE = %v with AVX2, %v in Go", n, la, lb)
		}
		if i := sameBits(da.Data, db.Data); i >= 0 {
			t.Fatalf("n = %d: MSE gradient [%d] = %v with AVX2, %v in Go", n, i, da.Data[i], db.Data[i])
		}
	}
}
