package cluster

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/internal/errkind"
)

// Silhouette returns the mean silhouette coefficient of the labelling of
// the n×d row-major points x, with Euclidean distances (Rousseeuw 1987,
// https://doi.org/10.1016/0377-0427(87)90125-7; scikit-learn's
// silhouette_score):
//
//	s(i) = (b(i) − a(i)) / max(a(i), b(i)),
//
// where a(i) is the mean distance from row i to the other rows of its
// cluster and b(i) the smallest mean distance from row i to the rows of
// another cluster; s(i) = 0 when i is alone in its cluster (or a = b = 0).
// Rows with a negative label are excluded. Up to SilhouetteExactLimit
// labelled rows every row is scored; above, the mean is over a fixed-seed
// sample of SilhouetteSampleSize rows scored against all rows (see
// SilhouetteExactLimit). Cost: O(m·n·d) for m scored rows, in GEMM blocks.
//
// It returns an error if x is not n×d and finite, len(labels) ≠ n, no row
// is labelled (wrapping ErrNoLabelledRows), or the number of clusters is
// not in [2, n−1].
func Silhouette(x []float64, n, d int, labels []int) (float64, error) {
	p, err := newPointSet(x, n, d, labels)
	if err != nil {
		return 0, err
	}
	if err := p.checkSilhouette(); err != nil {
		return 0, err
	}
	return p.silhouette(p.anchors()), nil
}

// SilhouetteSample returns the mean silhouette coefficient over m rows
// drawn uniformly without replacement by rng from the labelled rows, each
// scored against all labelled rows; all rows when m ≥ their number. Errors
// are those of Silhouette, and one if m < 1 or rng is nil.
func SilhouetteSample(x []float64, n, d int, labels []int, m int, rng *rand.Rand) (float64, error) {
	if m < 1 {
		return 0, errkind.Wrapf(ErrInvalidConfig, "cluster: m is %d, must be ≥ 1", m)
	}
	if rng == nil {
		return 0, errkind.Wrapf(ErrInvalidConfig, "cluster: rng is nil, must be a generator")
	}
	p, err := newPointSet(x, n, d, labels)
	if err != nil {
		return 0, err
	}
	if err := p.checkSilhouette(); err != nil {
		return 0, err
	}
	return p.silhouette(sampleRows(p.n, min(m, p.n), rng)), nil
}

func (p *pointSet) checkSilhouette() error {
	if p.k < 2 || p.k > p.n-1 {
		return errkind.Wrapf(ErrInvalidData, "cluster: number of clusters is %d, must be in [2, n−1] = [2, %d] for a silhouette", p.k, p.n-1)
	}
	return nil
}

// silhouette returns the mean of s(i) over the anchor rows.
func (p *pointSet) silhouette(anchors []int) float64 {
	s := make([]float64, len(anchors))
	k := p.k
	scratch := make([]float64, distWorkers(len(anchors), p.n)*k)
	p.forDistances(anchors, func(w, a int, d2 []float64) {
		sums := scratch[w*k : w*k+k]
		clear(sums)
		for j, v := range d2 {
			sums[p.labels[j]] += math.Sqrt(v)
		}
		own := p.labels[anchors[a]]
		if p.sizes[own] == 1 {
			s[a] = 0
			return
		}
		ai := sums[own] / float64(p.sizes[own]-1)
		bi := -1.0
		for c, v := range sums {
			if c == own {
				continue
			}
			if m := v / float64(p.sizes[c]); bi < 0 || m < bi {
				bi = m
			}
		}
		if den := max(ai, bi); den > 0 {
			s[a] = (bi - ai) / den
		}
	})
	var total float64
	for _, v := range s {
		total += v
	}
	return total / float64(len(s))
}
