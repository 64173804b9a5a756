//go:build linux

package compute

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time of the calling thread (who = RUSAGE_THREAD)
// or of the process (RUSAGE_SELF), user and system.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const rusageThread = 1 // RUSAGE_THREAD, missing from package syscall

// epochProduct is one product of the benchmark autoencoder's DP-SGD step
// (batch 427, 2000-256-64-32-64-256-2000): C (m×n) = op(A)·op(B) over k.
type epochProduct struct {
	name    string
	m, n, k int
	tA, tB  bool
}

// epochProducts are the step's products: the five large ones (the
// 2000-wide layers' forward, weight-gradient and input-gradient
// products) first, then the small layers'.
var epochProducts = func() []epochProduct {
	const batch = 427
	return []epochProduct{
		{"2000x256/fwd", batch, 256, 2000, false, false},
		{"2000x256/dW", 2000, 256, batch, true, false},
		{"256x2000/fwd", batch, 2000, 256, false, false},
		{"256x2000/dW", 256, 2000, batch, true, false},
		{"256x2000/dX", batch, 256, 2000, false, true},
		{"256x64/fwd", batch, 64, 256, false, false},
		{"256x64/dW", 256, 64, batch, true, false},
		{"256x64/dX", batch, 256, 64, false, true},
		{"64x32/fwd", batch, 32, 64, false, false},
		{"64x32/dW", 64, 32, batch, true, false},
		{"64x32/dX", batch, 64, 32, false, true},
	}
}()

