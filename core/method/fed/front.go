package fed

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/dpscope/dpscope/core/compute"
)

// Front ends of UnitRecord (Params.Front).
const (
	// FrontPCA is the federated Analyze-Gauss projection: private in
	// sound mode, exact in the nonprivate twin. The default.
	FrontPCA = "pca"
	// FrontRandom is a Gaussian random projection drawn from the seed: no
	// data (the null's until the thirty-first session; Null).
	FrontRandom = "random"
	// FrontNone trains on the genes themselves.
	FrontNone = "none"
)

// front returns the record unit's projection of every cell (cells × Proj).
// With FrontPCA each client k computes G_k = Σ_{i ∈ k} x̃_i x̃_iᵀ over its
// rows of frontInput clipped to R = 0.5·√genes (dppca's radius rule for
// scaled genes), adds symmetric GOE noise of std zp·R² from its own
// generator (sound mode), and the server sums them and projects every cell
// on the top Proj eigenvectors, all components scaled by one factor
// (spectrumScale). The split is the run's first (drawSplit with the same
// seed), so the cells a client uses here are the ones it trains on.
func (s *sim) front() (compute.Matrix, error) {
	e := s.e
	if e.p.Front == FrontNone {
		return s.x, nil
	}
	src := s.frontInput()
	g, p := src.Cols, min(e.p.Proj, src.Cols)
	var basis []float64 // g × p, row-major
	scale := 1.0        // of every component
	if e.p.Front == FrontRandom {
		rng := rand.New(rand.NewPCG(e.cfg.Seed, stream(streamFront, 0, 0)))
		basis = make([]float64, g*p)
		for i := range basis {
			basis[i] = rng.NormFloat64() / math.Sqrt(float64(g))
		}
	} else {
		sp, _, err := s.drawSplit(e.clients)
		if err != nil {
			return compute.Matrix{}, err
		}
		r := 0.5 * math.Sqrt(float64(g))
		c := make([]float64, g*g)
		for k, cells := range sp.Clients {
			if len(cells) == 0 {
				continue
			}
			z := make([]float64, len(cells)*g)
			for i, row := range cells {
				dst := z[i*g : (i+1)*g]
				nrm := 0.0
				for j, v := range src.RawRowView(row) {
					dst[j] = float64(v)
					nrm += float64(v) * float64(v)
				}
				if f := r / math.Sqrt(nrm); f < 1 {
					for j := range dst {
						dst[j] *= f
					}
				}
			}
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: len(cells), Cols: g, Stride: g, Data: z}, 1,
				blas64.Symmetric{N: g, Stride: g, Uplo: blas.Upper, Data: c})
			if s.rp.private {
				addGOE(c, g, s.rp.zp*r*r, s.noiseRand(streamFront, 0, k))
			}
		}
		vals, b, err := topEigen(c, g, p, e.cfg.Seed)
		if err != nil {
			return compute.Matrix{}, err
		}
		basis = b
		scale = spectrumScale(vals, s.d.Cells)
	}
	out := compute.NewMatrix(src.Rows, p, nil)
	for i := range src.Rows {
		row, dst := src.RawRowView(i), out.RawRowView(i)
		for k := range p {
			acc := 0.0
			for j, v := range row {
				acc += float64(v) * basis[j*p+k]
			}
			dst[k] = float32(acc * scale)
		}
	}
	if e.p.Front == FrontRandom {
		// no release to scale by: each column at its own unit variance
		normalizeCols(out)
	}
	return out, nil
}

// spectrumScale is the one factor, √(p·n/Σλ̃_k), by which every released
// component is scaled (1 when nothing positive was released), so that the
// network's inputs have unit variance on average and keep the spectrum's
// shape (rule G39, docs/RESULTS.md): the
// few components that carry the cell types keep their larger variance,
// which the network's narrow bottleneck then keeps. Whitening, the rule
// before G39, gave every component the same variance; without the
// release's noise to floor the small eigenvalues, the noiseless twin's
// network then kept noise directions as readily as the types'. Post-
// processing of the release (its eigenvalues and the public cell count).
func spectrumScale(vals []float64, cells int) float64 {
	total := 0.0
	for _, v := range vals {
		total += max(v, 0)
	}
	if total <= 0 {
		return 1
	}
	return math.Sqrt(float64(len(vals)*cells) / total)
}

