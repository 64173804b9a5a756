package dppca

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Option proj (twenty-seventh attempt, dppca29): the projection the
// k-means runs on. proj=pca (the default) is the private PCA (stage 2,
// Analyze-Gauss). proj=random:P replaces it by a public, data-independent
// projection: an orthonormal basis of a Gaussian random P-dimensional
// subspace of the h selected genes, drawn from the release's generator
// (the run's seed) and never from the data, so it costs no privacy. The
// covariance is not released (no MechPCA in the ledger) and its share of
// μ² (Options.Split) goes to the Lloyd rounds (Options.kmShare).
//
// Why it could help at small n·ε: at pollen ε 1 (ñ·μ ≈ 80) the private
// covariance shows nothing above its noise edge (p = 2, the second
// eigenvalue under the edge; twenty-fifth and twenty-sixth attempts), so
// the private basis is mostly the covariance noise's own and half the
// budget buys it. A random basis is as blind to the types, but free; the
// k-means then has the whole budget. Against that, a random P-subspace
// keeps on average only P/h of the types' separation (and of the rows'
// spread): it does not concentrate the signal as a PCA that sees it does.
//
// The projected rows are clipped again, to Rp = projClip·R·√(P/h)
// (public): a row of norm r projects to norm about r·√(χ²_P/h), so the
// k-means sums' sensitivity falls from R to Rp and the noise with it;
// projClip = 1.5 is about the 90th percentile of √(χ²_2/2) (fixed in
// advance, not tuned). The released eigenvalues the seeding grid, the
// over-clustering rule and the messages read are replaced by a public
// value, ñ·R²/h per coordinate (the variance of a coordinate of a row of
// norm R in a random direction), read from the released count only.

// projClip is the factor of proj=random's clip radius of the projected
// rows, Rp = projClip·R·√(P/h).
const projClip = 1.5

// MaxProjDims bounds proj=random:P.
const MaxProjDims = 30

// parseProj parses option proj's value: "pca" (0), "random:P" or
// "auto:P" (auto true).
func parseProj(v string) (n int, auto bool, err error) {
	if v == "pca" {
		return 0, false, nil
	}
	s, ok := strings.CutPrefix(v, "random:")
	if !ok {
		s, auto = strings.CutPrefix(v, "auto:")
		ok = auto
	}
	if ok {
		n, err = strconv.Atoi(s)
	}
	if !ok || err != nil || n < 1 || n > MaxProjDims {
		return 0, false, optf("option proj is %q, must be pca, random:P or auto:P (P an integer 1..%d)", v, MaxProjDims)
	}
	return n, auto, nil
}

// pcaShare is the private PCA's share of μ² as planned: Split, or 0
// under proj=random (no covariance is released). proj=auto plans the
// PCA's share and hands it to the k-means only when projAutoRule fires
// (randomProj).
func (o Options) pcaShare() float64 {
	if o.ProjRandom > 0 && !o.ProjAuto {
		return 0
	}
	return o.Split
}

// projAutoRule is proj=auto:P's test, read from the plan and the released
// cell count only, before the covariance is released: the random
// projection replaces the private PCA when the covariance's noise edge
// (Plan.Edge) is at least ñ·R²/k, the largest eigenvalue one cluster of
// average share 1/k could give (rows of norm ≤ R: a direction's
// eigenvalue is at most the share of the squared norm it holds times
// ñ·R²). The private PCA then cannot see even a whole average cluster's
// direction above its noise, and its share is better spent on the
// k-means. Stated in the twenty-seventh attempt (dppca29); on pollen's
// shape (300 cells, h = 50) it fires at ε 1 (ñ·μ ≈ 80) and not at ε 2.
func projAutoRule(pl Plan, nt float64, k int) bool {
	if !pl.Private() || k < 1 {
		return false
	}
	return pl.Edge() >= max(nt, 1)*pl.R*pl.R/float64(k)
}

// randomBasis returns an h × p row-major orthonormal basis of a Gaussian
// random subspace (orthonormalize on i.i.d. normal columns, as the
// leverage sampler's start), drawn from rng only: data-independent.
func randomBasis(h, p int, rng *rand.Rand) []float64 {
	b := blas64.General{Rows: h, Cols: p, Stride: p, Data: make([]float64, h*p)}
	for i := range b.Data {
		b.Data[i] = rng.NormFloat64()
	}
	orthonormalize(b)
	return b.Data
}

// randomProj is proj=random:P's stage 2: the rows projected on a random
// basis and clipped to Rp, the plan's radius set to Rp for the k-means
// sums (WithP re-splits the rounds' share), and the public stand-in
// eigenvalues ñ·R²/h.
func (r *release) randomProj() {
	m := r.out.Matrix
	if r.o.ProjAuto {
		r.out.ProjEdge = r.pl.Edge()
		r.out.ProjBound = max(m.NoisyN, 1) * r.pl.R * r.pl.R / float64(r.src.K)
		// the PCA's share, planned, goes to the k-means rounds
		r.pl.km += r.o.Split / float64(r.o.T)
		r.pl.kmNoOffset += r.o.Split / float64(r.o.T)
		r.pl.PCA = 0
		r.out.ProjFired = true
	}
	p := min(r.o.ProjRandom, m.H)
	basis := randomBasis(m.H, p, r.rng)
	proj := make([]float64, m.N*p)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: m.N, Cols: m.H, Stride: m.H, Data: m.Z},
		blas64.General{Rows: m.H, Cols: p, Stride: p, Data: basis},
		0, blas64.General{Rows: m.N, Cols: p, Stride: p, Data: proj})
	R := r.pl.R
	rp := min(R, projClip*R*math.Sqrt(float64(p)/float64(m.H)))
	for i := range m.N {
		ClipTo(proj[i*p:(i+1)*p], rp)
	}
	vals := make([]float64, p)
	for j := range vals {
		vals[j] = max(m.NoisyN, 1) * R * R / float64(m.H)
	}
	r.pl.R = rp
	r.pl = r.pl.WithP(p)
	r.out.Plan = r.pl
	r.out.Eigen, r.out.Basis, r.out.Proj = vals, basis, proj
}
