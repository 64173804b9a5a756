package dpmd

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/blas"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/neighbors"
	"github.com/dpscope/dpscope/core/safe"
)

// StepKind is the update rule one denoising track applies.
type StepKind int

const (
	// StepPx: x ← b_x + P_x(x − b_x), the averaged projector as it is.
	StepPx StepKind = iota
	// StepEigProj: x ← b_x + P̂(x − b_x), P̂ the top-d eigenprojector of P_x.
	StepEigProj
	// StepPaper: Algorithm 2 — P̃ the top-d eigenprojector of P_x + W,
	// b̃ = b_x + ξ, x ← b̃ + P̃(x − b̃).
	StepPaper
	// StepSound: the METHODS.md §2 sound variant (see Denoiser.Step).
	StepSound
)

// Noise holds the standard deviations of one query-iteration's releases.
// Paper mode uses Projector (ς_P, every W_jk, j ≤ k) and Mean (ς_m, per
// coordinate); sound mode uses Mean for the numerator and Mass for the
// kernel mass, with the public floor SMin, and, when Tangents is set,
// Projector for the second moment.
type Noise struct {
	Projector, Mean, Mass, SMin float64
	// Tangents makes sound mode release the second moment and step along
	// its normal space; unset, it takes the mean-shift step x + m.
	Tangents bool
	// aud, when set, adds audit canaries to each query's numerator and
	// mass (queryCanaries); nil in every run without an audit.
	aud *queryCanaries
	// paud, when set, records each query's released mean b̃ for a
	// paper-mode audit (paperCanaries); set in iteration 1 only.
	paud *paperCanaries
}

// Denoiser moves queries toward the manifold sampled by a private reference
// set. Built once by NewDenoiser; immutable and safe for concurrent use
// (each goroutine steps through its own Worker).
type Denoiser struct {
	ix      *neighbors.Index
	y       []float64
	n, D, d int
	h       float64
	tg      *Tangents // nil: only StepSound is possible
	order   []int32   // order[k]: the caller's index of stored reference k
	vt      []float32 // tg.V in stored order, each block transposed to d × D
	bl      blas.Float64
	bl32    blas.Float32
	// Secure draws each query's noise from a ChaCha8 generator keyed by
	// crypto/rand instead of rand.NewPCG(seed, …) (Config.SecureNoise):
	// not reproducible, and not removable by whoever knows the seed. Set
	// it before the first Iterate.
	Secure bool
}

// gramChunk is the number of references whose weighted tangent blocks are
// gathered for one Ssyrk call when P_x is formed: 256·d rows of D float32
// (200 KB at d = 2, D = 100) stay in L2 between the gather and the product.
const gramChunk = 256

// NewDenoiser returns a denoiser on the references y (n × D) with bandwidth
// h and intrinsic dimension d. tg is their local PCA (LocalPCA with the
// same y, h and d), or nil when only StepSound will be used. It returns an
// error wrapping ErrInput for empty or non-finite references, h ≤ 0, d
// outside [1, D−1] or tangents that do not match.
func NewDenoiser(y []float64, n, D int, h float64, d int, tg *Tangents) (*Denoiser, error) {
	if err := checkPoints("references", y, n, D); err != nil {
		return nil, err
	}
	if err := checkGeometry(h, d, D); err != nil {
		return nil, err
	}
	if tg != nil && (tg.N != n || tg.D != D || tg.Dim != d) {
		return nil, core.Wrapf(ErrInput, "dpmd: tangents are %d×%d×%d, must be n×D×d = %d×%d×%d", tg.N, tg.D, tg.Dim, n, D, d)
	}
	// The references are stored in chain order (as LocalPCA visits them):
	// the weighted mean and the tangent gathers then read runs of rows.
	bl := compute.Impl64()
	order, ys, _ := chainStore(bl, y, n, D, d)
	ix, err := neighbors.New(ys, n, D, neighbors.Choose(D, 0))
	if err != nil {
		return nil, fmt.Errorf("dpmd: denoiser: %w", err)
	}
	dn := &Denoiser{ix: ix, y: ix.Points(), n: n, D: D, d: d, h: h, tg: tg, order: order, bl: bl, bl32: compute.Impl()}
	if tg != nil {
		// Each tangent vector contiguous (d × D per reference): building the
		// weighted basis of a query is then a scaled copy of whole rows. In
		// float32, so the Gram product P_x = UᵀU runs at single-precision
		// speed and the gather reads half the bytes; its rounding (relative
		// ~1e-6 after the float64 sum of the chunks) is far below any noise
		// ς_P the budget gives and below the reported digits of the
		// non-private ceiling.
		dn.vt = make([]float32, len(tg.V))
		for k, i := range order {
			V, T := tg.Basis(int(i)), dn.vt[k*d*D:(k+1)*d*D]
			for c := range D {
				for l := range d {
					T[l*D+c] = float32(V[c*d+l])
				}
			}
		}
	}
	return dn, nil
}

