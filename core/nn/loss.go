package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpscope/dpscope/core/compute"
)

// MSE returns Σ_i L_i with L_i = (1/G)·Σ_j (y_ij − x_ij)², the per-cell mean
// squared error of the reconstruction y of x (n×G), and adds
// w·∂L_i/∂y_ij = w·2(y_ij − x_ij)/G into dy. It panics, wrapping
// compute.ErrShape, if the dimensions differ.
func MSE(dy, y, x compute.Matrix, w float32) float64 {
	n, g := x.Dims()
	if y.Rows != n || y.Cols != g || dy.Rows != n || dy.Cols != g {
		panic(fmt.Errorf("nn: MSE: dy is %d×%d, y is %d×%d and x is %d×%d, must be equal: %w",
			dy.Rows, dy.Cols, y.Rows, y.Cols, n, g, compute.ErrShape))
	}
	j := mseJobs.Get().(*mseJob)
	*j = mseJob{dy: dy, y: y, x: x, c: 2 * w / float32(g), cells: j.cells}
	if cap(j.cells) < n {
		j.cells = make([]float64, n)
	}
	j.cells = j.cells[:n]
	compute.Split(n, 1, g/2, j)
	// Summed here in row order: the same total however Split cut the rows.
	total := 0.0
	for _, cell := range j.cells {
		total += cell / float64(g)
	}
	*j = mseJob{cells: j.cells}
	mseJobs.Put(j)
	return total
}

// mseJob is MSE over a range of rows, for compute.Split; row i's sum goes
// to cells[i].
type mseJob struct {
	dy, y, x compute.Matrix
	c        float32
	cells    []float64
}

// mseJobs recycles mseJob values and their buffers: MSE does not allocate.
var mseJobs = sync.Pool{New: func() any { return new(mseJob) }}

// Run implements compute.RangeJob.
func (jb *mseJob) Run(lo, hi int) {
	c := jb.c
	for i := lo; i < hi; i++ {
		xr, yr, dr := jb.x.RawRowView(i), jb.y.RawRowView(i), jb.dy.RawRowView(i)
		yr, dr = yr[:len(xr)], dr[:len(xr)]
		cell := 0.0
		for j0 := 0; j0 < len(xr); j0 += 256 {
			// Eight float32 partial sums per chunk of 256 (entry j in
			// lane j mod 8), flushed to float64 in lane order: the order
			// of mseAVX2, which does the leading multiple of 8.
			j1 := min(j0+256, len(xr))
			var s [8]float32
			j := j0 + mseVector(dr[j0:j1], yr[j0:j1], xr[j0:j1], c, &s)
			for ; j < j1; j++ {
				e := yr[j] - xr[j]
				s[(j-j0)%8] += e * e
				dr[j] += c * e
			}
			for _, v := range s {
				cell += float64(v)
			}
		}
		jb.cells[i] = cell
	}
}

// cosEps is the lower bound on a norm in NegCosine, as in PyTorch's
// F.cosine_similarity.
const cosEps = 1e-8

// NegCosine returns Σ_i L_i with L_i = −cos(z1_i, z2_i) =
// −z1_i·z2_i / (max(‖z1_i‖, 1e-8)·max(‖z2_i‖, 1e-8)), the per-cell negative
// cosine similarity of two views' embeddings (DP-DCAN Eq. 5, per cell as
// docs/METHODS.md §1 requires), and adds w·∂L_i/∂z1_i and w·∂L_i/∂z2_i into
// dz1 and dz2:
//
//	∂L/∂z1 = −(z2/(‖z1‖‖z2‖) − cos·z1/‖z1‖²)
//
// and symmetrically for z2. It panics, wrapping compute.ErrShape, if the
// dimensions differ.
func NegCosine(dz1, dz2, z1, z2 compute.Matrix, w float32) float64 {
	n, d := z1.Dims()
	for _, m := range []compute.Matrix{dz1, dz2, z2} {
		if m.Rows != n || m.Cols != d {
			panic(fmt.Errorf("nn: NegCosine: a matrix is %d×%d, must be %d×%d: %w", m.Rows, m.Cols, n, d, compute.ErrShape))
		}
	}
	total := 0.0
	for i := range n {
		a, b := z1.RawRowView(i), z2.RawRowView(i)
		var ab, aa, bb float64
		for j, v := range a {
			u := float64(b[j])
			ab += float64(v) * u
			aa += float64(v) * float64(v)
			bb += u * u
		}
		na, nb := max(math.Sqrt(aa), cosEps), max(math.Sqrt(bb), cosEps)
		cos := ab / (na * nb)
		total -= cos
		da, db := dz1.RawRowView(i), dz2.RawRowView(i)
		ww := float64(w)
		for j := range a {
			va, vb := float64(a[j]), float64(b[j])
			da[j] -= float32(ww * (vb/(na*nb) - cos*va/(na*na)))
			db[j] -= float32(ww * (va/(na*nb) - cos*vb/(nb*nb)))
		}
	}
	return total
}
