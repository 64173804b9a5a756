package dcan

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// Indices of the loss parts reported in StepEvent.Parts.
const (
	partRecon = iota
	partInstance
	partKL
	partCC
	numParts
)

// model holds the autoencoder, the data and every batch buffer of the two
// stages' per-cell losses. Its loss methods allocate nothing. Not safe for
// concurrent use.
type model struct {
	ae      *nn.Autoencoder
	n, g, k int
	latent  int
	x       compute.Matrix // N×G model input
	raw     compute.Matrix // N×G raw counts; no rows without counts
	sf      []float32      // N size factors
	counts  bool           // ZINB (true) or MSE on x (false)

	in      compute.Matrix // MaxRows×G input buffer
	tgt     compute.Matrix // MaxRows×G reconstruction target (counts or clean x)
	sfb     []float32      // MaxRows size factors
	mask    *rand.Rand     // the masking stream, drawn from by stage1Loss through maskJob
	maskSrc *rand.PCG      // mask's source, whose state maskJob reads and jumps
	maskJob maskJob
	drop    uint32 // an entry is zeroed when a 32-bit draw is below drop

	rho     float64
	beta    [3]float64
	denoise bool           // stage 1 reconstructs the counts from a masked copy of the input
	center  bool           // the instance loss compares views minus zbar
	zbar    []float32      // latent mean over cells at the last encodeAll
	zc      compute.Matrix // MaxRows×latent centred views

	// Stage 2.
	mu, dmu compute.Matrix // K×latent centroids and their KL gradient
	trainMu bool           // accumulate dmu (nonprivate and paper modes)
	p       compute.Matrix // N×K DEC target
	pb      compute.Matrix // MaxRows×K batch target
	qs      []float64      // K scratch
	lcc     float64        // L_cc of the current centroids

	parts [numParts]float64 // weighted loss parts summed over the current step
}

// newModel builds the buffers for data d, K clusters and the autoencoder ae.
func newModel(ae *nn.Autoencoder, d *datasets.Preprocessed, k int, o Options, seed uint64) *model {
	rows := ae.MaxRows()
	cfg := ae.Config()
	m := &model{
		ae: ae, n: d.Cells, g: d.Genes, k: k, latent: cfg.Latent,
		x:       compute.NewMatrix(d.Cells, d.Genes, d.X),
		sf:      make([]float32, d.Cells),
		counts:  d.RawCounts != nil,
		in:      compute.NewMatrix(rows, d.Genes, nil),
		tgt:     compute.NewMatrix(rows, d.Genes, nil),
		sfb:     make([]float32, rows),
		maskSrc: rand.NewPCG(seed, streamMask),
		drop:    uint32(math.Min(o.MaskProb*(1<<32), math.MaxUint32)),
		rho:     o.Rho, beta: o.Beta, denoise: o.Denoise, center: o.CenterInstance,
		zbar: make([]float32, cfg.Latent), zc: compute.NewMatrix(rows, cfg.Latent, nil),
		mu:  compute.NewMatrix(k, cfg.Latent, nil),
		dmu: compute.NewMatrix(k, cfg.Latent, nil),
		p:   compute.NewMatrix(d.Cells, k, nil),
		pb:  compute.NewMatrix(rows, k, nil),
		qs:  make([]float64, k),
	}
	m.mask = rand.New(m.maskSrc)
	for h := range m.maskJob.src {
		m.maskJob.src[h] = rand.NewPCG(0, 0)
		m.maskJob.rng[h] = rand.New(m.maskJob.src[h])
	}
	if m.counts {
		m.raw = compute.NewMatrix(d.Cells, d.Genes, d.RawCounts)
	}
	for i, s := range d.SizeFactors {
		m.sf[i] = float32(s)
	}
	return m
}

// Bounds of the initial dispersion θ_g of initHeads.
const (
	initThetaMin = 0.01
	initThetaMax = 1e3
)