// Worker is one goroutine's scratch for Denoiser.Step. Not safe for
// concurrent use.
type Worker struct {
	dn               *Denoiser
	s                *neighbors.Searcher
	ew               *eigWork
	alpha            []float64
	u, p             []float64
	u32, p32         []float32
	r32, t32, acc32  []float32
	b, r, tmp, start []float64
	v                []float64
	qs               []float64 // a task's queries as they were before its steps
	nstep            []float64 // sound mode's normal step u
	q                int       // the query being stepped (Iterate), for the audit's canaries
}

// NewWorker returns a worker for dn.
func (dn *Denoiser) NewWorker() *Worker {
	return &Worker{dn: dn, s: dn.ix.NewSearcher(), ew: newEigWork(dn.bl)}
}

// Step applies one iteration of kind to x (length D) in place and reports
// whether x was moved. Paper-mode kinds (StepPx, StepEigProj, StepPaper)
// leave x unchanged when fewer than d + 1 references lie within h (the
// paper's gate). With weights α̃_i = (1 − ‖x − y_i‖²/h²)₊^(d+2) and
// α_i = α̃_i/Σα̃:
//
//	b_x = Σ α_i y_i,   P_x = Σ α_i V_i V_iᵀ   (formed as UᵀU, U = [√α_i V_iᵀ]).
//
// StepSound uses its own kernel k_i = (1 − ‖x − y_i‖²/h²)₊^β (SoundBeta) and
// releases N = Σ k_i (y_i − x) + N(0, ς_m² I) and S = Σ k_i + N(0, ς_S²),
// ς_S = ς_m/λ: one Gaussian release of (N, λS) with ℓ2 sensitivity s·h
// (SoundSensitivity). By post-processing it then leaves x where it is when
// S̃ < s_min and otherwise takes m = Ñ/S̃ and the step u = m (mean shift).
// With nz.Tangents it also releases M = Σ k_i (y_i − x)(y_i − x)ᵀ + W
// (Frobenius sensitivity h²/4 at β = 1) and steps along u = (I − VVᵀ) m, V the top-d
// eigenvectors of M̃/S̃ − m mᵀ. x ← x + f·u with the Wiener factor
// f = max(0, 1 − p(ς_m/S̃)²/‖u‖²), p the dimensions of u, when
// ‖u‖² > (p + 3√(2p))(ς_m/S̃)² (the step gate); otherwise x stays. Every query is
// released (no noiseless gate). rng draws the noise (nil for the
// non-private kinds).
func (w *Worker) Step(x []float64, kind StepKind, nz Noise, rng *rand.Rand) (bool, error) {
	dn := w.dn
	if kind != StepSound && dn.tg == nil {
		return false, core.Wrapf(ErrInput, "dpmd: step kind %d needs the local PCA tangents", kind)
	}
	idx, d2, err := w.s.Radius(x, dn.h)
	if err != nil {
		return false, err
	}
	return w.step(x, idx, d2, kind, nz, rng)
}

