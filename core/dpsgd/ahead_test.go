package dpsgd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// TestNoiseAheadSameBits checks that noise drawn ahead, wholly, in part
// (the step drawing the blocks left on two goroutines) or not at all,
// adds to the gradient the bits addScaled adds, and leaves the generator
// where addScaled leaves it (a second call continues both streams alike);
// and that the draws are not used when the source drew since start or
// the length differs. The helper goroutine is kept out (SplitSpin 0): the
// test calls IdlePiece itself, as the helper would.
func TestNoiseAheadSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer compute.SplitSpin.Store(compute.SplitSpin.Load())
	compute.SplitSpin.Store(0)
	kernelSets(t, func(t *testing.T, name string, run func(func())) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range []int{noiseSplitMin, 16*zigBlock + 1, 1063536} {
			blocks := n / zigBlock
			for _, pieces := range []int{0, 1, blocks / 2, blocks, blocks + 3, 1 << 30} {
				g := make([]float32, n)
				for i := range g {
					g[i] = float32(rng.NormFloat64())
				}
				want := append([]float32(nil), g...)
				ref, src := newNormalSource(21, 2, false), newNormalSource(21, 2, false)
				var a noiseAhead
				run(func() {
					for round := range 2 {
						ref.addScaled(want, 0.37)
						a.start(src, n)
						for p := 0; p < pieces && a.IdlePiece(); p++ {
						}
						if !a.take(src, g, 0.37) {
							t.Fatalf("%s, n = %d, %d pieces, call %d: the draws ahead were not used", name, n, pieces, round)
						}
					}
				})
				for i := range g {
					if math.Float32bits(g[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s, n = %d, %d pieces: g[%d] = %v drawn ahead, %v by addScaled", name, n, pieces, i, g[i], want[i])
					}
				}
				if ref.extra.Uint64() != src.extra.Uint64() || ref.words.(*xoshiro8).s != src.words.(*xoshiro8).s {
					t.Fatalf("%s, n = %d, %d pieces: the generators' states differ after the calls", name, n, pieces)
				}
			}
		}
		// Not used after the source drew since start, nor for another
		// length.
		src := newNormalSource(3, 2, false)
		var a noiseAhead
		g := make([]float32, 1063536)
		a.start(src, len(g))
		src.addScaled(g[:5], 1)
		if a.take(src, g, 1) {
			t.Errorf("%s: draws ahead used after the source drew", name)
		}
		a.start(src, len(g))
		if a.take(src, g[:len(g)-1], 1) {
			t.Errorf("%s: draws ahead used for another length", name)
		}
	})
}

// TestNoiseAheadOnTheHelper runs DP-SGD steps with the draws ahead on the
// helper goroutine (as in training) and without, and requires the same
// parameters to the bit: with Adam and all layers noised, and with Adam
// and Adadelta on layers 2–6 only, so that the noise starts inside the
// gradient; with SplitSpin long, so that the helper idles and draws
// between the halves it runs.
func TestNoiseAheadOnTheHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("steps of the peers' autoencoder")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer func(on bool) { noiseAheadOn = on }(noiseAheadOn)
	defer compute.SplitSpin.Store(compute.SplitSpin.Load())
	compute.SplitSpin.Store(int64(5 * time.Millisecond))
	data := benchData()
	for _, tc := range []struct {
		name      string
		perturbed LayerRange
		adadelta  bool
	}{
		{"Adam, layers 1–6", LayerRange{1, 6}, false},
		{"Adam, layers 2–6", LayerRange{2, 6}, false},
		{"Adadelta, layers 2–6", LayerRange{2, 6}, true},
	} {
		run := func(on bool) ([]float32, int64) {
			noiseAheadOn = on
			ae := benchAE(t, 512)
			var opt nn.Optimizer
			var err error
			if tc.adadelta {
				opt, err = nn.NewAdadelta(len(ae.Params), nn.AdadeltaConfig{})
			} else {
				opt, err = nn.NewAdam(len(ae.Params), nn.AdamConfig{LR: 1e-3})
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := New(&ae.Net, opt, benchCells, Config{SampleRate: benchQ, NoiseMultiplier: 1, ClipNorm: 0.1,
				Perturbed: tc.perturbed, Clipping: ClipJoint, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			loss := benchLoss(ae, compute.NewMatrix(512, benchGenes, nil), data, nil)
			for range 4 {
				if _, err := d.Step(loss); err != nil {
					t.Fatal(err)
				}
			}
			return append([]float32(nil), ae.Params...), d.ahead.ahead
		}
		off, _ := run(false)
		on, drawn := run(true)
		for i := range off {
			if math.Float32bits(off[i]) != math.Float32bits(on[i]) {
				t.Fatalf("%s: parameter %d is %v without the draws ahead, %v with them", tc.name, i, off[i], on[i])
			}
		}
		t.Logf("%s: blocks the helper drew ahead in 3 steps: %d", tc.name, drawn)
	}
}
