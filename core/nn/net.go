package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/compute"
)

// Init is a weight initialisation scheme.
type Init int

const (
	// InitPyTorch draws W and b from U(−1/√In, 1/√In), PyTorch's default for
	// nn.Linear (kaiming_uniform_ with a = √5 for W, the same bound for b).
	// It is the zero value and the default.
	InitPyTorch Init = iota
	// InitGlorot draws W from U(−√(6/(In+Out)), √(6/(In+Out))) (Glorot &
	// Bengio 2010) and sets b = 0.
	InitGlorot
)

// Net is a set of dense layers whose parameters and gradients live in two
// flat slices, layer after layer in the order of Layers (weights, then
// biases). It is not safe for concurrent use.
type Net struct {
	// Params holds every parameter; Grads the matching gradients.
	Params, Grads []float32
	// Layers lists the layers in parameter order, with non-decreasing
	// Number.
	Layers []*Dense

	maxRows int
	ones    []float32
}

// layerSpec describes one layer to build.
type layerSpec struct {
	in, out, number int
	act             Activation
}

// newNet builds the layers of specs with buffers for maxRows rows and
// initialises them from a PCG seeded with (seed, 0).
func newNet(specs []layerSpec, maxRows int, init Init, seed uint64) Net {
	total := 0
	for _, s := range specs {
		total += s.in*s.out + s.out
	}
	n := Net{Params: make([]float32, total), Grads: make([]float32, total), maxRows: maxRows, ones: make([]float32, maxRows)}
	for i := range n.ones {
		n.ones[i] = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	off := 0
	for _, s := range specs {
		nw := s.in * s.out
		d := &Dense{
			In: s.in, Out: s.out, Number: s.number, Act: s.act,
			W:    compute.NewMatrix(s.in, s.out, n.Params[off:off+nw]),
			B:    n.Params[off+nw : off+nw+s.out],
			DW:   compute.NewMatrix(s.in, s.out, n.Grads[off:off+nw]),
			DB:   n.Grads[off+nw : off+nw+s.out],
			y:    compute.NewMatrix(maxRows, s.out, nil),
			g:    compute.NewMatrix(maxRows, s.out, nil),
			ones: n.ones,
			x:    compute.Matrix{Cols: s.in},
		}
		initLayer(d, init, rng)
		n.Layers = append(n.Layers, d)
		off += nw + s.out
	}
	return n
}

func initLayer(d *Dense, init Init, rng *rand.Rand) {
	var wb, bb float64
	switch init {
	case InitGlorot:
		wb = math.Sqrt(6 / float64(d.In+d.Out))
	default:
		wb = 1 / math.Sqrt(float64(d.In))
		bb = wb
	}
	for i := range d.W.Data {
		d.W.Data[i] = float32((2*rng.Float64() - 1) * wb)
	}
	for i := range d.B {
		d.B[i] = float32((2*rng.Float64() - 1) * bb)
	}
}

// MaxRows returns the number of rows the batch buffers hold.
func (n *Net) MaxRows() int { return n.maxRows }

// NumLayers returns the largest layer number.
func (n *Net) NumLayers() int { return n.Layers[len(n.Layers)-1].Number }

// ParamRange returns the half-open range [lo, hi) of Params (and Grads)
// holding the parameters of the layers numbered first to last. It panics if
// the range is not within 1..NumLayers() or first > last.
func (n *Net) ParamRange(first, last int) (lo, hi int) {
	if first < 1 || last > n.NumLayers() || first > last {
		panic(fmt.Sprintf("nn: ParamRange(%d, %d) outside layers 1..%d", first, last, n.NumLayers()))
	}
	off := 0
	lo = -1
	for _, d := range n.Layers {
		size := d.In*d.Out + d.Out
		if d.Number >= first && lo < 0 {
			lo = off
		}
		if d.Number <= last {
			hi = off + size
		}
		off += size
	}
	return lo, hi
}

// AccumulateGrads calls AccumulateGrad(beta) on every layer: with beta = 0
// Grads becomes the gradient of the last pass, with beta = 1 it is added.
func (n *Net) AccumulateGrads(beta float32) {
	for _, d := range n.Layers {
		d.AccumulateGrad(beta)
	}
}

// CopyParamsFrom copies the parameters of src, which must have the same
// layout, into n.
func (n *Net) CopyParamsFrom(src *Net) {
	if len(src.Params) != len(n.Params) {
		panic(fmt.Errorf("nn: CopyParamsFrom: %d parameters, must be %d: %w", len(src.Params), len(n.Params), compute.ErrShape))
	}
	copy(n.Params, src.Params)
}
