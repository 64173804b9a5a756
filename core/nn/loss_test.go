package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// TestZINBValue checks single-gene ZINB values against the zero-inflated
// negative-binomial log-pmf written out directly (computed with Python's
// math.lgamma: −log NB(x; m, θ) − log(1−π) for x > 0, and
// −log(π + (1−π)(θ/(θ+m))^θ) for x = 0).
func TestZINBValue(t *testing.T) {
	tests := []struct {
		desc              string
		x, mu, th, pi, sf float32
		want              float64
	}{
		{"x=3 m=2 θ=1 π=0", 3, 2, 1, 0, 1, 2.315007612992603},
		{"x=0 m=2 θ=0.5 π=0.3", 0, 2, 0.5, 0.3, 1, 0.48930956841273676},
		{"x=5 μ=0.5 s=2 θ=2.5 π=0.1", 5, 0.5, 2.5, 0.1, 2, 4.748166326183932},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			one := func(v float32) compute.Matrix { return compute.NewMatrix(1, 1, []float32{v}) }
			d1, d2, d3 := one(0), one(0), one(0)
			got := ZINB(d1, d2, d3, one(tc.x), one(tc.mu), one(tc.th), one(tc.pi), []float32{tc.sf}, 1)
			checkClose(t, "ZINB", got, tc.want, 1e-6, 1e-6)
		})
	}
}

// TestZINBGrad checks ∂/∂μ, ∂/∂θ and ∂/∂π of ZINB against central finite
// differences, over zero and non-zero counts, small and large dispersions
// and size factors ≠ 1, with the per-cell mean over genes and a weight w.
func TestZINBGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	const n, g = 3, 8
	x := compute.NewMatrix(n, g, nil)
	for i := range x.Data {
		if rng.Float64() < 0.4 {
			continue // zero count
		}
		x.Data[i] = float32(rng.IntN(30) + 1)
	}
	mu := randMatrix(rng, n, g, 0.05, 20)
	th := randMatrix(rng, n, g, 0.05, 50)
	pi := randMatrix(rng, n, g, 0.02, 0.9)
	sf := []float32{0.5, 1, 2.3}
	const w = 0.7
	dMu, dTh, dPi := compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil)
	scratch := [3]compute.Matrix{compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil), compute.NewMatrix(n, g, nil)}
	loss := func() float64 { return w * ZINB(scratch[0], scratch[1], scratch[2], x, mu, th, pi, sf, 1) }
	ZINB(dMu, dTh, dPi, x, mu, th, pi, sf, w)
	for _, tc := range []struct {
		desc    string
		p, grad compute.Matrix
	}{{"μ", mu, dMu}, {"θ", th, dTh}, {"π", pi, dPi}} {
		t.Run(tc.desc, func(t *testing.T) {
			checkGradVector(t, "∂ZINB/∂"+tc.desc, tc.p.Data, tc.grad.Data, 1e-3, loss, 1e-6, 2e-4, 1e-4, 0)
		})
	}
}

// TestZINBStable checks that extreme but clamped inputs give finite losses
// and gradients.
func TestZINBStable(t *testing.T) {
	vals := []struct{ x, mu, th, pi float32 }{
		{0, MuMin, ThetaMin, 1e-7}, {0, MuMax, ThetaMax, 1 - 1e-7}, {1e4, MuMin, ThetaMin, 0.5},
		{1e4, MuMax, ThetaMax, 0.5}, {0, MuMax, ThetaMin, 0}, {3, MuMin, ThetaMax, 1},
	}
	for _, v := range vals {
		one := func(f float32) compute.Matrix { return compute.NewMatrix(1, 1, []float32{f}) }
		d := [3]compute.Matrix{one(0), one(0), one(0)}
		l := ZINB(d[0], d[1], d[2], one(v.x), one(v.mu), one(v.th), one(v.pi), []float32{1}, 1)
		if CheckFinite("loss", l) != nil || CheckFinite("dμ", float64(d[0].Data[0])) != nil ||
			CheckFinite("dθ", float64(d[1].Data[0])) != nil || CheckFinite("dπ", float64(d[2].Data[0])) != nil {
			t.Errorf("ZINB(x=%g, μ=%g, θ=%g, π=%g) = %g with gradients %v %v %v, want finite",
				v.x, v.mu, v.th, v.pi, l, d[0].Data, d[1].Data, d[2].Data)
		}
	}
}

func TestDigamma(t *testing.T) {
	// Values from mpmath.digamma (Python, 53-bit).
	tests := []struct{ x, want float64 }{
		{1, -0.5772156649015329}, {0.5, -1.9635100260214235}, {1e-4, -10000.577051183514},
		{7.3, 1.9178203356379862}, {123.4, 4.8113737751162775},
	}
	for _, tc := range tests {
		checkClose(t, "digamma", digamma(tc.x), tc.want, 1e-11, 1e-11)
	}
}

// TestMSE checks the value of MSE on a hand example and its gradient
// against finite differences.
func TestMSE(t *testing.T) {
	y := compute.NewMatrix(2, 3, []float32{1, 2, 3, 0, 0, 0})
	x := compute.NewMatrix(2, 3, []float32{1, 0, 0, 1, 1, 1})
	dy := compute.NewMatrix(2, 3, nil)
	// (0 + 4 + 9)/3 + (1 + 1 + 1)/3 = 16/3
	checkClose(t, "MSE", MSE(dy, y, x, 1), 16.0/3, 1e-9, 1e-9)
	rng := rand.New(rand.NewPCG(2, 2))
	const n, g = 3, 600 // crosses the 256-wide float32 chunks
	y, x, dy = randMatrix(rng, n, g, -2, 2), randMatrix(rng, n, g, -2, 2), compute.NewMatrix(n, g, nil)
	scratch := compute.NewMatrix(n, g, nil)
	MSE(dy, y, x, 0.5)
	loss := func() float64 { return 0.5 * MSE(scratch, y, x, 1) }
	// The loss is quadratic, so a large step is exact up to rounding of the
	// float32 partial sums.
	checkGradVector(t, "∂MSE/∂y", y.Data[:50], dy.Data[:50], 0.1, loss, 2e-6, 1e-3, 1e-3, 0)
}

