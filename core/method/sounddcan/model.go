package sounddcan

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/core/nn"
)

// Head rules, fixed in advance: a centre moves only when its noisy count
// is at least minCountSigmas noise standard deviations (and at least one
// cell), else it keeps its place; DEC's frequencies are floored at
// freqFloor of the uniform share ñ/K, so the target p_ij ∝ q_ij²/f_j never
// divides by a count the noise drove to zero or below.
const (
	minCountSigmas = 3
	freqFloor      = 0.1
	reseatOffset   = 0.05
)

// maxChunk is the most cells one forward pass holds (dpsgd splits the full
// batch into chunks of this many cells).
const maxChunk = 1024

// model is the network, its DEC head and the data it trains on.
type model struct {
	ae         *nn.Autoencoder
	n, h, p, k int
	x          []float32 // n × h scaled, clipped rows (dppca's matrix)
	xbuf       []float32 // maxChunk × h input of one chunk
	pbuf       []float32 // maxChunk × k targets of one chunk
	target     []float32 // n × k DEC targets p_i
	mu         compute.Matrix
	freq       []float64
	codes      []float32 // n × p codes of the last encodeAll
	labels     []int
	scratch    []float64
	gamma      float32
	nt         float64 // released cell count ñ
	nonEmpty   int
	moved      int       // centres the last head round moved
	counts     []float64 // noisy counts of the last head round
	// parts of the last chunk sums, for the step's loss parts
	mse, kl float64
}

// newModel builds the linear autoencoder h → p → h with its encoder set to
// the private basis (h × p) and its decoder to the basis' transpose, and
// the head at dppca's centres (k × p).
func newModel(out *dppca.Outcome, k int, gamma float64, seed uint64) (*model, error) {
	m := out.Matrix
	p := len(out.Eigen)
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{
		Genes: m.H, Hidden: []int{}, Latent: p, Act: nn.Tanh, Output: nn.OutputLinear,
		MaxRows: min(m.N, maxChunk), Init: nn.InitGlorot, Seed: seed,
	})
	if err != nil {
		return nil, err
	}
	enc, dec := ae.Layers[0], ae.Layers[1]
	if enc.In != m.H || enc.Out != p || dec.In != p || dec.Out != m.H {
		return nil, fmt.Errorf("dcan-sound: network layers are %d→%d and %d→%d, want %d→%d→%d", enc.In, enc.Out, dec.In, dec.Out, m.H, p, m.H)
	}
	for i := range m.H {
		for j := range p {
			v := float32(out.Basis[i*p+j])
			enc.W.Set(i, j, v) // W is In × Out: encoder h × p = V
			dec.W.Set(j, i, v)
		}
	}
	clear(enc.B)
	clear(dec.B)
	md := &model{
		ae: ae, n: m.N, h: m.H, p: p, k: k,
		x:       make([]float32, m.N*m.H),
		xbuf:    make([]float32, min(m.N, maxChunk)*m.H),
		pbuf:    make([]float32, min(m.N, maxChunk)*k),
		target:  make([]float32, m.N*k),
		mu:      compute.NewMatrix(k, p, nil),
		freq:    make([]float64, k),
		codes:   make([]float32, m.N*p),
		labels:  make([]int, m.N),
		scratch: make([]float64, k),
		gamma:   float32(gamma),
		nt:      m.NoisyN,
	}
	for i, v := range m.Z {
		md.x[i] = float32(v)
	}
	for i, v := range out.Centres {
		md.mu.Data[i] = float32(v)
	}
	return md, nil
}

// encodeAll encodes every cell into codes.
func (md *model) encodeAll() {
	c := md.ae.MaxRows()
	for lo := 0; lo < md.n; lo += c {
		m := min(c, md.n-lo)
		md.ae.Encode(compute.NewMatrix(m, md.h, md.x[lo*md.h:(lo+m)*md.h]))
		z := md.ae.Latent()
		for i := range m {
			copy(md.codes[(lo+i)*md.p:(lo+i+1)*md.p], z.RawRowView(i))
		}
	}
}

