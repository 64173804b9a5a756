package cluster

// Scores holds every external clustering metric of one labelling against
// the true labels. See the functions of the same names for definitions.
type Scores struct {
	ARI, NMI, AMI             float64
	Homogeneity, Completeness float64
	FowlkesMallows            float64
	ACC, PairJaccard          float64
	// N is the number of rows scored (rows with a known label in both).
	N int
}

// Score computes all the external metrics of labelsPred against labelsTrue
// from a single contingency table. Rows with a negative label are excluded;
// errors are those of NewContingency.
func Score(labelsTrue, labelsPred []int) (Scores, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return Scores{}, err
	}
	return Scores{
		ARI:            c.ARI(),
		NMI:            c.NMI(),
		AMI:            c.AMI(),
		Homogeneity:    c.Homogeneity(),
		Completeness:   c.Completeness(),
		FowlkesMallows: c.FowlkesMallows(),
		ACC:            c.ACC(),
		PairJaccard:    c.PairJaccard(),
		N:              int(c.N),
	}, nil
}