// step is Step given the references idx within h of x and their squared
// distances d2.
func (w *Worker) step(x []float64, idx []int32, d2 []float64, kind StepKind, nz Noise, rng *rand.Rand) (bool, error) {
	dn := w.dn
	D, d := dn.D, dn.d
	if kind < StepPaper && nz.aud != nil {
		// A nonprivate run's audit: the attacker sees sound mode's sums
		// released without noise (the ceiling any audit can reach).
		S, _ := w.kernel(d2, SoundBeta(d))
		w.soundSums(x, idx)
		nz.aud.before(w.q, w.b, S)
		nz.aud.after(w.q, w.b, &S)
	}
	if kind != StepSound && len(idx) < d+1 {
		return false, nil
	}
	beta := d + 2
	if kind == StepSound {
		beta = SoundBeta(d)
	}
	S, best := w.kernel(d2, beta)
	w.b, w.r, w.tmp = grow(w.b, D), grow(w.r, D), grow(w.tmp, D)
	w.p, w.v = grow(w.p, D*D), grow(w.v, D*d)
	if kind == StepSound {
		return true, w.sound(x, idx, S, nz, rng)
	}
	if S == 0 { // every neighbour exactly at distance h
		return false, nil
	}
	w.weightedMean(idx, S)
	if kind == StepPx {
		// x ← b + Σ α_i V_i V_iᵀ (x − b) = b + Uᵀ(U(x − b)), chunk by
		// chunk, without the D × D matrix.
		w.r32, w.t32 = grow(w.r32, D), grow(w.t32, min(len(idx), gramChunk)*d)
		w.acc32 = grow(w.acc32, D)
		for c := range D {
			w.r32[c] = float32(x[c] - w.b[c])
		}
		copy(x, w.b)
		for lo := 0; lo < len(idx); lo += gramChunk {
			hi := min(len(idx), lo+gramChunk)
			u := w.gather(idx[lo:hi], w.alpha[lo:hi], S)
			rows := (hi - lo) * d
			dn.bl32.Sgemv(blas.NoTrans, rows, D, 1, u, D, w.r32, 1, 0, w.t32[:rows], 1)
			dn.bl32.Sgemv(blas.Trans, rows, D, 1, u, D, w.t32[:rows], 1, 0, w.acc32, 1)
			for c, v := range w.acc32 {
				x[c] += float64(v)
			}
		}
		return true, nil
	}
	w.gram(idx, S)
	if kind == StepPaper {
		addSymNoise(w.p, D, nz.Projector, rng)
		for c := range D {
			w.b[c] += nz.Mean * rng.NormFloat64()
		}
		if nz.paud != nil {
			nz.paud.release(w.q, w.b)
		}
	}
	w.warmStart(dn.tg.Basis(int(dn.order[idx[best]])))
	if err := w.ew.topSubspace(w.v, w.p, D, d, w.start); err != nil {
		return false, err
	}
	for c := range D {
		w.r[c] = x[c] - w.b[c]
	}
	project(x, w.b, w.v, w.r, w.tmp, D, d)
	return true, nil
}

// kernel sets w.alpha to the weights (1 − d2_k/h²)₊^beta of the references
// at squared distances d2 and returns their sum and the index of the largest.
func (w *Worker) kernel(d2 []float64, beta int) (S float64, best int) {
	h2 := w.dn.h * w.dn.h
	w.alpha = grow(w.alpha, len(d2))
	for k, dd := range d2 {
		a := ipow(max(0, 1-dd/h2), beta)
		w.alpha[k] = a
		S += a
		if a > w.alpha[best] {
			best = k
		}
	}
	return S, best
}

// weightedMean sets w.b to b_x = Σ α_i y_i (α_i = w.alpha[k]/S for the
// references idx). idx is sorted and the references are stored in chain
// order, so it falls into runs of consecutive rows, each summed by one
// matrix–vector product that reads memory sequentially.
func (w *Worker) weightedMean(idx []int32, S float64) {
	dn := w.dn
	D := dn.D
	clear(w.b)
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && idx[hi] == idx[hi-1]+1 {
			hi++
		}
		j := int(idx[lo])
		dn.bl.Dgemv(blas.Trans, hi-lo, D, 1/S, dn.y[j*D:(j+hi-lo)*D], D, w.alpha[lo:hi], 1, 1, w.b, 1)
		lo = hi
	}
}

// gather returns the weighted tangent blocks √(a_k/S) V_jᵀ of the
// references idx (at most gramChunk), stacked as a (len(idx)·d) × D
// float32 matrix in w.u32.
func (w *Worker) gather(idx []int32, a []float64, S float64) []float32 {
	dn := w.dn
	blk := dn.d * dn.D
	u := grow(w.u32, len(idx)*blk)
	w.u32 = u
	clear(u)
	for k, j := range idx {
		sa := float32(math.Sqrt(a[k] / S))
		dn.bl32.Saxpy(blk, sa, dn.vt[int(j)*blk:(int(j)+1)*blk], 1, u[k*blk:(k+1)*blk], 1)
	}
	return u
}

// gram sets w.p to P_x = Σ α_i V_i V_iᵀ = UᵀU: chunks of gramChunk
// weighted tangent blocks are gathered in float32 and multiplied by Ssyrk,
// the chunks' upper triangles summed in float64, and the lower triangle
// mirrored.
func (w *Worker) gram(idx []int32, S float64) {
	dn := w.dn
	D, d := dn.D, dn.d
	w.p32 = grow(w.p32, D*D)
	clear(w.p)
	for lo := 0; lo < len(idx); lo += gramChunk {
		hi := min(len(idx), lo+gramChunk)
		u := w.gather(idx[lo:hi], w.alpha[lo:hi], S)
		dn.bl32.Ssyrk(blas.Upper, blas.Trans, D, (hi-lo)*d, 1, u, D, 0, w.p32, D)
		for r := range D {
			row, row32 := w.p[r*D+r:(r+1)*D], w.p32[r*D+r:(r+1)*D]
			for c, v := range row32 {
				row[c] += float64(v)
			}
		}
	}
	for r := range D {
		for c := r + 1; c < D; c++ {
			w.p[c*D+r] = w.p[r*D+c]
		}
	}
}