// loss is the dpsgd.LossFunc of one chunk: per cell MSE(x, x̂) + γ·KL(p‖q).
func (md *model) loss(cells []int) (float64, error) {
	m := len(cells)
	xin := compute.NewMatrix(m, md.h, md.xbuf[:m*md.h])
	pt := compute.NewMatrix(m, md.k, md.pbuf[:m*md.k])
	for r, i := range cells {
		copy(xin.RawRowView(r), md.x[i*md.h:(i+1)*md.h])
		copy(pt.RawRowView(r), md.target[i*md.k:(i+1)*md.k])
	}
	md.ae.Forward(xin)
	mse := nn.MSE(md.ae.OutputGrad(0), md.ae.Output(0), xin, 1)
	kl := 0.0
	if md.gamma > 0 {
		kl = nn.KLStudentT(md.ae.LatentGrad(), compute.Matrix{}, md.ae.Latent(), md.mu, pt, md.scratch, md.gamma)
	}
	md.ae.Backward()
	md.mse += mse
	md.kl += kl
	return mse + float64(md.gamma)*kl, nil
}

// headRound encodes every cell, assigns each to its nearest centre, releases
// the cluster sums of the codes clipped to r and the counts with noise
// (σ 0: exact), moves the centres whose noisy count is large enough, sets
// DEC's frequencies and targets, and relabels every cell by its own code.
// With reseat, centres whose count is too small are reseated (reseat).
func (md *model) headRound(sigSums, sigCounts, r float64, reseat bool, rng *rand.Rand) {
	md.encodeAll()
	md.assign()
	p, k := md.p, md.k
	sums := make([]float64, k*p)
	counts := make([]float64, k)
	c := make([]float64, p)
	for i := range md.n {
		for t, v := range md.codes[i*p : (i+1)*p] {
			c[t] = float64(v)
		}
		clipTo(c, r)
		j := md.labels[i]
		counts[j]++
		for t, v := range c {
			sums[j*p+t] += v
		}
	}
	if sigSums > 0 {
		for t := range sums {
			sums[t] += sigSums * rng.NormFloat64()
		}
	}
	if sigCounts > 0 {
		for j := range counts {
			counts[j] += sigCounts * rng.NormFloat64()
		}
	}
	minCount := max(1, minCountSigmas*sigCounts)
	floor := freqFloor * max(md.nt, 1) / float64(k)
	md.moved = 0
	for j := range k {
		if counts[j] >= minCount {
			md.moved++
			row := md.mu.RawRowView(j)
			for t := range row {
				row[t] = float32(sums[j*p+t] / counts[j])
			}
		}
		md.freq[j] = max(counts[j], floor)
	}
	md.counts = counts
	if reseat {
		md.reseat(counts, minCount, r, rng)
	}
	md.assign()
	md.setTargets()
}