// initHeads starts the biases of the ZINB heads from the data's per-gene
// moments of size-normalised counts (geneMoments, computed once for both),
// each when asked. It does nothing without raw counts.
//
// The mean head (means): log m_g, floored at log 1e-4, so that μ starts
// at each gene's mean instead of 1.
//
// The dispersion head (dispersions): θ starts at each gene's
// method-of-moments estimate m²/(v − m) (initThetaMax where v ≤ m, as for
// Poisson-like genes), clamped to [initThetaMin, initThetaMax]. At
// PyTorch's initialisation θ ≈ softplus(0) = 0.69: so overdispersed that
// the likelihood hardly depends on μ, and Adam at lr 1e-3 moves the bias
// too little in a run's few hundred steps to correct it (docs/RESULTS.md).
func (m *model) initHeads(means, dispersions bool) {
	if !m.counts || !means && !dispersions {
		return
	}
	mean, variance := m.geneMoments()
	head := func(k int) []float32 { return m.ae.Layers[len(m.ae.Layers)-m.ae.NumOutputs()+k].B }
	if means {
		b := head(nn.HeadMu)
		for j, v := range mean {
			b[j] = float32(math.Log(max(v, 1e-4)))
		}
	}
	if dispersions {
		b := head(nn.HeadTheta)
		for j, mu := range mean {
			theta := initThetaMax
			if v := variance[j]; v > mu {
				theta = min(max(mu*mu/(v-mu), initThetaMin), initThetaMax)
			}
			b[j] = float32(theta + math.Log(-math.Expm1(-theta))) // softplus⁻¹(θ)
		}
	}
}

// geneMoments returns the mean and sample variance over cells of each
// gene's count divided by the cell's size factor.
func (m *model) geneMoments() (mean, variance []float64) {
	mean, variance = make([]float64, m.g), make([]float64, m.g)
	for i := range m.n {
		s := 1 / float64(m.sf[i])
		for j, v := range m.raw.RawRowView(i) {
			mean[j] += float64(v) * s
		}
	}
	for j := range mean {
		mean[j] /= float64(m.n)
	}
	for i := range m.n {
		s := 1 / float64(m.sf[i])
		for j, v := range m.raw.RawRowView(i) {
			d := float64(v)*s - mean[j]
			variance[j] += d * d
		}
	}
	for j := range variance {
		variance[j] /= float64(max(m.n-1, 1))
	}
	return mean, variance
}

// Random streams of a run's seed (rand.NewPCG(seed, stream)).
const (
	streamMask   = 3
	streamBatch  = 4
	streamKMeans = 5
	streamEval   = 6
)

// recon adds the reconstruction loss of the last forward pass for views
// views of each cell (view s of cell i in row s·len(cells)+i), weighted by
// w, and returns its unweighted sum over rows. The targets (raw counts and
// size factors, or the clean input for MSE) are copied into tgt and sfb.
func (m *model) recon(cells []int, views int, w float64) float64 {
	r := len(cells)
	for s := range views {
		for i, c := range cells {
			row := s*r + i
			if m.counts {
				copy(m.tgt.RawRowView(row), m.raw.RawRowView(c))
				m.sfb[row] = m.sf[c]
			} else {
				copy(m.tgt.RawRowView(row), m.x.RawRowView(c))
			}
		}
	}
	n := views * r
	tgt := m.tgt.View(0, 0, n, m.g)
	a := m.ae
	v := func(x compute.Matrix) compute.Matrix { return x.View(0, 0, n, m.g) }
	if !m.counts {
		return nn.MSE(v(a.OutputGrad(0)), v(a.Output(0)), tgt, float32(w))
	}
	return nn.ZINB(v(a.OutputGrad(nn.HeadMu)), v(a.OutputGrad(nn.HeadTheta)), v(a.OutputGrad(nn.HeadPi)), tgt,
		v(a.Output(nn.HeadMu)), v(a.Output(nn.HeadTheta)), v(a.Output(nn.HeadPi)), m.sfb[:n], float32(w))
}

// maskRowTo writes src into dst with each entry zeroed with the masking
// probability.
func (m *model) maskRowTo(rng *rand.Rand, dst, src []float32) {
	dst = dst[:len(src)]
	j := 0
	for ; j+1 < len(src); j += 2 {
		u := rng.Uint64()
		dst[j], dst[j+1] = src[j], src[j+1]
		if uint32(u) < m.drop {
			dst[j] = 0
		}
		if uint32(u>>32) < m.drop {
			dst[j+1] = 0
		}
	}
	if j < len(src) {
		dst[j] = src[j]
		if rng.Uint32() < m.drop {
			dst[j] = 0
		}
	}
}

// maskViews writes the three rows of each cell into in (stage1Loss):
// the cell (masked too when denoise is set) and two masked views. The
// draws are those of one pass over the cells with m.mask — each row takes
// ⌈G/2⌉ steps of the PCG — but the cells are split over two goroutines
// (compute.Split), the second half's generator jumped ahead to where one
// pass would reach it: the same bits as one pass, on two cores (the
// masking was 7 % of a stage-1 step, on one core).
func (m *model) maskViews(in compute.Matrix, cells []int) {
	j := &m.maskJob
	b, err := m.maskSrc.AppendBinary(j.buf[:0])
	if err != nil || len(b) != 20 {
		panic(fmt.Sprintf("dcan: the masking PCG's state is %d bytes (%v), want 20", len(b), err))
	}
	j.hi, j.lo = binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])
	rows := 2
	if m.denoise {
		rows = 3
	}
	j.m, j.in, j.cells, j.per = m, in, cells, uint64(rows*((m.g+1)/2))
	compute.Split(len(cells), 1, rows*m.g, j)
	m.maskSrc.Seed(pcgJump(j.hi, j.lo, uint64(len(cells))*j.per))
	j.m, j.in, j.cells = nil, compute.Matrix{}, nil
}

