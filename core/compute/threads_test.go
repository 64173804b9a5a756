//go:build linux

package compute

import (
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestSmallProductsOneThread checks that products below
// ThreadedGemmThreshold give OpenBLAS's results at two threads and leave
// the library at its configured thread count, also when goroutines
// multiply at once and one of them changes the count meanwhile.
func TestSmallProductsOneThread(t *testing.T) {
	lib := requireOpenBLAS(t)
	if lib.setNumThreads == 0 {
		t.Skip("this OpenBLAS has no openblas_set_num_threads")
	}
	defer lib.setThreads(defaultThreads())
	rng := rand.New(rand.NewPCG(3, 4))
	const m, k, n = 100, 120, 110 // 1.3 M multiply-adds: above OpenBLAS's own 2¹⁸, below the threshold
	if m*n*k <= openBLASOwnGemm || m*n*k >= ThreadedGemmThreshold {
		t.Fatalf("test size %d is not between %d and %d", m*n*k, openBLASOwnGemm, ThreadedGemmThreshold)
	}
	a, b := randMatrix(rng, m, k, 0), randMatrix(rng, k, n, 0)
	lib.setThreads(2)
	one, two := *lib, *lib
	two.minThreadedGemm = 0
	want, got := NewMatrix(m, n, nil), NewMatrix(m, n, nil)
	mulTo(&two, want, a, false, b, false, 1, 0)
	mulTo(&one, got, a, false, b, false, 1, 0)
	wantRef, scale := refMul(a, false, b, false, got, 1, 0)
	for i := range m {
		for j := range n {
			if d := float64(got.At(i, j)) - wantRef[i][j]; d > gemmTol(k, scale[i][j]) || -d > gemmTol(k, scale[i][j]) {
				t.Fatalf("one-thread product (%d,%d) = %v, want %v", i, j, got.At(i, j), wantRef[i][j])
			}
		}
	}
	if c := lib.libThreads(); c != 2 {
		t.Fatalf("after a small product OpenBLAS runs %d threads, want the configured 2", c)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewMatrix(m, n, nil)
			x, y := make([]float32, 2000), make([]float32, 1000)
			big := randMatrix(rand.New(rand.NewPCG(uint64(g), 1)), 1000, 2000, 0)
			for range 20 {
				mulTo(&one, c, a, false, b, false, 1, 0)
				one.Sgemv(blas.NoTrans, 1000, 2000, 1, big.Data, 2000, x, 1, 0, y, 1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			lib.setThreads(1 + i%2)
		}
		lib.setThreads(1)
	}()
	wg.Wait()
	if c, th := lib.libThreads(), lib.threads(); c != 1 || th != 1 {
		t.Fatalf("after concurrent products and SetThreads(1) OpenBLAS runs %d threads, configured %d; want 1 and 1", c, th)
	}
}