// ipow returns x^k for k ≥ 0 by repeated squaring (the kernel's exponent
// β = d + 2 is an integer; math.Pow costs 10× more).
func ipow(x float64, k int) float64 {
	r := 1.0
	for k > 0 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
		k >>= 1
	}
	return r
}

// soundSums sets w.b to the numerator N = Σ k_i (y_i − x) over the
// references idx with kernel weights w.alpha, and the rows of w.u to
// √k_i (y_i − x) (the second moment's factor).
func (w *Worker) soundSums(x []float64, idx []int32) {
	dn := w.dn
	D := dn.D
	w.b = grow(w.b, D)
	w.u = grow(w.u, max(1, len(idx))*D)
	clear(w.b) // numerator N
	for k, j := range idx {
		a := w.alpha[k]
		sa := math.Sqrt(a)
		row := w.u[k*D : (k+1)*D]
		for c, v := range dn.y[int(j)*D : (int(j)+1)*D] {
			diff := v - x[c]
			w.b[c] += a * diff
			row[c] = sa * diff
		}
	}
}

// sound is Step for StepSound (x may have no neighbour at all).
func (w *Worker) sound(x []float64, idx []int32, S float64, nz Noise, rng *rand.Rand) error {
	dn := w.dn
	D, d := dn.D, dn.d
	w.soundSums(x, idx)
	if nz.aud != nil {
		nz.aud.before(w.q, w.b, S)
	}
	if nz.Tangents {
		if len(idx) > 0 {
			w.dn.bl.Dgemm(blas.Trans, blas.NoTrans, D, D, len(idx), 1, w.u, D, w.u, D, 0, w.p, D)
		} else {
			clear(w.p)
		}
		addSymNoise(w.p, D, nz.Projector, rng)
	}
	for c := range D {
		w.b[c] += nz.Mean * rng.NormFloat64()
	}
	S += nz.Mass * rng.NormFloat64()
	if nz.aud != nil {
		nz.aud.after(w.q, w.b, &S)
	}
	if S < nz.SMin {
		// The released mass is within three noise standard deviations of
		// zero, or below d + 1 references' worth (s_min's default,
		// SoundMassFloor): Ñ/S̃ would be mostly noise, or a jump to one or
		// two references, so the query stays (post-processing of S̃; it
		// is released all the same).
		return nil
	}
	for c := range D {
		w.b[c] /= S // m = Ñ/S̃
	}
	w.nstep = grow(w.nstep, D)
	u := w.nstep
	p := D // the dimensions u's noise lives in
	if nz.Tangents {
		for r := range D {
			for c := range D {
				w.p[r*D+c] = w.p[r*D+c]/S - w.b[r]*w.b[c]
			}
		}
		w.warmStart(nil)
		if err := w.ew.topSubspace(w.v, w.p, D, d, w.start); err != nil {
			return err
		}
		// u = (I − VVᵀ) m = m + VVᵀ(−m): project with base m.
		for c := range D {
			w.r[c] = -w.b[c]
		}
		project(u, w.b, w.v, w.r, w.tmp, D, d)
		p = D - d
	} else {
		copy(u, w.b) // the mean-shift step u = m
	}
	// Wiener shrinkage of the step, by post-processing of released values:
	// m's noise is about ς_N/S̃ per coordinate (the released scale over the
	// released mass), so u carries noise of expected squared norm
	// p·(ς_N/S̃)² over its p dimensions, and ‖u‖² − p(ς_N/S̃)² estimates
	// the squared norm of the true step. u is scaled by that estimate over
	// ‖u‖², max(0, 1 − p(ς_N/S̃)²/‖u‖²) (the positive-part James–Stein
	// form): a step that stands above its noise is kept, one that does not
	// shrinks to nothing, so a query whose neighbourhood is too light for
	// the budget stays near where it is instead of jumping. The rule is
	// fixed in advance from the noise model, not tuned on results.
	var uu float64
	for _, v := range u {
		uu += v * v
	}
	sn := nz.Mean / S
	f := 0.0
	// Step gate: the noise part of ‖u‖² is about (ς_N/S̃)²·χ²_p (mean p,
	// sd √(2p)); a step below p + 3√(2p) of those units is within three
	// standard deviations of pure noise — the mass gate's margin — and the
	// query stays. Without it, a query whose mass cleared the floor by
	// noise alone took a shrunk step of pure noise about half the time
	// (positive-part James–Stein keeps f > 0 whenever χ²_p > p).
	if fp := float64(p); uu > (fp+3*math.Sqrt(2*fp))*sn*sn {
		f = max(0, 1-fp*sn*sn/uu)
	}
	for c := range D {
		x[c] += f * u[c]
	}
	return nil
}

