package nn

import (
	"fmt"

	"github.com/dpscope/dpscope/core/compute"
)

// Dense is a fully connected layer Y = act(X·W + 1·bᵀ) with its batch
// buffers. W, B, DW and DB are views into the owning [Net]'s Params and
// Grads. A Dense is built by a Net and is not safe for concurrent use.
type Dense struct {
	// In and Out are the input and output widths.
	In, Out int
	// Number is the layer number shown to users (1-based). Layers that
	// share an input, such as the three ZINB heads, share a number.
	Number int
	// Act is the activation.
	Act Activation
	// W is the In×Out weight matrix and B the Out biases.
	W compute.Matrix
	B []float32
	// DW and DB are the gradients of W and B, written by AccumulateGrad.
	DW compute.Matrix
	DB []float32

	x    compute.Matrix // input of the last Forward, n rows
	y, g compute.Matrix // output and signal buffers, MaxRows rows
	n    int            // rows of the last Forward; 0 when the layer did not run
	ones []float32      // shared vector of ones, MaxRows long
}

// Forward computes Y = act(X·W + 1·bᵀ) for the n = x.Rows rows of x and
// remembers x, which must stay unchanged until the gradients are formed. It
// panics, wrapping compute.ErrShape, if x.Cols != In or x.Rows exceeds the
// buffers' capacity.
func (d *Dense) Forward(x compute.Matrix) {
	if x.Cols != d.In || x.Rows > d.y.Rows {
		panic(fmt.Errorf("nn: Dense.Forward: input is %d×%d, must be at most %d×%d: %w",
			x.Rows, x.Cols, d.y.Rows, d.In, compute.ErrShape))
	}
	d.x, d.n = x, x.Rows
	y := d.Output()
	// The bias is written into the product's panels on dpscope's kernel;
	// elsewhere MulBiasTo fills Y's rows and takes MulSparseTo, which
	// skips the zeros of a ReLU layer's output (about half) where the
	// sparse path runs. The bits are the same either way.
	compute.MulBiasTo(y, x, false, d.W, false, d.B)
	d.Act.apply(y.Data[:d.n*d.Out])
}

// Skip marks the layer as not run in this pass: Rows reports 0 and
// AccumulateGrad adds nothing.
func (d *Dense) Skip() { d.n, d.x = 0, compute.Matrix{Cols: d.In} }

// Rows returns the number of rows of the last Forward, 0 if skipped.
func (d *Dense) Rows() int { return d.n }

// Input returns the input of the last Forward (Rows()×In).
func (d *Dense) Input() compute.Matrix { return d.x }

// Output returns the output Y of the last Forward (Rows()×Out); it shares
// memory with the layer's buffer.
func (d *Dense) Output() compute.Matrix { return d.y.View(0, 0, d.n, d.Out) }

// Signal returns the signal buffer (Rows()×Out). Before ActGrad it holds
// ∂L/∂Y, after it ∂L/∂Z. DP-SGD rescales its rows before AccumulateGrad.
func (d *Dense) Signal() compute.Matrix { return d.g.View(0, 0, d.n, d.Out) }

// ActGrad turns the signal ∂L/∂Y into ∂L/∂Z = ∂L/∂Y ⊙ act'(Z), in place.
func (d *Dense) ActGrad() {
	d.Act.mulDeriv(d.g.Data[:d.n*d.Out], d.y.Data[:d.n*d.Out])
}

// BackInputTo computes dx = G·Wᵀ + beta·dx, the gradient with respect to
// the layer's input. It panics, wrapping compute.ErrShape, if dx is not
// Rows()×In.
func (d *Dense) BackInputTo(dx compute.Matrix, beta float32) {
	if d.Act == ReLU {
		compute.MulSparseTo(dx, d.Signal(), false, d.W, true, beta)
		return
	}
	compute.MulTo(dx, d.Signal(), false, d.W, true, 1, beta)
}

// mulGrad sets dw = xᵀ·g + beta·dw, skipping the zeros of g, masked by a
// ReLU, or else those of x, when they are many (compute.MulSparseTo: the
// bits are MulTo's either way).
func (d *Dense) mulGrad(x, g compute.Matrix, beta float32) {
	if d.Act == ReLU {
		compute.MulSparseBTo(d.DW, x, true, g, false, beta)
		return
	}
	compute.MulSparseTo(d.DW, x, true, g, false, beta)
}

// AccumulateGrad computes DW = Xᵀ·G + beta·DW and DB = Gᵀ·1 + beta·DB from
// the input and signal of the last pass (after ActGrad).
func (d *Dense) AccumulateGrad(beta float32) {
	if d.n == 0 {
		if beta != 1 {
			compute.Scale(beta, d.DW)
			compute.Scal(beta, d.DB)
		}
		return
	}
	g := d.Signal()
	d.mulGrad(d.x, g, beta)
	compute.MulVecTo(d.DB, g, true, d.ones[:d.n], 1, beta)
}

// AccumulateGradWeighted is AccumulateGrad with row r of the last pass
// weighted by f[r]: DW = Xᵀ·diag(f)·G + beta·DW and DB = Gᵀ·f + beta·DB,
// for DP-SGD's per-sample clipping. It scales the narrower of X and G:
// the signal's rows in place when Out ≤ In, else a copy of X in scratch,
// which must then hold Rows()×In entries (the input is left as it is,
// since other layers may read it). On the peers' autoencoder that scales a
// quarter of the entries that scaling every signal would.
func (d *Dense) AccumulateGradWeighted(beta float32, f, scratch []float32) {
	if d.n == 0 {
		d.AccumulateGrad(beta)
		return
	}
	f = f[:d.n]
	g := d.Signal()
	if d.Out <= d.In {
		for r, a := range f {
			scaleInto(g.RawRowView(r), g.RawRowView(r), a)
		}
		d.AccumulateGrad(beta)
		return
	}
	if len(scratch) < d.n*d.In {
		panic(fmt.Errorf("nn: AccumulateGradWeighted: scratch holds %d entries, must hold %d×%d: %w",
			len(scratch), d.n, d.In, compute.ErrShape))
	}
	xs := compute.NewMatrix(d.n, d.In, scratch[:d.n*d.In])
	for r, a := range f {
		scaleInto(xs.RawRowView(r), d.x.RawRowView(r), a)
	}
	d.mulGrad(xs, g, beta)
	compute.MulVecTo(d.DB, g, true, f, 1, beta)
}

// scaleInto sets dst = a·src (dst may be src).
func scaleInto(dst, src []float32, a float32) {
	src = src[:len(dst)]
	for i := scaleVector(dst, src, a); i < len(dst); i++ {
		dst[i] = a * src[i]
	}
}
