package neighbors

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/spatial/kdtree"

	"github.com/dpscope/dpscope/internal/errkind"
)

// maxBlockFloats bounds the distance block of a Searcher (16 MiB).
const maxBlockFloats = 1 << 21

// roundTol is the factor c of the rounding bound c·(dim + 4)·(‖q−μ‖² +
// ‖y−μ‖²) of a product distance: the dot product of length dim has error at
// most dim·u·‖q−μ‖·‖y−μ‖ (Higham, Accuracy and Stability of Numerical
// Algorithms, 2002, §3.1, u = 2⁻⁵³), and the two norms and the sum add a few
// u more. c = 2⁻⁵⁰ = 8u leaves a margin of 8.
const roundTol = 0x1p-50

// Searcher runs searches on an Index with its own scratch buffers. It is
// not safe for concurrent use; results returned by a method are valid until
// the next call on the same Searcher.
type Searcher struct {
	ix    *Index
	qc    []float64 // centred queries, block × dim
	qn    []float64 // their squared norms
	dots  []float64 // block × n
	idx   []int32
	d2    []float64
	pairs []pair
	sel   []float64
}

type pair struct {
	i  int32
	d2 float64
}

// NewSearcher returns a searcher on ix.
func (ix *Index) NewSearcher() *Searcher { return &Searcher{ix: ix} }

// block returns the number of queries a product block holds.
func (s *Searcher) block() int { return max(1, min(64, maxBlockFloats/s.ix.n)) }

// Radius returns the references in the closed ball ‖q − y‖ ≤ r, in
// increasing index order, with their squared distances. It returns an error
// wrapping ErrInput for a query of the wrong length or with a non-finite
// coordinate, or a negative or non-finite radius.
func (s *Searcher) Radius(q []float64, r float64) (idx []int32, d2 []float64, err error) {
	err = s.RadiusBatch(q, 1, r, func(_ int, i []int32, d []float64) error {
		idx, d2 = i, d
		return nil
	})
	return idx, d2, err
}

// RadiusBatch runs Radius for each of the m queries of qs (row-major
// m × dim) in order, calling fn(i, idx, d2) for query i; the slices are
// valid only during the call. With Brute it computes the distances of up to
// 64 queries with one matrix product. It stops at the first error of fn and
// returns it.
func (s *Searcher) RadiusBatch(qs []float64, m int, r float64, fn func(i int, idx []int32, d2 []float64) error) error {
	ix := s.ix
	if len(qs) != m*ix.dim {
		return errkind.Wrapf(ErrInput, "neighbors: queries have %d values, must be m·dim = %d", len(qs), m*ix.dim)
	}
	if err := checkRadius(r); err != nil {
		return err
	}
	for i := range m {
		if err := ix.checkQuery(qs[i*ix.dim : (i+1)*ix.dim]); err != nil {
			return fmt.Errorf("neighbors: query %d: %w", i, err)
		}
	}
	r2 := r * r
	if ix.method == KDTree {
		for i := range m {
			q := qs[i*ix.dim : (i+1)*ix.dim]
			keep := kdtree.NewDistKeeper(r2)
			ix.tree.NearestSet(keep, treePoint{x: q})
			s.pairs = s.pairs[:0]
			for _, c := range keep.Heap {
				s.pairs = append(s.pairs, pair{c.Comparable.(treePoint).i, c.Dist})
			}
			slices.SortFunc(s.pairs, func(a, b pair) int { return cmp.Compare(a.i, b.i) })
			idx, d2 := s.unpack(len(s.pairs))
			if err := fn(i, idx, d2); err != nil {
				return err
			}
		}
		return nil
	}
	B := s.block()
	for lo := 0; lo < m; lo += B {
		b := min(B, m-lo)
		s.products(qs[lo*ix.dim:(lo+b)*ix.dim], b)
		for t := range b {
			q := qs[(lo+t)*ix.dim : (lo+t+1)*ix.dim]
			s.idx, s.d2 = s.idx[:0], s.d2[:0]
			qn := s.qn[t]
			for j, dot := range s.dots[t*ix.n : (t+1)*ix.n] {
				d := qn + ix.norm[j] - 2*dot
				tol := roundTol * float64(ix.dim+4) * (qn + ix.norm[j])
				if d > r2+tol {
					continue
				}
				if d >= r2-tol {
					if d = ix.exactDist2(q, j); d > r2 {
						continue
					}
				}
				s.idx = append(s.idx, int32(j))
				s.d2 = append(s.d2, max(d, 0))
			}
			if err := fn(lo+t, s.idx, s.d2); err != nil {
				return err
			}
		}
	}
	return nil
}

