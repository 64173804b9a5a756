package cluster

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestSilhouetteAgainstScikitLearn(t *testing.T) {
	// Values computed by scikit-learn 1.2.1 silhouette_score (refs README).
	for _, row := range readRefCSV(t, "silhouette.csv") {
		t.Run("case "+row["case"], func(t *testing.T) {
			n, d := int(parseFloat(t, row["n"])), int(parseFloat(t, row["d"]))
			labels, x := parseInts(t, row["labels"]), parseFloats(t, row["x"])
			got, err := Silhouette(x, n, d, labels)
			if err != nil {
				t.Fatal(err)
			}
			if want := parseFloat(t, row["silhouette"]); !scalar.EqualWithinAbsOrRel(got, want, 0, refTol) {
				t.Errorf("Silhouette(case %s) = %.17g, want %.17g", row["case"], got, want)
			}
		})
	}
}

// bruteSilhouette returns the per-row silhouettes of the labelled rows by
// the definition, with directly computed distances.
func bruteSilhouette(x []float64, n, d int, labels []int) []float64 {
	var s []float64
	for i := range n {
		if labels[i] < 0 {
			continue
		}
		sums, sizes := map[int]float64{}, map[int]int{}
		for j := range n {
			if labels[j] < 0 {
				continue
			}
			sizes[labels[j]]++
			if j != i {
				sums[labels[j]] += math.Sqrt(SqDist(x[i*d:i*d+d], x[j*d:j*d+d]))
			}
		}
		own := labels[i]
		if sizes[own] == 1 {
			s = append(s, 0)
			continue
		}
		a, b := sums[own]/float64(sizes[own]-1), math.Inf(1)
		for c, sz := range sizes {
			if c != own {
				b = min(b, sums[c]/float64(sz))
			}
		}
		s = append(s, (b-a)/max(a, b))
	}
	return s
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestSilhouetteBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	for _, tc := range []struct {
		desc    string
		n, d, k int
	}{
		{"singletons possible", 12, 2, 5}, {"n=300 d=3 k=4", 300, 3, 4}, {"n=257 d=7 k=2", 257, 7, 2},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			x := make([]float64, tc.n*tc.d)
			for i := range x {
				x[i] = rng.NormFloat64() + 100 // offset: exercises the centring
			}
			labels := make([]int, tc.n)
			for i := range labels {
				labels[i] = rng.IntN(tc.k+1) - 1 // about 1 in k+1 unknown
			}
			labels[0], labels[1], labels[2] = 0, 1, 1
			got, err := Silhouette(x, tc.n, tc.d, labels)
			if err != nil {
				t.Fatal(err)
			}
			// Direct and Gram-form distances differ by rounding only.
			if want := mean(bruteSilhouette(x, tc.n, tc.d, labels)); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-10) {
				t.Errorf("Silhouette = %.17g, want %.17g", got, want)
			}
		})
	}
}

func TestSilhouetteSample(t *testing.T) {
	x, _, _ := blobs(1000, 3, 4, 2, 6)
	labels := make([]int, 1000)
	for i := range labels {
		labels[i] = i % 4
	}
	all := bruteSilhouette(x, 1000, 3, labels)
	exact := mean(all)
	full, err := SilhouetteSample(x, 1000, 3, labels, 5000, rand.New(rand.NewPCG(1, 0)))
	if err != nil || !scalar.EqualWithinAbsOrRel(full, exact, 1e-12, 1e-10) {
		t.Errorf("SilhouetteSample(m ≥ n) = %v, %v, want %v", full, err, exact)
	}
	// m = 200 of 1000 without replacement: standard error
	// sd·√((1 − m/n)/m); 4.42 of them falsely fail with probability ~1e-5.
	var v float64
	for _, s := range all {
		v += (s - exact) * (s - exact)
	}
	se := math.Sqrt(v/999) * math.Sqrt((1-0.2)/200)
	got, err := SilhouetteSample(x, 1000, 3, labels, 200, rand.New(rand.NewPCG(2, 0)))
	if err != nil || math.Abs(got-exact) > 4.42*se {
		t.Errorf("SilhouetteSample(m=200) = %v, %v, want %v ± %v", got, err, exact, 4.42*se)
	}
}

func TestAnchorsPolicy(t *testing.T) {
	for _, tc := range []struct {
		desc string
		n    int
		want int
	}{
		{"at limit", SilhouetteExactLimit, SilhouetteExactLimit},
		{"above limit", SilhouetteExactLimit + 1, SilhouetteSampleSize},
		{"far above", 50000, SilhouetteSampleSize},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			a := (&pointSet{n: tc.n}).anchors()
			if len(a) != tc.want || !sort.IntsAreSorted(a) || a[len(a)-1] >= tc.n {
				t.Errorf("anchors(n=%d): %d rows, want %d sorted distinct rows < n", tc.n, len(a), tc.want)
			}
			for i := 1; i < len(a); i++ {
				if a[i] == a[i-1] {
					t.Fatalf("anchors(n=%d) repeats row %d", tc.n, a[i])
				}
			}
		})
	}
}

