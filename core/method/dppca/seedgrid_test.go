package dppca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSeedThreshold: the cut is the normal quantile at 10^−q.
func TestSeedThreshold(t *testing.T) {
	for _, c := range []struct {
		q    int
		want float64
	}{{3, 3.0902}, {4, 3.7190}, {5, 4.2649}, {8, 5.6120}} {
		if got := seedThreshold(c.q); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("seedThreshold(%d) = %.4f, want %.4f", c.q, got, c.want)
		}
	}
}

// TestSeedGridDims: the largest q whose densest bin ñ/(K·2^q) clears the
// cut; 0 (the fixed grid) when even q = 4 does not, or p ≤ 3.
func TestSeedGridDims(t *testing.T) {
	for _, c := range []struct {
		p, k      int
		nt, sigma float64
		want      int
	}{
		{30, 16, 2746, 0, 8},      // no noise: the widest grid
		{6, 16, 2746, 0, 6},       // capped by p
		{3, 16, 2746, 0, 0},       // p = 3: only the fixed grid
		{30, 16, 2746, 1.9, 4},    // 10.7 ≥ 3.72·1.9 = 7.07; q = 5: 5.36 < 8.10
		{30, 16, 2746, 1.1, 5},    // 5.36 ≥ 4.69; q = 6: 2.68 < 5.22
		{30, 16, 2746, 3.4, 0},    // q = 4: 10.7 < 12.6
		{30, 4, 100000, 1, 8},     // 100000/(4·256) = 97.7 ≥ 5.61
		{30, 16, 2746, 1e300, 0},  // a huge σ keeps the fixed grid
		{30, 16, 2746, 10.73, 0},  // just above q = 4's bound (10.727/3.719 = 2.884)
		{30, 16, 2746, 2.88, 4},   // just below it
		{30, 16, 2746, 5e-324, 8}, // a denormal σ behaves as none
	} {
		if got := seedGridDims(c.p, c.k, c.nt, c.sigma); got != c.want {
			t.Errorf("seedGridDims(p %d, k %d, ñ %g, σ %g) = %d, want %d", c.p, c.k, c.nt, c.sigma, got, c.want)
		}
	}
}

// twoBlobs returns n rows of p columns, half at +a and half at −a on
// every one of the first q columns (0 beyond), and unit eigenvalues·n so
// that the grid's bins are 0.6 wide.
func twoBlobs(n, p, q int, a float64) (proj, eigen []float64) {
	proj = make([]float64, n*p)
	for i := range n {
		s := a
		if i%2 == 1 {
			s = -a
		}
		for j := range q {
			proj[i*p+j] = s
		}
	}
	eigen = make([]float64, p)
	for j := range eigen {
		eigen[j] = float64(n)
	}
	return proj, eigen
}

// TestSparseSeedBinsNoiseless: without noise the points are the occupied
// bins with their exact counts, at the bins' centres.
func TestSparseSeedBinsNoiseless(t *testing.T) {
	proj, eigen := twoBlobs(100, 6, 5, 1)
	pts, w := sparseSeedBins(proj, 100, 6, 5, eigen, 100, 1, 0, seedThreshold(5), rand.New(rand.NewPCG(1, 2)))
	if len(w) != 2 || w[0]+w[1] != 100 || w[0] != 50 {
		t.Fatalf("weights %v, want two bins of 50", w)
	}
	// 1 / 0.6 + 5 = 6.67 → bin 6, centre (6 + 0.5 − 5)·0.6 = 0.9; −1 → bin 3, centre −0.9
	for i, v := range pts {
		if math.Abs(math.Abs(v)-0.9) > 1e-12 {
			t.Fatalf("point coordinate %d = %g, want ±0.9", i, v)
		}
	}
	if len(pts) != 2*5 {
		t.Fatalf("%d coordinates, want 10", len(pts))
	}
}

// TestSparseSeedBinsFalseBins: the empty bins that clear the cut follow
// the law of the full release: their number has mean E·Φ̄(thr) and their
// weights, the noise above the cut, have the normal tail's mean
// σ·(φ(thr)/Φ̄(thr) − thr).
func TestSparseSeedBinsFalseBins(t *testing.T) {
	const n, p, q, sigma, draws = 100, 4, 4, 2.0, 4000
	proj, eigen := twoBlobs(n, p, q, 1)
	thr := 2.5 // lower than seedThreshold(4), so false bins are frequent
	tail := 0.5 * math.Erfc(thr/math.Sqrt2)
	rng := rand.New(rand.NewPCG(3, 4))
	var count, sumW float64
	for range draws {
		_, w := sparseSeedBins(proj, n, p, q, eigen, n, 1, sigma, thr, rng)
		for _, v := range w {
			if !(v > 0) {
				t.Fatalf("weight %g, want > 0", v)
			}
			if v < 40 { // not one of the two real bins of 50
				count++
				sumW += v
			}
		}
	}
	wantCount := float64(10000-2) * tail // 62.0 a draw
	if got := count / draws; math.Abs(got-wantCount) > 0.5 {
		t.Errorf("false bins %.2f a draw, want %.2f", got, wantCount)
	}
	phi := math.Exp(-thr*thr/2) / math.Sqrt(2*math.Pi)
	wantW := sigma * (phi/tail - thr)
	if got := sumW / count; math.Abs(got-wantW) > 0.02 {
		t.Errorf("false bins' mean weight %.4f, want %.4f", got, wantW)
	}
}
