package plot

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Project2D returns the first two principal components of the rows of an
// n × d matrix (row-major), the usual 2-D view of a latent space; with
// d ≤ 2 it returns the columns themselves (the second zero when d = 1).
func Project2D(data []float64, n, d int) (x, y []float64, err error) {
	if n <= 0 || d <= 0 || len(data) != n*d {
		return nil, nil, fmt.Errorf("plot: project: %d values for %d × %d", len(data), n, d)
	}
	x, y = make([]float64, n), make([]float64, n)
	if d <= 2 {
		for i := range n {
			x[i] = data[i*d]
			if d == 2 {
				y[i] = data[i*d+1]
			}
		}
		return x, y, nil
	}
	if n < 2 {
		return nil, nil, fmt.Errorf("plot: project: %d cell, need two for principal components", n)
	}
	var pc stat.PC
	if !pc.PrincipalComponents(mat.NewDense(n, d, data), nil) {
		return nil, nil, fmt.Errorf("plot: project: the principal components of the %d × %d embedding could not be computed", n, d)
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	var proj mat.Dense
	proj.Mul(mat.NewDense(n, d, data), vecs.Slice(0, d, 0, 2))
	for i := range n {
		x[i], y[i] = proj.At(i, 0), proj.At(i, 1)
	}
	return x, y, nil
}
