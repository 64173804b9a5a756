package fed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// swapExact enumerates the K^(K−1) equally likely paths of the paper's
// swap protocol and returns the probability of every permutation reached
// (keyed by fmt of the permutation). It is an independent re-derivation of
// Algorithm 2's DecentralizedRandomization.
func swapExact(k int) map[string]float64 {
	out := map[string]float64{}
	var walk func(i int, perm []int, p float64)
	walk = func(i int, perm []int, p float64) {
		if i == k-1 {
			out[fmt.Sprint(perm)] += p
			return
		}
		for j := range k {
			q := slices.Clone(perm)
			q[i], q[j] = q[j], q[i]
			walk(i+1, q, p/float64(k))
		}
	}
	walk(0, identity(k), 1)
	return out
}

// chiSquare returns Σ (observed − expected)²/expected over the six
// permutations of 3 elements.
func chiSquare(counts map[string]int, probs map[string]float64, n int) float64 {
	s := 0.0
	for key, p := range probs {
		e := p * float64(n)
		d := float64(counts[key]) - e
		s += d * d / e
	}
	return s
}

// TestSwapProtocolK3 checks the protocol's permutation probabilities for
// K = 3 (2/9, 2/9, 2/9, 1/9, 1/9, 1/9, docs/METHODS.md §3) against
// SwapPermutation, and Fisher–Yates against the uniform 1/6, with
// Pearson's χ² test on 5 degrees of freedom at its 1 − 1e-5 quantile: each
// check falsely fails with probability 1e-5. The swap draws must also
// reject uniformity (the test has the power to tell them apart).
func TestSwapProtocolK3(t *testing.T) {
	exact := swapExact(3)
	if len(exact) != 6 {
		t.Fatalf("swap protocol reaches %d permutations, want 6", len(exact))
	}
	var twos, ones int
	for _, p := range exact {
		switch {
		case math.Abs(p-2.0/9) < 1e-12:
			twos++
		case math.Abs(p-1.0/9) < 1e-12:
			ones++
		}
	}
	if twos != 3 || ones != 3 {
		t.Fatalf("swap probabilities %v, want three of 2/9 and three of 1/9", exact)
	}
	uniform := map[string]float64{}
	for key := range exact {
		uniform[key] = 1.0 / 6
	}
	crit := distuv.ChiSquared{K: 5}.Quantile(1 - 1e-5)
	const n = 60000
	rng := rand.New(rand.NewPCG(1, 2))
	swap, fy := map[string]int{}, map[string]int{}
	for range n {
		swap[fmt.Sprint(SwapPermutation(3, rng))]++
		fy[fmt.Sprint(FisherYatesPermutation(3, rng))]++
	}
	if c := chiSquare(swap, exact, n); c > crit {
		t.Errorf("swap draws vs 2/9,1/9: χ² = %.1f > %.1f; counts %v", c, crit, swap)
	}
	if c := chiSquare(fy, uniform, n); c > crit {
		t.Errorf("Fisher–Yates draws vs uniform: χ² = %.1f > %.1f; counts %v", c, crit, fy)
	}
	if c := chiSquare(swap, uniform, n); c < crit {
		t.Errorf("swap draws look uniform: χ² = %.1f ≤ %.1f", c, crit)
	}
}

func TestPermutationsArePermutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, k := range []int{1, 2, 5, 30} {
		for _, p := range [][]int{SwapPermutation(k, rng), FisherYatesPermutation(k, rng)} {
			s := slices.Sorted(slices.Values(p))
			if !slices.Equal(s, identity(k)) {
				t.Errorf("K = %d: %v is not a permutation", k, p)
			}
		}
	}
}

// randomUpdates returns k vectors of n entries whose magnitudes span many
// orders, so that float sums depend on their order.
func randomUpdates(k, n int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 9))
	u := make([][]float32, k)
	for c := range u {
		u[c] = make([]float32, n)
		for i := range u[c] {
			u[c][i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6)))
		}
	}
	return u
}