// maskJob is maskViews over a range of cells, for compute.Split: the part
// that starts at cell 0 draws with src[0], the other with src[1], each
// seeded with the state one pass would have at its first cell.
type maskJob struct {
	m      *model
	in     compute.Matrix
	cells  []int
	hi, lo uint64 // the masking PCG's state before the pass
	per    uint64 // PCG steps per cell
	src    [2]*rand.PCG
	rng    [2]*rand.Rand
	buf    [20]byte
}

// Run implements compute.RangeJob.
func (j *maskJob) Run(lo, hi int) {
	h := 0
	if lo > 0 {
		h = 1
	}
	j.src[h].Seed(pcgJump(j.hi, j.lo, uint64(lo)*j.per))
	rng, m, r := j.rng[h], j.m, len(j.cells)
	for i := lo; i < hi; i++ {
		src := m.x.RawRowView(j.cells[i])
		if m.denoise {
			m.maskRowTo(rng, j.in.RawRowView(i), src)
		} else {
			copy(j.in.RawRowView(i), src)
		}
		m.maskRowTo(rng, j.in.RawRowView(r+i), src)
		m.maskRowTo(rng, j.in.RawRowView(2*r+i), src)
	}
}

// pcgJump returns the state of math/rand/v2's PCG k steps after the state
// (hi, lo), in the form PCG.Seed takes: the generator is the 128-bit LCG
// s ← s·mul + inc, and k steps are s·mul^k + inc·(mul^k − 1)/(mul − 1),
// formed by squaring (Brown, "Random number generation with arbitrary
// strides", 1994) in O(log k) 128-bit products.
func pcgJump(hi, lo, k uint64) (uint64, uint64) {
	// The constants of math/rand/v2's PCG (pcg.go).
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	accMulHi, accMulLo := uint64(0), uint64(1)
	accAddHi, accAddLo := uint64(0), uint64(0)
	curMulHi, curMulLo := uint64(mulHi), uint64(mulLo)
	curAddHi, curAddLo := uint64(incHi), uint64(incLo)
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			accMulHi, accMulLo = mul128(accMulHi, accMulLo, curMulHi, curMulLo)
			accAddHi, accAddLo = mul128(accAddHi, accAddLo, curMulHi, curMulLo)
			accAddHi, accAddLo = add128(accAddHi, accAddLo, curAddHi, curAddLo)
		}
		// cur_add ← (cur_mul + 1)·cur_add, cur_mul ← cur_mul²
		h, l := add128(curMulHi, curMulLo, 0, 1)
		curAddHi, curAddLo = mul128(h, l, curAddHi, curAddLo)
		curMulHi, curMulLo = mul128(curMulHi, curMulLo, curMulHi, curMulLo)
	}
	hi, lo = mul128(accMulHi, accMulLo, hi, lo)
	return add128(hi, lo, accAddHi, accAddLo)
}

// mul128 returns (ah·2⁶⁴ + al)·(bh·2⁶⁴ + bl) mod 2¹²⁸.
func mul128(ah, al, bh, bl uint64) (uint64, uint64) {
	hi, lo := bits.Mul64(al, bl)
	return hi + ah*bl + al*bh, lo
}

// add128 returns (ah·2⁶⁴ + al) + (bh·2⁶⁴ + bl) mod 2¹²⁸.
func add128(ah, al, bh, bl uint64) (uint64, uint64) {
	lo, c := bits.Add64(al, bl, 0)
	hi, _ := bits.Add64(ah, bh, c)
	return hi, lo
}

// stage1Views is the number of rows a cell occupies in stage 1: the cell
// itself and two masked views.
const stage1Views = 3

