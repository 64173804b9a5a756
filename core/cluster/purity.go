package cluster

import (
	"math"

	"github.com/dpscope/dpscope/internal/errkind"
)

// DefaultPurityNeighbours is the default k of NeighbourhoodPurity.
const DefaultPurityNeighbours = 15

// NeighbourhoodPurity returns the mean over rows of the fraction of each
// row's k nearest neighbours (Euclidean, itself excluded, ties broken by
// lower row index) that share its label:
//
//	P = (1/m) Σ_i |{j ∈ kNN(i) : l(j) = l(i)}| / k.
//
// k = 0 selects DefaultPurityNeighbours (15). Rows with a negative label are
// excluded, both as scored rows and as neighbours. Rows are scored exactly
// or on a sample by the policy of SilhouetteExactLimit, neighbours always
// searched among all labelled rows (brute force in GEMM blocks, O(m·n·d)).
//
// It returns an error if x is not n×d and finite, len(labels) ≠ n, no row
// is labelled (wrapping ErrNoLabelledRows), k < 0, or k ≥ the number of
// labelled rows.
func NeighbourhoodPurity(x []float64, n, d int, labels []int, k int) (float64, error) {
	if k == 0 {
		k = DefaultPurityNeighbours
	}
	if k < 0 {
		return 0, errkind.Wrapf(ErrInvalidConfig, "cluster: k is %d, must be ≥ 0 (0 for %d)", k, DefaultPurityNeighbours)
	}
	p, err := newPointSet(x, n, d, labels)
	if err != nil {
		return 0, err
	}
	if k >= p.n {
		return 0, errkind.Wrapf(ErrInvalidData, "cluster: k is %d, must be < number of labelled rows %d", k, p.n)
	}
	anchors := p.anchors()
	frac := make([]float64, len(anchors))
	workers := distWorkers(len(anchors), p.n)
	bestD := make([]float64, workers*k)
	bestI := make([]int, workers*k)
	p.forDistances(anchors, func(w, a int, d2 []float64) {
		self := anchors[a]
		bd, bi := bestD[w*k:w*k+k], bestI[w*k:w*k+k]
		for t := range bd {
			bd[t], bi[t] = math.Inf(1), -1
		}
		for j, v := range d2 {
			// Strict < keeps the lower index on ties: j increases.
			if j == self || v >= bd[k-1] {
				continue
			}
			t := k - 1
			for t > 0 && bd[t-1] > v {
				bd[t], bi[t] = bd[t-1], bi[t-1]
				t--
			}
			bd[t], bi[t] = v, j
		}
		same := 0
		for _, j := range bi {
			if p.labels[j] == p.labels[self] {
				same++
			}
		}
		frac[a] = float64(same) / float64(k)
	})
	var total float64
	for _, v := range frac {
		total += v
	}
	return total / float64(len(frac)), nil
}