// BenchmarkSgemmAsm times the autoencoder's five large products (a batch
// of 427 through 2000→256 and 256→2000: forward, weight gradient, input
// gradient) on the AVX-512 kernel ("asm"), the AVX2 one ("avx2") and
// OpenBLAS (its Haswell kernels here), interleaved, each at one thread and
// at two, and reports GFLOP/s by the wall clock and GFLOP per CPU-second
// (cpu-GFLOP/s: the process's CPU time, so a loaded machine, which
// stretches the wall clock, changes it little). At one thread the two are
// the same work on one core; at two, cpu-GFLOP/s counts OpenBLAS's idle
// spin and the goroutines' hand-offs.
func BenchmarkSgemmAsm(b *testing.B) {
	if len(testKernels()) == 0 {
		b.Skip("no AVX-512 nor AVX2+FMA")
	}
	kerns := map[string]*asmKernel{}
	impls := []string{}
	if hasAsmGemm {
		kerns["asm"] = kernAVX512
		impls = append(impls, "asm")
	}
	if hasAVX2Gemm {
		kerns["avx2"] = kernAVX2
		impls = append(impls, "avx2")
	}
	impls = append(impls, "openblas")
	lib := requireOpenBLAS(b)
	defer lib.setThreads(defaultThreads())
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range epochProducts[:5] {
		a, bm := randOperands(rng, p.m, p.n, p.k, 0, p.tA, p.tB)
		c := NewMatrix(p.m, p.n, nil)
		for _, impl := range impls {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%s/T%d", p.name, impl, th), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					lib.setThreads(th)
					prev := runtime.GOMAXPROCS(th)
					defer runtime.GOMAXPROCS(prev)
					who := syscall.RUSAGE_SELF
					if th == 1 {
						who = rusageThread
					}
					c0 := cpuTime(who)
					for b.Loop() {
						if kern := kerns[impl]; kern != nil {
							sgemmAsm(kern, p.tA, p.tB, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
						} else {
							mulTo(lib, c, a, p.tA, bm, p.tB, 1, 0)
						}
					}
					cpu := cpuTime(who) - c0
					flop := 2 * float64(p.m*p.n*p.k) * float64(b.N)
					b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
					b.ReportMetric(flop/cpu.Seconds()/1e9, "cpu-GFLOP/s")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// BenchmarkGemmAlt alternates the AVX2 kernel (its panels dealt in chunks,
// and in two halves: asmDeal) and OpenBLAS on each of the
// epoch's five large products (BenchmarkSgemmAsm's), one product each in
// turn, at one thread and at two, and reports each one's fastest and
// median time: on a shared machine both sides see the same load.
func BenchmarkGemmAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	lib := requireOpenBLAS(b)
	defer lib.setThreads(defaultThreads())
	prods := epochProducts[:5]
	if os.Getenv("GEMMALT_SMALL") != "" {
		prods = epochProducts[5:]
	}
	impls := []string{"avx2", "avx2-halves", "openblas"}
	defer func() { asmDeal = true }()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, th := range []int{1, 2} {
		for _, p := range prods {
			a, bm := randOperands(rng, p.m, p.n, p.k, 0, p.tA, p.tB)
			c := NewMatrix(p.m, p.n, nil)
			b.Run(fmt.Sprintf("%s/T%d", p.name, th), func(b *testing.B) {
				lib.setThreads(th)
				prev := runtime.GOMAXPROCS(th)
				defer runtime.GOMAXPROCS(prev)
				secs := make([][]float64, len(impls))
				for b.Loop() {
					for x, impl := range impls {
						asmDeal = impl != "avx2-halves"
						t0 := time.Now()
						if impl == "openblas" {
							mulTo(lib, c, a, p.tA, bm, p.tB, 1, 0)
						} else {
							sgemmAsm(kernAVX2, p.tA, p.tB, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
						}
						secs[x] = append(secs[x], time.Since(t0).Seconds())
					}
				}
				for x, impl := range impls {
					s := secs[x]
					slices.Sort(s)
					b.ReportMetric(s[0]*1e3, impl+"-min-ms")
					b.ReportMetric(s[len(s)/2]*1e3, impl+"-med-ms")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkPackBRowsAlt alternates the forward product of the peers'
// first layer (X·W1, 427×2000 by 2000×256, W1 packed: its rows are 1 KiB
// apart) on the AVX2 kernel with W1 packed panel by panel (packB) and
// across the panels (packBRows), each after 32 MB of other data has gone
// through the caches (as Adam's pass does in an epoch), at one thread and
// at two; it reports each side's median time and the median of the
// per-round ratios panels / rows (above 1 the row order wins).
func BenchmarkPackBRowsAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	defer func(v bool) { asmPackBRows = v }(asmPackBRows)
	rng := rand.New(rand.NewPCG(1, 1))
	x, w := randMatrix(rng, 427, 2000, 0), randMatrix(rng, 2000, 256, 0)
	c := NewMatrix(427, 256, nil)
	evict := make([]float32, 8<<20)
	evictN := len(evict)
	if os.Getenv("PACKALT_WARM") != "" {
		evictN = 0
	}
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("T%d", th), func(b *testing.B) {
			prev := runtime.GOMAXPROCS(th)
			defer runtime.GOMAXPROCS(prev)
			alternateTwo(b, [2]string{"panels", "rows"}, func(side int) {
				for i := range evict[:evictN] {
					evict[i]++
				}
				asmPackBRows = side == 1
			}, func() {
				sgemmAsm(kernAVX2, false, false, 427, 256, 2000, 1, x.Data, 2000, w.Data, 256, 0, c.Data, 256)
			})
		})
	}
}

// BenchmarkPackTransAlt alternates the input-gradient product of the
// peers' last layer (dX = G6·W6ᵀ, 427×2000 by 2000×256 with W6 stored
// 256×2000) on the AVX2 kernel with W6's panels packed one entry at a
// time in Go and by packTrans16 (asmPackTrans), at one thread and at two,
// and reports each side's median time and the median of the per-round
// ratios Go / asm (above 1 packTrans16 wins).
func BenchmarkPackTransAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	defer func(v bool) { asmPackTrans = v }(asmPackTrans)
	rng := rand.New(rand.NewPCG(1, 1))
	g, w := randMatrix(rng, 427, 2000, 0), randMatrix(rng, 256, 2000, 0)
	c := NewMatrix(427, 256, nil)
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("T%d", th), func(b *testing.B) {
			prev := runtime.GOMAXPROCS(th)
			defer runtime.GOMAXPROCS(prev)
			alternateTwo(b, [2]string{"go", "asm"}, func(side int) { asmPackTrans = side == 1 }, func() {
				sgemmAsm(kernAVX2, false, true, 427, 256, 2000, 1, g.Data, 2000, w.Data, 2000, 0, c.Data, 256)
			})
		})
	}
}

// denseStepProduct is one of the autoencoder's AVX2 step products, ready
// to run again and again.
type denseStepProduct struct {
	name string
	run  func()
}

// denseStepProducts returns the two dense products of the autoencoder's
// AVX2 step on random operands: X·W1 and dX = G6·W6ᵀ (427×2000 by
// 2000×256), both on the AVX2 kernel.
func denseStepProducts() []denseStepProduct {
	rng := rand.New(rand.NewPCG(1, 1))
	x, w1 := randMatrix(rng, 427, 2000, 0), randMatrix(rng, 2000, 256, 0)
	g, w6 := randMatrix(rng, 427, 2000, 0), randMatrix(rng, 256, 2000, 0)
	c := NewMatrix(427, 256, nil)
	return []denseStepProduct{
		{"XW1", func() {
			sgemmAsm(kernAVX2, false, false, 427, 256, 2000, 1, x.Data, 2000, w1.Data, 256, 0, c.Data, 256)
		}},
		{"G6W6t", func() {
			sgemmAsm(kernAVX2, false, true, 427, 256, 2000, 1, g.Data, 2000, w6.Data, 2000, 0, c.Data, 256)
		}},
	}
}

// BenchmarkDenseDealAlt alternates the two dense products of the
// autoencoder's AVX2 step (X·W1 and dX = G6·W6ᵀ, 427×2000 by 2000×256) on
// the AVX2 kernel with their panels dealt in 32 chunks and in 12
// (DenseDealChunks), at two threads, and reports each side's median time
// and the median of the per-round ratios 32 / 12 (above 1 the fewer
// chunks win).
func BenchmarkDenseDealAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	defer DenseDealChunks.Store(DenseDealChunks.Load())
	for _, p := range denseStepProducts() {
		b.Run(p.name+"/T2", func(b *testing.B) {
			prev := runtime.GOMAXPROCS(2)
			defer runtime.GOMAXPROCS(prev)
			alternateTwo(b, [2]string{"c32", "c12"}, func(side int) { DenseDealChunks.Store([]int64{32, 12}[side]) }, p.run)
		})
	}
}

// BenchmarkGatherRowsAlt alternates GatherRows of 427 random rows of a
// 4,271 × 2,000 matrix (a DP-SGD batch of the peers' data) on one
// goroutine and split (GatherSplit), and reports each side's
// median time and the median of the per-round ratios one / split (above 1
// the split wins).
func BenchmarkGatherRowsAlt(b *testing.B) {
	defer GatherSplit.Store(GatherSplit.Load())
	rng := rand.New(rand.NewPCG(1, 1))
	src, dst := randMatrix(rng, 4271, 2000, 0), NewMatrix(427, 2000, nil)
	rows := make([]int, 427)
	alternateTwo(b, [2]string{"one", "split"}, func(side int) {
		GatherSplit.Store(side == 1)
		for i := range rows {
			rows[i] = rng.IntN(src.Rows)
		}
	}, func() { GatherRows(dst, src, rows) })
}

// BenchmarkAVX2PackBAlt alternates each of the autoencoder's five large
// products on the AVX2 kernel with B read in place where it can be and
// packed for the unrolled kernel (AVX2PackB), at one thread and at two,
// and reports each side's median time and the median of the per-round
// ratios in place / packed (above 1 packing wins). Only products whose A
// is read along its rows and whose B could be read in place change
// (H5·W6 here).
func BenchmarkAVX2PackBAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	defer AVX2PackB.Store(AVX2PackB.Load())
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range epochProducts[:5] {
		a, bm := randOperands(rng, p.m, p.n, p.k, 0, p.tA, p.tB)
		c := NewMatrix(p.m, p.n, nil)
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/T%d", p.name, th), func(b *testing.B) {
				prev := runtime.GOMAXPROCS(th)
				defer runtime.GOMAXPROCS(prev)
				alternateTwo(b, [2]string{"inplace", "packed"}, func(side int) { AVX2PackB.Store(side == 1) }, func() {
					sgemmAsm(kernAVX2, p.tA, p.tB, p.m, p.n, p.k, 1, a.Data, ld(a), bm.Data, ld(bm), 0, c.Data, ld(c))
				})
			})
		}
	}
}

