package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// sinkF32 keeps benchmark results alive.
var sinkF32 float32

// benchBackends returns the backends to benchmark: gonum, and OpenBLAS with
// no size threshold when it loads.
func benchBackends(b *testing.B) []namedBackend {
	b.Helper()
	list := []namedBackend{{NameGonum, gonum.Implementation{}}}
	if lib, err := loadOpenBLAS(OpenBLASNames); err == nil {
		lib.setThreads(defaultThreads())
		lib.minGemm, lib.minGemv = 0, 0
		list = append(list, namedBackend{NameOpenBLAS, lib})
	} else {
		b.Logf("OpenBLAS not loaded, benchmarking gonum only: %v", err)
	}
	return list
}

type namedBackend struct {
	name string
	impl blas.Float32
}

// BenchmarkSgemm times C = A·B with A 512×2000 and B 2000×256 (a batch of
// 512 cells through a 2000→256 dense layer) and reports GFLOP/s, counting
// 2·m·n·k floating-point operations per product.
func BenchmarkSgemm(b *testing.B) {
	const m, k, n = 512, 2000, 256
	rng := rand.New(rand.NewPCG(1, 1))
	a, bm, c := randMatrix(rng, m, k, 0), randMatrix(rng, k, n, 0), NewMatrix(m, n, nil)
	for _, be := range benchBackends(b) {
		b.Run(fmt.Sprintf("%s/%dx%dx%d", be.name, m, k, n), func(b *testing.B) {
			for b.Loop() {
				mulTo(be.impl, c, a, false, bm, false, 1, 0)
			}
			b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			sinkF32 = c.At(0, 0)
		})
	}
}

// BenchmarkGemmSmall times square products n×n×n on both backends, and the
// dispatching backend with its default GemmThreshold, to find where a call
// into OpenBLAS starts to pay off.
func BenchmarkGemmSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	backends := benchBackends(b)
	if len(backends) > 1 {
		lib := *backends[1].impl.(*openBLAS)
		lib.minGemm = GemmThreshold
		backends = append(backends, namedBackend{"dispatch", &lib})
	}
	for _, n := range []int{1, 2, 4, 5, 6, 7, 8, 16, 32, 64, 128} {
		a, bm, c := randMatrix(rng, n, n, 0), randMatrix(rng, n, n, 0), NewMatrix(n, n, nil)
		for _, be := range backends {
			b.Run(fmt.Sprintf("n=%d/%s", n, be.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					mulTo(be.impl, c, a, false, bm, true, 1, 0)
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				sinkF32 = c.At(0, 0)
			})
		}
	}
}

// BenchmarkGemvSmall times y = A·x with A n×n, and y = Aᵀ·x, on both
// backends to find where a call into OpenBLAS starts to pay off.
func BenchmarkGemvSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	backends := benchBackends(b)
	for _, n := range []int{4, 16, 32, 64, 128, 256, 512, 1024, 2048} {
		a := randMatrix(rng, n, n, 0)
		x, y := randMatrix(rng, 1, n, 0).Data, make([]float32, n)
		for _, trans := range []bool{false, true} {
			for _, be := range backends {
				b.Run(fmt.Sprintf("n=%d/trans=%v/%s", n, trans, be.name), func(b *testing.B) {
					for b.Loop() {
						mulVecTo(be.impl, y, a, trans, x, 1, 0)
					}
					sinkF32 = y[0]
				})
			}
		}
	}
}

// BenchmarkVectorOps times the level-1 routines, which stay in Go, at the
// lengths of a layer's bias or a row of activations.
func BenchmarkVectorOps(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{64, 2000} {
		x, y := randMatrix(rng, 1, n, 0).Data, randMatrix(rng, 1, n, 0).Data
		b.Run(fmt.Sprintf("Axpy/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Axpy(1e-3, x, y)
			}
		})
		b.Run(fmt.Sprintf("Dot/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkF32 = Dot(x, y)
			}
		})
	}
}

// sinkF64 keeps float64 benchmark results alive.
var sinkF64 float64

// BenchmarkDgemm is BenchmarkSgemm in float64: C = A·B with A 512×2000 and
// B 2000×256, in GFLOP/s (2·m·n·k operations per product).
func BenchmarkDgemm(b *testing.B) {
	const m, k, n = 512, 2000, 256
	rng := rand.New(rand.NewPCG(1, 1))
	a, bm, c := randDense64(rng, m, k, 0), randDense64(rng, k, n, 0), randDense64(rng, m, n, 0)
	for _, be := range benchBackends64(b) {
		b.Run(fmt.Sprintf("%s/%dx%dx%d", be.name, m, k, n), func(b *testing.B) {
			for b.Loop() {
				dgemm(be.impl, c, a, false, bm, false, m, n, k, 1, 0)
			}
			b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			sinkF64 = c.data[0]
		})
	}
}

// BenchmarkDgemmSmall times square float64 products n×n×n on both backends
// to find where a call into OpenBLAS starts to pay off (DgemmThreshold).
func BenchmarkDgemmSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	backends := benchBackends64(b)
	if len(backends) > 1 {
		lib := *backends[1].impl.(*openBLAS)
		lib.minDgemm = DgemmThreshold
		backends = append(backends, namedBackend64{"dispatch", &lib})
	}
	for _, n := range []int{2, 4, 5, 6, 7, 8, 16, 32, 64} {
		a, bm, c := randDense64(rng, n, n, 0), randDense64(rng, n, n, 0), randDense64(rng, n, n, 0)
		for _, be := range backends {
			b.Run(fmt.Sprintf("n=%d/%s", n, be.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					dgemm(be.impl, c, a, false, bm, true, n, n, n, 1, 0)
				}
				sinkF64 = c.data[0]
			})
		}
	}
}

// BenchmarkDgemvSmall times y = A·x and y = Aᵀ·x with A n×n in float64 on
// both backends (DgemvThreshold).
func BenchmarkDgemvSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	backends := benchBackends64(b)
	for _, n := range []int{16, 32, 48, 64, 128, 256, 1024, 2048} {
		a := randDense64(rng, n, n, 0)
		x, y := randDense64(rng, 1, n, 0).data, make([]float64, n)
		for _, trans := range []bool{false, true} {
			for _, be := range backends {
				b.Run(fmt.Sprintf("n=%d/trans=%v/%s", n, trans, be.name), func(b *testing.B) {
					for b.Loop() {
						be.impl.Dgemv(transpose(trans), n, n, 1, a.data, n, x, 1, 0, y, 1)
					}
					sinkF64 = y[0]
				})
			}
		}
	}
}

type namedBackend64 struct {
	name string
	impl blas.Float64
}

// benchBackends64 returns gonum, and OpenBLAS with no float64 size
// threshold when it loads.
func benchBackends64(b *testing.B) []namedBackend64 {
	b.Helper()
	list := []namedBackend64{{NameGonum, gonum.Implementation{}}}
	if lib, err := loadOpenBLAS(OpenBLASNames); err == nil {
		lib.setThreads(defaultThreads())
		lib.minDgemm, lib.minDgemv = 0, 0
		list = append(list, namedBackend64{NameOpenBLAS, lib})
	} else {
		b.Logf("OpenBLAS not loaded, benchmarking gonum only: %v", err)
	}
	return list
}
