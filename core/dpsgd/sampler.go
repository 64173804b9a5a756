package dpsgd

import (
	crand "crypto/rand"
	"math"
	"math/rand/v2"
)

// sampler draws batches of record indices into a buffer it owns.
type sampler struct {
	n    int
	perm []int // Shuffled: the current permutation
	pos  int   // Shuffled: next unused position in perm
	buf  []int
}

func newSampler(n int) *sampler {
	return &sampler{n: n, buf: make([]int, 0, n), perm: make([]int, n), pos: n}
}

// batchSize is the Shuffled batch size round(q·N), at least 1.
func batchSize(q float64, n int) int { return max(1, int(math.Round(q*float64(n)))) }

// next returns the next batch, sorted ascending for Poisson batches. The
// slice is reused by the following call.
func (s *sampler) next(b Batching, q float64, rng *rand.Rand) []int {
	if b == Shuffled {
		size := batchSize(q, s.n)
		if s.pos+size > s.n {
			for i := range s.perm {
				s.perm[i] = i
			}
			rng.Shuffle(s.n, func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
			s.pos = 0
		}
		s.buf = append(s.buf[:0], s.perm[s.pos:s.pos+size]...)
		s.pos += size
		return s.buf
	}
	s.buf = s.buf[:0]
	for i := range s.n {
		if rng.Float64() < q {
			s.buf = append(s.buf, i)
		}
	}
	return s.buf
}

// newSource returns a PCG generator for (seed, stream), or a ChaCha8 keyed
// from crypto/rand when secure is set.
func newSource(seed, stream uint64, secure bool) rand.Source {
	if secure {
		return secureChaCha8()
	}
	return rand.NewPCG(seed, stream)
}

// secureChaCha8 returns a ChaCha8 generator keyed from crypto/rand.
func secureChaCha8() *rand.ChaCha8 {
	var key [32]byte
	crand.Read(key[:]) // never returns an error (Go ≥ 1.24): it crashes the program instead
	return rand.NewChaCha8(key)
}
