package cluster

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrNoLabelledRows is returned (wrapped) by the metrics when no row is left
// after the rows with an unknown (negative) label are excluded.
var ErrNoLabelledRows = errors.New("cluster: no row with known labels")

// Contingency is the contingency table of two labellings of the same rows:
// Count[i*Cols+j] is the number of rows in class i of the first (true)
// labelling and cluster j of the second (predicted) one. Classes and clusters
// are numbered in increasing order of their label values, which are kept in
// TrueLabels and PredLabels. Rows with a negative label in either labelling
// are excluded (see the package doc).
type Contingency struct {
	Rows, Cols int
	Count      []int64
	// RowSum[i] is the size of class i; ColSum[j] the size of cluster j.
	RowSum, ColSum []int64
	// N is the number of rows counted, N = Σ_ij Count[i*Cols+j].
	N int64
	// TrueLabels[i] and PredLabels[j] are the label values of class i and
	// cluster j.
	TrueLabels, PredLabels []int
}

// NewContingency builds the contingency table of labelsTrue against
// labelsPred. It returns an error if the lengths differ, or one wrapping
// ErrNoLabelledRows if no row has two known labels.
func NewContingency(labelsTrue, labelsPred []int) (*Contingency, error) {
	if len(labelsTrue) != len(labelsPred) {
		return nil, fmt.Errorf("cluster: len(labelsPred) is %d, must equal len(labelsTrue) = %d", len(labelsPred), len(labelsTrue))
	}
	ti, tl := denseIndex(labelsTrue, labelsPred)
	pi, pl := denseIndex(labelsPred, labelsTrue)
	c := &Contingency{Rows: len(tl), Cols: len(pl), TrueLabels: tl, PredLabels: pl}
	c.Count = make([]int64, c.Rows*c.Cols)
	c.RowSum = make([]int64, c.Rows)
	c.ColSum = make([]int64, c.Cols)
	for r := range labelsTrue {
		i, j := ti[r], pi[r]
		if i < 0 || j < 0 {
			continue
		}
		c.Count[i*c.Cols+j]++
		c.RowSum[i]++
		c.ColSum[j]++
		c.N++
	}
	if c.N == 0 {
		return nil, errkind.Wrapf(ErrNoLabelledRows, "cluster: %d rows given, none labelled", len(labelsTrue))
	}
	return c, nil
}

// denseIndex maps each label a[r] to its rank among the distinct labels of
// the rows where both a[r] and b[r] are known (non-negative); excluded rows
// get -1. It returns the ranks and the sorted distinct labels.
func denseIndex(a, b []int) (idx []int, labels []int) {
	for r, v := range a {
		if v >= 0 && b[r] >= 0 {
			labels = append(labels, v)
		}
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	rank := make(map[int]int, len(labels))
	for i, v := range labels {
		rank[v] = i
	}
	idx = make([]int, len(a))
	for r, v := range a {
		if v >= 0 && b[r] >= 0 {
			idx[r] = rank[v]
		} else {
			idx[r] = -1
		}
	}
	return idx, labels
}

// pairCounts returns the ordered-pair counts of scikit-learn's
// pair_confusion_matrix: tp pairs together in both labellings, fp together in
// the prediction only, fn together in the truth only, tn apart in both. Each
// unordered pair is counted twice. They are float64 so that the products of
// the ARI formula cannot overflow; every count is an integer below n² and is
// exact for n < 9·10⁷.
func (c *Contingency) pairCounts() (tp, fp, fn, tn float64) {
	var sumSq, sumRow, sumCol int64
	for _, v := range c.Count {
		sumSq += v * v
	}
	for _, v := range c.RowSum {
		sumRow += v * v
	}
	for _, v := range c.ColSum {
		sumCol += v * v
	}
	n := c.N
	tp = float64(sumSq - n)
	fp = float64(sumCol - sumSq)
	fn = float64(sumRow - sumSq)
	tn = float64(n*n - sumCol - sumRow + sumSq)
	return tp, fp, fn, tn
}
