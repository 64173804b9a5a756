//go:build linux

package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSparseProduct times the autoencoder's three products with a
// ReLU operand (batch 427: Y = H5·W6, dW6 = H5ᵀ·G6, dW1 = Xᵀ·G1, the last
// with the zeros in B) on the dense kernels ("avx2", and "asm" for
// AVX-512) and on the sparse path ("sparse", its lists and packing
// included), at densities 0.5 (the ReLU's) and 1 (no zero: the sparse
// kernel's rate against the dense one's, SparseMaxDensity), plus 0.25 and
// 0.75 for Y, at one thread (T1) and two (T2). GFLOP/s counts the dense
// work 2mnk whatever the path; cpu-GFLOP/s divides it by the CPU time (of
// the thread at T1, of the process at T2); min-ms is the fastest product.
func BenchmarkSparseProduct(b *testing.B) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	const batch = 427
	type prod struct {
		name      string
		m, n, k   int
		tA        bool
		sparseB   bool
		densities []float64
	}
	prods := []prod{
		{"Y=H5W6", batch, 2000, 256, false, false, []float64{0.25, 0.5, 0.75, 1}},
		{"dW6=H5tG6", 256, 2000, batch, true, false, []float64{0.5, 1}},
		{"dW1=XtG1", 2000, 256, batch, true, true, []float64{0.5, 1}},
	}
	impls := []string{"avx2", "sparse"}
	if hasAsmGemm {
		impls = append(impls, "asm")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range prods {
		for _, dens := range p.densities {
			ar, ac, br, bc := operandShapes(p.m, p.n, p.k, p.tA, false)
			var a, bm Matrix
			if p.sparseB {
				a, bm = randMatrix(rng, ar, ac, 0), withDensity(rng, br, bc, dens)
			} else {
				a, bm = withDensity(rng, ar, ac, dens), randMatrix(rng, br, bc, 0)
			}
			c := NewMatrix(p.m, p.n, nil)
			for _, th := range []int{1, 2} {
				for _, impl := range impls {
					b.Run(fmt.Sprintf("%s/d%.2f/%s/T%d", p.name, dens, impl, th), func(b *testing.B) {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						prev := runtime.GOMAXPROCS(th)
						defer runtime.GOMAXPROCS(prev)
						who := syscall.RUSAGE_SELF
						if th == 1 {
							who = rusageThread
						}
						s := getSparseJob()
						defer putSparseJob(s)
						c0 := cpuTime(who)
						best := time.Duration(math.MaxInt64)
						for b.Loop() {
							t0 := time.Now()
							switch impl {
							case "sparse":
								sparseProduct(s, p.m, p.n, p.k, a, p.tA, bm, false, c, 0, p.sparseB)
							case "avx2":
								sgemmAsm(kernAVX2, p.tA, false, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
							default:
								sgemmAsm(kernAVX512, p.tA, false, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
							}
							best = min(best, time.Since(t0))
						}
						cpu := cpuTime(who) - c0
						flop := 2 * float64(p.m*p.n*p.k) * float64(b.N)
						b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
						b.ReportMetric(flop/cpu.Seconds()/1e9, "cpu-GFLOP/s")
						b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
						// The fastest product: the least disturbed on a
						// shared machine.
						b.ReportMetric(best.Seconds()*1e3, "min-ms")
						b.ReportMetric(0, "ns/op")
					})
				}
			}
		}
	}
}

// kernelRateInputs are the tile kernels' operands for the rate benchmarks,
// one k block (kernKC) of normal draws: the dense 6×16 kernel's A and B
// panels (pa, pb16), the pair kernel's 32-column panel and its lists with
// every k in both rows (pb32, e), and the row kernel's 64-column panel and
// list (pb64, t).
func kernelRateInputs() (pa, pb16, pb32, pb64 []float32, e []sparseEntry, t []sparseTerm) {
	const kc = kernKC
	rng := rand.New(rand.NewPCG(2, 2))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	pa, pb16, pb32, pb64 = fill(6*kc), fill(16*kc), fill(32*kc), fill(sparseRowNR*kc)
	e = make([]sparseEntry, kc)
	for i := range e {
		e[i] = sparseEntry{int32(i * sparseNR * 4), float32(rng.NormFloat64()), int32(i * sparseNR * 4), float32(rng.NormFloat64())}
	}
	t = make([]sparseTerm, kc)
	for i := range t {
		t[i] = sparseTerm{int32(i * sparseRowNR * 4), float32(rng.NormFloat64())}
	}
	return pa, pb16, pb32, pb64, e, t
}

// BenchmarkSparseKernelRate times the tile kernels alone on panels in L1
// (k = 256, one k block): the dense AVX2 kernel on a 6×16 tile and the
// sparse one on a 2×32 tile whose lists hold every k (density 1), and
// reports GFLOP/s of the FMAs each does, at one thread. Their ratio is the
// density below which the sparse path wins, before its lists and packing.
func BenchmarkSparseKernelRate(b *testing.B) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	const kc = kernKC
	pa, pb16, pb32, pb64, e, t := kernelRateInputs()
	c := make([]float32, 6*32)
	const reps = 100
	b.Run("dense6x16", func(b *testing.B) {
		for b.Loop() {
			for range reps {
				sgemmKernelAVX2(kc, &pa[0], 4, 6*4, &pb16[0], 16*4, &c[0], 16, false)
			}
		}
		b.ReportMetric(2*6*16*kc*reps*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("sparse2x32", func(b *testing.B) {
		for b.Loop() {
			for range reps {
				sparseKernelAVX2(kc, &e[0], &pb32[0], &c[0], 32, false)
			}
		}
		b.ReportMetric(2*2*32*kc*reps*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(0, "ns/op")
	})
	// The row kernel on a 64-column panel, in pieces of sparseKS as
	// tilesRows calls it.
	const rateRows = 32 // rows that share a piece of the panel in turn
	part := make([]float32, rateRows*sparseRowNR)
	b.Run("row1x64", func(b *testing.B) {
		for b.Loop() {
			for range reps / rateRows {
				for p := 0; p < kc; p += sparseKS {
					flags := 0
					if p > 0 {
						flags = 1
					}
					for r := range rateRows {
						pr := &part[r*sparseRowNR]
						sparseKernelRow(sparseKS, &t[p], &pb64[0], pr, pr, flags)
					}
				}
			}
		}
		b.ReportMetric(2*sparseRowNR*kc*(reps/rateRows*rateRows)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(0, "ns/op")
	})
}

// BenchmarkSparseAlt alternates, one product each in turn, the dense AVX2
// kernel, OpenBLAS, the sparse path on the pair kernel and on the row
// kernel (sparseKernelRow) on the autoencoder's three products with a
// ReLU operand (density 0.5), at one thread and at two, and reports each
// one's fastest and median time.
func BenchmarkSparseAlt(b *testing.B) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	lib := requireOpenBLAS(b)
	defer lib.setThreads(defaultThreads())
	const batch = 427
	type prod struct {
		name    string
		m, n, k int
		tA      bool
		sparseB bool
	}
	prods := []prod{
		{"Y=H5W6", batch, 2000, 256, false, false},
		{"dW6=H5tG6", 256, 2000, batch, true, false},
		{"dW1=XtG1", 2000, 256, batch, true, true},
	}
	impls := []string{"avx2", "openblas", "pairs", "rows"}
	rng := rand.New(rand.NewPCG(1, 1))
	defer func() { sparseRows = true }()
	for _, th := range []int{1, 2} {
		for _, p := range prods {
			ar, ac, br, bc := operandShapes(p.m, p.n, p.k, p.tA, false)
			var a, bm Matrix
			if p.sparseB {
				a, bm = randMatrix(rng, ar, ac, 0), withDensity(rng, br, bc, 0.5)
			} else {
				a, bm = withDensity(rng, ar, ac, 0.5), randMatrix(rng, br, bc, 0)
			}
			c := NewMatrix(p.m, p.n, nil)
			b.Run(fmt.Sprintf("%s/T%d", p.name, th), func(b *testing.B) {
				lib.setThreads(th)
				prev := runtime.GOMAXPROCS(th)
				defer runtime.GOMAXPROCS(prev)
				s := getSparseJob()
				defer putSparseJob(s)
				secs := make([][]float64, len(impls))
				for b.Loop() {
					for x, impl := range impls {
						t0 := time.Now()
						switch impl {
						case "pairs", "rows":
							sparseRows = impl == "rows"
							sparseProduct(s, p.m, p.n, p.k, a, p.tA, bm, false, c, 0, p.sparseB)
						case "avx2":
							sgemmAsm(kernAVX2, p.tA, false, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
						default:
							mulTo(lib, c, a, p.tA, bm, false, 1, 0)
						}
						secs[x] = append(secs[x], time.Since(t0).Seconds())
					}
				}
				for x, impl := range impls {
					v := secs[x]
					slices.Sort(v)
					b.ReportMetric(v[0]*1e3, impl+"-min-ms")
					b.ReportMetric(v[len(v)/2]*1e3, impl+"-med-ms")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkSparseKernelRateAlt is BenchmarkSparseKernelRate with the
// kernels alternated, one short run each in turn (on a shared machine
// they see the same load), at density 1 and at 0.5 (every other k): the
// dense 6×16 kernel, the pair kernel (2×32) and the row kernel (1×64, in
// pieces of sparseKS over 32 rows, as tilesRows calls it). It reports each
// kernel's best and median GFLOP/s of the FMAs it does.
func BenchmarkSparseKernelRateAlt(b *testing.B) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	const kc = kernKC
	pa, pb16, pb32, pb64, e, tt := kernelRateInputs()
	const rateRows = 32
	part := make([]float32, rateRows*sparseRowNR)
	eh := make([]sparseEntry, kc)
	for i := range eh {
		eh[i] = sparseEntry{int32(2 * i % kc * sparseNR * 4), 1, int32((2*i + 1) % kc * sparseNR * 4), 2}
	}
	th := make([]sparseTerm, kc)
	for i := range th {
		th[i] = sparseTerm{int32(2 * i % kc * sparseRowNR * 4), 1}
	}
	th56 := make([]sparseTerm, kc)
	for i := range th56 {
		th56[i] = sparseTerm{int32(2 * i % kc * sparseRow2NR * 4), 1}
	}
	rowh := func(f func(n int, e *sparseTerm, b *float32, in *float32, c *float32, flags int)) func() {
		return func() {
			for p := 0; p < kc/2; p += sparseKS / 2 {
				flags := 0
				if p > 0 {
					flags = 1
				}
				for r := range rateRows {
					pr := &part[r*sparseRowNR]
					f(sparseKS/2, &th[p], &pb64[0], pr, pr, flags)
				}
			}
		}
	}
	c := make([]float32, 6*32)
	row := func(f func(n int, e *sparseTerm, b *float32, in *float32, c *float32, flags int)) func() {
		return func() {
			for p := 0; p < kc; p += sparseKS {
				flags := 0
				if p > 0 {
					flags = 1
				}
				for r := range rateRows {
					pr := &part[r*sparseRowNR]
					f(sparseKS, &tt[p], &pb64[0], pr, pr, flags)
				}
			}
		}
	}
	kerns := []struct {
		name string
		flop float64
		f    func()
	}{
		{"dense6x16", 2 * 6 * 16 * kc * 11, func() {
			for range 11 {
				sgemmKernelAVX2(kc, &pa[0], 4, 6*4, &pb16[0], 16*4, &c[0], 16, false)
			}
		}},
		{"pairs2x32", 2 * 2 * 32 * kc * 16, func() {
			for range 16 {
				sparseKernelAVX2(kc, &e[0], &pb32[0], &c[0], 32, false)
			}
		}},
		{"row1x64", 2 * 64 * kc * rateRows, row(sparseKernelRow)},
		{"pairsHalf", 2 * 2 * 32 * kc / 2 * 16, func() {
			for range 16 {
				sparseKernelAVX2(kc/2, &eh[0], &pb32[0], &c[0], 32, false)
			}
		}},
		{"rowHalf", 2 * 64 * kc / 2 * rateRows, rowh(sparseKernelRow)},
		{"row2x56Half", 2 * 56 * kc / 2 * rateRows, func() {
			for p := 0; p < kc/2; p += sparseKS / 2 {
				flags := 0
				if p > 0 {
					flags = 1
				}
				for r := 0; r < rateRows; r += 2 {
					pr := &part[r*sparseRowNR]
					sparseKernelRow2(sparseKS/2, sparseKS/2, &th56[p], &th56[p], &pb64[0], pr, pr, sparseRow2NR, flags)
				}
			}
		}},
	}
	secs := make([][]float64, len(kerns))
	for b.Loop() {
		for x, k := range kerns {
			t0 := time.Now()
			k.f()
			secs[x] = append(secs[x], time.Since(t0).Seconds())
		}
	}
	for x, k := range kerns {
		slices.Sort(secs[x])
		b.ReportMetric(k.flop/secs[x][0]/1e9, k.name+"-best-GFLOP/s")
		b.ReportMetric(k.flop/secs[x][len(secs[x])/2]/1e9, k.name+"-med-GFLOP/s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkListTerms times the lists of a ReLU output (427 × 256, half
// zeros) in blocks of sparseKS, as listRows forms them: listTerms
// (listNonzeros on AVX2) and the Go loop, and reports ns per entry.
func BenchmarkListTerms(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := withDensity(rng, 427, 256, 0.5)
	e := make([]sparseTerm, kernKC)
	for _, c := range []struct {
		name string
		f    func(e []sparseTerm, n int, src []float32, lo, stride int) int
	}{{"asm", listTerms}, {"go", listTermsGo}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for i := range a.Rows {
					row := a.Data[i*a.Stride:][:a.Cols]
					n := 0
					for lo := 0; lo < a.Cols; lo += sparseKS {
						n = c.f(e, n, row[lo:lo+sparseKS], lo, 256)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*a.Rows*a.Cols), "ns/entry")
		})
	}
}

// BenchmarkPairDispAlt alternates dW1 = Xᵀ·G1 of the autoencoder's AVX2
// step (2000×256 over a batch of 427, G1 at the ReLU's density 0.5: the
// transposed pair kernel) with the kernel's FMA operands indexed
// (sparseKernelAVX2T) and base plus displacement (sparseKernelAVX2TD,
// SparsePairDisp), at one thread, and reports each side's median time and
// the median of the per-round ratios indexed / displacement (above 1 the
// displacement wins).
func BenchmarkPairDispAlt(b *testing.B) {
	alternateDW1(b, SparsePairDisp, [2]string{"indexed", "disp"})
}

// BenchmarkRowPairsAlt alternates the row path's two products of the
// autoencoder's AVX2 step (batch 427, A a ReLU output at density 0.5:
// Y = H5·W6 and dW6 = H5ᵀ·G6, and dW6 again with H5's units from dead to
// always on, "dW6units") with one row a tile (sparseKernelRow,
// 1×64) and two (sparseKernelRow2, 2×56; SparseRowPairs), at one thread,
// and reports each side's median time and the median of the per-round
// ratios one / two (above 1 the two-row tile wins); at two threads (T2)
// as well, which the rule did not name.
func BenchmarkRowPairsAlt(b *testing.B) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	defer SparseRowPairs.Store(SparseRowPairs.Load())
	const batch = 427
	for _, p := range []struct {
		name    string
		m, n, k int
		tA      bool
	}{
		{"Y=H5W6", batch, 2000, 256, false},
		{"dW6=H5tG6", 256, 2000, batch, true},
		{"dW6units", 256, 2000, batch, true},
	} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/T%d", p.name, th), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				ar, ac, br, bc := operandShapes(p.m, p.n, p.k, p.tA, false)
				a, bm := withDensity(rng, ar, ac, 0.5), randMatrix(rng, br, bc, 0)
				if p.name == "dW6units" {
					// H5's units as in the benchmark autoencoder's
					// epochs (each unit's density: 10th percentile 0,
					// median 0.41, 90th 1): a quarter dead, a quarter
					// always on, the rest uniform.
					a = randMatrix(rng, ar, ac, 0)
					for u := range ac {
						d := rng.Float64()
						switch u % 4 {
						case 0:
							d = 0
						case 1:
							d = 1
						}
						for i := range ar {
							if rng.Float64() >= d {
								a.Data[i*a.Stride+u] = 0
							}
						}
					}
				}
				c := NewMatrix(p.m, p.n, nil)
				prev := runtime.GOMAXPROCS(th)
				defer runtime.GOMAXPROCS(prev)
				s := getSparseJob()
				defer putSparseJob(s)
				alternateTwo(b, [2]string{"one", "two"}, func(side int) { SparseRowPairs.Store(side == 1) }, func() {
					sparseProduct(s, p.m, p.n, p.k, a, p.tA, bm, false, c, 0, false)
				})
			})
		}
	}
}

// BenchmarkRowPairsTAlt alternates dW1 = Xᵀ·G1 of the autoencoder's AVX2
// step (2000×256 over a batch of 427, G1 at the ReLU's density 0.5, C
// formed transposed) on the pair kernel (sparseKernelAVX2TD) and on the
// row path two rows a tile (sparseKernelRow2 storing transposed;
// SparseRowPairsT), at one thread, and reports each side's median time
// and the median of the per-round ratios pair / two (above 1 the two-row
// tile wins).
func BenchmarkRowPairsTAlt(b *testing.B) {
	alternateDW1(b, &SparseRowPairsT, [2]string{"pair", "two"})
}

// alternateDW1 alternates dW1 = Xᵀ·G1 of the autoencoder's AVX2 step
// (2000×256 over a batch of 427, G1 at density 0.5, C formed transposed)
// with knob off (side 0) and on (side 1), at one thread.
func alternateDW1(b *testing.B, knob *atomic.Bool, sides [2]string) {
	if !hasSparseAsm {
		b.Skip("no AVX2+FMA")
	}
	defer knob.Store(knob.Load())
	const batch = 427
	rng := rand.New(rand.NewPCG(1, 1))
	x, g1 := randMatrix(rng, batch, 2000, 0), withDensity(rng, batch, 256, 0.5)
	c := NewMatrix(2000, 256, nil)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	s := getSparseJob()
	defer putSparseJob(s)
	alternateTwo(b, sides, func(side int) { knob.Store(side == 1) }, func() {
		sparseProduct(s, 2000, 256, batch, x, true, g1, false, c, 0, true)
	})
}
