package cluster

import "math"

// ARI returns the adjusted Rand index of labelsPred against labelsTrue
// (Hubert & Arabie 1985, https://doi.org/10.1007/BF01908075), computed as
// scikit-learn's adjusted_rand_score from the ordered-pair counts:
//
//	ARI = 2(tp·tn − fn·fp) / ((tp+fn)(fn+tn) + (tp+fp)(fp+tn)),
//
// and 1 when fn = fp = 0 (the two labellings are the same partition). It is 1
// for identical partitions, about 0 for independent ones, and can be negative.
// Rows with a negative label are excluded; errors are those of
// NewContingency.
func ARI(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.ARI(), nil
}

// ARI returns the adjusted Rand index of the table (see the function ARI).
func (c *Contingency) ARI() float64 {
	tp, fp, fn, tn := c.pairCounts()
	if fn == 0 && fp == 0 {
		return 1
	}
	return 2 * (tp*tn - fn*fp) / ((tp+fn)*(fn+tn) + (tp+fp)*(fp+tn))
}

// FowlkesMallows returns the Fowlkes–Mallows index
// (https://doi.org/10.1080/01621459.1983.10478008), the geometric mean of
// pair precision and pair recall,
//
//	FMI = TP / √((TP+FP)(TP+FN)),
//
// over unordered pairs of rows, and 0 when no pair is together in both
// labellings (scikit-learn's fowlkes_mallows_score). Rows with a negative
// label are excluded; errors are those of NewContingency.
func FowlkesMallows(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.FowlkesMallows(), nil
}

// FowlkesMallows returns the Fowlkes–Mallows index of the table (see the
// function FowlkesMallows).
func (c *Contingency) FowlkesMallows() float64 {
	tp, fp, fn, _ := c.pairCounts()
	if tp == 0 {
		return 0
	}
	return math.Sqrt(tp/(tp+fp)) * math.Sqrt(tp/(tp+fn))
}

// PairJaccard returns the pair-counting Jaccard index: the number of
// unordered pairs of rows together in both labellings over the number
// together in at least one,
//
//	J = TP / (TP + FP + FN),
//
// and 1 when no pair is together in either (every row is alone in both, the
// same partition). Rows with a negative label are excluded; errors are those
// of NewContingency.
func PairJaccard(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.PairJaccard(), nil
}

// PairJaccard returns the pair-counting Jaccard index of the table (see the
// function PairJaccard).
func (c *Contingency) PairJaccard() float64 {
	tp, fp, fn, _ := c.pairCounts()
	if tp+fp+fn == 0 {
		return 1
	}
	return tp / (tp + fp + fn)
}
