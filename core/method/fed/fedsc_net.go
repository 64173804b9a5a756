package fed

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/compute"
)

// This file holds the pieces of FedSC's networks that core/nn lacks:
// batch normalisation, L2 normalisation of the output, and a small
// sequential container whose parameters, gradients and running statistics
// live in flat slices (so they can be copied, averaged and clipped as one
// vector). Every op keeps its own batch buffers for at most maxRows rows
// and allocates nothing per step.

// op is one layer of a seqNet.
type op interface {
	// forward computes the output for the rows of x; train selects batch
	// statistics (BatchNorm) over running ones.
	forward(x compute.Matrix, train bool) compute.Matrix
	// backward takes ∂L/∂y of the last forward, adds the parameter
	// gradients into the net's Grads and returns ∂L/∂x.
	backward(dy compute.Matrix) compute.Matrix
}

// seqNet is a sequence of ops with flat parameter, gradient and state
// (BatchNorm running mean and variance) slices.
type seqNet struct {
	ops    []op
	params []float32
	grads  []float32
	stats  []float32
}

// netSpec builds a seqNet in two passes: sizes first, then views.
type netSpec struct {
	maxRows int
	// xavier draws the linear layers' weights from Glorot's U(±√(6/(in+out)))
	// (contrastive-sc's encoder, FedSC's reference [25]) instead of PyTorch's
	// nn.Linear default U(±1/√in); biases keep the default either way.
	xavier        bool
	np, ns        int
	params, grads []float32
	stats         []float32
	build         []func() op
	initW         []func(rng *rand.Rand)
}

// linear adds y = x·W + b. With inputGrad false the layer's backward
// computes only the parameter gradients and returns an empty ∂L/∂x: for a
// first layer, whose input is data, that product (rows × out × in, the
// largest of FedSC's step) is never used.
func (s *netSpec) linear(in, out int, inputGrad bool) {
	pw, pb := s.np, s.np+in*out
	s.np += in*out + out
	s.build = append(s.build, func() op {
		l := &linearOp{in: in, out: out,
			w: compute.NewMatrix(in, out, s.params[pw:pb]), b: s.params[pb : pb+out],
			dw: compute.NewMatrix(in, out, s.grads[pw:pb]), db: s.grads[pb : pb+out],
			y: compute.NewMatrix(s.maxRows, out, nil), ones: ones(s.maxRows)}
		if inputGrad {
			l.dx = compute.NewMatrix(s.maxRows, in, nil)
		}
		xavier := s.xavier
		s.initW = append(s.initW, func(rng *rand.Rand) { // PyTorch nn.Linear: U(±1/√in)
			bound := 1 / math.Sqrt(float64(in))
			wb := bound
			if xavier {
				wb = math.Sqrt(6 / float64(in+out))
			}
			for i := range l.w.Data {
				l.w.Data[i] = float32((2*rng.Float64() - 1) * wb)
			}
			for i := range l.b {
				l.b[i] = float32((2*rng.Float64() - 1) * bound)
			}
		})
		return l
	})
}

func (s *netSpec) batchNorm(n int) {
	p, st := s.np, s.ns
	s.np += 2 * n
	s.ns += 2 * n
	s.build = append(s.build, func() op {
		b := &batchNormOp{n: n, gamma: s.params[p : p+n], beta: s.params[p+n : p+2*n],
			dgamma: s.grads[p : p+n], dbeta: s.grads[p+n : p+2*n],
			rmean: s.stats[st : st+n], rvar: s.stats[st+n : st+2*n],
			xhat: compute.NewMatrix(s.maxRows, n, nil), y: compute.NewMatrix(s.maxRows, n, nil),
			dx: compute.NewMatrix(s.maxRows, n, nil), invstd: make([]float32, n), mean: make([]float32, n),
			acc: make([]float64, 3*n), inv: make([]float64, n)}
		s.initW = append(s.initW, func(*rand.Rand) {
			for i := range n {
				b.gamma[i], b.beta[i], b.rmean[i], b.rvar[i] = 1, 0, 0, 1
			}
		})
		return b
	})
}

func (s *netSpec) relu(n int) {
	s.build = append(s.build, func() op {
		return &reluOp{y: compute.NewMatrix(s.maxRows, n, nil), dx: compute.NewMatrix(s.maxRows, n, nil)}
	})
}

func (s *netSpec) l2norm(n int) {
	s.build = append(s.build, func() op {
		return &l2Op{y: compute.NewMatrix(s.maxRows, n, nil), dx: compute.NewMatrix(s.maxRows, n, nil), norm: make([]float32, s.maxRows)}
	})
}

