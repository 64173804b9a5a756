package nn

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpscope/dpscope/core/compute"
)

// zinbEps is the ε added inside logarithms of the ZINB loss.
const zinbEps = 1e-10

// ZINB returns Σ_i L_i, the zero-inflated negative-binomial negative
// log-likelihood of the counts x summed over the cells (rows), and adds
// w·∂L_i/∂μ_ij, w·∂L_i/∂θ_ij and w·∂L_i/∂π_ij into dMu, dTheta and dPi.
// With m = μ·s (s = sf[i], the cell's size factor) and ε = 1e-10, per gene
// (docs/METHODS.md §1, the DCA/DP-DCAN loss):
//
//	t1 = lgamma(θ+ε) + lgamma(x+1) − lgamma(x+θ+ε)
//	t2 = (θ+x)·log(1 + m/(θ+ε)) + x·(log(θ+ε) − log(m+ε))
//	ℓ  = −log(π + (1−π)·(θ/(θ+m+ε))^θ + ε)   if x ≤ 1e-8
//	ℓ  = t1 + t2 − log(1−π+ε)                 otherwise
//
// and L_i is the mean of ℓ over the genes. (θ/(θ+m+ε))^θ is computed as
// exp(−θ·log1p((m+ε)/θ)), so it neither overflows nor loses precision.
// Zero counts, most entries of single-cell data, take their three
// transcendentals in float32, eight at a time (zinbZeros); the rest of
// their terms and every non-zero count are float64. It panics, wrapping
// compute.ErrShape, if the matrices are not all n×G and len(sf) != n.
func ZINB(dMu, dTheta, dPi, x, mu, theta, pi compute.Matrix, sf []float32, w float32) float64 {
	n, g := x.Dims()
	for _, m := range []compute.Matrix{dMu, dTheta, dPi, mu, theta, pi} {
		if m.Rows != n || m.Cols != g {
			panic(fmt.Errorf("nn: ZINB: a matrix is %d×%d, must be %d×%d: %w", m.Rows, m.Cols, n, g, compute.ErrShape))
		}
	}
	if len(sf) != n {
		panic(fmt.Errorf("nn: ZINB: len(sf) is %d, must be %d: %w", len(sf), n, compute.ErrShape))
	}
	j := zinbJobs.Get().(*zinbJob)
	j.dMu, j.dTheta, j.dPi, j.x, j.mu, j.theta, j.pi, j.sf = dMu, dTheta, dPi, x, mu, theta, pi, sf
	j.scale = float64(w) / float64(g)
	if cap(j.cells) < n {
		j.cells = make([]float64, n)
	}
	j.cells = j.cells[:n]
	compute.Split(n, 1, g*zinbCost, j)
	// The cells' terms are summed here, in row order, so the total does
	// not depend on how split cut the rows.
	total := 0.0
	for _, c := range j.cells {
		total += c / float64(g)
	}
	*j = zinbJob{cells: j.cells}
	zinbJobs.Put(j)
	return total
}

// zinbCost is the weight of one ZINB entry in split's units (one
// float32 transcendental): the zero counts take three, the rest more.
const zinbCost = 4

// zinbJob is a ZINB call over a range of cells, for split: row i's
// gradients are written by one part only, and its term goes to cells[i].
type zinbJob struct {
	dMu, dTheta, dPi, x, mu, theta, pi compute.Matrix
	sf                                 []float32
	scale                              float64
	cells                              []float64
}

// zinbJobs recycles zinbJob values and their cells buffers, so a ZINB call
// does not allocate.
var zinbJobs = sync.Pool{New: func() any { return new(zinbJob) }}

func (jb *zinbJob) Run(lo, hi int) {
	_, g := jb.x.Dims()
	scale := jb.scale
	var zs zinbScratch
	for i := lo; i < hi; i++ {
		xr, mur, thr, pir := jb.x.RawRowView(i), jb.mu.RawRowView(i), jb.theta.RawRowView(i), jb.pi.RawRowView(i)
		dmr, dtr, dpr := jb.dMu.RawRowView(i), jb.dTheta.RawRowView(i), jb.dPi.RawRowView(i)
		s := float64(jb.sf[i])
		cell := 0.0
		for lo := 0; lo < g; lo += zinbBlock {
			hi := min(lo+zinbBlock, g)
			zs.zeros(mur[lo:hi], thr[lo:hi], pir[lo:hi], jb.sf[i])
			for j := lo; j < hi; j++ {
				var l, dm, dth, dpi float64
				if xj := float64(xr[j]); xj > 1e-8 {
					l, dm, dth, dpi = zinbTerm(xj, float64(mur[j])*s, float64(thr[j]), float64(pir[j]))
				} else {
					l, dm, dth, dpi = zs.term(j-lo, float64(mur[j])*s, float64(thr[j]), float64(pir[j]))
				}
				cell += l
				dmr[j] += float32(scale * dm * s)
				dtr[j] += float32(scale * dth)
				dpr[j] += float32(scale * dpi)
			}
		}
		jb.cells[i] = cell
	}
}

