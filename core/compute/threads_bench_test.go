//go:build linux

package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// BenchmarkGemmThreads times products on OpenBLAS at one thread (T1) and
// at two (T2, OpenBLAS's own split, which it applies above 2¹⁸
// multiply-adds) and reports GFLOP/s: square n×n×n, and the products of a
// batch of 427 through the autoencoders' layers (2000-256-64-32 and its
// mirror: forward, weight gradient, input gradient), and the bias
// gradient Gᵀ·1 of a 427×2000 signal (gemv). docs/PERFORMANCE.md
// (speed5) has the figures; one and two threads give results that differ
// in the last bits.
func BenchmarkGemmThreads(b *testing.B) {
	lib := requireOpenBLAS(b)
	defer lib.setThreads(defaultThreads())
	type prod struct {
		name    string
		m, n, k int
		tA, tB  bool
	}
	var prods []prod
	for _, n := range []int{64, 128, 256, 384} {
		prods = append(prods, prod{fmt.Sprintf("square%d", n), n, n, n, false, false})
	}
	const batch = 427
	for _, w := range [][2]int{{64, 32}, {256, 64}, {2000, 256}} {
		in, out := w[0], w[1]
		prods = append(prods,
			prod{fmt.Sprintf("%dx%d/fwd", in, out), batch, out, in, false, false},
			prod{fmt.Sprintf("%dx%d/dW", in, out), in, out, batch, true, false},
			prod{fmt.Sprintf("%dx%d/dX", in, out), batch, in, out, false, true})
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range prods {
		a, bm := randOperands(rng, p.m, p.n, p.k, 0, p.tA, p.tB)
		c := NewMatrix(p.m, p.n, nil)
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/T%d", p.name, th), func(b *testing.B) {
				lib.setThreads(th)
				for b.Loop() {
					mulTo(lib, c, a, p.tA, bm, p.tB, 1, 0)
				}
				b.ReportMetric(2*float64(p.m*p.n*p.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
	g := randMatrix(rng, batch, 2000, 0)
	ones, db := make([]float32, batch), make([]float32, 2000)
	for i := range ones {
		ones[i] = 1
	}
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("gemvT427x2000/T%d", th), func(b *testing.B) {
			lib.setThreads(th)
			for b.Loop() {
				lib.Sgemv(blas.Trans, batch, 2000, 1, g.Data, 2000, ones, 1, 0, db, 1)
			}
			b.ReportMetric(2*batch*2000*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
