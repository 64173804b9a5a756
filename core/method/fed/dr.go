package fed

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/dpscope/dpscope/core/safe"
)

// ClipTo scales u in place to ℓ2 norm at most c, u ← u / max(1, ‖u‖/c)
// (PPML-Omics Algorithm 1, line 5), and returns the norm before clipping,
// accumulated in float64.
func ClipTo(u []float32, c float64) float64 {
	s := 0.0
	for _, v := range u {
		s += float64(v) * float64(v)
	}
	norm := math.Sqrt(s)
	if norm > c {
		f := float32(c / norm)
		for i := range u {
			u[i] *= f
		}
		// float32 rounding can leave the norm a hair above c
		for Norm(u) > c {
			for i := range u {
				u[i] *= 1 - 1e-6
			}
		}
	}
	return norm
}

// Norm returns ‖u‖₂, accumulated in float64.
func Norm(u []float32) float64 {
	s := 0.0
	for _, v := range u {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// AddNoise adds independent N(0, std²) noise to every entry of u, drawn
// from rng. It does nothing when std is 0.
func AddNoise(u []float32, std float64, rng *rand.Rand) {
	if std == 0 {
		return
	}
	for i := range u {
		u[i] += float32(std * rng.NormFloat64())
	}
}

// SwapPermutation returns the permutation of PPML-Omics' decentralized
// randomization (Algorithm 2, DecentralizedRandomization): starting from
// the identity, for i = 1…K−1 (0-based 0…K−2) a partner j is drawn
// uniformly from all K clients and the updates held by i and j are
// exchanged. perm[k] is the original owner of the update client k uploads.
// It is not uniform over permutations: its K^(K−1) equally likely paths
// cannot spread evenly over K! permutations, and for K = 3 three of the six
// permutations have probability 2/9 and the other three 1/9.
func SwapPermutation(k int, rng *rand.Rand) []int {
	perm := identity(k)
	for i := 0; i < k-1; i++ {
		j := rng.IntN(k)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// FisherYatesPermutation returns a uniformly random permutation of
// 0…K−1 (Fisher–Yates / Durstenfeld).
func FisherYatesPermutation(k int, rng *rand.Rand) []int {
	perm := identity(k)
	for i := k - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

func identity(k int) []int {
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	return p
}

// Permute returns the updates in the order perm gives them: out[k] =
// u[perm[k]]. The slices are shared, not copied.
func Permute(u [][]float32, perm []int) [][]float32 {
	out := make([][]float32, len(u))
	for k, p := range perm {
		out[k] = u[p]
	}
	return out
}

// canonicalOrder returns the indices of u sorted by the vectors' contents
// (lexicographically by value, then by bit pattern), so that an aggregate
// summed in this order depends on the multiset of updates only, not on the
// order they arrived in.
func canonicalOrder(u [][]float32) []int {
	idx := identity(len(u))
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := u[a], u[b]
		for i := range x {
			if x[i] != y[i] {
				if x[i] < y[i] {
					return -1
				}
				return 1
			}
			if bx, by := math.Float32bits(x[i]), math.Float32bits(y[i]); bx != by {
				if bx < by {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	return idx
}

// Aggregate writes dst = Σ_k u_k, summed per entry in float64 in a
// canonical order of the updates (sorted by content), and rounded to
// float32 once. The result is therefore exactly the same for any order of
// u: a shuffle of the updates (PPML-Omics' DR) changes nothing. The entries
// are split into blocks summed on up to workers goroutines; each entry's
// sum is computed by one goroutine in the same order, so the result does
// not depend on workers either. Every u_k must have len(dst) entries.
func Aggregate(ctx context.Context, dst []float32, u [][]float32, workers int) error {
	order := canonicalOrder(u)
	const block = 1 << 12
	nb := (len(dst) + block - 1) / block
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range min(max(1, workers), nb) {
		g.Go(safe.Func(func() error {
			acc := make([]float64, block)
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				lo, hi := b*block, min((b+1)*block, len(dst))
				a := acc[:hi-lo]
				clear(a)
				for _, k := range order {
					for i, v := range u[k][lo:hi] {
						a[i] += float64(v)
					}
				}
				for i, v := range a {
					dst[lo+i] = float32(v)
				}
			}
		}))
	}
	return g.Wait()
}
