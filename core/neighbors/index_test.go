package neighbors

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// naiveRadius is the double-loop reference: indices with Σ(q−y)² ≤ r².
func naiveRadius(pts []float64, n, dim int, q []float64, r float64) []int32 {
	var out []int32
	for i := range n {
		var s float64
		for j := range dim {
			d := q[j] - pts[i*dim+j]
			s += d * d
		}
		if s <= r*r {
			out = append(out, int32(i))
		}
	}
	return out
}

func naiveKNN(pts []float64, n, dim int, q []float64, k int) []int32 {
	idx := make([]int32, n)
	d2 := make([]float64, n)
	for i := range n {
		idx[i] = int32(i)
		for j := range dim {
			d := q[j] - pts[i*dim+j]
			d2[i] += d * d
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return d2[idx[a]] < d2[idx[b]] })
	return idx[:k]
}

// clustered draws n points near a curve in R^dim, plus exact duplicates and
// points placed exactly at radius r from the first query, the hard cases.
func clustered(rng *rand.Rand, n, dim int) []float64 {
	pts := make([]float64, n*dim)
	for i := range n {
		t := rng.Float64() * 2 * math.Pi
		for j := range dim {
			pts[i*dim+j] = 5 + math.Cos(t*float64(j+1)) + 0.1*rng.NormFloat64()
		}
	}
	copy(pts[dim:2*dim], pts[:dim]) // a duplicate
	return pts
}

func TestSearchMatchesDoubleLoop(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		n, dim int
		method Method
	}{
		{"kdtree R2", 500, 2, KDTree},
		{"kdtree R3", 700, 3, KDTree},
		{"brute R2", 500, 2, Brute},
		{"brute R20", 900, 20, Brute},
		{"brute R100 (several blocks)", 300, 100, Brute},
		{"auto R3", 400, 3, Auto},
		{"auto R10", 400, 10, Auto},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.dim)))
			pts := clustered(rng, tc.n, tc.dim)
			ix, err := New(pts, tc.n, tc.dim, tc.method)
			if err != nil {
				t.Fatal(err)
			}
			m := 130
			qs := clustered(rng, m, tc.dim)
			copy(qs[:tc.dim], pts[5*tc.dim:6*tc.dim]) // a query on a reference
			s := ix.NewSearcher()
			for _, r := range []float64{0, 0.3, 1.2, 4} {
				err := s.RadiusBatch(qs, m, r, func(i int, idx []int32, d2 []float64) error {
					want := naiveRadius(pts, tc.n, tc.dim, qs[i*tc.dim:(i+1)*tc.dim], r)
					if !slices.Equal(idx, want) {
						t.Errorf("r=%g query %d: RadiusBatch found %d points, want %d (sets differ)", r, i, len(idx), len(want))
					}
					for k, j := range idx {
						q := qs[i*tc.dim : (i+1)*tc.dim]
						ex := ix.exactDist2(q, int(j))
						// Product distances: rounding bound of search.go.
						if math.Abs(d2[k]-ex) > 1e-12*(1+ex) {
							t.Errorf("d2 of %d = %g, want %g", j, d2[k], ex)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			// Boundary: the radius exactly equal to a distance.
			q := qs[3*tc.dim : 4*tc.dim]
			r := math.Sqrt(ix.exactDist2(q, 7))
			got, _, err := s.Radius(q, r)
			if err != nil {
				t.Fatal(err)
			}
			if want := naiveRadius(pts, tc.n, tc.dim, q, r); !slices.Equal(got, want) {
				t.Errorf("Radius at the exact distance of point 7: %d points, want %d", len(got), len(want))
			}
			for _, k := range []int{1, 5, 40} {
				for i := range 20 {
					q := qs[i*tc.dim : (i+1)*tc.dim]
					got, _, err := s.KNN(q, k)
					if err != nil {
						t.Fatal(err)
					}
					if want := naiveKNN(pts, tc.n, tc.dim, q, k); !slices.Equal(got, want) {
						t.Errorf("KNN(query %d, %d) = %v, want %v", i, k, got, want)
					}
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good := []float64{0, 0, 1, 1}
	for _, tc := range []struct {
		desc   string
		pts    []float64
		n, dim int
	}{
		{"empty", nil, 0, 2},
		{"dim 0", good, 2, 0},
		{"length", good, 3, 2},
		{"NaN", []float64{0, math.NaN(), 1, 1}, 2, 2},
		{"Inf", []float64{0, math.Inf(1), 1, 1}, 2, 2},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := New(tc.pts, tc.n, tc.dim, Auto); !errors.Is(err, ErrInput) {
				t.Errorf("New(%s) error = %v, want ErrInput", tc.desc, err)
			}
		})
	}
	ix, err := New(good, 2, 2, Brute)
	if err != nil {
		t.Fatal(err)
	}
	s := ix.NewSearcher()
	for _, tc := range []struct {
		desc string
		q    []float64
		r    float64
		k    int
	}{
		{"short query", []float64{1}, 1, 1},
		{"NaN query", []float64{math.NaN(), 0}, 1, 1},
		{"negative radius", []float64{0, 0}, -1, 0},
		{"NaN radius", []float64{0, 0}, math.NaN(), 0},
		{"k too large", []float64{0, 0}, 1, 3},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, _, err1 := s.Radius(tc.q, tc.r)
			_, _, err2 := s.KNN(tc.q, max(tc.k, 1))
			if tc.k == 0 || tc.k == 3 {
				if tc.k == 3 && !errors.Is(err2, ErrInput) {
					t.Errorf("KNN error = %v, want ErrInput", err2)
				}
				if tc.k == 0 && !errors.Is(err1, ErrInput) {
					t.Errorf("Radius error = %v, want ErrInput", err1)
				}
				return
			}
			if !errors.Is(err1, ErrInput) || !errors.Is(err2, ErrInput) {
				t.Errorf("errors = %v, %v, want ErrInput", err1, err2)
			}
		})
	}
}