// TestNegCosine checks NegCosine on a hand example and its gradients
// against finite differences.
func TestNegCosine(t *testing.T) {
	z1 := compute.NewMatrix(2, 2, []float32{1, 0, 3, 4})
	z2 := compute.NewMatrix(2, 2, []float32{1, 1, 3, 4})
	d1, d2 := compute.NewMatrix(2, 2, nil), compute.NewMatrix(2, 2, nil)
	checkClose(t, "NegCosine", NegCosine(d1, d2, z1, z2, 1), -1/math.Sqrt2-1, 1e-7, 1e-7)
	rng := rand.New(rand.NewPCG(4, 4))
	z1, z2 = randMatrix(rng, 4, 5, -1, 1), randMatrix(rng, 4, 5, -1, 1)
	d1, d2 = compute.NewMatrix(4, 5, nil), compute.NewMatrix(4, 5, nil)
	s1, s2 := compute.NewMatrix(4, 5, nil), compute.NewMatrix(4, 5, nil)
	NegCosine(d1, d2, z1, z2, 2)
	loss := func() float64 { return 2 * NegCosine(s1, s2, z1, z2, 1) }
	checkGradVector(t, "∂/∂z1", z1.Data, d1.Data, 1e-3, loss, 1e-5, 1e-3, 1e-3, 0)
	checkGradVector(t, "∂/∂z2", z2.Data, d2.Data, 1e-3, loss, 1e-5, 1e-3, 1e-3, 0)
}

// TestDEC checks StudentTTo and DECTargetTo on a hand example, and the
// gradients of KLStudentT against finite differences.
func TestDEC(t *testing.T) {
	z := compute.NewMatrix(1, 1, []float32{0})
	mu := compute.NewMatrix(2, 1, []float32{1, 2})
	q := compute.NewMatrix(1, 2, nil)
	StudentTTo(q, z, mu)
	// kernels 1/2 and 1/5: q = (5/7, 2/7)
	checkClose(t, "q[0]", float64(q.Data[0]), 5.0/7, 1e-7, 0)
	p := compute.NewMatrix(1, 2, nil)
	DECTargetTo(p, q, make([]float64, 2))
	// q²/f = q (f = q with one cell): p = q
	checkClose(t, "p[0]", float64(p.Data[0]), 5.0/7, 1e-6, 0)

	rng := rand.New(rand.NewPCG(5, 5))
	const n, d, k = 6, 3, 4
	z, mu = randMatrix(rng, n, d, -2, 2), randMatrix(rng, k, d, -2, 2)
	q, p = compute.NewMatrix(n, k, nil), compute.NewMatrix(n, k, nil)
	StudentTTo(q, z, mu)
	DECTargetTo(p, q, make([]float64, k))
	// KL(p‖q) with the same z is Σ p log(p/q) ≥ 0
	dz, dmu := compute.NewMatrix(n, d, nil), compute.NewMatrix(k, d, nil)
	sz, smu := compute.NewMatrix(n, d, nil), compute.NewMatrix(k, d, nil)
	buf := make([]float64, k)
	kl := KLStudentT(dz, dmu, z, mu, p, buf, 1.5)
	want := 0.0
	for i := range p.Data {
		want += float64(p.Data[i]) * math.Log(float64(p.Data[i])/float64(q.Data[i]))
	}
	checkClose(t, "KLStudentT", kl, want, 1e-6, 1e-4)
	loss := func() float64 { return 1.5 * KLStudentT(sz, smu, z, mu, p, buf, 1) }
	checkGradVector(t, "∂KL/∂z", z.Data, dz.Data, 1e-3, loss, 1e-5, 2e-3, 2e-3, 0)
	checkGradVector(t, "∂KL/∂μ", mu.Data, dmu.Data, 1e-3, loss, 1e-5, 2e-3, 2e-3, 0)
}

// TestZINBSmallCounts checks zinbTerm's product-and-sum path for whole
// counts up to zinbSmallCount against the lgamma/digamma formula, over
// dispersions from ThetaMin to ThetaMax.
func TestZINBSmallCounts(t *testing.T) {
	for x := 1.0; x <= zinbSmallCount; x++ {
		for _, th := range []float64{ThetaMin, 0.03, 0.7, 5, 300, ThetaMax} {
			m, p := 2.5, 0.2
			l, _, dth, _ := zinbTerm(x, m, th, p)
			a := th + zinbEps
			lgA, _ := math.Lgamma(a)
			lgX1, _ := math.Lgamma(x + 1)
			lgXA, _ := math.Lgamma(x + a)
			l1p := math.Log1p(m / a)
			want := lgA + lgX1 - lgXA + (th+x)*l1p + x*(math.Log(a)-math.Log(m+zinbEps)) - math.Log(1-p+zinbEps)
			wantDth := digamma(a) - digamma(x+a) + l1p - (th+x)*m/(a*(a+m)) + x/a
			checkClose(t, "ℓ", l, want, 1e-9, 1e-9)
			checkClose(t, "∂ℓ/∂θ", dth, wantDth, 1e-7, 1e-9)
		}
	}
}
