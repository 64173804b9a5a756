package nn

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/core/compute"
)

// StudentTTo writes into q (n×K) the Student-t soft assignments of DEC
// (Xie, Girshick & Farhadi 2016, https://arxiv.org/abs/1511.06335) with one
// degree of freedom, of the embeddings z (n×d) to the centroids mu (K×d):
//
//	q_ij = (1 + ‖z_i − μ_j‖²)⁻¹ / Σ_k (1 + ‖z_i − μ_k‖²)⁻¹
//
// computed in float64. It panics, wrapping compute.ErrShape, if the
// dimensions do not fit.
func StudentTTo(q, z, mu compute.Matrix) {
	checkDEC("StudentTTo", q, z, mu)
	for i := range z.Rows {
		zi, qi := z.RawRowView(i), q.RawRowView(i)
		sum := 0.0
		for j := range mu.Rows {
			v := 1 / (1 + sqDist(zi, mu.RawRowView(j)))
			qi[j] = float32(v)
			sum += v
		}
		for j := range qi {
			qi[j] = float32(float64(qi[j]) / sum)
		}
	}
}

// DECTargetTo writes into p (n×K) DEC's target distribution for the soft
// assignments q (n×K):
//
//	p_ij = (q_ij²/f_j) / Σ_k (q_ik²/f_k),   f_j = Σ_i q_ij
//
// (docs/METHODS.md §1; the DP-DCAN paper's Eq. 12 has a typo), with the
// cluster frequencies f_j accumulated in float64 into freq (length K),
// which the caller may replace by a private estimate and pass to
// DECTargetFromFreqTo instead. It panics, wrapping compute.ErrShape, if the
// dimensions differ.
func DECTargetTo(p, q compute.Matrix, freq []float64) {
	if len(freq) != q.Cols {
		panic(fmt.Errorf("nn: DECTargetTo: len(freq) is %d, must be %d: %w", len(freq), q.Cols, compute.ErrShape))
	}
	clear(freq)
	for i := range q.Rows {
		for j, v := range q.RawRowView(i) {
			freq[j] += float64(v)
		}
	}
	DECTargetFromFreqTo(p, q, freq)
}

// DECTargetFromFreqTo is DECTargetTo with given cluster frequencies f_j > 0.
func DECTargetFromFreqTo(p, q compute.Matrix, freq []float64) {
	if p.Rows != q.Rows || p.Cols != q.Cols || len(freq) != q.Cols {
		panic(fmt.Errorf("nn: DECTargetFromFreqTo: p is %d×%d, q is %d×%d, len(freq) is %d, must agree: %w",
			p.Rows, p.Cols, q.Rows, q.Cols, len(freq), compute.ErrShape))
	}
	for i := range q.Rows {
		qi, pi := q.RawRowView(i), p.RawRowView(i)
		sum := 0.0
		for j, v := range qi {
			sum += float64(v) * float64(v) / freq[j]
		}
		for j, v := range qi {
			pi[j] = float32(float64(v) * float64(v) / freq[j] / sum)
		}
	}
}

// KLStudentT returns Σ_i L_i with L_i = KL(p_i‖q_i) = Σ_j p_ij log(p_ij/q_ij)
// (terms with p_ij = 0 count 0), where q are the Student-t assignments of
// z to mu recomputed here, and adds the gradients
//
//	∂L_i/∂z_i = 2·Σ_j (p_ij − q_ij)(1 + ‖z_i − μ_j‖²)⁻¹ (z_i − μ_j)
//	∂L_i/∂μ_j = −2·(p_ij − q_ij)(1 + ‖z_i − μ_j‖²)⁻¹ (z_i − μ_j)
//
// times w into dz (n×d) and, summed over i, into dmu (K×d) unless dmu has
// no rows. q is a K-wide scratch row buffer (length ≥ K). It panics, wrapping
// compute.ErrShape, if the dimensions do not fit.
func KLStudentT(dz, dmu, z, mu, p compute.Matrix, q []float64, w float32) float64 {
	checkDEC("KLStudentT", p, z, mu)
	if dz.Rows != z.Rows || dz.Cols != z.Cols || (dmu.Rows != 0 && (dmu.Rows != mu.Rows || dmu.Cols != mu.Cols)) || len(q) < mu.Rows {
		panic(fmt.Errorf("nn: KLStudentT: gradient or scratch shapes do not fit z %d×%d and mu %d×%d: %w",
			z.Rows, z.Cols, mu.Rows, mu.Cols, compute.ErrShape))
	}
	q = q[:mu.Rows]
	total := 0.0
	ww := 2 * float64(w)
	for i := range z.Rows {
		zi, pi, dzi := z.RawRowView(i), p.RawRowView(i), dz.RawRowView(i)
		sum := 0.0
		for j := range q {
			q[j] = 1 / (1 + sqDist(zi, mu.RawRowView(j)))
			sum += q[j]
		}
		for j, kern := range q {
			qj := kern / sum
			pj := float64(pi[j])
			if pj > 0 {
				total += pj * math.Log(pj/qj)
			}
			c := ww * (pj - qj) * kern
			muj := mu.RawRowView(j)
			var dmj []float32
			if dmu.Rows != 0 {
				dmj = dmu.RawRowView(j)
			}
			for k, v := range zi {
				diff := float32(c * (float64(v) - float64(muj[k])))
				dzi[k] += diff
				if dmj != nil {
					dmj[k] -= diff
				}
			}
		}
	}
	return total
}

func sqDist(a, b []float32) float64 {
	b = b[:len(a)]
	s := 0.0
	for k, v := range a {
		d := float64(v) - float64(b[k])
		s += d * d
	}
	return s
}

func checkDEC(fn string, q, z, mu compute.Matrix) {
	if z.Cols != mu.Cols || q.Rows != z.Rows || q.Cols != mu.Rows {
		panic(fmt.Errorf("nn: %s: q is %d×%d, z is %d×%d and mu is %d×%d, must be n×K, n×d and K×d: %w",
			fn, q.Rows, q.Cols, z.Rows, z.Cols, mu.Rows, mu.Cols, compute.ErrShape))
	}
}