// done allocates the slices, builds the ops and initialises them from a PCG
// seeded with (seed, 0).
func (s *netSpec) done(seed uint64) *seqNet {
	s.params, s.grads, s.stats = make([]float32, s.np), make([]float32, s.np), make([]float32, s.ns)
	n := &seqNet{params: s.params, grads: s.grads, stats: s.stats}
	for _, b := range s.build {
		n.ops = append(n.ops, b())
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, f := range s.initW {
		f(rng)
	}
	return n
}

func ones(n int) []float32 {
	o := make([]float32, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// forward runs every op.
func (n *seqNet) forward(x compute.Matrix, train bool) compute.Matrix {
	for _, o := range n.ops {
		x = o.forward(x, train)
	}
	return x
}

// backward runs every op backwards from ∂L/∂output; the gradients are added
// into grads.
func (n *seqNet) backward(dy compute.Matrix) compute.Matrix {
	for i := len(n.ops) - 1; i >= 0; i-- {
		dy = n.ops[i].backward(dy)
	}
	return dy
}

// linearOp is y = x·W + 1·bᵀ with W stored in×out.
type linearOp struct {
	in, out  int
	w, dw    compute.Matrix
	b, db    []float32
	x, y, dx compute.Matrix
	ones     []float32
}

func (l *linearOp) forward(x compute.Matrix, _ bool) compute.Matrix {
	l.x = x
	y := l.y.View(0, 0, x.Rows, l.out)
	for i := range x.Rows {
		copy(y.RawRowView(i), l.b)
	}
	compute.MulTo(y, x, false, l.w, false, 1, 1)
	return y
}

func (l *linearOp) backward(dy compute.Matrix) compute.Matrix {
	compute.MulTo(l.dw, l.x, true, dy, false, 1, 1)
	compute.MulVecTo(l.db, dy, true, l.ones[:dy.Rows], 1, 1)
	if l.dx.Data == nil {
		return compute.Matrix{}
	}
	dx := l.dx.View(0, 0, dy.Rows, l.in)
	compute.MulTo(dx, dy, false, l.w, true, 1, 0)
	return dx
}

// bnMomentum and bnEps are PyTorch's BatchNorm1d defaults.
const (
	bnMomentum = 0.1
	bnEps      = 1e-5
)

// batchNormOp is BatchNorm1d (Ioffe & Szegedy 2015,
// https://arxiv.org/abs/1502.03167): in training, per feature j over the
// batch, x̂ = (x − μ_B)/√(σ²_B + ε) with the biased batch variance, y =
// γx̂ + β, and the running statistics move by momentum 0.1 toward μ_B and
// the unbiased variance; in evaluation the running statistics replace the
// batch ones. Backward (training mode):
//
//	∂L/∂x = (γ/(n√(σ²_B+ε)))·(n·g − Σg − x̂·Σ(g·x̂)),  g = ∂L/∂y.
type batchNormOp struct {
	n             int
	gamma, beta   []float32
	dgamma, dbeta []float32
	rmean, rvar   []float32
	xhat, y, dx   compute.Matrix
	invstd, mean  []float32
	rows          int
	// acc (three per-feature float64 vectors) and inv (1/√(σ²+ε) in float64)
	// let forward and backward walk the batch row by row, in memory order;
	// every per-feature sum still adds the rows in order 0, 1, …, so the
	// results are those of a column-by-column walk to the bit.
	acc, inv []float64
}

func (b *batchNormOp) forward(x compute.Matrix, train bool) compute.Matrix {
	r, n := x.Rows, b.n
	b.rows = r
	xh, y := b.xhat.View(0, 0, r, n), b.y.View(0, 0, r, n)
	mu, v := b.acc[:n], b.acc[n:2*n]
	if train && r > 1 {
		clear(mu)
		clear(v)
		for i := range r {
			for j, e := range x.RawRowView(i)[:n] {
				mu[j] += float64(e)
			}
		}
		for j := range mu {
			mu[j] /= float64(r)
		}
		for i := range r {
			for j, e := range x.RawRowView(i)[:n] {
				d := float64(e) - mu[j]
				v[j] += d * d
			}
		}
		for j := range n {
			v[j] /= float64(r)
			b.rmean[j] = float32((1-bnMomentum)*float64(b.rmean[j]) + bnMomentum*mu[j])
			b.rvar[j] = float32((1-bnMomentum)*float64(b.rvar[j]) + bnMomentum*v[j]*float64(r)/float64(r-1))
		}
	} else {
		for j := range n {
			// a noised (DP) running variance can be negative: treat it as 0
			mu[j], v[j] = float64(b.rmean[j]), max(float64(b.rvar[j]), 0)
		}
	}
	inv := b.inv[:n]
	for j := range n {
		inv[j] = 1 / math.Sqrt(v[j]+bnEps)
		b.invstd[j], b.mean[j] = float32(inv[j]), float32(mu[j])
	}
	gamma, beta := b.gamma[:n], b.beta[:n]
	for i := range r {
		xr, hr, yr := x.RawRowView(i)[:n], xh.RawRowView(i)[:n], y.RawRowView(i)[:n]
		for j, e := range xr {
			h := float32((float64(e) - mu[j]) * inv[j])
			hr[j] = h
			yr[j] = gamma[j]*h + beta[j]
		}
	}
	return y
}

func (b *batchNormOp) backward(dy compute.Matrix) compute.Matrix {
	r, n := b.rows, b.n
	xh, dx := b.xhat.View(0, 0, r, n), b.dx.View(0, 0, r, n)
	sg, sgx, c := b.acc[:n], b.acc[n:2*n], b.acc[2*n:3*n]
	clear(b.acc)
	for i := range r {
		hr := xh.RawRowView(i)[:n]
		for j, g := range dy.RawRowView(i)[:n] {
			sg[j] += float64(g)
			sgx[j] += float64(g) * float64(hr[j])
		}
	}
	for j := range n {
		b.dbeta[j] += float32(sg[j])
		b.dgamma[j] += float32(sgx[j])
		c[j] = float64(b.gamma[j]) * float64(b.invstd[j]) / float64(r)
	}
	fr := float64(r)
	for i := range r {
		hr, dr := xh.RawRowView(i)[:n], dx.RawRowView(i)[:n]
		for j, g := range dy.RawRowView(i)[:n] {
			dr[j] = float32(c[j] * (fr*float64(g) - sg[j] - float64(hr[j])*sgx[j]))
		}
	}
	return dx
}

// reluOp is y = max(x, 0).
type reluOp struct{ y, dx compute.Matrix }

func (o *reluOp) forward(x compute.Matrix, _ bool) compute.Matrix {
	y := o.y.View(0, 0, x.Rows, x.Cols)
	for i := range x.Rows {
		yr, xr := y.RawRowView(i), x.RawRowView(i)
		for j, v := range xr {
			yr[j] = max(v, 0)
		}
	}
	return y
}

func (o *reluOp) backward(dy compute.Matrix) compute.Matrix {
	dx := o.dx.View(0, 0, dy.Rows, dy.Cols)
	for i := range dy.Rows {
		yr, gr, dr := o.y.RawRowView(i), dy.RawRowView(i), dx.RawRowView(i)
		yr, dr = yr[:len(gr)], dr[:len(gr)]
		for j, g := range gr {
			// dr = g where y > 0, +0 elsewhere, as a bit mask (a
			// conditional move, not a branch on the sign of a random
			// activation)
			var m uint32
			if yr[j] > 0 {
				m = ^uint32(0)
			}
			dr[j] = math.Float32frombits(math.Float32bits(g) & m)
		}
	}
	return dx
}

// l2Op is y = x/max(‖x‖, 1e-12) per row, with backward
// ∂L/∂x = (g − y(y·g))/‖x‖.
type l2Op struct {
	y, dx compute.Matrix
	norm  []float32
}

func (o *l2Op) forward(x compute.Matrix, _ bool) compute.Matrix {
	y := o.y.View(0, 0, x.Rows, x.Cols)
	for i := range x.Rows {
		xr, yr := x.RawRowView(i), y.RawRowView(i)
		nrm := float32(max(math.Sqrt(compute.Dot64(xr, xr)), 1e-12))
		o.norm[i] = nrm
		for j, v := range xr {
			yr[j] = v / nrm
		}
	}
	return y
}

func (o *l2Op) backward(dy compute.Matrix) compute.Matrix {
	dx := o.dx.View(0, 0, dy.Rows, dy.Cols)
	for i := range dy.Rows {
		yr, gr, dr := o.y.RawRowView(i), dy.RawRowView(i), dx.RawRowView(i)
		yg := float32(compute.Dot64(yr, gr))
		for j := range gr {
			dr[j] = (gr[j] - yr[j]*yg) / o.norm[i]
		}
	}
	return dx
}
