package sounddcan

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/cluster"
)

// mixture is the clustering network trained by DP-SGD: a one-layer network
// on a cell's h scaled genes x (dppca's rows, ‖x‖ ≤ R) whose K units are
// the components of a Gaussian mixture in gene space, with means μ_j (the
// layer's weights, K × h), weights π_j = softmax(a)_j and one shared
// variance v = e^(−2b). A cell's loss is the mixture's negative
// log-likelihood,
//
//	ℓ(x) = −log Σ_j π_j·exp(−‖x − μ_j‖²/(2v)) − (h/2)·log(1/v)
//
// (constants dropped; the last term depends on no cell). Labels are each
// cell's most probable component.
//
// Why gene space: dppca's private PCA is the bottleneck of the private
// start (METHODS.md §5: with the PCA given for free, private k-means keeps
// 86 % of B1 at ε = 8), and its codes only see the noisy p-dimensional
// subspace. The mixture's means live in the h-dimensional gene space: its
// gradients are per-cluster sums of h-vectors (sensitivity R), whose noise
// per coordinate does not grow with h the way the covariance's edge does, so
// training can move the means out of the noisy subspace towards the
// clusters' own means. It starts at the private start lifted to gene space
// (μ_j = V·c_j), where its labels are the start's.
type mixture struct {
	k, h int
	mu   []float64 // k × h
	a    []float64 // k
	b    float64
	// gclip is the means' clip in units of R at which the gate reads a
	// component's noise (Options.GradClip, or Options.RhoClip when set:
	// the gate is one of the rules that read ρ); the clip itself is the
	// cMu a step is given. frozen marks the components whose means the
	// last step held (gated).
	gclip  float64
	frozen []bool
	// side (Options.SideClip, ≥ 1; 0 reads as 1) divides the weights' and
	// the variance's blocks of a cell's gradient before the whole is
	// clipped to 1, so those K + 1 coordinates take a small part of the
	// clip and the means keep the rest (their released values are scaled
	// back by side, so their noise is side times larger).
	side float64
	// fixedWeights (option weights=fixed) leaves π at its start: the
	// update ignores the released weights' block.
	fixedWeights bool
	// canaries, when set, audit the released sums (audit.go); nil: none.
	canaries *audit.SumCanaries
	// drop marks the components the labels leave out (option keep=gate,
	// set after the last step); nil: every component labels cells.
	drop []bool
}

// mixInitFloor is the smallest share of the per-gene variance R²/h left to
// the within-cluster variance at initialisation (noise can make the spread
// of the released centres exceed it).
const mixInitFloor = 0.05

// newMixture lifts K released centres c (K × p, code units) to gene space
// through the released basis V (h × p), with the released weights w: μ_j =
// V·c_j, π_j ∝ max(w_j, freqFloor·Σw/K), and v = R²/h − (spread of the μ_j
// per gene), floored at mixInitFloor·R²/h: every row has ‖x‖² ≤ R², so R²/h
// bounds the mean per-gene variance. Releases only.
func newMixture(c, w, basis []float64, k, p, h int, r float64) *mixture {
	m := &mixture{k: k, h: h, mu: make([]float64, k*h), a: make([]float64, k)}
	for j := range k {
		for g := range h {
			var s float64
			for d := range p {
				s += basis[g*p+d] * c[j*p+d]
			}
			m.mu[j*h+g] = s
		}
	}
	var tw float64
	for _, v := range w {
		tw += max(v, 0)
	}
	share := make([]float64, k)
	for j := range k {
		share[j] = 1 / float64(k)
		if tw > 0 {
			share[j] = max(w[j], 0) / tw
		}
	}
	mean := make([]float64, h)
	for j := range k {
		for g := range h {
			mean[g] += share[j] * m.mu[j*h+g]
		}
	}
	var between float64
	for j := range k {
		for g := range h {
			e := m.mu[j*h+g] - mean[g]
			between += share[j] * e * e
		}
	}
	tot := r * r / float64(h)
	v := max(tot-between/float64(h), mixInitFloor*tot)
	m.b = -0.5 * math.Log(v)
	for j := range k {
		m.a[j] = math.Log(max(share[j], freqFloor/float64(k)))
	}
	return m
}

