package cluster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWeightedKMeans: three heavy points far apart among light ones are
// the centres weighted k-means++ and Lloyd find, and Nearest assigns to
// them; a point of weight zero never moves a centre.
func TestWeightedKMeans(t *testing.T) {
	pts := []float64{0, 0, 10, 0, 0, 10, 0.1, 0, 10.1, 0, 0, 10.1, 100, 100}
	w := []float64{5, 5, 5, 1, 1, 1, 0}
	c := WeightedPlusPlus(pts, w, 2, 3, rand.New(rand.NewPCG(1, 2)))
	if len(c) != 6 {
		t.Fatalf("%d values, want 3 centres of 2", len(c))
	}
	cost := WeightedLloyd(pts, w, 2, c, 10)
	want := [][2]float64{{0.1 / 6, 0}, {10 + 0.1/6, 0}, {0, 10 + 0.1/6}}
	for _, p := range want {
		j := Nearest(p[:], c, 2)
		if math.Abs(c[2*j]-p[0]) > 1e-9 || math.Abs(c[2*j+1]-p[1]) > 1e-9 {
			t.Errorf("centre near %v is %v", p, c[2*j:2*j+2])
		}
	}
	// Each group: 5·(1/60)² + 1·(5/60)², three groups.
	if wantCost := 3 * (5*math.Pow(0.1/6, 2) + math.Pow(0.5/6, 2)); math.Abs(cost-wantCost) > 1e-12 {
		t.Errorf("cost %v, want %v", cost, wantCost)
	}
}

// TestValuesRng: the stream is a function of the values' bits and the
// stream number only: the same values give the same draws, and changing
// one value's last bit, splitting the values differently across slices
// (the bytes hashed stay the same, so the draws do too), or the stream
// number gives other draws where it should.
func TestValuesRng(t *testing.T) {
	draw := func(r interface{ Uint64() uint64 }) [4]uint64 {
		var d [4]uint64
		for i := range d {
			d[i] = r.Uint64()
		}
		return d
	}
	a, b := []float64{1.5, -2, 3e-300}, []float64{7}
	base := draw(ValuesRng(1, a, b))
	if got := draw(ValuesRng(1, a, b)); got != base {
		t.Fatalf("same values, other draws: %v, %v", got, base)
	}
	if got := draw(ValuesRng(1, []float64{1.5, -2}, []float64{3e-300, 7})); got != base {
		t.Errorf("the same bytes split otherwise gave other draws")
	}
	if got := draw(ValuesRng(2, a, b)); got == base {
		t.Errorf("stream 2 gave stream 1's draws")
	}
	c := append([]float64(nil), a...)
	c[2] = math.Float64frombits(math.Float64bits(c[2]) ^ 1)
	if got := draw(ValuesRng(1, c, b)); got == base {
		t.Errorf("a value's last bit changed nothing")
	}
}

// TestBestOfStarts: with no extra runs it keeps the lowest inertia of the
// N runs drawn from Rng; extra runs read Rng exactly as the N alone (its
// next draw is the same), never end at a higher inertia, and on random
// sets of weighted points find a strictly lower one somewhere.
func TestBestOfStarts(t *testing.T) {
	lower := 0
	for set := range uint64(10) {
		r := rand.New(rand.NewPCG(set, 7))
		const m, q, k = 30, 3, 6
		pts, w := make([]float64, m*q), make([]float64, m)
		for i := range pts {
			pts[i] = r.NormFloat64()
		}
		for i := range w {
			w[i] = 1 + 9*r.Float64()
		}
		// The N runs by hand.
		hand := rand.New(rand.NewPCG(set, 8))
		wantCost := math.Inf(1)
		for range 10 {
			c := WeightedPlusPlus(pts, w, q, k, hand)
			wantCost = min(wantCost, WeightedLloyd(pts, w, q, c, 5))
		}
		base := rand.New(rand.NewPCG(set, 8))
		c0, cost0 := BestOfStarts(pts, w, q, k, 5, Starts{Rng: base, N: 10})
		if cost0 != wantCost || len(c0) != k*q {
			t.Fatalf("set %d: %d values at inertia %v, want %d at %v", set, len(c0), cost0, k*q, wantCost)
		}
		more := rand.New(rand.NewPCG(set, 8))
		_, cost1 := BestOfStarts(pts, w, q, k, 5, Starts{Rng: more, N: 10, More: ValuesRng(1, pts, w), Extra: 200})
		if more.Uint64() != base.Uint64() {
			t.Fatalf("set %d: extra runs read Rng", set)
		}
		if cost1 > cost0 {
			t.Fatalf("set %d: inertia %v with extra runs, above the N runs' %v", set, cost1, cost0)
		}
		if cost1 < cost0 {
			lower++
		}
	}
	if lower == 0 {
		t.Error("200 extra runs never found a lower inertia on 10 sets")
	}
}