// BenchmarkUnrollAlt alternates the two dense products of the
// autoencoder's AVX2 step (X·W1 and dX = G6·W6ᵀ) with the AVX2 kernel
// rolled and unrolled by four k (AVX2Unroll), at one thread, and reports
// each side's median time and the median of the per-round ratios rolled /
// unrolled (above 1 the unrolled kernel wins).
func BenchmarkUnrollAlt(b *testing.B) {
	if !hasAVX2Gemm {
		b.Skip("no AVX2+FMA")
	}
	defer AVX2Unroll.Store(AVX2Unroll.Load())
	for _, p := range denseStepProducts() {
		b.Run(p.name+"/T1", func(b *testing.B) {
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			alternateTwo(b, [2]string{"rolled", "unrolled"}, func(side int) { AVX2Unroll.Store(side == 1) }, p.run)
		})
	}
}

// alternateTwo times run for side 0 and side 1 in turn at each iteration
// of b, after prepare(side) (untimed), so that both sides see the same
// load; it reports each side's median time (names[side]+"-med-ms") and
// the median of the per-round ratios side 0 / side 1 ("med-ratio": above
// 1 side 1 wins).
func alternateTwo(b *testing.B, names [2]string, prepare func(side int), run func()) {
	var secs [2][]float64
	var ratios []float64
	for b.Loop() {
		var r [2]float64
		for side := range 2 {
			prepare(side)
			t0 := time.Now()
			run()
			r[side] = time.Since(t0).Seconds() * 1e3
			secs[side] = append(secs[side], r[side])
		}
		ratios = append(ratios, r[0]/r[1])
	}
	for side, name := range names {
		s := secs[side]
		slices.Sort(s)
		b.ReportMetric(s[len(s)/2], name+"-med-ms")
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "med-ratio")
	b.ReportMetric(0, "ns/op")
}