// warmStart fills w.start (D × b) with the columns of V (D × d, may be nil)
// followed by zero columns (replaced by unit vectors in topSubspace).
func (w *Worker) warmStart(V []float64) {
	D, d := w.dn.D, w.dn.d
	b := blockSize(D, d)
	w.start = grow(w.start, D*b)
	clear(w.start)
	if V == nil {
		return
	}
	for c := range D {
		copy(w.start[c*b:c*b+d], V[c*d:(c+1)*d])
	}
}

// project sets x = base + V Vᵀ r (V is D × d), using tmp (length ≥ d).
func project(x, base, V, r, tmp []float64, D, d int) {
	for l := range d {
		var s float64
		for c := range D {
			s += V[c*d+l] * r[c]
		}
		tmp[l] = s
	}
	for c := range D {
		v := base[c]
		for l := range d {
			v += V[c*d+l] * tmp[l]
		}
		x[c] = v
	}
}

// addSymNoise adds W to the D × D p: W_jk = W_kj ~ N(0, s²) for j ≤ k.
func addSymNoise(p []float64, D int, s float64, rng *rand.Rand) {
	if s == 0 {
		return
	}
	for j := range D {
		for k := j; k < D; k++ {
			e := s * rng.NormFloat64()
			p[j*D+k] += e
			if k != j {
				p[k*D+j] += e
			}
		}
	}
}

// noiseStream is the PCG stream of query q's noise at iteration t of a
// track, so noise does not depend on scheduling.
func noiseStream(track, t, q int) uint64 {
	return uint64(track)<<56 | uint64(t)<<36 | uint64(q)
}

// Iterate applies one Step of kind to each of the m queries xs (m × D) in
// parallel (at most GOMAXPROCS goroutines), query q drawing its noise from
// rand.NewPCG(seed, noiseStream(track, t, q)), or from crypto/rand when
// dn.Secure. It returns the number of
// queries left unchanged, or ctx.Err() when cancelled.
func (dn *Denoiser) Iterate(ctx context.Context, xs []float64, m int, kind StepKind, nz Noise, seed uint64, track, t int) (int, error) {
	if len(xs) != m*dn.D {
		return 0, core.Wrapf(ErrInput, "dpmd: queries have %d values, must be m·D = %d", len(xs), m*dn.D)
	}
	if kind != StepSound && dn.tg == nil {
		return 0, core.Wrapf(ErrInput, "dpmd: step kind %d needs the local PCA tangents", kind)
	}
	// A task's queries share one radius search: their distances to all
	// references come from one matrix product, which reads the references
	// once instead of once per query.
	const chunk = 32
	procs := runtime.GOMAXPROCS(0)
	pool := make(chan *Worker, procs)
	for range procs {
		pool <- dn.NewWorker()
	}
	moved := make([]bool, m)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(procs)
	for lo := 0; lo < m; lo += chunk {
		if gctx.Err() != nil {
			break
		}
		g.Go(safe.Func(func() error {
			w := <-pool
			defer func() { pool <- w }()
			hi := min(m, lo+chunk)
			w.qs = grow(w.qs, (hi-lo)*dn.D)
			copy(w.qs, xs[lo*dn.D:hi*dn.D])
			return w.s.RadiusBatch(w.qs, hi-lo, dn.h, func(k int, idx []int32, d2 []float64) error {
				if err := gctx.Err(); err != nil {
					return err
				}
				q := lo + k
				var rng *rand.Rand
				switch {
				case kind >= StepPaper && dn.Secure:
					var key [32]byte
					_, _ = crand.Read(key[:]) // never fails on supported platforms (Go ≥ 1.24)
					rng = rand.New(rand.NewChaCha8(key))
				case kind >= StepPaper:
					rng = rand.New(rand.NewPCG(seed, noiseStream(track, t, q)))
				}
				w.q = q
				ok, err := w.step(xs[q*dn.D:(q+1)*dn.D], idx, d2, kind, nz, rng)
				if err != nil {
					return fmt.Errorf("query %d: %w", q, err)
				}
				moved[q] = ok
				return nil
			})
		}))
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("dpmd: denoise: %w", err)
	}
	still := 0
	for _, ok := range moved {
		if !ok {
			still++
		}
	}
	return still, nil
}
