package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// blobs returns n points in d dimensions around k centres placed at
// distance sep·(unit vectors and their negatives), with N(0, 1) noise, and
// their true labels, drawn from rand.NewPCG(seed, 0).
func blobs(n, d, k int, sep float64, seed uint64) (x []float64, labels []int, centres []float64) {
	rng := rand.New(rand.NewPCG(seed, 0))
	centres = make([]float64, k*d)
	for j := range k {
		sign := 1.0
		if (j/d)%2 == 1 {
			sign = -1
		}
		centres[j*d+j%d] = sign * sep * float64(1+j/(2*d))
	}
	x = make([]float64, n*d)
	labels = make([]int, n)
	for i := range n {
		c := i % k
		labels[i] = c
		for t := range d {
			x[i*d+t] = centres[c*d+t] + rng.NormFloat64()
		}
	}
	return x, labels, centres
}

func TestKMeansRecoversSeparatedClusters(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		n, d, k int
	}{
		{"k=1", 50, 3, 1},
		{"k=3 d=2", 300, 2, 3},
		{"k=8 d=5", 800, 5, 8},
		{"k=10 d=12", 1000, 12, 10},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			// sep = 20: blobs of unit variance 20 apart never overlap in
			// these sample sizes (P(|N(0,1)| > 10) ≈ 1.5e-23 per coordinate).
			x, truth, centres := blobs(tc.n, tc.d, tc.k, 20, 3)
			res, err := KMeans(context.Background(), x, tc.n, tc.d, KMeansConfig{K: tc.k, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			ari, err := ARI(truth, res.Labels)
			if err != nil || ari != 1 {
				t.Fatalf("ARI(truth, KMeans labels) = %v, %v, want 1, nil", ari, err)
			}
			// Each centroid is the mean of n/k unit-variance points: within
			// 6/√(n/k) per coordinate of its true centre (6σ of the mean).
			tol := 6 / math.Sqrt(float64(tc.n/tc.k))
			for j := range tc.k {
				c := res.Labels[slices.Index(truth, j)]
				for t2 := range tc.d {
					got, want := res.Centroids[c*tc.d+t2], centres[j*tc.d+t2]
					if math.Abs(got-want) > tol {
						t.Errorf("centroid of true cluster %d, coordinate %d = %v, want %v ± %v", j, t2, got, want, tol)
					}
				}
			}
			checkLloydFixedPoint(t, x, tc.n, tc.d, res)
		})
	}
}

// checkLloydFixedPoint checks that every row is labelled with its nearest
// centroid and that the inertia matches the labels.
func checkLloydFixedPoint(t *testing.T, x []float64, n, d int, res *KMeansResult) {
	t.Helper()
	k := len(res.Centroids) / d
	var inertia float64
	for i := range n {
		xi := x[i*d : i*d+d]
		own := SqDist(xi, res.Centroids[res.Labels[i]*d:res.Labels[i]*d+d])
		inertia += own
		for j := range k {
			// 1e-9 relative slack for the Gram-form distances of assign.
			if o := SqDist(xi, res.Centroids[j*d:j*d+d]); o < own*(1-1e-9)-1e-12 {
				t.Fatalf("row %d labelled %d at squared distance %v, but centroid %d is at %v", i, res.Labels[i], own, j, o)
			}
		}
	}
	if math.Abs(inertia-res.Inertia) > 1e-9*inertia {
		t.Errorf("Inertia = %v, want Σ‖x−c‖² = %v", res.Inertia, inertia)
	}
}

func TestKMeansSmallExact(t *testing.T) {
	// 1-D: {1,2,3} and {10,11,12}: centroids 2 and 11, inertia 4.
	x := []float64{1, 2, 3, 10, 11, 12}
	res, err := KMeans(context.Background(), x, 6, 1, KMeansConfig{K: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	c := []float64{res.Centroids[res.Labels[0]], res.Centroids[res.Labels[5]]}
	if c[0] != 2 || c[1] != 11 || res.Inertia != 4 {
		t.Errorf("KMeans(1..3, 10..12; K=2) centroids %v inertia %v, want [2 11] and 4", c, res.Inertia)
	}
}

func TestKMeansReproducibleAcrossSchedules(t *testing.T) {
	x, _, _ := blobs(600, 6, 5, 2.5, 11) // overlapping: restarts disagree
	cfg := KMeansConfig{K: 7, NInit: 8, Seed: 42}
	var ref *KMeansResult
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		desc     string
		maxprocs int
		workers  int
	}{
		{"GOMAXPROCS=1", 1, 0}, {"GOMAXPROCS=2", 2, 0}, {"GOMAXPROCS=4 workers=8", 4, 8}, {"workers=1", 2, 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			runtime.GOMAXPROCS(tc.maxprocs)
			c := cfg
			c.Workers = tc.workers
			res, err := KMeans(context.Background(), x, 600, 6, c)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				return
			}
			if res.Inertia != ref.Inertia || res.Restart != ref.Restart || !slices.Equal(res.Labels, ref.Labels) || !slices.Equal(res.Centroids, ref.Centroids) {
				t.Errorf("KMeans under %s = (inertia %v, restart %d), want bit-identical (inertia %v, restart %d)", tc.desc, res.Inertia, res.Restart, ref.Inertia, ref.Restart)
			}
		})
	}
}