// TestAggregateShuffleInvariant checks that "the shuffle reorders a sum;
// it does not change it" holds bit for bit for the server's aggregate,
// whatever the permutation and the number of workers, while a plain
// float32 sum in arrival order does change.
func TestAggregateShuffleInvariant(t *testing.T) {
	const k, n = 9, 20000
	u := randomUpdates(k, n, 1)
	ref := make([]float32, n)
	if err := Aggregate(context.Background(), ref, u, 1); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	naiveChanged := false
	naive := func(v [][]float32) []float32 {
		s := make([]float32, n)
		for _, x := range v {
			for i, y := range x {
				s[i] += y
			}
		}
		return s
	}
	base := naive(u)
	for trial := range 10 {
		perm := SwapPermutation(k, rng)
		if trial%2 == 1 {
			perm = FisherYatesPermutation(k, rng)
		}
		got := make([]float32, n)
		if err := Aggregate(context.Background(), got, Permute(u, perm), 1+trial%3); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ref) {
			t.Fatalf("permutation %v changed the aggregate", perm)
		}
		if !slices.Equal(naive(Permute(u, perm)), base) {
			naiveChanged = true
		}
	}
	if !naiveChanged {
		t.Errorf("no permutation changed a float32 sum in arrival order: the data do not exercise the canonical order")
	}
	for i := range n {
		want := 0.0
		for c := range k {
			want += float64(u[c][i])
		}
		if math.Abs(float64(ref[i])-want) > 1e-6*math.Abs(want)+1e-30 {
			t.Fatalf("aggregate[%d] = %g, want %g", i, ref[i], want)
		}
	}
}

func TestAggregateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	u := randomUpdates(2, 1<<16, 2)
	if err := Aggregate(ctx, make([]float32, 1<<16), u, 2); err == nil {
		t.Errorf("Aggregate on a cancelled context returned nil")
	}
}

func TestClipTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		desc  string
		scale float64
		c     float64
	}{{"far above", 100, 5}, {"just above", 1.0001, 1}, {"below", 0.01, 5}, {"tiny C", 10, 1e-3}} {
		t.Run(tc.desc, func(t *testing.T) {
			u := make([]float32, 1000)
			for i := range u {
				u[i] = float32(rng.NormFloat64())
			}
			n0 := Norm(u)
			for i := range u {
				u[i] *= float32(tc.scale * tc.c / n0)
			}
			before := slices.Clone(u)
			nb := ClipTo(u, tc.c)
			if na := Norm(u); na > tc.c {
				t.Errorf("norm after ClipTo = %.9g, want ≤ %g", na, tc.c)
			}
			if nb <= tc.c && !slices.Equal(u, before) {
				t.Errorf("a vector of norm %g ≤ C = %g was changed", nb, tc.c)
			}
			if nb > tc.c {
				cos := 0.0
				for i := range u {
					cos += float64(u[i]) * float64(before[i])
				}
				cos /= Norm(u) * Norm(before)
				if cos < 1-1e-6 {
					t.Errorf("clipping changed the direction: cos = %v", cos)
				}
			}
		})
	}
}

// TestAddNoise checks the noise's mean and variance: the sample mean of
// n draws is within 4.42·std/√n of 0, and the sample variance within
// 4.42·std²·√(2/n) of std² (normal approximations; each falsely fails
// with probability about 1e-5).
func TestAddNoise(t *testing.T) {
	const n, std = 200000, 3.0
	u := make([]float32, n)
	AddNoise(u, std, rand.New(rand.NewPCG(6, 6)))
	var m, v float64
	for _, x := range u {
		m += float64(x)
	}
	m /= n
	for _, x := range u {
		v += (float64(x) - m) * (float64(x) - m)
	}
	v /= n - 1
	if math.Abs(m) > 4.42*std/math.Sqrt(n) {
		t.Errorf("noise mean %g, want 0 ± %g", m, 4.42*std/math.Sqrt(n))
	}
	if math.Abs(v-std*std) > 4.42*std*std*math.Sqrt(2.0/n) {
		t.Errorf("noise variance %g, want %g ± %g", v, std*std, 4.42*std*std*math.Sqrt(2.0/n))
	}
}
