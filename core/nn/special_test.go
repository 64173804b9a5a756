package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// specialInputs returns n values for exp32 and log32: edgy values (±0,
// ±Inf, NaNs, subnormals), normals, and values spread over the whole
// float32 range and both clamps of exp32.
func specialInputs(rng *rand.Rand, n int) []float32 {
	v := edgyValues(rng, n)
	for i := range v {
		switch rng.IntN(4) {
		case 0:
			v[i] = float32((2*rng.Float64() - 1) * 100) // around exp32's clamps
		case 1:
			v[i] = float32(math.Exp((2*rng.Float64() - 1) * 87)) // positive, over the range
		}
	}
	return v
}

// ulps returns the distance in units in the last place between two
// finite float32s of one sign.
func ulps(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// TestSpecialVectorMatchesGo checks that the AVX2 kernels of exp32 and
// log32 give the Go functions' bits at lengths around the 8 lanes.
func TestSpecialVectorMatchesGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this machine: there is no vector kernel to compare")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 33, 2000, 20000} {
		src := specialInputs(rng, n)
		for _, fn := range []struct {
			name   string
			vec    func(dst, src []float32)
			scalar func(float32) float32
		}{{"exp32", exp32Slice, exp32}, {"log32", log32Slice, log32}} {
			got := make([]float32, n)
			fn.vec(got, src)
			want := make([]float32, n)
			for i, x := range src {
				want[i] = fn.scalar(x)
			}
			if i := sameBits(got, want); i >= 0 {
				t.Fatalf("%s n=%d: entry %d (x = %v) is %v (%#x), Go gives %v (%#x)", fn.name, n, i, src[i],
					got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
}

// TestExp32Log32Accuracy checks exp32 and log32 against float64 math
// over their domains: within 2 ulp (Cephes states about 1), the clamps of
// exp32, and NaN outside log32's domain.
func TestExp32Log32Accuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	worstExp, worstLog := int64(0), int64(0)
	for range 200000 {
		x := float32((2*rng.Float64() - 1) * 87)
		if x < expLo {
			continue
		}
		got, want := exp32(x), float32(math.Exp(float64(x)))
		if want >= minNorm {
			worstExp = max(worstExp, ulps(got, want))
		}
		y := math.Float32frombits(uint32(rng.Int64N(0x7f7fffff-0x00800000)) + 0x00800000) // a positive normal
		worstLog = max(worstLog, ulps(log32(y), float32(math.Log(float64(y)))))
	}
	if worstExp > 2 || worstLog > 2 {
		t.Errorf("worst error: exp32 %d ulp, log32 %d ulp, want ≤ 2", worstExp, worstLog)
	}
	for _, c := range []struct {
		x, want float32
	}{{0, 1}, {1, float32(math.E)}, {-200, exp32(expLo)}, {200, exp32(expHi)}} {
		if got := exp32(c.x); ulps(got, c.want) > 1 {
			t.Errorf("exp32(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := exp32(expHi); math.IsInf(float64(got), 0) || got < 1.6e38 {
		t.Errorf("exp32(%v) = %v, want e^88 ≈ 1.65e38", expHi, got)
	}
	if got := exp32(float32(math.NaN())); !isNaN32(got) {
		t.Errorf("exp32(NaN) = %v, want NaN", got)
	}
	if got := log32(1); got != 0 {
		t.Errorf("log32(1) = %v, want 0", got)
	}
	for _, x := range []float32{0, -1, float32(math.Inf(1)), float32(math.NaN()), math.Float32frombits(1)} {
		if got := log32(x); !isNaN32(got) {
			t.Errorf("log32(%v) = %v, want NaN", x, got)
		}
	}
}

// TestLog1p32 checks log1p32Slice against float64 Log1p, to 2 ulp, from
// 1e-30 (where 1 + u rounds to 1) to 1e30.
func TestLog1p32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 4099
	src, dst, tmp := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range src {
		src[i] = float32(math.Pow(10, -30+60*rng.Float64()))
	}
	src[0] = 0
	log1p32Slice(dst, src, tmp)
	for i, u := range src {
		if want := float32(math.Log1p(float64(u))); ulps(dst[i], want) > 2 {
			t.Fatalf("log1p32(%v) = %v, want %v", u, dst[i], want)
		}
	}
}

// sigmoid returns 1/(1+e^{−z}) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus returns log(1 + e^z) without overflow.
func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}

// TestHeadActivationsFloat32 checks the float32 activations against
// float64 references: tanh, sigmoid, the clamped softplus and exp, and the softplus
// derivative, within a few ulp (relative 4e-7), and that they give the
// same bits with and without the AVX2 kernels.
func TestHeadActivationsFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 3001
	z := make([]float32, n)
	for i := range z {
		z[i] = float32((2*rng.Float64() - 1) * 40)
		if i%5 == 0 {
			z[i] = float32((2*rng.Float64() - 1) * 0.01)
		}
	}
	refs := map[Activation]func(float64) float64{
		Tanh:          math.Tanh,
		Sigmoid:       sigmoid,
		ExpClamp:      func(v float64) float64 { return min(max(math.Exp(v), MuMin), MuMax) },
		SoftplusClamp: func(v float64) float64 { return min(max(softplus(v), ThetaMin), ThetaMax) },
	}
	for act, ref := range refs {
		y := append([]float32(nil), z...)
		act.apply(y)
		for i, v := range z {
			want := ref(float64(v))
			if math.Abs(float64(y[i])-want) > 4e-7*math.Abs(want)+1e-30 {
				t.Fatalf("%v(%v) = %v, want %v", act, v, y[i], want)
			}
		}
		g := make([]float32, n)
		for i := range g {
			g[i] = 1
		}
		act.mulDeriv(g, y)
		y2, g2 := append([]float32(nil), z...), make([]float32, n)
		for i := range g2 {
			g2[i] = 1
		}
		withoutAVX2(func() {
			act.apply(y2)
			act.mulDeriv(g2, y2)
		})
		if i := sameBits(y, y2); i >= 0 {
			t.Fatalf("%v(%v): %v with AVX2, %v without", act, z[i], y[i], y2[i])
		}
		if i := sameBits(g, g2); i >= 0 {
			t.Fatalf("%v' at %v: %v with AVX2, %v without", act, z[i], g[i], g2[i])
		}
		if act != SoftplusClamp {
			continue
		}
		for i, v := range y {
			want := 0.0
			if v > ThetaMin && v < ThetaMax {
				want = -math.Expm1(-float64(v))
			}
			if math.Abs(float64(g[i])-want) > 4e-7*want {
				t.Fatalf("softplus' at y = %v: %v, want %v", v, g[i], want)
			}
		}
	}
}