func TestKMeansBestOfRestarts(t *testing.T) {
	x, _, _ := blobs(400, 4, 6, 2, 5)
	best, err := KMeans(context.Background(), x, 400, 4, KMeansConfig{K: 6, NInit: 6, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	// Restart r alone is the 1-restart run with stream r, which a config
	// cannot select; check instead that more restarts never do worse.
	one, err := KMeans(context.Background(), x, 400, 4, KMeansConfig{K: 6, NInit: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if best.Inertia > one.Inertia {
		t.Errorf("KMeans(NInit=6).Inertia = %v, want ≤ KMeans(NInit=1).Inertia = %v", best.Inertia, one.Inertia)
	}
}

func TestKMeansEmptyClusterReseeded(t *testing.T) {
	// Two tight groups; initial centroid 2 is far from every row, so the
	// first assign leaves it empty and it must be re-seeded.
	x := []float64{0, 0, 0.1, 0, 0, 0.1, 5, 5, 5.1, 5, 5, 5.1}
	cfg := KMeansConfig{K: 3, Centroids: []float64{0, 0, 5, 5, 100, 100}}
	res, err := KMeans(context.Background(), x, 6, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 3)
	for _, l := range res.Labels {
		counts[l]++
	}
	for j, c := range counts {
		if c == 0 {
			t.Errorf("cluster %d is empty after KMeans, labels %v", j, res.Labels)
		}
	}
	checkLloydFixedPoint(t, x, 6, 2, res)
}

func TestKMeansDuplicateRows(t *testing.T) {
	// Fewer distinct rows than clusters must not panic or loop.
	x := []float64{1, 1, 1, 1, 2, 2, 2, 2}
	res, err := KMeans(context.Background(), x, 4, 2, KMeansConfig{K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inertia != 0 {
		t.Errorf("KMeans(duplicates).Inertia = %v, want 0", res.Inertia)
	}
}

func TestKMeansValidation(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	for _, tc := range []struct {
		desc    string
		x       []float64
		n, d    int
		cfg     KMeansConfig
		wantErr error
	}{
		{"K=0", x, 3, 2, KMeansConfig{K: 0}, ErrInvalidConfig},
		{"negative NInit", x, 3, 2, KMeansConfig{K: 2, NInit: -1}, ErrInvalidConfig},
		{"negative MaxIter", x, 3, 2, KMeansConfig{K: 2, MaxIter: -3}, ErrInvalidConfig},
		{"NaN Tol", x, 3, 2, KMeansConfig{K: 2, Tol: math.NaN()}, ErrInvalidConfig},
		{"negative Tol", x, 3, 2, KMeansConfig{K: 2, Tol: -1e-4}, ErrInvalidConfig},
		{"Inf Tol", x, 3, 2, KMeansConfig{K: 2, Tol: math.Inf(1)}, ErrInvalidConfig},
		{"negative Workers", x, 3, 2, KMeansConfig{K: 2, Workers: -1}, ErrInvalidConfig},
		{"K > n", x, 3, 2, KMeansConfig{K: 4}, ErrInvalidData},
		{"n = 0", nil, 0, 2, KMeansConfig{K: 1}, ErrInvalidData},
		{"d = 0", nil, 3, 0, KMeansConfig{K: 1}, ErrInvalidData},
		{"short x", x[:5], 3, 2, KMeansConfig{K: 2}, ErrInvalidData},
		{"NaN in x", []float64{0, 1, math.NaN(), 3, 4, 5}, 3, 2, KMeansConfig{K: 2}, ErrInvalidData},
		{"Inf in x", []float64{0, 1, 2, 3, 4, math.Inf(-1)}, 3, 2, KMeansConfig{K: 2}, ErrInvalidData},
		{"centroids shape", x, 3, 2, KMeansConfig{K: 2, Centroids: []float64{1, 2, 3}}, ErrInvalidData},
		{"NaN centroid", x, 3, 2, KMeansConfig{K: 1, Centroids: []float64{1, math.NaN()}}, ErrInvalidData},
		{"valid", x, 3, 2, KMeansConfig{K: 3}, nil},
		{"valid explicit", x, 3, 2, KMeansConfig{K: 1, NInit: 2, MaxIter: 5, Tol: 1e-6, Workers: 1}, nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := KMeans(context.Background(), tc.x, tc.n, tc.d, tc.cfg)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("KMeans(%s) error = %v, want %v", tc.desc, err, tc.wantErr)
			}
		})
	}
}

func TestKMeansCancelled(t *testing.T) {
	x, _, _ := blobs(200, 3, 3, 5, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := KMeans(ctx, x, 200, 3, KMeansConfig{K: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("KMeans(cancelled ctx) error = %v, want context.Canceled", err)
	}
}

func TestLloydStepAllocatesNothing(t *testing.T) {
	x, _, _ := blobs(500, 8, 6, 3, 2)
	xc, _ := centerColumns(x, 500, 8)
	w := newLloyd(xc, rowNorms(xc, 500, 8), 500, 8, 6)
	kmeansPlusPlus(w.centers, xc, 500, 8, 6, rand.New(rand.NewPCG(1, 0)))
	if a := testing.AllocsPerRun(20, func() { w.assign(); w.update() }); a != 0 {
		t.Errorf("assign+update allocates %v times per run, want 0", a)
	}
}

// plainLloyd runs unpruned Lloyd iterations (assign, update) from the
// centroids in w until no label changes or maxIter, as a reference for
// runHamerly; it returns the number of iterations.
func plainLloyd(w *lloyd, maxIter int) int {
	prev := make([]int, w.n)
	for i := range prev {
		prev[i] = -1
	}
	for it := 1; it <= maxIter; it++ {
		w.assign()
		same := slices.Equal(prev, w.labels)
		copy(prev, w.labels)
		w.update()
		if same {
			return it
		}
	}
	w.assign()
	return maxIter
}

func TestHamerlyMatchesPlainLloyd(t *testing.T) {
	// Overlapping blobs: many rows change cluster over many iterations, so
	// the bounds are exercised; the pruned run must follow the same path.
	for _, seed := range []uint64{1, 2, 3} {
		x, _, _ := blobs(900, 6, 7, 1.5, seed)
		xc, _ := centerColumns(x, 900, 6)
		xn := rowNorms(xc, 900, 6)
		a, b := newLloyd(xc, xn, 900, 6, 9), newLloyd(xc, xn, 900, 6, 9)
		kmeansPlusPlus(a.centers, xc, 900, 6, 9, rand.New(rand.NewPCG(seed, 0)))
		copy(b.centers, a.centers)
		wantIters := plainLloyd(a, 300)
		gotIters, conv, err := b.runHamerly(context.Background(), 300, 1e-300)
		if err != nil || !conv {
			t.Fatalf("runHamerly(seed %d) = %v, %v, want converged", seed, conv, err)
		}
		if gotIters != wantIters || !slices.Equal(a.labels, b.labels) || !slices.Equal(a.centers, b.centers) {
			t.Errorf("runHamerly(seed %d): %d iterations, labels equal %v, centroids equal %v; want %d iterations, equal", seed, gotIters, slices.Equal(a.labels, b.labels), slices.Equal(a.centers, b.centers), wantIters)
		}
	}
}

func TestHamerlyAssignAllocatesNothing(t *testing.T) {
	x, _, _ := blobs(500, 8, 6, 2, 2)
	xc, _ := centerColumns(x, 500, 8)
	w := newLloyd(xc, rowNorms(xc, 500, 8), 500, 8, 6)
	kmeansPlusPlus(w.centers, xc, 500, 8, 6, rand.New(rand.NewPCG(1, 0)))
	h := newHamerly(500, 6, 8)
	h.prepare(w)
	for i := range 500 {
		w.scan(h, i)
	}
	if a := testing.AllocsPerRun(20, func() { w.hamerlyAssign(h); w.update(); w.shiftBounds(h) }); a != 0 {
		t.Errorf("hamerlyAssign+update+shiftBounds allocates %v times per run, want 0", a)
	}
}
