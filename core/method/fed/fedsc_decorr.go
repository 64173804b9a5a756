package fed

import (
	"math"
	"slices"

	"github.com/dpscope/dpscope/core/compute"
)

// decorrEps is the ε under the square root of the standardisation, the
// official FedDecorr code's (bytedance/FedDecorr loss.py): it keeps a
// dimension that is constant over the batch finite.
const decorrEps = 1e-8

// decorr is FedDecorr's regulariser (Shi et al., ICLR 2023,
// https://arxiv.org/abs/2210.00226; Params.Decorr) on a batch of n
// representations z (n×d): each dimension is standardised over the batch,
// ẑ = (z − mean)/√(ε + s²) with the unbiased variance s², C = ẑᵀẑ, and
//
//	L = Σ_{i≠j} C_ij² / (n·d·(d−1)),
//
// the form of the official code, for which its run scripts set β = 0.1.
// C is (n−1) times the batch's correlation matrix K, so L is
// (n−1)²/n · d/(d−1) times the paper's ‖K‖²_F/d² less its constant
// diagonal 1/d: the same minimiser, a gradient about n times larger. The
// buffers are float64: n·d² products per batch are a few hundredths of
// the encoder's step, and the sums need no care about their order.
type decorr struct {
	zh, gz []float64 // n×d: ẑ, then ∂L/∂ẑ
	c      []float64 // d×d: C, then ∂L/∂C
	sd     []float64 // d: √(ε + s²)
	in     []float64 // n×d: z in float64 (addGrad)
	out    []float64 // n×d: ∂L/∂z (addGrad)
}

// lossGrad returns L(z) for the n×d row-major z and writes ∂L/∂z into
// grad (n×d); n ≥ 2.
func (r *decorr) lossGrad(z []float64, n, d int, grad []float64) float64 {
	r.zh = slices.Grow(r.zh[:0], n*d)[:n*d]
	r.gz = slices.Grow(r.gz[:0], n*d)[:n*d]
	r.c = slices.Grow(r.c[:0], d*d)[:d*d]
	r.sd = slices.Grow(r.sd[:0], d)[:d]
	zh, gz, c, sd := r.zh, r.gz, r.c, r.sd
	for j := range d {
		m := 0.0
		for i := range n {
			m += z[i*d+j]
		}
		m /= float64(n)
		v := 0.0
		for i := range n {
			e := z[i*d+j] - m
			zh[i*d+j] = e
			v += e * e
		}
		sd[j] = math.Sqrt(decorrEps + v/float64(n-1))
		for i := range n {
			zh[i*d+j] /= sd[j]
		}
	}
	// C = ẑᵀẑ, and at once ∂L/∂C = 2C_ij/(n·d·(d−1)) off the diagonal, 0 on it
	scale := 1 / (float64(n) * float64(d) * float64(d-1))
	loss := 0.0
	for a := range d {
		for b := range d {
			s := 0.0
			for i := range n {
				s += zh[i*d+a] * zh[i*d+b]
			}
			if a == b {
				c[a*d+b] = 0
				continue
			}
			loss += s * s * scale
			c[a*d+b] = 2 * s * scale
		}
	}
	// ∂L/∂ẑ = ẑ(G + Gᵀ) = 2ẑG, G = ∂L/∂C symmetric
	for i := range n {
		zr, gr := zh[i*d:(i+1)*d], gz[i*d:(i+1)*d]
		for b := range d {
			s := 0.0
			for a, e := range zr {
				s += e * c[a*d+b]
			}
			gr[b] = 2 * s
		}
	}
	// through the standardisation, per dimension with g = ∂L/∂ẑ:
	// ∂L/∂z = (g − mean(g) − ẑ·Σ(g·ẑ)/(n−1)) / √(ε + s²)
	for j := range d {
		sg, sgz := 0.0, 0.0
		for i := range n {
			sg += gz[i*d+j]
			sgz += gz[i*d+j] * zh[i*d+j]
		}
		sg /= float64(n)
		sgz /= float64(n - 1)
		for i := range n {
			grad[i*d+j] = (gz[i*d+j] - sg - zh[i*d+j]*sgz) / sd[j]
		}
	}
	return loss
}

// addGrad adds β·∂L/∂z to dz (both n×d float32 matrices) and returns β·L.
// z is the online encoder's output, dz the gradient the predictor sends
// back into it.
func (r *decorr) addGrad(z, dz compute.Matrix, beta float64) float64 {
	n, d := z.Rows, z.Cols
	r.in = slices.Grow(r.in[:0], n*d)[:n*d]
	r.out = slices.Grow(r.out[:0], n*d)[:n*d]
	for i := range n {
		for j, v := range z.RawRowView(i)[:d] {
			r.in[i*d+j] = float64(v)
		}
	}
	loss := r.lossGrad(r.in, n, d, r.out)
	for i := range n {
		dr := dz.RawRowView(i)[:d]
		for j := range dr {
			dr[j] += float32(beta * r.out[i*d+j])
		}
	}
	return beta * loss
}