// stage1Loss is the dpsgd.LossFunc of the instance stage. Each cell
// occupies three rows (view s of cell i in row s·len(cells)+i): the cell
// itself, whose reconstruction gives the ZINB term, and two views with
// every entry zeroed with the masking probability, whose embeddings give
// the per-cell negative cosine:
//
//	L_i = ρ·ZINB(x_i | μ, θ, π of the cell) + (1−ρ)·(−cos(z1_i, z2_i))
//
// as in the authors' code (reconstruction of the clean input, instance
// loss between two masked views), but per cell.
func (m *model) stage1Loss(cells []int) (float64, error) {
	r := len(cells)
	in := m.in.View(0, 0, stage1Views*r, m.g)
	m.maskViews(in, cells)
	a := m.ae
	// Only the cell's own row is decoded: the views' reconstructions
	// would enter no loss (their output gradients would be zero).
	a.ForwardDecode(in, r)
	rec := m.recon(cells, 1, m.rho)
	z, dz := a.Latent(), a.LatentGrad()
	z1, z2 := z.View(r, 0, r, m.latent), z.View(2*r, 0, r, m.latent)
	if m.center {
		// −cos(z1 − z̄, z2 − z̄) with z̄ fixed: the same gradient with
		// respect to z1 and z2 as with respect to the differences.
		c1, c2 := m.zc.View(0, 0, r, m.latent), m.zc.View(r, 0, r, m.latent)
		for i := range r {
			for j, v := range z1.RawRowView(i) {
				c1.RawRowView(i)[j] = v - m.zbar[j]
			}
			for j, v := range z2.RawRowView(i) {
				c2.RawRowView(i)[j] = v - m.zbar[j]
			}
		}
		z1, z2 = c1, c2
	}
	inst := nn.NegCosine(dz.View(r, 0, r, m.latent), dz.View(2*r, 0, r, m.latent), z1, z2, float32(1-m.rho))
	a.Backward()
	m.parts[partRecon] += m.rho * rec
	m.parts[partInstance] += (1 - m.rho) * inst
	return m.rho*rec + (1-m.rho)*inst, nil
}

// stage2Loss is the dpsgd.LossFunc of the cluster stage:
//
//	L_i = β1·recon_i + β2·KL(p_i‖q_i) + β3·L_cc
//
// with p the target of the epoch and q the Student-t assignments of the
// current embeddings to the centroids. The KL gradient with respect to the
// centroids is added into dmu when they are trained.
func (m *model) stage2Loss(cells []int) (float64, error) {
	r := len(cells)
	in := m.in.View(0, 0, r, m.g)
	pb := m.pb.View(0, 0, r, m.k)
	for i, c := range cells {
		copy(in.RawRowView(i), m.x.RawRowView(c))
		copy(pb.RawRowView(i), m.p.RawRowView(c))
	}
	a := m.ae
	a.Forward(in)
	rec := m.recon(cells, 1, m.beta[0])
	dmu := compute.Matrix{}
	if m.trainMu {
		dmu = m.dmu
	}
	kl := nn.KLStudentT(a.LatentGrad(), dmu, a.Latent(), m.mu, pb, m.qs, float32(m.beta[1]))
	a.Backward()
	cc := m.lcc * float64(r)
	m.parts[partRecon] += m.beta[0] * rec
	m.parts[partKL] += m.beta[1] * kl
	m.parts[partCC] += m.beta[2] * cc
	return m.beta[0]*rec + m.beta[1]*kl + m.beta[2]*cc, nil
}

// ccLoss returns L_cc = (1/K²)·Σ_{i,j} cos(μ_i, μ_j) = ‖Σ_i u_i‖²/K² with
// u_i = μ_i/‖μ_i‖, and, when grad has rows, adds w·∂L_cc/∂μ_i =
// w·(2/K²)·(S − (u_i·S)·u_i)/‖μ_i‖ (S = Σ_j u_j) into grad.
func (m *model) ccLoss(grad compute.Matrix, w float64) float64 {
	k := float64(m.k)
	var s [64]float64
	var sum []float64
	if m.latent > len(s) {
		sum = make([]float64, m.latent) // only for latent widths above 64
	} else {
		sum = s[:m.latent]
	}
	norm := func(v []float32) float64 { return math.Max(math.Sqrt(compute.Dot64(v, v)), 1e-8) }
	for j := range m.k {
		row := m.mu.RawRowView(j)
		nj := norm(row)
		for t, v := range row {
			sum[t] += float64(v) / nj
		}
	}
	l := 0.0
	for _, v := range sum {
		l += v * v
	}
	if grad.Rows > 0 {
		for j := range m.k {
			row, g := m.mu.RawRowView(j), grad.RawRowView(j)
			nj := norm(row)
			us := 0.0
			for t, v := range row {
				us += float64(v) / nj * sum[t]
			}
			c := w * 2 / (k * k) / nj
			for t, v := range row {
				g[t] += float32(c * (sum[t] - us*float64(v)/nj))
			}
		}
	}
	return l / (k * k)
}
