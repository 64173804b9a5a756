package dpsgd

import (
	"math"
	"slices"
	"testing"
)

// TestZigguratTable checks the layer table: every box has area V, x
// decreases from R to 0, and the last layer closes at f(0) = 1. It also
// checks the solver against Marsaglia and Tsang's published R and V for
// 256 layers.
func TestZigguratTable(t *testing.T) {
	if r := zigSolve(256); math.Abs(r-3.6541528853610088) > 1e-12 {
		t.Errorf("R for 256 layers = %.17g, want 3.6541528853610088", r)
	}
	if r := zigSolve(zigLayers); math.Abs(r-zigR) > 1e-12 {
		t.Errorf("R for %d layers = %.17g, zigR is %.17g", zigLayers, r, zigR)
	}
	if v, _ := zigLayersFrom(3.6541528853610088, make([]float64, 257)); math.Abs(v-0.00492867323399) > 5e-14 { // published to 12 digits
		t.Errorf("V for 256 layers = %.15g, want 0.00492867323399", v)
	}
	for i := 1; i < zigLayers; i++ {
		if !(zig.x[i+1] < zig.x[i]) {
			t.Fatalf("x[%d] = %v is not below x[%d] = %v", i+1, zig.x[i+1], i, zig.x[i])
		}
		if a := zig.x[i] * (zig.f[i+1] - zig.f[i]); math.Abs(a-zig.v) > 1e-9*zig.v {
			t.Errorf("layer %d has area %.12g, want %.12g", i, a, zig.v)
		}
	}
	if top := zig.v/zig.x[zigLayers-1] + zig.f[zigLayers-1]; math.Abs(top-1) > 1e-9 {
		t.Errorf("the last layer tops out at f = %.12g, want 1", top)
	}
	// layer 0: box [0, R]×[0, f(R)] plus the tail ∫_R^∞ f = √(π/2)·erfc(R/√2)
	tail := math.Sqrt(math.Pi/2) * math.Erfc(zig.r/math.Sqrt2)
	if a := zig.r*zig.f[1] + tail; math.Abs(a-zig.v) > 1e-12*zig.v {
		t.Errorf("layer 0 has area %.15g, want %.15g", a, zig.v)
	}
	fast := 0.0
	for i := range zigLayers {
		fast += float64(zig.fast[i]) / (1 << zigMag) / zigLayers
	}
	if fast < 0.995 {
		t.Errorf("the fast path takes %.4f of draws, want ≥ 0.995", fast)
	}
	t.Logf("R = %.17g, V = %.6g, fast path %.5f", zig.r, zig.v, fast)
}

// TestNormalDistribution draws 2·10⁶ normals with a fixed seed and checks
// them against N(0, 1): the Kolmogorov–Smirnov distance against its 10⁻⁴
// critical value, and the mean, variance, fourth moment, symmetry and the
// mass beyond 3 and 4 (where the tail and the wedges matter), each within
// five standard errors. The seed is fixed, so the test is deterministic;
// skipping the wedge test or mis-scaling the tail fails it.
func TestNormalDistribution(t *testing.T) {
	const n = 2_000_000
	x := make([]float32, n)
	newNormalSource(3, 2, false).addScaled(x, 1)
	var s1, s2, s4 float64
	var neg, beyond3, beyond4 int
	for _, v := range x {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Fatalf("draw %v", v)
		}
		s1 += f
		s2 += f * f
		s4 += f * f * f * f
		if f < 0 {
			neg++
		}
		if math.Abs(f) > 3 {
			beyond3++
		}
		if math.Abs(f) > 4 {
			beyond4++
		}
	}
	within := func(what string, got, want, se float64) {
		t.Helper()
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s = %.6g, want %.6g ± %.3g (5 standard errors)", what, got, want, 5*se)
		}
	}
	within("mean", s1/n, 0, 1/math.Sqrt(n))
	within("E[x²]", s2/n, 1, math.Sqrt(2.0/n))
	within("E[x⁴]", s4/n, 3, math.Sqrt(96.0/n))
	within("P(x < 0)", float64(neg)/n, 0.5, math.Sqrt(0.25/n))
	p3, p4 := math.Erfc(3/math.Sqrt2), math.Erfc(4/math.Sqrt2)
	within("P(|x| > 3)", float64(beyond3)/n, p3, math.Sqrt(p3*(1-p3)/n))
	within("P(|x| > 4)", float64(beyond4)/n, p4, math.Sqrt(p4*(1-p4)/n))
	slices.Sort(x)
	d := 0.0
	for i, v := range x {
		c := 0.5 * math.Erfc(-float64(v)/math.Sqrt2)
		d = max(d, math.Abs(c-float64(i)/n), math.Abs(c-float64(i+1)/n))
	}
	if crit := 1.95 / math.Sqrt(n); d > crit {
		t.Errorf("Kolmogorov–Smirnov distance %.3g > %.3g (the 10⁻⁴ critical value)", d, crit)
	}
}

// TestXoshiroReference checks xoshiro256++ against the authors' C code
// from the state {1, 2, 3, 4}, and that Uint64 and fill give one stream.
func TestXoshiroReference(t *testing.T) {
	want := []uint64{41943041, 58720359, 3588806011781223, 3591011842654386}
	x := &xoshiro{s: [4]uint64{1, 2, 3, 4}}
	for i, w := range want {
		if got := x.Uint64(); got != w {
			t.Fatalf("word %d = %d, want %d", i, got, w)
		}
	}

}

// zigSolve returns the R for which n layers of equal area exactly close
// at the top, by bisection (a larger R makes thinner layers). For n = 256
// it gives Marsaglia and Tsang's 3.6541528853610088.
func zigSolve(n int) float64 {
	x := make([]float64, n+1)
	lo, hi := 1.0, 8.0
	for range 200 {
		mid := (lo + hi) / 2
		if _, over := zigLayersFrom(mid, x); over > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
