package dpsgd

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// zeroFraction returns the fraction of m's entries that are exactly 0.
func zeroFraction(m compute.Matrix) float64 {
	z := 0
	for i := range m.Rows {
		for _, v := range m.RawRowView(i) {
			if v == 0 {
				z++
			}
		}
	}
	return float64(z) / float64(m.Rows*m.Cols)
}

// TestBenchZeroFractions runs one epoch of BenchmarkDPSGDEpoch's
// configuration (the peers' autoencoder on N(0, 1) data) and measures,
// after each chunk's backward pass, the fraction of exact zeros in the
// ReLU output H1 of layer 1, H5 of layer 5 (the input of the output layer)
// and the masked signal G1 = dH1 ⊙ 1[Z1 > 0]: the operands the sparse
// products (compute.MulSparseTo) skip. The fractions must be near a half,
// the premise of the sparse path; they are logged (go test -v) for
// docs/PERFORMANCE.md.
func TestBenchZeroFractions(t *testing.T) {
	if testing.Short() {
		t.Skip("an epoch of the peers' autoencoder")
	}
	ae, d, in := benchTrainer(t)
	var sum [3]float64
	var lo, hi [3]float64
	for k := range lo {
		lo[k], hi[k] = 1, 0
	}
	calls := 0
	loss := benchLoss(ae, in, benchData(), func() {
		ls := ae.Net.Layers
		for k, f := range [3]float64{zeroFraction(ls[0].Output()), zeroFraction(ls[4].Output()), zeroFraction(ls[0].Signal())} {
			sum[k] += f
			lo[k], hi[k] = min(lo[k], f), max(hi[k], f)
		}
		calls++
	})
	for range d.StepsPerEpoch() {
		if _, err := d.Step(loss); err != nil {
			t.Fatal(err)
		}
	}
	for k, name := range [3]string{"H1", "H5", "G1"} {
		mean := sum[k] / float64(calls)
		t.Logf("%s: zero fraction mean %.4f, min %.4f, max %.4f over %d steps", name, mean, lo[k], hi[k], calls)
		if mean < 0.3 || mean > 0.7 {
			t.Errorf("%s: zero fraction %.4f, want within [0.3, 0.7]", name, mean)
		}
	}
}

// TestSparseProductsKeepStepBits runs three DP-SGD steps of the benchmark
// configuration three times from the same seeds, with compute's sparse
// products off, on, and on with the row path two rows a tile
// (compute.SparseRowPairs), and requires the same parameters to the bit: the sparse
// path only skips exact zeros of H5 and G1 (and of the small layers'
// ReLU operands), whose terms leave the dense kernels' FMA chains
// unchanged (see compute.MulSparseTo for the −0 and non-finite cases,
// which this finite data does not meet). It also requires that the sparse
// path ran when the backend runs dpscope's AVX2 kernel (on an AVX-512
// CPU the test runs itself again with DPSCOPE_SGEMM=avx2, which must also
// turn dpsgd's AVX-512 kernels off).
func TestSparseProductsKeepStepBits(t *testing.T) {
	if testing.Short() {
		t.Skip("steps of the peers' autoencoder")
	}
	// With the AVX-512 kernel the ReLU's density is above the sparse
	// threshold and nothing would be compared: run this test again in a
	// child process on the AVX2 kernel.
	if b, _ := compute.Init(); strings.Contains(b.Config, "AVX-512 kernel") && os.Getenv("DPSCOPE_SPARSE_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSparseProductsKeepStepBits$", "-test.v")
		cmd.Env = append(os.Environ(), compute.EnvGemm+"=avx2", "DPSCOPE_SPARSE_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("child on the AVX2 kernel:\n%s", out)
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v", err)
		}
		return
	}
	if os.Getenv(compute.EnvGemm) == "avx2" && hasAVX512 {
		t.Fatalf("%s=avx2, yet dpsgd's AVX-512 kernels are on: the step does not run as on a CPU without AVX-512", compute.EnvGemm)
	}
	data := benchData()
	run := func(sparse, pairs bool) []float32 {
		defer compute.SetSparse(sparse)()
		defer compute.SparseRowPairs.Store(compute.SparseRowPairs.Load())
		compute.SparseRowPairs.Store(pairs)
		ae, d, in := benchTrainer(t)
		loss := benchLoss(ae, in, data, nil)
		for range 3 {
			if _, err := d.Step(loss); err != nil {
				t.Fatal(err)
			}
		}
		return ae.Params
	}
	dense := run(false, false)
	before := compute.SparseProducts()
	sparse := run(true, false)
	pairs := run(true, true) // the row path two rows a tile
	ran := compute.SparseProducts() - before
	b, _ := compute.Init()
	t.Logf("backend %s; %d sparse products in 3 steps", b.Config, ran)
	if strings.Contains(b.Config, "AVX2 kernel") && ran == 0 {
		t.Error("the sparse path did not run on dpscope's AVX2 kernel")
	}
	for i := range dense {
		if math.Float32bits(dense[i]) != math.Float32bits(sparse[i]) {
			t.Fatalf("parameter %d is %v with dense products, %v with sparse ones", i, dense[i], sparse[i])
		}
		if math.Float32bits(dense[i]) != math.Float32bits(pairs[i]) {
			t.Fatalf("parameter %d is %v with dense products, %v with sparse ones two rows a tile", i, dense[i], pairs[i])
		}
	}
}

// TestSpeedKnobsKeepStepBits runs three DP-SGD steps of the benchmark
// configuration from the same seeds with each of compute's speed knobs
// off and on: the batch rows gathered on one goroutine or two
// (compute.GatherSplit: each row is a copy, whoever makes it), the bias
// filled in a pass or written into the kernel's panels (compute.BiasFold),
// and the products' packing cut among all panels or the packed ones
// (compute.PackSplitPacked). It requires the same
// parameters to the bit and, with the knob on, a step that allocates
// nothing. GOMAXPROCS is at least 2 for the test, so that work is shared.
func TestSpeedKnobsKeepStepBits(t *testing.T) {
	if testing.Short() {
		t.Skip("steps of the peers' autoencoder")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer compute.GatherSplit.Store(compute.GatherSplit.Load())
	defer compute.BiasFold.Store(compute.BiasFold.Load())
	defer compute.PackSplitPacked.Store(compute.PackSplitPacked.Load())
	data := benchData()
	for _, knob := range []struct {
		name string
		set  func(on bool)
	}{
		{"GatherSplit", func(on bool) { compute.GatherSplit.Store(on) }},
		{"BiasFold", func(on bool) { compute.BiasFold.Store(on) }},
		{"PackSplitPacked", func(on bool) { compute.PackSplitPacked.Store(on) }},
	} {
		run := func(on bool) []float32 {
			knob.set(on)
			ae, d, in := benchTrainer(t)
			loss := benchLoss(ae, in, data, nil)
			for range 3 {
				if _, err := d.Step(loss); err != nil {
					t.Fatal(err)
				}
			}
			params := slices.Clone(ae.Params)
			if on && !raceEnabled {
				if a := testing.AllocsPerRun(2, func() { d.Step(loss) }); a != 0 {
					t.Errorf("%s: a step allocates %v times, want 0", knob.name, a)
				}
			}
			return params
		}
		off, on := run(false), run(true)
		for i := range off {
			if math.Float32bits(off[i]) != math.Float32bits(on[i]) {
				t.Fatalf("%s: parameter %d is %v with the knob off, %v with it on", knob.name, i, off[i], on[i])
			}
		}
	}
}
