package dpsgd

import (
	"math"
	"sync"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// dotLanes is the number of partial sums of dot: four 16-lane registers
// in the vector kernel, so that the additions do not wait on each other.
const dotLanes = 64

// dot returns x·y: entry j is added to partial sum j mod 64 in float32
// (multiply, then add: no FMA), and the partial sums are added in order
// in float64. dotVector does the leading multiple of 64 entries where the
// CPU allows; the order, and so the result, is the same either way.
// (gonum's Sdot took 0.2 ms a step of the peers' autoencoder, a sixth of
// the DP part.)
func dot(x, y []float32) float64 {
	y = y[:len(x)]
	var acc [dotLanes]float32
	j := dotVector(x, y, &acc)
	for ; j < len(x); j++ {
		acc[j%dotLanes] += x[j] * y[j]
	}
	s := 0.0
	for _, v := range acc {
		s += float64(v)
	}
	return s
}

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
	j := ghostJobs.Get().(*ghostJob)
	*j = ghostJob{sq: sq, x: d.Input(), g: d.Signal(), views: views, m: m}
	// The cost of a sample: views² pairs of dots over the layer's widths.
	compute.Split(m, 1, views*views*(j.x.Cols+j.g.Cols)/4, j)
	*j = ghostJob{}
	ghostJobs.Put(j)
}

// ghostJob is addGhostSqNorms over a range of samples, for
// compute.Split: sample i's sum is formed in the same order whichever
// goroutine runs it, so the norms are the same bits.
type ghostJob struct {
	sq       []float64
	x, g     compute.Matrix
	views, m int
}

// ghostJobs recycles ghostJob values, so a step does not allocate.
var ghostJobs = sync.Pool{New: func() any { return new(ghostJob) }}

// Run implements compute.RangeJob.
func (j *ghostJob) Run(lo, hi int) {
	x, g, m, sq := j.x, j.g, j.m, j.sq
	if j.views == 1 {
		for i := lo; i < hi; i++ {
			gi := g.RawRowView(i)
			xi := x.RawRowView(i)
			sq[i] += dot(gi, gi) * (dot(xi, xi) + 1)
		}
		return
	}
	for i := lo; i < hi; i++ {
		s := 0.0
		for u := range j.views {
			gu, xu := g.RawRowView(u*m+i), x.RawRowView(u*m+i)
			s += dot(gu, gu) * (dot(xu, xu) + 1)
			for v := u + 1; v < j.views; v++ {
				gv, xv := g.RawRowView(v*m+i), x.RawRowView(v*m+i)
				s += 2 * dot(gu, gv) * (dot(xu, xv) + 1)
			}
		}
		sq[i] += s
	}
}

// clipFactor returns min(1, c/(√sq + 1e-6)).
func clipFactor(sq, c float64) float64 {
	return min(1, c/(math.Sqrt(max(sq, 0))+clipEps))
}
