package manifold

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/neighbors"
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
// coordinate); sound mode uses Projector for the second moment, Mean for
// the numerator and Mass for the kernel mass, with the public floor SMin.
type Noise struct {
	Projector, Mean, Mass, SMin float64
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
	vt      []float64 // tg.V with each reference's block transposed to d × D
	bl      blas.Float64
}

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
		return nil, fmt.Errorf("manifold: tangents are %d×%d×%d, must be n×D×d = %d×%d×%d: %w", tg.N, tg.D, tg.Dim, n, D, d, ErrInput)
	}
	ix, err := neighbors.New(y, n, D, neighbors.Choose(D, 0))
	if err != nil {
		return nil, fmt.Errorf("manifold: denoiser: %w", err)
	}
	dn := &Denoiser{ix: ix, y: ix.Points(), n: n, D: D, d: d, h: h, tg: tg, bl: compute.Impl64()}
	if tg != nil {
		// Each tangent vector contiguous (d × D per reference): building the
		// weighted basis of a query is then a scaled copy of whole rows.
		dn.vt = make([]float64, len(tg.V))
		for i := range n {
			V, T := tg.Basis(i), dn.vt[i*d*D:(i+1)*d*D]
			for c := range D {
				for l := range d {
					T[l*D+c] = V[c*d+l]
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
	b, r, tmp, start []float64
	v                []float64
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
// StepSound releases N = Σ α̃_i (y_i − x) + N(0, ς_m² I) (ℓ2 sensitivity h),
// S = Σ α̃_i + N(0, ς_S²) (sensitivity 1) and M = Σ α̃_i (y_i − x)(y_i − x)ᵀ
// + W (Frobenius sensitivity h²), then, by post-processing, S' = max(S̃,
// s_min), m = Ñ/S', the covariance M̃/S' − m mᵀ, its top-d eigenvectors V
// and x ← x + (I − VVᵀ) m; every query moves. rng draws the noise (nil for
// the non-private kinds).
func (w *Worker) Step(x []float64, kind StepKind, nz Noise, rng *rand.Rand) (bool, error) {
	dn := w.dn
	D, d := dn.D, dn.d
	if kind != StepSound && dn.tg == nil {
		return false, fmt.Errorf("manifold: step kind %d needs the local PCA tangents: %w", kind, ErrInput)
	}
	idx, d2, err := w.s.Radius(x, dn.h)
	if err != nil {
		return false, err
	}
	if kind != StepSound && len(idx) < d+1 {
		return false, nil
	}
	h2 := dn.h * dn.h
	w.alpha = grow(w.alpha, len(idx))
	var S float64
	best := 0
	for k, dd := range d2 {
		a := ipow(max(0, 1-dd/h2), d+2)
		w.alpha[k] = a
		S += a
		if a > w.alpha[best] {
			best = k
		}
	}
	w.b, w.r, w.tmp = grow(w.b, D), grow(w.r, D), grow(w.tmp, D)
	w.p, w.v = grow(w.p, D*D), grow(w.v, D*d)
	if kind == StepSound {
		return true, w.sound(x, idx, S, nz, rng)
	}
	if S == 0 { // every neighbour exactly at distance h
		return false, nil
	}
	clear(w.b)
	for k, j := range idx {
		floats.AddScaled(w.b, w.alpha[k]/S, dn.y[int(j)*D:(int(j)+1)*D])
	}
	if kind == StepPx {
		// x ← b + Σ α_i V_i (V_iᵀ (x − b)), without the D × D matrix.
		for c := range D {
			w.r[c] = x[c] - w.b[c]
		}
		copy(x, w.b)
		for k, j := range idx {
			V := dn.tg.Basis(int(j))
			a := w.alpha[k] / S
			for l := range d {
				var dot float64
				for c := range D {
					dot += V[c*d+l] * w.r[c]
				}
				dot *= a
				for c := range D {
					x[c] += dot * V[c*d+l]
				}
			}
		}
		return true, nil
	}
	kd := len(idx) * d
	w.u = grow(w.u, kd*D)
	for k, j := range idx {
		sa := math.Sqrt(w.alpha[k] / S)
		floats.ScaleTo(w.u[k*d*D:(k+1)*d*D], sa, dn.vt[int(j)*d*D:(int(j)+1)*d*D])
	}
	w.dn.bl.Dgemm(blas.Trans, blas.NoTrans, D, D, kd, 1, w.u, D, w.u, D, 0, w.p, D)
	if kind == StepPaper {
		addSymNoise(w.p, D, nz.Projector, rng)
		for c := range D {
			w.b[c] += nz.Mean * rng.NormFloat64()
		}
	}
	w.warmStart(dn.tg.Basis(int(idx[best])))
	if err := w.ew.topSubspace(w.v, w.p, D, d, w.start); err != nil {
		return false, err
	}
	for c := range D {
		w.r[c] = x[c] - w.b[c]
	}
	project(x, w.b, w.v, w.r, w.tmp, D, d)
	return true, nil
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

// sound is Step for StepSound (x may have no neighbour at all).
func (w *Worker) sound(x []float64, idx []int32, S float64, nz Noise, rng *rand.Rand) error {
	dn := w.dn
	D, d := dn.D, dn.d
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
	if len(idx) > 0 {
		w.dn.bl.Dgemm(blas.Trans, blas.NoTrans, D, D, len(idx), 1, w.u, D, w.u, D, 0, w.p, D)
	} else {
		clear(w.p)
	}
	addSymNoise(w.p, D, nz.Projector, rng)
	for c := range D {
		w.b[c] += nz.Mean * rng.NormFloat64()
	}
	S += nz.Mass * rng.NormFloat64()
	S = max(S, nz.SMin)
	for c := range D {
		w.b[c] /= S // m = Ñ/S'
	}
	for r := range D {
		for c := range D {
			w.p[r*D+c] = w.p[r*D+c]/S - w.b[r]*w.b[c]
		}
	}
	w.warmStart(nil)
	if err := w.ew.topSubspace(w.v, w.p, D, d, w.start); err != nil {
		return err
	}
	// x ← x + (I − VVᵀ) m = (x + m) + VVᵀ(−m): project with base x + m.
	for c := range D {
		w.tmp[c] = x[c] + w.b[c]
		w.r[c] = -w.b[c]
	}
	copy(w.b, w.tmp)
	project(x, w.b, w.v, w.r, w.tmp, D, d)
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
// rand.NewPCG(seed, noiseStream(track, t, q)). It returns the number of
// queries left unchanged, or ctx.Err() when cancelled.
func (dn *Denoiser) Iterate(ctx context.Context, xs []float64, m int, kind StepKind, nz Noise, seed uint64, track, t int) (int, error) {
	if len(xs) != m*dn.D {
		return 0, fmt.Errorf("manifold: queries have %d values, must be m·D = %d: %w", len(xs), m*dn.D, ErrInput)
	}
	const chunk = 8
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
		g.Go(func() error {
			w := <-pool
			defer func() { pool <- w }()
			for q := lo; q < min(m, lo+chunk); q++ {
				if err := gctx.Err(); err != nil {
					return err
				}
				var rng *rand.Rand
				if kind >= StepPaper {
					rng = rand.New(rand.NewPCG(seed, noiseStream(track, t, q)))
				}
				ok, err := w.Step(xs[q*dn.D:(q+1)*dn.D], kind, nz, rng)
				if err != nil {
					return fmt.Errorf("query %d: %w", q, err)
				}
				moved[q] = ok
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("manifold: denoise: %w", err)
	}
	still := 0
	for _, ok := range moved {
		if !ok {
			still++
		}
	}
	return still, nil
}