// logWeights returns log π_j = a_j − logsumexp(a) in lp.
func (m *mixture) logWeights(lp []float64) {
	mx := math.Inf(-1)
	for _, v := range m.a {
		mx = max(mx, v)
	}
	var s float64
	for _, v := range m.a {
		s += math.Exp(v - mx)
	}
	l := mx + math.Log(s)
	for j, v := range m.a {
		lp[j] = v - l
	}
}

// scores fills s with log π_j − ‖x − μ_j‖²/(2v), dist with ‖x − μ_j‖², and
// returns their logsumexp.
func (m *mixture) scores(x, lp, s, dist []float64) float64 {
	prec := math.Exp(2 * m.b)
	mx := math.Inf(-1)
	for j := range m.k {
		mu := m.mu[j*m.h : (j+1)*m.h]
		var q float64
		for g, v := range x {
			e := v - mu[g]
			q += e * e
		}
		dist[j] = q
		s[j] = lp[j] - 0.5*prec*q
		mx = max(mx, s[j])
	}
	var t float64
	for _, v := range s {
		t += math.Exp(v - mx)
	}
	return mx + math.Log(t)
}

// labels returns every cell's most probable component; x is n × h.
func (m *mixture) labels(x []float64, n int) []int {
	lp, s, dist := make([]float64, m.k), make([]float64, m.k), make([]float64, m.k)
	m.logWeights(lp)
	out := make([]int, n)
	for i := range n {
		m.scores(x[i*m.h:(i+1)*m.h], lp, s, dist)
		best := m.first()
		for j, v := range s {
			if v > s[best] && (m.drop == nil || !m.drop[j]) {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

// gradSize is the length of one cell's gradient: the means (K × h), the
// weights (K), the variance (1).
func (m *mixture) gradSize() int { return m.k*m.h + m.k + 1 }

// noisyStep is one full-batch DP-SGD step: the clipped per-cell gradients
// summed (clippedSum), N(0, z²) added on every coordinate (z = 0: exact),
// and the preconditioned update (update). It returns the mean loss before
// the step. sum and g are scratch of gradSize().
func (m *mixture) noisyStep(x []float64, n int, cMu, cV, z, nt, eta float64, shrink bool, gate float64, rng *rand.Rand, sum, g []float64) float64 {
	loss := m.clippedSum(x, n, cMu, cV, sum, g)
	if m.canaries != nil {
		m.canaries.Before(sum)
	}
	if z > 0 {
		for t := range sum {
			sum[t] += z * rng.NormFloat64()
		}
		if shrink {
			m.shrink(sum, z)
		}
	}
	m.frozen = m.frozen[:0]
	if gate > 0 && z > 0 {
		m.frozen = m.gated(z, nt, eta, gate)
	}
	if m.canaries != nil {
		m.canaries.After(sum)
	}
	m.update(sum, cMu, cV, nt, eta)
	return loss
}

// first is the first component the labels keep (0 unless keep=gate
// dropped it).
func (m *mixture) first() int {
	for j, d := range m.drop {
		if !d {
			return j
		}
	}
	return 0
}

// keep marks for option keep=gate the components the labels leave out:
// those the gate's test finds too light for the noise at the end (gated
// with bound gate, the trained weights), the heaviest always kept. Such a
// component's released weight is too small for its steps to have moved
// its mean without noise of more than gate·R, so it is not a cluster the
// releases support; its cells go to their most probable kept component,
// as a dppca centre whose released count is too small is lost to noise
// and its cells to the other centres. Post-processing of released
// weights and means.
func (m *mixture) keep(z, nt, eta, gate float64) {
	m.drop = m.gated(z, nt, eta, gate)
	lp := make([]float64, m.k)
	m.logWeights(lp)
	m.drop[argmax(lp)] = false
}

// keepCounts marks for option keep=count the components the labels leave
// out: it releases each component's count of the cells labels gives it
// (each cell in one count, so Δ = 1) with Gaussian noise sigma, and drops
// those below the head's rule, minCountSigmas·sigma and at least one cell
// — a count the noise cannot tell from an empty component's (at 3σ an
// empty one passes with probability 0.13 %), the same bar and the same
// noise as the head round's counts, so no constant is new. The component
// with the largest released count is always kept. Unlike keep=gate it
// reads the cells, not the trained weight the steps may have drained.
func (m *mixture) keepCounts(labels []int, sigma float64, rng *rand.Rand) {
	c := make([]float64, m.k)
	for _, l := range labels {
		c[l]++
	}
	m.drop = make([]bool, m.k)
	for j := range c {
		c[j] += sigma * rng.NormFloat64()
		m.drop[j] = c[j] < max(1, minCountSigmas*sigma)
	}
	m.drop[argmax(c)] = false
}

// argmax returns the index of the largest value of v (the first of ties).
func argmax(v []float64) int {
	best := 0
	for j, x := range v {
		if x > v[best] {
			best = j
		}
	}
	return best
}

// gated returns, for each component, whether its mean is held this step:
// the per-component form of the staged split's test, MeanNoise with the
// component's own released weight, nt·π_j cells, in place of ñ/K — the
// noise its steps would leave on its mean, in units of R (cMu/gclip) — above
// gate. A component too light for the noise stays where it is rather than
// drift away from its cells and empty. Post-processing of released weights.
func (m *mixture) gated(z, nt, eta, gate float64) []bool {
	lp := make([]float64, m.k)
	m.logWeights(lp)
	out := make([]bool, m.k)
	for j := range m.k {
		out[j] = MeanNoise(z, m.gclip, 1, nt*math.Exp(lp[j]), eta, m.h) > gate
	}
	return out
}

// shrink applies positive-part James–Stein shrinkage to the released sum,
// block by block: each component's mean block (h coordinates) and the
// weight block (K coordinates) are multiplied by max(0, 1 − (d − 2)·z²/‖G‖²),
// d the block's length and z the known noise per coordinate. For d ≥ 3
// this estimate of the noise-free summed gradient has a smaller expected
// squared error than the released block itself, whatever the gradient:
// a block that is mostly noise (a small cluster, a small ε, a mean already
// converged) barely moves its parameters, while a clear signal passes
// almost whole. Why: noise-driven steps move a mean away from its cells
// and empty its component (measured on mouse_bladder at ε = 4: 9–10 of 16
// components hold cells after the steps). Post-processing of the release;
// the variance (one coordinate) is left as released.
func (m *mixture) shrink(sum []float64, z float64) {
	k, h := m.k, m.h
	js := func(b []float64) {
		d := float64(len(b))
		if d < 3 {
			return
		}
		var sq float64
		for _, v := range b {
			sq += v * v
		}
		f := 0.0
		if sq > 0 {
			f = max(0, 1-(d-2)*z*z/sq)
		}
		for t := range b {
			b[t] *= f
		}
	}
	for j := range k {
		js(sum[j*h : (j+1)*h])
	}
	js(sum[k*h : k*h+k])
}

// clippedSum writes into sum the sum over the n cells of x (n × h) of each
// cell's gradient of ℓ, in the mixture's natural units — g_μj = r_j(x −
// μ_j) (the gradient in μ_j up to the factor 1/v), g_a = r − π (minus the
// gradient in a), g_v = Σ_j r_j‖x − μ_j‖²/h (the gradient in b up to an
// affine map) — divided block by block by the public bounds cMu, side and
// side·cV (side = 1 unless option sideclip is set) and clipped as a whole
// to norm 1, so one cell added or removed moves sum
// by at most 1. It returns the loss the run reports: the mean over cells of
// Σ_j r_j‖x − μ_j‖²/h, the responsibility-weighted squared distance per
// gene that the means' steps reduce. Not the mixture's negative
// log-likelihood: clipping shrinks the variance statistic of the cells it
// cuts, so the steps hold v below its maximum-likelihood value and the
// likelihood falls while the means improve (measured: builtin:default,
// seed 1, ε = 1000: NLL −41.7 → −30.8 over the 50 steps at an unchanged
// ARI 0.605; this distortion 0.238 → 0.237). g is scratch of gradSize().
func (m *mixture) clippedSum(x []float64, n int, cMu, cV float64, sum, g []float64) float64 {
	k, h := m.k, m.h
	lp, s, dist := make([]float64, k), make([]float64, k), make([]float64, k)
	m.logWeights(lp)
	clear(sum)
	side := max(m.side, 1)
	var distortion float64
	kh := k * h
	for i := range n {
		xi := x[i*h : (i+1)*h]
		lse := m.scores(xi, lp, s, dist)
		var gv float64
		for j := range k {
			r := math.Exp(s[j] - lse)
			g[kh+j] = (r - math.Exp(lp[j])) / side
			mu := m.mu[j*h : (j+1)*h]
			for t, v := range xi {
				g[j*h+t] = r * (v - mu[t]) / cMu
			}
			gv += r * dist[j]
		}
		g[kh+k] = gv / float64(h) / cV / side
		distortion += gv / float64(h)
		var sq float64
		for _, v := range g {
			sq += v * v
		}
		f := 1.0
		if nrm := math.Sqrt(sq); nrm > 1 {
			f = 1 / nrm
		}
		for t, v := range g {
			sum[t] += f * v
		}
	}
	return distortion / float64(max(n, 1))
}

// update applies the released sum (scaled back by the bounds and divided by
// the released count nt) with the EM (Fisher) preconditioner and step size
// eta: μ_j += η·G_μj/π_j, a_j += η·G_aj/π_j (π_j floored at freqFloor/K, so
// a weight the noise drove near 0 cannot make a step blow up), v += η·(G_v −
// v) (floored at mixInitFloor·cV). With η = 1 and no noise it is one soft
// Lloyd (EM) iteration. Post-processing of the release.
func (m *mixture) update(sum []float64, cMu, cV, nt, eta float64) {
	k, h := m.k, m.h
	kh := k * h
	lp := make([]float64, k)
	m.logWeights(lp)
	den := max(nt, 1)
	side := max(m.side, 1)
	for j := range k {
		pj := max(math.Exp(lp[j]), freqFloor/float64(k))
		if !m.fixedWeights {
			m.a[j] += eta * sum[kh+j] * side / den / pj
		}
		if j < len(m.frozen) && m.frozen[j] {
			continue
		}
		for t := range h {
			m.mu[j*h+t] += eta * sum[j*h+t] * cMu / den / pj
		}
	}
	v := math.Exp(-2 * m.b)
	gv := sum[kh+k] * cV * side / den
	v = max(v+eta*(gv-v), mixInitFloor*cV)
	m.b = -0.5 * math.Log(v)
}

// plainLabels returns every cell's nearest mean (x is n × h): the
// mixture's labels without the weights π, a post-processing of the
// released means alone.
func (m *mixture) plainLabels(x []float64, n int) []int {
	out := make([]int, n)
	for i := range n {
		xi := x[i*m.h : (i+1)*m.h]
		best, bd := 0, math.Inf(1)
		for j := range m.k {
			if m.drop != nil && m.drop[j] {
				continue
			}
			if q := cluster.SqDist(xi, m.mu[j*m.h:(j+1)*m.h]); q < bd {
				best, bd = j, q
			}
		}
		out[i] = best
	}
	return out
}
