package dpsgd

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/internal/cpuplace"
	"github.com/dpscope/dpscope/internal/cputime"
)

// The peers' configuration (../shared/peers/README.md, torch_ae.py): 4,271
// cells × 2,000 genes, autoencoder 2000-256-64-32-64-256-2000 with ReLU and
// MSE, Adam lr 1e-3, q = 0.1 (batch 427), C = 0.1, σ = 1, all layers clipped
// and noised.
const (
	benchCells, benchGenes = 4271, 2000
	benchQ                 = 0.1
	// benchFLOP is the forward+backward GEMM work per sample, 5,341,184
	// FLOP (../shared/peers/RESULTS.md, FLOP model).
	benchFLOP = 5341184
)

// sinkLoss keeps benchmark results alive.
var sinkLoss float64

// benchData returns N(0, 1) data, the distribution of z-scored genes.
func benchData() compute.Matrix {
	rng := rand.New(rand.NewPCG(0, 0))
	x := compute.NewMatrix(benchCells, benchGenes, nil)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	return x
}

func benchAE(tb testing.TB, maxRows int) *nn.Autoencoder {
	tb.Helper()
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: benchGenes, Act: nn.ReLU, Output: nn.OutputLinear,
		MaxRows: maxRows, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return ae
}

// benchTrainer is BenchmarkDPSGDEpoch's trainer, the same for every
// benchmark and test of that configuration: the peers' autoencoder
// (chunks of at most 512 rows), Adam at 1e-3, Poisson sampling at benchQ,
// noise multiplier 1 on all layers and joint clipping to 0.1; with the
// buffer benchLoss gathers a chunk's rows into.
func benchTrainer(tb testing.TB) (*nn.Autoencoder, *DPSGD, compute.Matrix) {
	tb.Helper()
	ae := benchAE(tb, 512)
	opt, _ := nn.NewAdam(len(ae.Params), nn.AdamConfig{LR: 1e-3})
	d, err := New(&ae.Net, opt, benchCells, Config{SampleRate: benchQ, NoiseMultiplier: 1, ClipNorm: 0.1,
		Perturbed: LayerRange{1, 6}, Clipping: ClipJoint, Seed: 1}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return ae, d, compute.NewMatrix(512, benchGenes, nil)
}

// benchLoss is the peers' loss for Step: the chunk's rows of data
// gathered into in, the forward pass, the per-cell MSE and the backward
// pass; then after, when it is not nil, sees the network.
func benchLoss(ae *nn.Autoencoder, in, data compute.Matrix, after func()) LossFunc {
	return func(cells []int) (float64, error) {
		x := in.View(0, 0, len(cells), benchGenes)
		compute.GatherRows(x, data, cells)
		ae.Forward(x)
		l := nn.MSE(ae.OutputGrad(0), ae.Output(0), x, 1)
		ae.Backward()
		if after != nil {
			after()
		}
		return l, nil
	}
}

// roundTripNs is the two CPUs' cache-line round trip in ns
// (cpuplace.RoundTrip), or 0 where it cannot be measured. The epoch
// benchmarks read it before and after their timed loop: DP-SGD's epochs
// lose about 13 % when the host places the vCPUs far apart
// (docs/PERFORMANCE.md, "The slow state is where the host puts the two
// vCPUs").
func roundTripNs() float64 {
	d, err := cpuplace.RoundTrip(4000)
	if err != nil {
		return 0
	}
	return float64(d.Nanoseconds())
}

// reportEpoch reports samples/s and GFLOP/s over the whole run (every
// epoch, the first included) and, from the per-epoch rates, the median
// over the epochs after the first (median-samples/s): the statistic the
// PyTorch peer reports (torch_ae.py: one warm-up epoch, then the median
// of the timed ones), so that a sitting compares like with like. It also
// reports the round trip read before the timed loop (roundTrip0) and
// one read now, after it.
func reportEpoch(b *testing.B, samples int, rates []float64, roundTrip0 float64) {
	b.ReportMetric(roundTrip0, "roundtrip-before-ns")
	b.ReportMetric(roundTripNs(), "roundtrip-after-ns")
	sps := float64(samples) / b.Elapsed().Seconds()
	b.ReportMetric(sps, "samples/s")
	b.ReportMetric(sps*benchFLOP/1e9, "GFLOP/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/epoch")
	if len(rates) > 1 {
		b.ReportMetric(median(rates[1:]), "median-samples/s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDPSGDEpoch times one epoch (10 Poisson-sampled steps of expected
// size 427) of DP-SGD with ghost-norm clipping, noise on all layers and Adam,
// and reports samples/s and GFLOP/s of useful work (the dense FLOP model,
// whether or not the products skip the ReLU zeros), the process's CPU
// time an epoch and the number of sparse products an epoch.
func BenchmarkDPSGDEpoch(b *testing.B) {
	ae, d, in := benchTrainer(b)
	loss := benchLoss(ae, in, benchData(), nil)
	steps := d.StepsPerEpoch()
	samples := 0
	sparse0 := compute.SparseProducts()
	cpu0 := cputime.Process()
	rates := make([]float64, 0, 1<<10) // made before the timed loop: no allocation in it
	roundTrip0 := roundTripNs()
	b.ReportAllocs()
	for b.Loop() {
		t0, n := time.Now(), 0
		for range steps {
			st, err := d.Step(loss)
			if err != nil {
				b.Fatal(err)
			}
			n += st.BatchSize
			sinkLoss = st.Loss
		}
		rates = append(rates, float64(n)/time.Since(t0).Seconds())
		samples += n
	}
	reportEpoch(b, samples, rates, roundTrip0)
	// The process's CPU time an epoch: on a loaded machine, which
	// stretches the wall clock, it changes less (see
	// BenchmarkDPSGDStepParts).
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/epoch")
	// Products that skipped the ReLU zeros (by default only with the AVX2
	// kernel; compute.EnvSparse).
	b.ReportMetric(float64(compute.SparseProducts()-sparse0)/float64(b.N), "sparse-products/epoch")
}

// BenchmarkDPSGDEpochPeak alternates two epochs of BenchmarkDPSGDEpoch's
// configuration with three OpenBLAS products of 2048×2048×2048 at its
// default threads (the sgemm peak ../shared/peers/blas_peak.py measures
// with numpy), and reports the median epoch's GFLOP/s, the median
// product's, and the median over the rounds of the epoch's share of the
// peak measured beside it (peak-share). On a machine whose speed drifts
// within minutes (docs/PERFORMANCE.md, "two speeds") the share is read
// against a peak taken under the same conditions.
//
// The share is the second epoch's, as in training, where an epoch follows
// an epoch: the first one after the peak's 48 MB of operands refills the
// caches with the network's weights and moments, and on Zen 4 it ran up
// to a fifth slower with the AVX2 kernel (docs/PERFORMANCE.md, "The first
// epoch after the peak"). That first epoch's share is reported too
// (cold-share). Without OpenBLAS it skips.
func BenchmarkDPSGDEpochPeak(b *testing.B) {
	if be, err := compute.Init(); err != nil || be.Name != compute.NameOpenBLAS {
		b.Skip("needs OpenBLAS for the peak")
	}
	ae, d, in := benchTrainer(b)
	loss := benchLoss(ae, in, benchData(), nil)
	peak := newPeakProduct()
	var epochs, peaks, shares, cold []float64
	for b.Loop() {
		first := epochGFLOPs(b, d, loss)
		epoch := epochGFLOPs(b, d, loss)
		p := peak.measure(b)
		epochs, peaks, shares = append(epochs, epoch), append(peaks, p), append(shares, epoch/p)
		cold = append(cold, first/p)
	}
	b.ReportMetric(median(epochs), "epoch-GFLOP/s")
	b.ReportMetric(median(peaks), "peak-GFLOP/s")
	b.ReportMetric(median(shares), "peak-share")
	b.ReportMetric(median(cold), "cold-share")
	b.ReportMetric(0, "ns/op")
}

// epochGFLOPs runs one epoch of d and returns its rate in GFLOP/s of the
// dense FLOP model.
func epochGFLOPs(b *testing.B, d *DPSGD, loss LossFunc) float64 {
	t0 := time.Now()
	samples := 0
	for range d.StepsPerEpoch() {
		st, err := d.Step(loss)
		if err != nil {
			b.Fatal(err)
		}
		samples += st.BatchSize
	}
	return float64(samples) * benchFLOP / time.Since(t0).Seconds() / 1e9
}

// peakProduct is the sgemm peak BenchmarkDPSGDEpochPeak and
// BenchmarkDPSGDEpochPaths read an epoch against: OpenBLAS's product of
// two 2048×2048 matrices at its default threads, as
// ../shared/peers/blas_peak.py measures it with numpy.
type peakProduct struct{ c, a, b compute.Matrix }

const peakN = 2048

func newPeakProduct() peakProduct {
	rng := rand.New(rand.NewPCG(1, 2))
	m := func() compute.Matrix {
		x := compute.NewMatrix(peakN, peakN, nil)
		for i := range x.Data {
			x.Data[i] = rng.Float32() - 0.5
		}
		return x
	}
	return peakProduct{c: m(), a: m(), b: m()}
}

// measure returns the median GFLOP/s of three products on OpenBLAS, then
// lets OpenBLAS's idle threads, which poll for a while after a product,
// sleep before the next epoch.
func (p peakProduct) measure(b *testing.B) float64 {
	restore, err := compute.SetGemm("openblas")
	if err != nil {
		b.Fatal(err)
	}
	var reps []float64
	for range 3 {
		t0 := time.Now()
		compute.MulTo(p.c, p.a, false, p.b, false, 1, 0)
		reps = append(reps, 2*peakN*peakN*peakN/time.Since(t0).Seconds()/1e9)
	}
	restore()
	time.Sleep(200 * time.Millisecond)
	return median(reps)
}

// BenchmarkDPSGDEpochPaths alternates, in one process, an epoch of
// BenchmarkDPSGDEpoch's configuration on each of the paths an AVX-512 CPU
// can time: the AVX-512 kernels (avx512), the AVX2 kernels with the
// products' default for them on this CPU (avx2: skipping the ReLU zeros,
// except on AMD family 19h, compute.EnvSparse), and the AVX2 kernels with
// the sparse products forced on (avx2-sparse) and off (avx2-dense); then
// OpenBLAS's 2048³ product as BenchmarkDPSGDEpochPeak does. It reports
// each path's median share of the peak taken beside it and the median over
// the rounds of each AVX2 epoch's speed over the AVX-512 one's
// (avx2-ratio, avx2-sparse-ratio, avx2-dense-ratio). The machine's speed
// moves by a third within minutes (docs/PERFORMANCE.md), and separate
// processes each caught it in a different state: here every path sees the
// same minutes. It skips without AVX-512 or OpenBLAS.
func BenchmarkDPSGDEpochPaths(b *testing.B) {
	if be, err := compute.Init(); err != nil || be.Name != compute.NameOpenBLAS {
		b.Skip("needs OpenBLAS for the peak")
	}
	if !hasAVX512 || !hasAVX2 {
		b.Skip("needs the AVX-512 kernels (and DPSCOPE_SGEMM unset) to time both paths")
	}
	ae, d, in := benchTrainer(b)
	loss := benchLoss(ae, in, benchData(), nil)
	peak := newPeakProduct()
	// use switches to a path (its products' kernel, its sparse setting:
	// "" for the default, else forced on or off, and dpsgd's own kernels)
	// and returns the function that switches back.
	use := func(gemm, sparse string) func() {
		restoreGemm, err := compute.SetGemm(gemm)
		if err != nil {
			b.Fatal(err)
		}
		restoreSparse := func() {}
		if sparse != "" {
			restoreSparse = compute.SetSparse(sparse == "on")
		}
		s512 := hasAVX512
		hasAVX512 = gemm != "avx2"
		return func() { hasAVX512 = s512; restoreSparse(); restoreGemm() }
	}
	paths := []struct {
		name, gemm, sparse string
	}{{"avx512", "auto", ""}, {"avx2", "avx2", ""}, {"avx2-sparse", "avx2", "on"}, {"avx2-dense", "avx2", "off"}}
	rates := make([][]float64, len(paths))
	shares := make([][]float64, len(paths))
	for b.Loop() {
		// As in BenchmarkDPSGDEpochPeak, no path is timed on the epoch
		// that follows the peak.
		epochGFLOPs(b, d, loss)
		epoch := make([]float64, len(paths))
		for i, p := range paths {
			restore := use(p.gemm, p.sparse)
			epoch[i] = epochGFLOPs(b, d, loss)
			restore()
		}
		p := peak.measure(b)
		for i := range paths {
			rates[i] = append(rates[i], epoch[i]/epoch[0])
			shares[i] = append(shares[i], epoch[i]/p)
		}
	}
	for i, p := range paths {
		b.ReportMetric(median(shares[i]), p.name+"-share")
		if i > 0 {
			b.ReportMetric(median(rates[i]), p.name+"-ratio")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// median returns the median of x (the upper one of an even count).
func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}

// BenchmarkNonPrivateEpoch times one epoch (10 shuffled batches of 427) of
// plain mini-batch training with the same network, loss and optimizer.
func BenchmarkNonPrivateEpoch(b *testing.B) {
	const batch = 427
	data := benchData()
	ae := benchAE(b, batch)
	in := compute.NewMatrix(batch, benchGenes, nil)
	opt, _ := nn.NewAdam(len(ae.Params), nn.AdamConfig{LR: 1e-3})
	rng := rand.New(rand.NewPCG(1, 1))
	perm := make([]int, benchCells)
	for i := range perm {
		perm[i] = i
	}
	samples := 0
	rates := make([]float64, 0, 1<<10) // made before the timed loop: no allocation in it
	roundTrip0 := roundTripNs()
	b.ReportAllocs()
	for b.Loop() {
		t0, n := time.Now(), 0
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for s := 0; s+batch <= benchCells; s += batch {
			compute.GatherRows(in, data, perm[s:s+batch])
			ae.Forward(in)
			sinkLoss = nn.MSE(ae.OutputGrad(0), ae.Output(0), in, 1.0/batch)
			ae.Backward()
			ae.AccumulateGrads(0)
			opt.Step(ae.Params, ae.Grads)
			n += batch
		}
		rates = append(rates, float64(n)/time.Since(t0).Seconds())
		samples += n
	}
	reportEpoch(b, samples, rates, roundTrip0)
}

// BenchmarkNormalFill times the noise of one step of the peers'
// autoencoder: 1,063,536 standard normals, added to a gradient, with the
// kernels this CPU runs (host), and where it has them with the AVX2
// kernels alone (as on a CPU without AVX-512) and the Go loops alone.
func BenchmarkNormalFill(b *testing.B) {
	z := make([]float32, 1063536)
	for _, k := range vectorSets() {
		b.Run(k.name, func(b *testing.B) {
			defer k.set()()
			src := newNormalSource(1, 2, false)
			for b.Loop() {
				src.addScaled(z, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(z)), "ns/draw")
		})
	}
}

// BenchmarkGhostDots times the ghost norms' dot products of one step of
// the peers' autoencoder's outer layers (427 rows of 2000 and of 256
// entries, each dotted with itself), per kernel set as BenchmarkNormalFill.
func BenchmarkGhostDots(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := make([]float32, 427*2256)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for _, k := range vectorSets() {
		b.Run(k.name, func(b *testing.B) {
			defer k.set()()
			for b.Loop() {
				s := 0.0
				for r := range 427 {
					row := x[r*2256:][:2256]
					s += dot(row[:2000], row[:2000]) + dot(row[2000:], row[2000:])
				}
				sinkLoss = s
			}
		})
	}
}

// vectorSet is a choice of dpsgd's vector kernels for the benchmarks:
// set switches to it and returns the function that switches back.
type vectorSet struct {
	name string
	set  func() (restore func())
}

// vectorSets returns the host's kernels, the AVX2 ones alone where the CPU
// has both, and the Go loops.
func vectorSets() []vectorSet {
	with := func(v512, v2 bool) func() func() {
		return func() func() {
			s512, s2 := hasAVX512, hasAVX2
			hasAVX512, hasAVX2 = v512 && s512, v2 && s2
			return func() { hasAVX512, hasAVX2 = s512, s2 }
		}
	}
	sets := []vectorSet{{"host", func() func() { return func() {} }}}
	if hasAVX512 && hasAVX2 {
		sets = append(sets, vectorSet{"avx2", with(false, true)})
	}
	return append(sets, vectorSet{"go", with(false, false)})
}

// BenchmarkDPSGDStepParts splits a step of BenchmarkDPSGDEpoch into its
// parts and reports each in ms per step, by the wall clock and in CPU
// time of the whole process (cpu-…: every thread, OpenBLAS's and the
// helper goroutine's included, so that a loaded machine, which stretches
// the wall clock, changes it little): gathering the batch rows, the
// forward pass, loss and backward pass (fwd-bwd), the ghost norms and
// weighted gradient products (clip: clippedSum less its loss calls), the
// noise and Adam. The parts run as Step runs them, one after the other.
func BenchmarkDPSGDStepParts(b *testing.B) {
	data := benchData()
	ae, d, in := benchTrainer(b)
	var tGather, tLoss, tClip, tNoise, tAdam time.Duration
	var cGather, cLoss, cClip, cNoise, cAdam time.Duration
	loss := func(cells []int) (float64, error) {
		t0, c0 := time.Now(), cputime.Process()
		x := in.View(0, 0, len(cells), benchGenes)
		compute.GatherRows(x, data, cells)
		t1, c1 := time.Now(), cputime.Process()
		ae.Forward(x)
		l := nn.MSE(ae.OutputGrad(0), ae.Output(0), x, 1)
		ae.Backward()
		tGather += t1.Sub(t0)
		tLoss += time.Since(t1)
		cGather += c1 - c0
		cLoss += cputime.Process() - c1
		return l, nil
	}
	steps := 0
	denom := benchQ * benchCells
	for b.Loop() {
		batch := d.smp.next(d.cfg.Batching, benchQ, d.sampling)
		g0, l0, cg0, cl0 := tGather, tLoss, cGather, cLoss
		t0, c0 := time.Now(), cputime.Process()
		if _, err := d.clippedSum(batch, loss, 1/denom); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cputime.Process()
		tClip += t1.Sub(t0) - (tGather - g0) - (tLoss - l0)
		cClip += c1 - c0 - (cGather - cg0) - (cLoss - cl0)
		lo, hi := d.net.ParamRange(1, 6)
		d.noise.addScaled(d.net.Grads[lo:hi], float32(d.cfg.NoiseMultiplier*d.cfg.ClipNorm/denom))
		t2, c2 := time.Now(), cputime.Process()
		d.opt.Step(d.net.Params, d.net.Grads)
		tNoise += t2.Sub(t1)
		tAdam += time.Since(t2)
		cNoise += c2 - c1
		cAdam += cputime.Process() - c2
		steps++
	}
	ms := func(t time.Duration) float64 { return t.Seconds() * 1e3 / float64(steps) }
	b.ReportMetric(ms(tGather), "gather-ms")
	b.ReportMetric(ms(tLoss), "fwd-bwd-ms")
	b.ReportMetric(ms(tClip), "clip-ms")
	b.ReportMetric(ms(tNoise), "noise-ms")
	b.ReportMetric(ms(tAdam), "adam-ms")
	b.ReportMetric(ms(cGather), "cpu-gather-ms")
	b.ReportMetric(ms(cLoss), "cpu-fwd-bwd-ms")
	b.ReportMetric(ms(cClip), "cpu-clip-ms")
	b.ReportMetric(ms(cNoise), "cpu-noise-ms")
	b.ReportMetric(ms(cAdam), "cpu-adam-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDPSGDEpochSparse alternates epochs of BenchmarkDPSGDEpoch's
// configuration with compute's sparse products off and on (two trainers
// from the same seeds, one epoch each in turn), and reports each side's
// fastest and median epoch and their ratios (dense over sparse: above 1
// the sparse products win). On a shared machine the interleaving puts both
// sides under the same load and the minimum is the least disturbed epoch.
// With the AVX-512 kernel the sparse path does not run at the ReLU's
// density (compute.SparseMaxDensity512): run it with DPSCOPE_SGEMM=avx2.
func BenchmarkDPSGDEpochSparse(b *testing.B) {
	data := benchData()
	type side struct {
		ae   *nn.Autoencoder
		d    *DPSGD
		in   compute.Matrix
		secs []float64
	}
	var sides [2]*side
	for k := range sides {
		ae, d, in := benchTrainer(b)
		sides[k] = &side{ae: ae, d: d, in: in}
	}
	epoch := func(s *side) {
		loss := benchLoss(s.ae, s.in, data, nil)
		for range s.d.StepsPerEpoch() {
			if _, err := s.d.Step(loss); err != nil {
				b.Fatal(err)
			}
		}
	}
	defer compute.SetSparse(true)()
	sparse0 := compute.SparseProducts()
	for b.Loop() {
		for k, s := range sides { // 0: dense, 1: sparse
			compute.SetSparse(k == 1)
			t0 := time.Now()
			epoch(s)
			s.secs = append(s.secs, time.Since(t0).Seconds())
		}
	}
	stat := func(x []float64) (lo, med float64) { return slices.Min(x), median(x) }
	dLo, dMed := stat(sides[0].secs)
	sLo, sMed := stat(sides[1].secs)
	b.ReportMetric(dLo, "dense-min-s")
	b.ReportMetric(dMed, "dense-med-s")
	b.ReportMetric(sLo, "sparse-min-s")
	b.ReportMetric(sMed, "sparse-med-s")
	b.ReportMetric(dLo/sLo, "min-ratio")
	b.ReportMetric(dMed/sMed, "med-ratio")
	b.ReportMetric(float64(compute.SparseProducts()-sparse0)/float64(b.N), "sparse-products/epoch")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDPSGDEpochGemm alternates epochs of BenchmarkDPSGDEpoch's
// configuration on three sides, one epoch each in turn (three trainers
// from the same seeds): OpenBLAS's sgemm ("openblas"), dpscope's AVX2
// kernel with the sparse products off ("avx2") and on ("avx2-sparse").
// It reports each side's fastest and median epoch and the ratios of
// OpenBLAS's over the others' (above 1 the kernel wins). On a shared
// machine the interleaving puts the sides under the same load.
func BenchmarkDPSGDEpochGemm(b *testing.B) {
	data := benchData()
	type side struct {
		name   string
		gemm   string
		sparse bool
		ae     *nn.Autoencoder
		d      *DPSGD
		in     compute.Matrix
		secs   []float64
	}
	sides := []*side{{name: "openblas", gemm: "openblas"}, {name: "avx2", gemm: "avx2"}, {name: "avx2-sparse", gemm: "avx2", sparse: true}}
	for _, s := range sides {
		s.ae, s.d, s.in = benchTrainer(b)
	}
	defer compute.SetSparse(false)()
	restore, err := compute.SetGemm("avx2")
	if err != nil {
		b.Skip(err)
	}
	defer restore()
	for b.Loop() {
		for _, s := range sides {
			if _, err := compute.SetGemm(s.gemm); err != nil {
				b.Fatal(err)
			}
			compute.SetSparse(s.sparse)
			loss := benchLoss(s.ae, s.in, data, nil)
			t0 := time.Now()
			for range s.d.StepsPerEpoch() {
				if _, err := s.d.Step(loss); err != nil {
					b.Fatal(err)
				}
			}
			s.secs = append(s.secs, time.Since(t0).Seconds())
		}
	}
	stat := func(x []float64) (lo, med float64) { return slices.Min(x), median(x) }
	oLo, oMed := stat(sides[0].secs)
	for _, s := range sides {
		lo, med := stat(s.secs)
		b.ReportMetric(med, s.name+"-med-s")
		if s != sides[0] {
			b.ReportMetric(oLo/lo, s.name+"-min-ratio")
			b.ReportMetric(oMed/med, s.name+"-med-ratio")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDPSGDEpochSpin alternates epochs of BenchmarkDPSGDEpoch's
// configuration with compute.SplitSpin and SplitWaitSpin at 0 (the helper
// goroutine and a waiting caller park at once, as before they existed;
// "park") and at 1 ms each, or SPLIT_SPIN and SPLIT_WAIT_SPIN (durations,
// e.g. 200us) when set ("spin"). See alternateEpochs for what it
// reports; ratios above 1: polling wins.
func BenchmarkDPSGDEpochSpin(b *testing.B) {
	dur := func(env string) time.Duration {
		v := os.Getenv(env)
		if v == "" {
			return time.Millisecond
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	idle, wait := dur("SPLIT_SPIN"), dur("SPLIT_WAIT_SPIN")
	defer compute.SplitSpin.Store(compute.SplitSpin.Load())
	defer compute.SplitWaitSpin.Store(compute.SplitWaitSpin.Load())
	alternateEpochs(b, [2]string{"park", "spin"}, func(side int) {
		compute.SplitSpin.Store(int64(side) * int64(idle))
		compute.SplitWaitSpin.Store(int64(side) * int64(wait))
	})
}

// BenchmarkDPSGDEpochKernels alternates epochs of BenchmarkDPSGDEpoch's
// configuration with dpsgd's noise and dot kernels in Go ("go", what a CPU
// without AVX-512 ran before the AVX2 kernels) and on the AVX2 kernels
// ("avx2"). See alternateEpochs; ratios above 1: the AVX2 kernels win.
// Run it with DPSCOPE_SGEMM=avx2 to time the whole step as on such a CPU.
func BenchmarkDPSGDEpochKernels(b *testing.B) {
	if !hasAVX2 {
		b.Skip("no AVX2")
	}
	s512, s2 := hasAVX512, hasAVX2
	defer func() { hasAVX512, hasAVX2 = s512, s2 }()
	hasAVX512 = false
	alternateEpochs(b, [2]string{"go", "avx2"}, func(side int) { hasAVX2 = side == 1 })
}

// alternateEpochs runs epochs of BenchmarkDPSGDEpoch's configuration on
// two trainers from the same seeds, one epoch of each side in turn,
// calling set(side) before each, and reports each side's median epoch,
// CPU time an epoch and halves handed to a parked Split helper an epoch
// (name-med-s, name-cpu-s, name-parked/epoch) and the ratios of side 0's
// fastest and median epochs over side 1's. On a shared machine the
// interleaving puts both sides under the same load. The rounds also
// alternate which side runs first (ABBA) and, every two rounds, which
// trainer each side drives: with side 0 always first on the trainer built
// first, a null comparison (a knob that changes nothing) read side 1 0.7 %
// faster (median of 25 runs; docs/PERFORMANCE.md, rule G37), the second
// trainer's buffers seemingly the faster ones. The trainers take the same
// steps whatever drives them unless a side's setting changes the
// arithmetic, and then the timing still compares like with like.
func alternateEpochs(b *testing.B, names [2]string, set func(side int)) {
	data := benchData()
	type trainer struct {
		ae *nn.Autoencoder
		d  *DPSGD
		in compute.Matrix
	}
	var trainers [2]trainer
	for t := range trainers {
		trainers[t].ae, trainers[t].d, trainers[t].in = benchTrainer(b)
	}
	var (
		secs   [2][]float64
		cpu    [2]time.Duration
		parked [2]int64
	)
	round := 0
	for b.Loop() {
		for i := range 2 {
			k := i ^ round&1             // the side: 0 first, then 1 first
			tr := trainers[k^round>>1&1] // its trainer, swapped every two rounds
			set(k)
			loss := benchLoss(tr.ae, tr.in, data, nil)
			t0, c0, p0 := time.Now(), cputime.Process(), compute.ParkedHandoffs()
			for range tr.d.StepsPerEpoch() {
				if _, err := tr.d.Step(loss); err != nil {
					b.Fatal(err)
				}
			}
			secs[k] = append(secs[k], time.Since(t0).Seconds())
			cpu[k] += cputime.Process() - c0
			parked[k] += compute.ParkedHandoffs() - p0
		}
		round++
	}
	for k, name := range names {
		b.ReportMetric(median(secs[k]), name+"-med-s")
		b.ReportMetric(cpu[k].Seconds()/float64(b.N), name+"-cpu-s")
		b.ReportMetric(float64(parked[k])/float64(b.N), name+"-parked/epoch")
	}
	b.ReportMetric(slices.Min(secs[0])/slices.Min(secs[1]), "min-ratio")
	b.ReportMetric(median(secs[0])/median(secs[1]), "med-ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkNoiseSplitAlt alternates the noise of a step of the peers'
// autoencoder (1,063,536 draws added to a gradient) on one goroutine
// (addScaled's loop) and split (addScaledSplit), with the kernels this
// process runs (DPSCOPE_SGEMM=avx2: the AVX2 ones), and reports each
// side's fastest and median time in ms and the median of the per-round
// ratios one / split (above 1 the split wins).
func BenchmarkNoiseSplitAlt(b *testing.B) {
	defer func(s bool) { noiseSplit = s }(noiseSplit)
	z := make([]float32, 1063536)
	srcs := [2]*normalSource{newNormalSource(1, 2, false), newNormalSource(1, 2, false)}
	var t [2][]float64
	var ratios []float64
	for b.Loop() {
		var r [2]float64
		for k, src := range srcs {
			noiseSplit = k == 1
			t0 := time.Now()
			src.addScaled(z, 1e-3)
			r[k] = time.Since(t0).Seconds() * 1e3
			t[k] = append(t[k], r[k])
		}
		ratios = append(ratios, r[0]/r[1])
	}
	for k, name := range []string{"one", "split"} {
		b.ReportMetric(slices.Min(t[k]), name+"-min-ms")
		b.ReportMetric(median(t[k]), name+"-med-ms")
	}
	b.ReportMetric(median(ratios), "med-ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDPSGDEpochNoiseSplit alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the noise on one goroutine ("one") and split
// ("split"). See alternateEpochs; ratios above 1: the split wins.
func BenchmarkDPSGDEpochNoiseSplit(b *testing.B) {
	defer func(s bool) { noiseSplit = s }(noiseSplit)
	alternateEpochs(b, [2]string{"one", "split"}, func(side int) { noiseSplit = side == 1 })
}

// BenchmarkDPSGDEpochDeal alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the dense products' panels dealt in 32 chunks and in
// 12 (compute.DenseDealChunks). See alternateEpochs; ratios above 1: 12
// wins. Run it with DPSCOPE_SGEMM=avx2 DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochDeal(b *testing.B) {
	defer compute.DenseDealChunks.Store(compute.DenseDealChunks.Load())
	alternateEpochs(b, [2]string{"c32", "c12"}, func(side int) { compute.DenseDealChunks.Store([]int64{32, 12}[side]) })
}

// BenchmarkDPSGDEpochGather alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the batch rows gathered on one goroutine and split
// (compute.GatherSplit). See alternateEpochs; ratios above 1: the
// split wins.
func BenchmarkDPSGDEpochGather(b *testing.B) {
	defer compute.GatherSplit.Store(compute.GatherSplit.Load())
	alternateEpochs(b, [2]string{"one", "split"}, func(side int) { compute.GatherSplit.Store(side == 1) })
}

// BenchmarkDPSGDEpochGapBackoff alternates epochs of BenchmarkDPSGDEpoch's
// configuration with Split's polling turned off for spinBackoff at a
// poller's gap and never (compute.SplitGapBackoff on, off). See
// alternateEpochs; ratios above 1: never turning it off wins.
func BenchmarkDPSGDEpochGapBackoff(b *testing.B) {
	defer compute.SplitGapBackoff.Store(compute.SplitGapBackoff.Load())
	alternateEpochs(b, [2]string{"backoff", "never"}, func(side int) { compute.SplitGapBackoff.Store(side == 0) })
}

// BenchmarkDPSGDEpochUnroll alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the AVX2 kernel rolled and unrolled by four k
// (compute.AVX2Unroll). See alternateEpochs; ratios above 1: the unrolled
// kernel wins. Run it with DPSCOPE_SGEMM=avx2 DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochUnroll(b *testing.B) {
	defer compute.AVX2Unroll.Store(compute.AVX2Unroll.Load())
	alternateEpochs(b, [2]string{"rolled", "unrolled"}, func(side int) { compute.AVX2Unroll.Store(side == 1) })
}

// BenchmarkDPSGDEpochPairDisp alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the transposed pair kernel's FMA operands indexed and
// base plus displacement (compute.SparsePairDisp). See alternateEpochs;
// ratios above 1: the displacement wins. Run it with DPSCOPE_SGEMM=avx2
// DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochPairDisp(b *testing.B) {
	defer compute.SparsePairDisp.Store(compute.SparsePairDisp.Load())
	alternateEpochs(b, [2]string{"indexed", "disp"}, func(side int) { compute.SparsePairDisp.Store(side == 1) })
}

// BenchmarkDPSGDEpochSpeed12 alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the AVX2 kernels as before speed12 ("before": the
// rolled dense kernel, the indexed pair kernel) and as now ("after":
// compute.AVX2Unroll and compute.SparsePairDisp on). See alternateEpochs;
// ratios above 1: "after" wins. Run it with DPSCOPE_SGEMM=avx2
// DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochSpeed12(b *testing.B) {
	defer compute.AVX2Unroll.Store(compute.AVX2Unroll.Load())
	defer compute.SparsePairDisp.Store(compute.SparsePairDisp.Load())
	alternateEpochs(b, [2]string{"before", "after"}, func(side int) {
		compute.AVX2Unroll.Store(side == 1)
		compute.SparsePairDisp.Store(side == 1)
	})
}

// BenchmarkDPSGDEpochRowPairs alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the sparse row path one row a tile and two
// (compute.SparseRowPairs). See alternateEpochs; ratios above 1: the
// two-row tile wins. Run it with DPSCOPE_SGEMM=avx2 DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochRowPairs(b *testing.B) {
	defer compute.SparseRowPairs.Store(compute.SparseRowPairs.Load())
	alternateEpochs(b, [2]string{"one", "two"}, func(side int) { compute.SparseRowPairs.Store(side == 1) })
}

// BenchmarkDPSGDEpochRowPairsT alternates epochs of BenchmarkDPSGDEpoch's
// configuration with dW1 = Xᵀ·G1 on the pair kernel and on the row path
// two rows a tile (compute.SparseRowPairsT). See alternateEpochs; ratios
// above 1: the two-row tile wins. Run it with DPSCOPE_SGEMM=avx2
// DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochRowPairsT(b *testing.B) {
	defer compute.SparseRowPairsT.Store(compute.SparseRowPairsT.Load())
	alternateEpochs(b, [2]string{"pair", "two"}, func(side int) { compute.SparseRowPairsT.Store(side == 1) })
}

// BenchmarkDPSGDEpochSpeed13 alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the sparse products as before speed13 ("before": one
// row a tile on the row path, the pair kernel for dW1) and with the
// two-row tile on both (compute.SparseRowPairs and
// compute.SparseRowPairsT, "after"). See alternateEpochs; ratios above 1:
// "after" wins. Run it with DPSCOPE_SGEMM=avx2 DPSCOPE_SPARSE=on.
func BenchmarkDPSGDEpochSpeed13(b *testing.B) {
	defer compute.SparseRowPairs.Store(compute.SparseRowPairs.Load())
	defer compute.SparseRowPairsT.Store(compute.SparseRowPairsT.Load())
	alternateEpochs(b, [2]string{"before", "after"}, func(side int) {
		compute.SparseRowPairs.Store(side == 1)
		compute.SparseRowPairsT.Store(side == 1)
	})
}

// BenchmarkDPSGDEpochPackSplit alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the products' packing cut between the two goroutines
// among all panels ("all", as before rule G29) and among the packed ones
// (compute.PackSplitPacked, "packed"). See alternateEpochs; ratios above
// 1: "packed" wins.
func BenchmarkDPSGDEpochPackSplit(b *testing.B) {
	defer compute.PackSplitPacked.Store(compute.PackSplitPacked.Load())
	alternateEpochs(b, [2]string{"all", "packed"}, func(side int) { compute.PackSplitPacked.Store(side == 1) })
}

// BenchmarkDPSGDEpochBiasFold alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the layers' bias rows filled in a pass of their own
// ("fill") and written into the kernel's panels as it forms them
// (compute.BiasFold, "fold"). See alternateEpochs; ratios above 1: the
// fold wins.
func BenchmarkDPSGDEpochBiasFold(b *testing.B) {
	defer compute.BiasFold.Store(compute.BiasFold.Load())
	alternateEpochs(b, [2]string{"fill", "fold"}, func(side int) { compute.BiasFold.Store(side == 1) })
}

// BenchmarkDPSGDEpochAhead alternates epochs of BenchmarkDPSGDEpoch's
// configuration with each step's noise drawn in the step ("step") and
// drawn ahead on the helper goroutine while it idles (noiseAheadOn,
// "ahead"). See alternateEpochs; ratios above 1: drawing ahead wins.
func BenchmarkDPSGDEpochAhead(b *testing.B) {
	defer func(on bool) { noiseAheadOn = on }(noiseAheadOn)
	alternateEpochs(b, [2]string{"step", "ahead"}, func(side int) { noiseAheadOn = side == 1 })
}

// BenchmarkDPSGDEpochAVX2PackB alternates epochs of BenchmarkDPSGDEpoch's
// configuration with the AVX2 products reading B in place where they can
// ("inplace") and packing it for the unrolled kernel in the products of
// at least 1,024 columns whose A is read in place along its rows
// (compute.AVX2PackB, "packed"). See
// alternateEpochs; ratios above 1: packing wins. Run it with
// DPSCOPE_SGEMM=avx2 (the knob does nothing on the AVX-512 kernel).
func BenchmarkDPSGDEpochAVX2PackB(b *testing.B) {
	defer compute.AVX2PackB.Store(compute.AVX2PackB.Load())
	alternateEpochs(b, [2]string{"inplace", "packed"}, func(side int) { compute.AVX2PackB.Store(side == 1) })
}
