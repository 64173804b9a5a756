package dpsgd

import (
	"math"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dpscope/dpscope/core/nn"
)

// level1 runs the per-row dot products and scalings. They are gonum's
// assembly kernels, as core/compute uses for level-1 routines; calling them
// directly skips compute's per-call backend lookup, which costs more than a
// 64-element dot product.
var level1 gonum.Implementation

func dot(x, y []float32) float32 { return level1.Sdot(len(x), x, 1, y[:len(x)], 1) }

// Groups of layers for clipping and noise.
const (
	groupPerturbed = 0
	groupRest      = 1
)

// clipEps is added to a norm before dividing C by it, as in Opacus.
const clipEps = 1e-6

// addGhostSqNorms adds to sq[i], for each of the m samples of the last pass,
// the squared norm of its gradient of layer d's weights and biases:
//
//	Σ_{s,t} (g_s·g_t)(a_s·a_t + 1)
//
// over its views s, t, whose rows are s·m + i. Dot products are float32
// (BLAS), sums float64.
func addGhostSqNorms(sq []float64, d *nn.Dense, views, m int) {
	if d.Rows() == 0 {
		return
	}
	x, g := d.Input(), d.Signal()
	if views == 1 {
		for i := range m {
			gi := g.RawRowView(i)
			xi := x.RawRowView(i)
			sq[i] += float64(dot(gi, gi)) * (float64(dot(xi, xi)) + 1)
		}
		return
	}
	for i := range m {
		s := 0.0
		for u := range views {
			gu, xu := g.RawRowView(u*m+i), x.RawRowView(u*m+i)
			s += float64(dot(gu, gu)) * (float64(dot(xu, xu)) + 1)
			for v := u + 1; v < views; v++ {
				gv, xv := g.RawRowView(v*m+i), x.RawRowView(v*m+i)
				s += 2 * float64(dot(gu, gv)) * (float64(dot(xu, xv)) + 1)
			}
		}
		sq[i] += s
	}
}

// clipFactor returns min(1, c/(√sq + 1e-6)).
func clipFactor(sq, c float64) float64 {
	return min(1, c/(math.Sqrt(max(sq, 0))+clipEps))
}
