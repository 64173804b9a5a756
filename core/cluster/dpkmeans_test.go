package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDPKMeansNoNoiseIsLloyd(t *testing.T) {
	// With σ = 0, a clip bound above every row norm and the same start,
	// DPKMeans is Lloyd's algorithm (as long as no cluster empties): after
	// more iterations than KMeans needs to converge, both reach the same
	// fixed point.
	x, _, _ := blobs(300, 3, 4, 6, 21)
	init := []float64{8, 0, 0, 0, 8, 0, -8, 0, 0, 0, -8, 0}
	km, err := KMeans(context.Background(), x, 300, 3, KMeansConfig{K: 4, Centroids: init, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DPKMeansConfig{K: 4, Iterations: km.Iterations + 3, ClipNorm: 1e6, Init: DPInitGiven, Centroids: init}
	dp, err := DPKMeans(context.Background(), x, 300, 3, cfg, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dp.Labels, km.Labels) {
		t.Fatalf("DPKMeans(σ=0) labels differ from KMeans labels")
	}
	for i, v := range dp.Centroids {
		// KMeans works on centred data: centroids agree to rounding.
		if math.Abs(v-km.Centroids[i]) > 1e-12 {
			t.Errorf("DPKMeans(σ=0).Centroids[%d] = %v, want %v", i, v, km.Centroids[i])
		}
	}
}

func TestDPKMeansReleases(t *testing.T) {
	x, _, _ := blobs(100, 2, 3, 5, 1)
	cfg := DPKMeansConfig{K: 3, Iterations: 4, ClipNorm: 7, SigmaSum: 2.5, SigmaCount: 0.75}
	res, err := DPKMeans(context.Background(), x, 100, 2, cfg, rand.New(rand.NewPCG(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 8 || !res.Private {
		t.Fatalf("DPKMeans: %d releases, Private %v, want 8, true", len(res.Releases), res.Private)
	}
	for i, r := range res.Releases {
		want := GaussianRelease{Iteration: i / 2, Query: QueryClusterSums, Sensitivity: 7, Sigma: 2.5, Dim: 6, Count: 1}
		if i%2 == 1 {
			want = GaussianRelease{Iteration: i / 2, Query: QueryClusterCounts, Sensitivity: 1, Sigma: 0.75, Dim: 3, Count: 1}
		}
		if r != want {
			t.Errorf("Releases[%d] = %+v, want %+v", i, r, want)
		}
	}
	got := ComposeReleases(res.Releases)
	want := []GaussianRelease{
		{Iteration: -1, Query: QueryClusterSums, Sensitivity: 7, Sigma: 2.5, Dim: 6, Count: 4},
		{Iteration: -1, Query: QueryClusterCounts, Sensitivity: 1, Sigma: 0.75, Dim: 3, Count: 4},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ComposeReleases = %+v, want %+v", got, want)
	}
	if z := got[0].NoiseMultiplier(); z != 2.5/7.0 {
		t.Errorf("NoiseMultiplier() = %v, want %v", z, 2.5/7.0)
	}
	for j := range 3 {
		if nrm := math.Sqrt(dot(res.Centroids[j*2:j*2+2], res.Centroids[j*2:j*2+2])); nrm > 7*(1+1e-15) {
			t.Errorf("‖centroid %d‖ = %v, want ≤ ClipNorm 7", j, nrm)
		}
	}
	if p, _ := DPKMeans(context.Background(), x, 100, 2, DPKMeansConfig{K: 3, Iterations: 1, ClipNorm: 7, Init: DPInitKMeansPlusPlus}, rand.New(rand.NewPCG(3, 0))); p == nil || p.Private {
		t.Errorf("DPKMeans(Init kmeans++).Private = true, want false")
	}
}

func TestDPKMeansReproducible(t *testing.T) {
	x, _, _ := blobs(200, 4, 3, 4, 8)
	cfg := DPKMeansConfig{K: 3, Iterations: 5, ClipNorm: 10, SigmaSum: 1, SigmaCount: 1}
	a, err := DPKMeans(context.Background(), x, 200, 4, cfg, rand.New(rand.NewPCG(9, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DPKMeans(context.Background(), x, 200, 4, cfg, rand.New(rand.NewPCG(9, 2)))
	c, _ := DPKMeans(context.Background(), x, 200, 4, cfg, rand.New(rand.NewPCG(9, 3)))
	if !slices.Equal(a.Centroids, b.Centroids) {
		t.Errorf("DPKMeans with the same stream gave different centroids")
	}
	if slices.Equal(a.Centroids, c.Centroids) {
		t.Errorf("DPKMeans with different streams gave identical centroids")
	}
}

func TestDPKMeansUtility(t *testing.T) {
	// 3 blobs 20 apart, 2,000 rows, R = 25 (no blob point clipped much),
	// σ_sum = σ_count = 5: the noise on a centroid is about 5/667 per
	// coordinate, far below the separation, so the clusters are found.
	// Deterministic for the fixed streams below.
	x, truth, _ := blobs(2000, 3, 3, 20, 4)
	cfg := DPKMeansConfig{K: 3, Iterations: 10, ClipNorm: 25, SigmaSum: 5, SigmaCount: 5,
		Init: DPInitGiven, Centroids: []float64{1, 1, 0, -1, 1, 0, 0, -1, 1}}
	res, err := DPKMeans(context.Background(), x, 2000, 3, cfg, rand.New(rand.NewPCG(5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if ari, _ := ARI(truth, res.Labels); ari < 0.99 {
		t.Errorf("ARI(truth, DPKMeans labels) = %v, want ≥ 0.99", ari)
	}
}

func TestNoisyUpdateNoiseDistribution(t *testing.T) {
	// One cluster of n = 10 rows at the origin: each iteration's centroid
	// coordinate is N(0, σ²)/max(10 + N(0, σc²), 1). With σc = 0 it is
	// N(0, (σ/10)²). Over m draws the sample mean is within 4.42·s/√m and
	// the sample variance within 4.42·s²·√(2/m) of their values (normal
	// approximation; each check falsely fails with probability ~1e-5).
	const n, d, m, sigma = 10, 2, 4000, 3.0
	x := make([]float64, n*d)
	w := newLloyd(x, make([]float64, n), n, d, 1)
	rng := rand.New(rand.NewPCG(17, 0))
	var sum, sumSq float64
	for range m {
		w.assign()
		w.noisyUpdate(1e9, sigma, 0, rng)
		v := w.centers[0]
		sum += v
		sumSq += v * v
	}
	s := sigma / n
	mean := sum / m
	variance := sumSq/m - mean*mean
	if math.Abs(mean) > 4.42*s/math.Sqrt(m) {
		t.Errorf("mean of noisy centroid = %v, want 0 ± %v", mean, 4.42*s/math.Sqrt(m))
	}
	if math.Abs(variance-s*s) > 4.42*s*s*math.Sqrt(2.0/m) {
		t.Errorf("variance of noisy centroid = %v, want %v ± %v", variance, s*s, 4.42*s*s*math.Sqrt(2.0/m))
	}
	if a := testing.AllocsPerRun(10, func() { w.assign(); w.noisyUpdate(1, 1, 1, rng) }); a != 0 {
		t.Errorf("assign+noisyUpdate allocates %v times per run, want 0", a)
	}
}

func TestClipAndBall(t *testing.T) {
	v := []float64{3, 4}
	clipTo(v, 1)
	if math.Abs(v[0]-0.6) > 1e-15 || math.Abs(v[1]-0.8) > 1e-15 {
		t.Errorf("clipTo([3 4], 1) = %v, want [0.6 0.8]", v)
	}
	w := []float64{0.3, 0.4}
	clipTo(w, 1)
	if w[0] != 0.3 || w[1] != 0.4 {
		t.Errorf("clipTo([0.3 0.4], 1) = %v, want unchanged", w)
	}
	// Uniform in the 3-ball of radius 2: ‖p‖ ≤ 2, and P(‖p‖ ≤ 1) = 1/8.
	// Over m = 4000 draws the fraction is within 4.42·√(p(1−p)/m) of 1/8
	// (false failure ~1e-5).
	rng := rand.New(rand.NewPCG(2, 0))
	p := make([]float64, 3)
	inner := 0
	const m = 4000
	for range m {
		uniformBall(p, 2, rng)
		r := math.Sqrt(dot(p, p))
		if r > 2 {
			t.Fatalf("uniformBall radius 2 gave ‖p‖ = %v", r)
		}
		if r <= 1 {
			inner++
		}
	}
	if f, tol := float64(inner)/m, 4.42*math.Sqrt(0.125*0.875/m); math.Abs(f-0.125) > tol {
		t.Errorf("fraction of uniformBall(r=2) points within 1 = %v, want 0.125 ± %v", f, tol)
	}
}

func TestDPKMeansValidation(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	ok := DPKMeansConfig{K: 2, Iterations: 3, ClipNorm: 1, SigmaSum: 1, SigmaCount: 1}
	mod := func(f func(*DPKMeansConfig)) DPKMeansConfig { c := ok; f(&c); return c }
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		desc    string
		cfg     DPKMeansConfig
		x       []float64
		rng     *rand.Rand
		wantErr error
	}{
		{"valid", ok, x, rng, nil},
		{"K=0", mod(func(c *DPKMeansConfig) { c.K = 0 }), x, rng, ErrInvalidConfig},
		{"K > n", mod(func(c *DPKMeansConfig) { c.K = 4 }), x, rng, ErrInvalidData},
		{"Iterations=0", mod(func(c *DPKMeansConfig) { c.Iterations = 0 }), x, rng, ErrInvalidConfig},
		{"ClipNorm=0", mod(func(c *DPKMeansConfig) { c.ClipNorm = 0 }), x, rng, ErrInvalidConfig},
		{"ClipNorm=Inf", mod(func(c *DPKMeansConfig) { c.ClipNorm = math.Inf(1) }), x, rng, ErrInvalidConfig},
		{"SigmaSum<0", mod(func(c *DPKMeansConfig) { c.SigmaSum = -1 }), x, rng, ErrInvalidConfig},
		{"SigmaCount NaN", mod(func(c *DPKMeansConfig) { c.SigmaCount = math.NaN() }), x, rng, ErrInvalidConfig},
		{"bad Init", mod(func(c *DPKMeansConfig) { c.Init = 7 }), x, rng, ErrInvalidConfig},
		{"given without centroids", mod(func(c *DPKMeansConfig) { c.Init = DPInitGiven }), x, rng, ErrInvalidConfig},
		{"centroids without given", mod(func(c *DPKMeansConfig) { c.Centroids = []float64{0, 0, 1, 1} }), x, rng, ErrInvalidConfig},
		{"given wrong shape", mod(func(c *DPKMeansConfig) { c.Init = DPInitGiven; c.Centroids = []float64{0} }), x, rng, ErrInvalidData},
		{"nil rng", ok, x, nil, ErrInvalidConfig},
		{"NaN data", ok, []float64{0, 1, 2, math.NaN(), 4, 5}, rng, ErrInvalidData},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DPKMeans(context.Background(), tc.x, 3, 2, tc.cfg, tc.rng)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("DPKMeans(%s) error = %v, want %v", tc.desc, err, tc.wantErr)
			}
		})
	}
}