// frontGenes is the number of genes the front end's Gram matrix is built
// on: dppca's finding (docs/METHODS.md §5) that Analyze Gauss keeps the
// clusters on the top ~200 genes by mean log-expression and loses them on
// 2,000 scaled ones (the noise grows with √genes and scaling spreads the
// variance).
const frontGenes = 200

// frontInput returns the front end's input (rule G39, docs/RESULTS.md):
// the model input's columns of the frontGenes genes of largest mean
// log-expression (log1p of each cell's counts over its size factor), or
// all its columns for data that are not counts or have no more genes,
// each column centred at its mean over all cells. The model input is the
// preprocessed matrix every federated method trains on, by default each
// gene scaled to zero mean and unit variance (the centring is then a
// no-op); the ranking, means and spreads are statistics of all cells
// computed without noise, the preprocessing every federated method takes
// as given (an assumption the guarantee lists). Centred genes matter: on
// uncentred log-expression every row's norm is mostly the mean profile's,
// far above R, and the clip shrank the cell types' spread with it.
func (s *sim) frontInput() compute.Matrix {
	d := s.d
	cols := make([]int, d.Genes)
	for j := range cols {
		cols[j] = j
	}
	if d.RawCounts != nil && len(d.SizeFactors) == d.Cells && d.Genes > frontGenes {
		mean := make([]float64, d.Genes)
		for i := range d.Cells {
			sf := d.SizeFactors[i]
			if sf <= 0 {
				sf = 1
			}
			for j, c := range d.RawCounts[i*d.Genes : (i+1)*d.Genes] {
				mean[j] += float64(float32(math.Log1p(float64(c) / sf)))
			}
		}
		sort.SliceStable(cols, func(a, b int) bool { return mean[cols[a]] > mean[cols[b]] })
		cols = cols[:frontGenes]
	}
	out := compute.NewMatrix(d.Cells, len(cols), nil)
	for i := range d.Cells {
		src, dst := s.x.RawRowView(i), out.RawRowView(i)
		for k, j := range cols {
			dst[k] = src[j]
		}
	}
	centreCols(out)
	return out
}

// centreCols subtracts from every column of m its mean.
func centreCols(m compute.Matrix) {
	mean := make([]float64, m.Cols)
	for i := range m.Rows {
		for k, v := range m.RawRowView(i) {
			mean[k] += float64(v)
		}
	}
	for i := range m.Rows {
		row := m.RawRowView(i)
		for k := range row {
			row[k] -= float32(mean[k] / float64(m.Rows))
		}
	}
}

// normalizeCols divides every column of m by its standard deviation
// (columns of zero spread are left as they are).
func normalizeCols(m compute.Matrix) {
	n := float64(m.Rows)
	for k := range m.Cols {
		s, s2 := 0.0, 0.0
		for i := range m.Rows {
			v := float64(m.RawRowView(i)[k])
			s, s2 = s+v, s2+v*v
		}
		if v := s2/n - (s/n)*(s/n); v > 0 {
			f := float32(1 / math.Sqrt(v))
			for i := range m.Rows {
				m.RawRowView(i)[k] *= f
			}
		}
	}
}

// addGOE adds symmetric Frobenius-isotropic noise to the upper triangle of
// the h × h row-major c: N(0, σ²) on the diagonal, N(0, σ²/2) above it (as
// dppca's Analyze Gauss: in the coordinates (diagonal, √2 × upper
// triangle) it is N(0, σ² I), the Gaussian mechanism at Frobenius
// sensitivity R²).
func addGOE(c []float64, h int, sigma float64, rng *rand.Rand) {
	off := sigma / math.Sqrt2
	for i := range h {
		c[i*h+i] += sigma * rng.NormFloat64()
		for j := i + 1; j < h; j++ {
			c[i*h+j] += off * rng.NormFloat64()
		}
	}
}

