package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// TestSplitMatchesOneCall checks that ZINB and the activations, which
// split large inputs over two goroutines, give bit for bit what one call
// on one goroutine gives, also with several callers at once (the helper
// is then busy and some calls run whole).
func TestSplitMatchesOneCall(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(5, 9))
	n, g := 37, 2003 // odd sizes: the halves are uneven and not multiples of 8
	x := randMatrix(rng, n, g, 0, 6)
	for i, v := range x.Data {
		x.Data[i] = float32(math.Floor(float64(v) * float64(v) / 6)) // mostly small counts, many zeros
	}
	mu := randMatrix(rng, n, g, 0.05, 20)
	th := randMatrix(rng, n, g, 0.05, 50)
	pi := randMatrix(rng, n, g, 0.02, 0.9)
	sf := make([]float32, n)
	for i := range sf {
		sf[i] = 0.5 + rng.Float32()
	}
	if n*g*zinbCost < compute.SplitMin {
		t.Fatalf("the test's %d×%d ZINB is below compute.SplitMin and would not split", n, g)
	}
	// The reference: the job run over all rows on this goroutine.
	ref := [3]compute.Matrix{compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil)}
	j := &zinbJob{dMu: ref[0], dTheta: ref[1], dPi: ref[2], x: x, mu: mu, theta: th, pi: pi, sf: sf,
		scale: float64(float32(0.3)) / float64(g), cells: make([]float64, n)}
	j.Run(0, n)
	want := 0.0
	for _, c := range j.cells {
		want += c / float64(g)
	}
	var wg sync.WaitGroup
	for c := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				d := [3]compute.Matrix{compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil)}
				got := ZINB(d[0], d[1], d[2], x, mu, th, pi, sf, 0.3)
				if got != want {
					t.Errorf("caller %d: ZINB = %.17g, one call on one goroutine %.17g", c, got, want)
					return
				}
				for k := range d {
					for i, v := range d[k].Data {
						if math.Float32bits(v) != math.Float32bits(ref[k].Data[i]) {
							t.Errorf("caller %d: gradient %d entry %d = %g, one call %g", c, k, i, v, ref[k].Data[i])
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()

	for _, a := range []Activation{Tanh, Sigmoid, ExpClamp, SoftplusClamp} {
		z := randMatrix(rng, n, g, -6, 6).Data
		one := append([]float32(nil), z...)
		a.applyRange(one)
		got := append([]float32(nil), z...)
		a.apply(got)
		gOne := randMatrix(rng, n, g, -1, 1).Data
		gGot := append([]float32(nil), gOne...)
		a.mulDerivRange(gOne, one)
		a.mulDeriv(gGot, got)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(one[i]) || math.Float32bits(gGot[i]) != math.Float32bits(gOne[i]) {
				t.Fatalf("activation %d entry %d: split gives %g and %g, one call %g and %g", a, i, got[i], gGot[i], one[i], gOne[i])
			}
		}
	}
}

// TestSplitOptimizersMatchOneCall checks that Adam's and Adadelta's steps,
// split over two goroutines, give bit for bit one call's parameters.
func TestSplitOptimizersMatchOneCall(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := compute.SplitMin + 11
	p0 := randMatrix(rng, 1, n, -1, 1).Data
	grads := [3][]float32{}
	for s := range grads {
		grads[s] = randMatrix(rng, 1, n, -0.1, 0.1).Data
	}
	adam, err := NewAdam(n, AdamConfig{LR: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	delta, err := NewAdadelta(n, AdadeltaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Optimizer{adam, delta} {
		got, want := append([]float32(nil), p0...), append([]float32(nil), p0...)
		var m, v []float32
		for _, g := range grads {
			o.Step(got, g)
		}
		switch o := o.(type) {
		case *Adam:
			m, v = make([]float32, n), make([]float32, n)
			for s, g := range grads {
				b1, b2 := float32(o.cfg.Beta1), float32(o.cfg.Beta2)
				bc1 := 1 - math.Pow(o.cfg.Beta1, float64(s+1))
				bc2 := 1 - math.Pow(o.cfg.Beta2, float64(s+1))
				k := adamConsts{b1: b1, c1: 1 - b1, b2: b2, c2: 1 - b2,
					step: float32(o.cfg.LR / bc1), inv: float32(1 / math.Sqrt(bc2)), eps: float32(o.cfg.Eps)}
				(&optJob{p: want, g: g, m: m, v: v, adam: k}).Run(0, n)
			}
		case *Adadelta:
			m, v = make([]float32, n), make([]float32, n)
			rho := float32(o.cfg.Rho)
			k := adadeltaConsts{rho: rho, c: 1 - rho, eps: float32(o.cfg.Eps), lr: float32(o.cfg.LR)}
			for _, g := range grads {
				(&optJob{p: want, g: g, m: m, v: v, delta: k, adadelta: true}).Run(0, n)
			}
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%T: parameter %d = %g after three split steps, %g after one-call steps", o, i, got[i], want[i])
			}
		}
	}
}

// TestMSESplitMatchesOneCall checks that MSE, split over two goroutines
// for large inputs, gives bit for bit one call's loss and gradient.
func TestMSESplitMatchesOneCall(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(8, 1))
	n, g := 45, 2001
	x, y := randMatrix(rng, n, g, -2, 2), randMatrix(rng, n, g, -2, 2)
	dy, ref := compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil)
	j := &mseJob{dy: ref, y: y, x: x, c: 2 * float32(0.7) / float32(g), cells: make([]float64, n)}
	j.Run(0, n)
	want := 0.0
	for _, c := range j.cells {
		want += c / float64(g)
	}
	if got := MSE(dy, y, x, 0.7); got != want {
		t.Errorf("MSE = %.17g, one call on one goroutine %.17g", got, want)
	}
	for i, v := range dy.Data {
		if math.Float32bits(v) != math.Float32bits(ref.Data[i]) {
			t.Fatalf("gradient entry %d = %g, one call %g", i, v, ref.Data[i])
		}
	}
}