// zinbBlock is the number of genes whose zero-count transcendentals
// zinbScratch computes at once (4 KiB of scratch, on the stack).
const zinbBlock = 256

// zinbScratch holds, for a block of genes, the float32 parts of the
// zero-count term: L = log1p((m+ε)/θ), Z = exp(−θ·L) and log d with
// d = π + (1−π)·Z + ε.
type zinbScratch struct {
	l, z, logd, tmp [zinbBlock]float32
}

// zeros fills the scratch for the genes of one cell's block (size factor
// s) as if every count were zero; the non-zero ones are not read.
func (zs *zinbScratch) zeros(mu, th, pi []float32, s float32) {
	n := len(mu)
	l, z, logd, tmp := zs.l[:n], zs.z[:n], zs.logd[:n], zs.tmp[:n]
	for j, t := range th[:n] {
		z[j] = (mu[j]*s + zinbEps) / t // r, into z until log1p has read it
	}
	log1p32Slice(l, z, tmp)
	for j, t := range th[:n] {
		z[j] = -t * l[j]
	}
	exp32Slice(z, z)
	for j, p := range pi[:n] {
		tmp[j] = p + (1-p)*z[j] + zinbEps
	}
	log32Slice(logd, tmp)
}

// term returns the zero-count ℓ and its partial derivatives in m, θ and π
// for gene j of the block, from the scratch: zinbTerm's x = 0 branch.
func (zs *zinbScratch) term(j int, m, th, p float64) (l, dm, dth, dpi float64) {
	logZ := -th * float64(zs.l[j])
	z := float64(zs.z[j])
	d := p + (1-p)*z + zinbEps
	l = -float64(zs.logd[j])
	dz := -(1 - p) / d * z // ∂ℓ/∂log Z
	den := th + m + zinbEps
	dm = dz * (-th / den)
	dth = dz * (logZ/th + 1 - th/den)
	dpi = -(1 - z) / d
	return l, dm, dth, dpi
}

// zinbTerm returns ℓ(x; m, θ, π) and its partial derivatives in m, θ and π.
func zinbTerm(x, m, th, p float64) (l, dm, dth, dpi float64) {
	if x <= 1e-8 {
		// log Z = θ·(log θ − log(θ+m+ε)) = −θ·log1p((m+ε)/θ)
		r := (m + zinbEps) / th
		logZ := -th * math.Log1p(r)
		z := math.Exp(logZ)
		d := p + (1-p)*z + zinbEps
		l = -math.Log(d)
		dz := -(1 - p) / d * z // ∂ℓ/∂log Z
		den := th + m + zinbEps
		dm = dz * (-th / den)
		dth = dz * (logZ/th + 1 - th/den)
		dpi = -(1 - z) / d
		return l, dm, dth, dpi
	}
	a := th + zinbEps
	l1p := math.Log1p(m / a)
	var t1, dpsi float64 // t1, and ψ(a) − ψ(x+a)
	if k := int(x); x <= zinbSmallCount && float64(k) == x {
		// Γ(x+a)/Γ(a) = Π_{i<x} (a+i) and ψ(x+a) − ψ(a) = Σ_{i<x} 1/(a+i)
		// for a whole count: one log and x divisions instead of three
		// lgammas and two digammas, and no cancellation between them.
		prod := 1.0
		for i := range k {
			v := a + float64(i)
			prod *= v
			dpsi -= 1 / v
		}
		t1 = logFactorial[k] - math.Log(prod)
	} else {
		lgA, _ := math.Lgamma(a)
		lgX1, _ := math.Lgamma(x + 1)
		lgXA, _ := math.Lgamma(x + a)
		t1 = lgA + lgX1 - lgXA
		dpsi = digamma(a) - digamma(x+a)
	}
	t2 := (th+x)*l1p + x*math.Log(a/(m+zinbEps))
	l = t1 + t2 - math.Log(1-p+zinbEps)
	dm = (th+x)/(a+m) - x/(m+zinbEps)
	dth = dpsi + l1p - (th+x)*m/(a*(a+m)) + x/a
	dpi = 1 / (1 - p + zinbEps)
	return l, dm, dth, dpi
}

// digamma returns ψ(x) = d/dx log Γ(x) for x > 0: the recurrence
// ψ(x) = ψ(x+1) − 1/x up to x ≥ 6, then the asymptotic series
// log x − 1/(2x) − Σ B_2k/(2k x^2k) to x⁻¹⁰ (absolute error < 1e-12).
func digamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// zinbSmallCount is the largest whole count whose Γ and ψ ratios zinbTerm
// forms as a product and a sum: most counts of single-cell data are
// small, and (a+i) ≤ 1e4+16 keeps the product of 16 factors below 1e65.
const zinbSmallCount = 16

// logFactorial[k] is log k! = lgamma(k+1).
var logFactorial = func() (t [zinbSmallCount + 1]float64) {
	for k := range t {
		t[k], _ = math.Lgamma(float64(k) + 1)
	}
	return t
}()