func TestSilhouetteErrors(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	for _, tc := range []struct {
		desc    string
		x       []float64
		labels  []int
		wantErr error
	}{
		{"one cluster", x, []int{0, 0, 0, 0}, ErrInvalidData},
		{"all singletons", x, []int{0, 1, 2, 3}, ErrInvalidData},
		{"labels length", x, []int{0, 1}, ErrInvalidData},
		{"NaN", []float64{0, math.NaN(), 2, 3}, []int{0, 0, 1, 1}, ErrInvalidData},
		{"all unknown", x, []int{-1, -1, -1, -1}, ErrNoLabelledRows},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := Silhouette(tc.x, 4, 1, tc.labels); !errors.Is(err, tc.wantErr) {
				t.Errorf("Silhouette(%s) error = %v, want %v", tc.desc, err, tc.wantErr)
			}
		})
	}
}

// brutePurity is NeighbourhoodPurity by the definition, with a full sort.
func brutePurity(x []float64, n, d int, labels []int, k int) float64 {
	var fr []float64
	for i := range n {
		if labels[i] < 0 {
			continue
		}
		var js []int
		for j := range n {
			if j != i && labels[j] >= 0 {
				js = append(js, j)
			}
		}
		sort.SliceStable(js, func(a, b int) bool {
			return SqDist(x[i*d:i*d+d], x[js[a]*d:js[a]*d+d]) < SqDist(x[i*d:i*d+d], x[js[b]*d:js[b]*d+d])
		})
		same := 0
		for _, j := range js[:k] {
			if labels[j] == labels[i] {
				same++
			}
		}
		fr = append(fr, float64(same)/float64(k))
	}
	return mean(fr)
}

func TestNeighbourhoodPurity(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	// Continuous coordinates: no distance ties, so rounding of the
	// Gram-form distances cannot reorder neighbours.
	const n, d = 200, 2
	x := make([]float64, n*d)
	labels := make([]int, n)
	for i := range n {
		x[i*d], x[i*d+1] = rng.NormFloat64(), rng.NormFloat64()
		labels[i] = rng.IntN(4) - 1
	}
	for _, k := range []int{1, 5, 15} {
		got, err := NeighbourhoodPurity(x, n, d, labels, k)
		want := brutePurity(x, n, d, labels, k)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("NeighbourhoodPurity(k=%d) = %v, %v, want %v", k, got, err, want)
		}
	}
	// Exact ties, broken by lower index: on a line symmetric about 0 (so
	// the centring is exact) rows 1, 2, 3 each have two neighbours at
	// distance 1. With k = 1 and labels 0 1 1 0 0, lower-index tie-breaking
	// matches for rows 2 and 4 (0.4); higher-index would give 0.6.
	tie := []float64{-2, -1, 0, 1, 2}
	if got, err := NeighbourhoodPurity(tie, 5, 1, []int{0, 1, 1, 0, 0}, 1); err != nil || got != 0.4 {
		t.Errorf("NeighbourhoodPurity(ties, k=1) = %v, %v, want 0.4", got, err)
	}
	xb, truth, _ := blobs(300, 3, 3, 20, 2)
	if got, err := NeighbourhoodPurity(xb, 300, 3, truth, 0); err != nil || got != 1 {
		t.Errorf("NeighbourhoodPurity(separated blobs) = %v, %v, want 1", got, err)
	}
	for _, tc := range []struct {
		desc string
		k    int
	}{{"negative k", -1}, {"k = n", 4}} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := NeighbourhoodPurity([]float64{0, 1, 2, 3}, 4, 1, []int{0, 0, 1, 1}, tc.k); err == nil {
				t.Errorf("NeighbourhoodPurity(k=%d, n=4) = nil error, want an error", tc.k)
			}
		})
	}
}

func TestSilhouetteIndependentOfGOMAXPROCS(t *testing.T) {
	// Blocks of anchors are fixed and each anchor's sum runs in row order,
	// so the result is bit-identical for any number of workers.
	x, _, _ := blobs(700, 5, 4, 2, 12)
	labels := make([]int, 700)
	for i := range labels {
		labels[i] = (i * 7) % 5
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var refS, refP float64
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		s, err := Silhouette(x, 700, 5, labels)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NeighbourhoodPurity(x, 700, 5, labels, 10)
		if err != nil {
			t.Fatal(err)
		}
		if procs == 1 {
			refS, refP = s, p
			continue
		}
		if s != refS || p != refP {
			t.Errorf("GOMAXPROCS=%d: Silhouette, NeighbourhoodPurity = %v, %v, want %v, %v", procs, s, p, refS, refP)
		}
	}
}