// products fills s.dots (b × n) with (q_t − μ)·(y_j − μ) and s.qn with
// ‖q_t − μ‖².
func (s *Searcher) products(qs []float64, b int) {
	ix := s.ix
	s.qc = grow(s.qc, b*ix.dim)
	s.qn = grow(s.qn, b)
	s.dots = grow(s.dots, b*ix.n)
	for t := range b {
		var nn float64
		for j := range ix.dim {
			v := qs[t*ix.dim+j] - ix.mean[j]
			s.qc[t*ix.dim+j] = v
			nn += v * v
		}
		s.qn[t] = nn
	}
	if b == 1 {
		ix.blas.Dgemv(blas.NoTrans, ix.n, ix.dim, 1, ix.cen, ix.dim, s.qc, 1, 0, s.dots, 1)
		return
	}
	ix.blas.Dgemm(blas.NoTrans, blas.Trans, b, ix.n, ix.dim, 1, s.qc, ix.dim, ix.cen, ix.dim, 0, s.dots, ix.n)
}

// KNN returns the k nearest references of q ordered by increasing distance
// (ties by index), with their squared distances. It returns an error
// wrapping ErrInput when k is not in [1, Len()] or q is invalid.
func (s *Searcher) KNN(q []float64, k int) (idx []int32, d2 []float64, err error) {
	ix := s.ix
	if k < 1 || k > ix.n {
		return nil, nil, errkind.Wrapf(ErrInput, "neighbors: k is %d, must be in [1, %d]", k, ix.n)
	}
	if err := ix.checkQuery(q); err != nil {
		return nil, nil, err
	}
	s.pairs = s.pairs[:0]
	if ix.method == KDTree {
		// The k nearest, then every reference tied with the k-th, so that
		// ties are broken by index as in the brute route.
		keep := kdtree.NewNKeeper(k)
		ix.tree.NearestSet(keep, treePoint{x: q})
		kth := 0.0
		for _, c := range keep.Heap {
			kth = max(kth, c.Dist)
		}
		all := kdtree.NewDistKeeper(kth)
		ix.tree.NearestSet(all, treePoint{x: q})
		for _, c := range all.Heap {
			s.pairs = append(s.pairs, pair{c.Comparable.(treePoint).i, c.Dist})
		}
	} else {
		s.products(q, 1)
		qn := s.qn[0]
		s.sel = grow(s.sel, ix.n)
		maxNorm := 0.0
		for j, dot := range s.dots[:ix.n] {
			s.sel[j] = qn + ix.norm[j] - 2*dot
			maxNorm = max(maxNorm, ix.norm[j])
		}
		s.dots = append(s.dots[:0], s.sel[:ix.n]...) // keep the values; sel is reordered
		kth := quickSelect(s.sel[:ix.n], k-1)
		tol := roundTol * float64(ix.dim+4) * (qn + maxNorm)
		for j, d := range s.dots[:ix.n] {
			if d <= kth+2*tol {
				s.pairs = append(s.pairs, pair{int32(j), ix.exactDist2(q, j)})
			}
		}
	}
	slices.SortFunc(s.pairs, func(a, b pair) int {
		if c := cmp.Compare(a.d2, b.d2); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	idx, d2 = s.unpack(min(k, len(s.pairs)))
	return idx, d2, nil
}

// unpack copies the first k pairs into s.idx and s.d2.
func (s *Searcher) unpack(k int) ([]int32, []float64) {
	s.idx, s.d2 = s.idx[:0], s.d2[:0]
	for _, p := range s.pairs[:k] {
		s.idx = append(s.idx, p.i)
		s.d2 = append(s.d2, p.d2)
	}
	return s.idx, s.d2
}

// quickSelect reorders v so that v[k] is the value it would hold if sorted
// and returns it (Hoare's selection with a median-of-three pivot).
func quickSelect(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// grow returns s with length n, reallocating only when it is too short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