// frontCheck validates the projection width.
func frontCheck(p Params) error {
	if p.Front != FrontPCA && p.Front != FrontRandom && p.Front != FrontNone && p.Front != "" {
		return configErr("front end", fmt.Sprintf("%q", p.Front), "pca or random")
	}
	if math.IsNaN(p.CellClip) || math.IsInf(p.CellClip, 0) || p.CellClip < 0 {
		return configErr("cell clip", p.CellClip, "finite and > 0")
	}
	if p.Proj < 0 {
		return configErr("projection width", p.Proj, "≥ 1")
	}
	return nil
}

// thinQ overwrites the g × b matrix a (g ≥ b) with the b orthonormal
// columns of its QR factorisation's Q (LAPACK's Geqrf then Orgqr), using
// tau (length b) and work, which it grows as needed and returns. Forming
// only these columns, not the g × g Q, is what keeps the front end at a
// second on 2,000 genes (data that are not counts take all their genes).
func thinQ(a blas64.General, tau, work []float64) []float64 {
	var q [1]float64
	lapack64.Geqrf(a, tau, q[:], -1)
	n := int(q[0])
	lapack64.Orgqr(a, tau, q[:], -1)
	n = max(n, int(q[0]), 1)
	if len(work) < n {
		work = make([]float64, n)
	}
	lapack64.Geqrf(a, tau, work, len(work))
	lapack64.Orgqr(a, tau, work, len(work))
	return work
}

// topEigen returns the top p eigenvectors (g × p, row-major) of the
// symmetric g × g matrix whose upper triangle is c, and the largest
// eigenvalue, by subspace iteration with Rayleigh–Ritz: V ← orth(C·V) for
// subspaceIters steps from a seeded Gaussian block of 2p columns, then the
// eigenvectors of VᵀCV. A full g × g eigendecomposition took 95 s on the
// shared machine for g = 1,942; this takes a few hundred products of C with
// a g × 2p block. The iteration count is fixed (not a tolerance): the
// projection only has to span the leading directions for k-means.
func topEigen(c []float64, g, p int, seed uint64) ([]float64, []float64, error) {
	for i := range g { // fill the lower triangle: Symm reads the upper one, Gemm below reads all
		for j := i + 1; j < g; j++ {
			c[j*g+i] = c[i*g+j]
		}
	}
	b := min(2*p, g)
	rng := rand.New(rand.NewPCG(seed, stream(streamFront, 1, 0)))
	v := mat.NewDense(g, b, nil)
	for i := range g {
		for j := range b {
			v.Set(i, j, rng.NormFloat64())
		}
	}
	cm := mat.NewDense(g, g, c)
	w := mat.NewDense(g, b, nil)
	tau := make([]float64, b)
	var work []float64
	for range subspaceIters {
		w.Mul(cm, v)
		work = thinQ(w.RawMatrix(), tau, work)
		v, w = w, v
	}
	var t, small mat.Dense
	t.Mul(cm, v)
	small.Mul(v.T(), &t)
	sym := mat.NewSymDense(b, nil)
	for i := range b {
		for j := i; j < b; j++ {
			sym.SetSym(i, j, (small.At(i, j)+small.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, nil, errors.New("fed: eigendecomposition of the projected Gram matrix did not converge")
	}
	vals := es.Values(nil)
	var u, vec mat.Dense
	es.VectorsTo(&u)
	vec.Mul(v, &u)
	basis := make([]float64, g*p)
	top := make([]float64, p)
	for k := range p {
		col := b - 1 - k // ascending: the largest last
		top[k] = vals[col]
		for i := range g {
			basis[i*p+k] = vec.At(i, col)
		}
	}
	return top, basis, nil
}

// subspaceIters is topEigen's number of block products.
const subspaceIters = 30