// reseat guards against collapse: while fewer than ⌈K/2⌉ centres have a
// noisy count of at least minCount, it moves centres below it next to the
// alive centres, heaviest first (a random offset of reseatOffset·R), so
// the next rounds can split those clusters instead of leaving centres
// where no code lies. Only as many move as ⌈K/2⌉ needs: splitting clusters
// the noise merged is not free (a split of one population lowers ARI as
// much as a merge). Post-processing of the released counts; nothing moves
// when no count reaches minCount.
func (md *model) reseat(counts []float64, minCount, r float64, rng *rand.Rand) {
	var alive, dead []int
	for j, c := range counts {
		if c >= minCount {
			alive = append(alive, j)
		} else {
			dead = append(dead, j)
		}
	}
	need := (md.k+1)/2 - len(alive)
	if len(alive) == 0 || need <= 0 {
		return
	}
	slices.SortStableFunc(alive, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	dir := make([]float64, md.p)
	for i, j := range dead[:min(need, len(dead))] {
		src := md.mu.RawRowView(alive[i%len(alive)])
		var s float64
		for t := range dir {
			dir[t] = rng.NormFloat64()
			s += dir[t] * dir[t]
		}
		f := reseatOffset * r / math.Sqrt(s)
		row := md.mu.RawRowView(j)
		for t := range row {
			row[t] = src[t] + float32(f*dir[t])
		}
	}
}

// merge replaces the head's centres by k centres merged from the current
// ones weighted by the last round's noisy counts (mergeCentres), with the
// merged weights as DEC's frequencies: post-processing of the releases.
func (md *model) merge(k int, rng *rand.Rand) {
	pts := make([]float64, len(md.mu.Data))
	for i, v := range md.mu.Data {
		pts[i] = float64(v)
	}
	w := make([]float64, md.k)
	minCount := 1.0
	for j, c := range md.counts {
		if c >= minCount {
			w[j] = c
		}
	}
	c, wt := mergeCentres(pts, w, md.p, k, rng)
	md.k = k
	md.mu = compute.NewMatrix(k, md.p, nil)
	for i, v := range c {
		md.mu.Data[i] = float32(v)
	}
	floor := freqFloor * max(md.nt, 1) / float64(k)
	md.freq = make([]float64, k)
	for j := range k {
		md.freq[j] = max(wt[j], floor)
	}
	md.target = make([]float32, md.n*k)
	md.pbuf = make([]float32, min(md.n, maxChunk)*k)
	md.scratch = make([]float64, k)
	md.assign()
	md.setTargets()
}

// assign labels every cell by its nearest centre (the Student-t
// assignment's argmax) and counts the non-empty clusters.
func (md *model) assign() {
	seen := make([]bool, md.k)
	md.nonEmpty = 0
	for i := range md.n {
		z := md.codes[i*md.p : (i+1)*md.p]
		best, bd := 0, math.Inf(1)
		for j := range md.k {
			var d float64
			for t, v := range md.mu.RawRowView(j) {
				e := float64(z[t] - v)
				d += e * e
			}
			if d < bd {
				best, bd = j, d
			}
		}
		md.labels[i] = best
		if !seen[best] {
			seen[best] = true
			md.nonEmpty++
		}
	}
}

// setTargets computes every cell's DEC target from its code, the released
// centres and frequencies.
func (md *model) setTargets() {
	q := compute.NewMatrix(md.n, md.k, nil)
	z := compute.NewMatrix(md.n, md.p, md.codes)
	nn.StudentTTo(q, z, md.mu)
	nn.DECTargetFromFreqTo(compute.NewMatrix(md.n, md.k, md.target), q, md.freq)
}

// newDPSGD returns full-batch DP-SGD on the whole network: q = 1, every
// layer noised, joint clipping to C, noise multiplier z, SGD with momentum.
func (md *model) newDPSGD(z, c, lr, momentum float64, seed uint64, secure bool, rec dpsgd.Recorder) (*dpsgd.DPSGD, error) {
	opt, err := nn.NewSGD(len(md.ae.Params), nn.SGDConfig{LR: lr, Momentum: momentum})
	if err != nil {
		return nil, err
	}
	return dpsgd.New(&md.ae.Net, opt, md.n, dpsgd.Config{
		SampleRate: 1, NoiseMultiplier: z, ClipNorm: c,
		Perturbed: dpsgd.LayerRange{First: 1, Last: md.ae.NumLayers()},
		Clipping:  dpsgd.ClipJoint, Batching: dpsgd.Poisson, Seed: seed, Secure: secure,
	}, rec)
}

// clipTo scales v to norm at most r.
func clipTo(v []float64, r float64) {
	var s float64
	for _, a := range v {
		s += a * a
	}
	if s <= r*r {
		return
	}
	f := r / math.Sqrt(s)
	for j := range v {
		v[j] *= f
	}
}
