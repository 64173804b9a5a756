package dpmd

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/cluster"
	"gonum.org/v1/gonum/mat"
)

// paperCanaries are a paper-mode run's audit canaries: real extra
// references. Canary j sits at b + ρu, b its home query's weighted mean
// without the canaries, u a random direction orthogonal to b − z, at the
// ρ where the paper's kernel weight times ρ is largest (newPaperCanaries),
// and is included with probability ½. The paper's adjacency is replace-one (its
// Definition), so an excluded canary stands for a record replaced by a
// point far from every query and reference: such a point enters no
// kernel sum, no local PCA and no release, so the run need not hold it,
// and the paper's noise is set for n = references + m (the fixed size of
// both neighbours).
//
// The attacker sees what the paper releases, in iteration 1 only: every
// query's noisy mean b̃ = b_x + ξ (Algorithm 2). It knows every other
// reference and the public queries, so it knows each query's kernel mass
// S and mean b without the canaries. Canary j alone moves query q's mean
// by a_jq(y_j − b_q)/(S_q + a_jq), a_jq its kernel weight there; the
// scores fit the inclusions to all releases at once (scores). A query the paper's gate (fewer
// than d + 1 references within h) could skip because of the canaries is
// ignored, as are later iterations: ignoring releases only weakens the
// attack, so the bound stays valid.
type paperCanaries struct {
	in   []bool
	home []int
	y    []float64 // m × D canary positions
	rel  []float64 // M × D: iteration 1's released b̃ of each query
	got  []bool    // the query was released in iteration 1
	h    float64   // bandwidth and dimension of iteration 1
	d    int
	spec core.AuditSpec
}

// newPaperCanaries places cfg.Audit's canaries near the queries of pr
// (nil without an audit): at most max(1, ⌊D/2⌋) per query (a rule fixed
// before measuring: a query's release has D coordinates, and fewer
// unknown inclusions than equations keep the attacker's fit, scores,
// determined), dealt to the queries in a random order, and at most 10 %
// of the references (DECISIONS "Audit": input canaries are at most 10 %
// of the cells).
func newPaperCanaries(cfg core.Config, pr *Problem) (*paperCanaries, error) {
	if cfg.Audit == nil {
		return nil, nil
	}
	spec := cfg.Audit.Resolved()
	spec.Canaries = cfg.Audit.Canaries
	// Homes: the queries the paper's gate releases whatever the canaries
	// do (d + 1 references within h without them; all queries if none
	// is), where a canary can be seen.
	beta := pr.Dim + 2
	D := pr.D
	means := make([]float64, pr.M*D)
	var open []int
	for q := range pr.M {
		if _, ok := kernelMean(means[q*D:(q+1)*D], pr.Y, pr.N, pr.Z[q*D:(q+1)*D], pr.H, beta); ok {
			open = append(open, q)
		} else {
			copy(means[q*D:(q+1)*D], pr.Z[q*D:(q+1)*D])
		}
	}
	if len(open) == 0 {
		for q := range pr.M {
			open = append(open, q)
		}
	}
	per := max(1, D/2)
	most := max(1, min(len(open)*per, pr.N/10))
	m, err := spec.CanariesFor(most)
	if err != nil {
		return nil, fmt.Errorf("dpmd: audit: at most %d canaries (%d released queries, %d each; 10 %% of the %d references): %w", most, len(open), per, pr.N, err)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed^auditSeedMix, 5))
	perm := rng.Perm(len(open))
	home := make([]int, m)
	for j := range home {
		home[j] = open[perm[j%len(open)]]
	}
	a := &paperCanaries{in: make([]bool, m), home: home, y: make([]float64, m*D),
		rel: make([]float64, pr.M*D), got: make([]bool, pr.M), h: pr.H, d: pr.Dim, spec: spec}
	u := make([]float64, D)
	for j, q := range a.home {
		a.in[j] = rng.IntN(2) == 1
		z := pr.Z[q*D : (q+1)*D]
		b := means[q*D : (q+1)*D]
		// u: a random direction orthogonal to b − z, so that the canaries'
		// shifts at a query, a_k(y_k − b)/(S + a_k), point in nearly
		// orthogonal directions and do not mask one another.
		var e2 float64
		for c := range D {
			e2 += (b[c] - z[c]) * (b[c] - z[c])
		}
		var s float64
		for s < 1e-12 {
			s = 0
			var dot float64
			for c := range u {
				u[c] = rng.NormFloat64()
				dot += u[c] * (b[c] - z[c])
			}
			for c := range u {
				if e2 > 0 {
					u[c] -= dot / e2 * (b[c] - z[c])
				}
				s += u[c] * u[c]
			}
		}
		// y = b + ρu lies at distance √(e² + ρ²) from z; its weight
		// (1 − e²/h² − ρ²/h²)^β times ρ is largest at
		// ρ² = (h² − e²)/(2β + 1).
		rho := math.Sqrt(max(0, pr.H*pr.H-e2)/float64(2*beta+1)) / math.Sqrt(s)
		for c := range D {
			a.y[j*D+c] = b[c] + rho*u[c]
		}
	}
	return a, nil
}

// included returns the rows of the included canaries (m_in × D) and m_in.
func (a *paperCanaries) included(D int) ([]float64, int) {
	var rows []float64
	k := 0
	for j, in := range a.in {
		if in {
			rows = append(rows, a.y[j*D:(j+1)*D]...)
			k++
		}
	}
	return rows, k
}

// release records query q's released mean b̃ in iteration 1. Each query
// is written only by the goroutine stepping it (Iterate).
func (a *paperCanaries) release(q int, b []float64) {
	copy(a.rel[q*len(b):(q+1)*len(b)], b)
	a.got[q] = true
}

// kernelMean sets b to the paper's weighted mean of the references y
// (n × D) at x with weights (1 − ‖x − y_i‖²/h²)₊^β and returns their mass;
// ok is false when fewer than d + 1 = β − 1 references lie within h (the
// paper's gate) or the mass is 0.
func kernelMean(b, y []float64, n int, x []float64, h float64, beta int) (S float64, ok bool) {
	h2 := h * h
	clear(b)
	count := 0
	for i := range n {
		yi := y[i*len(x) : (i+1)*len(x)]
		d2 := cluster.SqDist(x, yi)
		if d2 > h2 {
			continue
		}
		count++
		w := ipow(max(0, 1-d2/h2), beta)
		S += w
		for c, v := range yi {
			b[c] += w * v
		}
	}
	if count < beta-1 || S == 0 {
		return S, false
	}
	for c := range b {
		b[c] /= S
	}
	return S, true
}

// scores computes the attacker's scores from the references without the
// canaries (y0, n0 × D) and the queries of iteration 1 (z, M × D). At a
// released query q with known mass S and mean b, the release is
// b̃ = (S·b + Σ_{k in} a_k y_k)/(S + A) + ξ, A the included canaries'
// weight, so Σ_k x_k a_k(y_k − b̃) = S(b̃ − b) − (S + A)ξ: linear in the
// inclusions x_k ∈ {0, 1}, exactly. The score is the least-squares fit of
// x to these equations over all released queries, each divided by
// S + (Σ_k a_k)/2 (the expected S + A, so the noise has one scale), with a
// ridge of 1e-12 of the largest diagonal: about 1 when in, 0 when out. A
// canary on no released query scores ½, between the two, so that the
// guessing rules, which guess on the highest and lowest scores, leave it. Any score of the releases gives
// a valid bound (Steinke et al.); this one separates canaries that share
// a query, where projecting on each canary's own shift lets the others'
// mask it (A ≫ S on real data, where the paper's kernel weighs its
// neighbours at the rim of the ball).
func (a *paperCanaries) scores(y0 []float64, n0 int, z []float64, M, D int) []float64 {
	m := len(a.in)
	beta := a.d + 2
	h2 := a.h * a.h
	type touch struct {
		k int
		w float64
	}
	type rel struct {
		S       float64
		rel, dv []float64 // release b̃, release − known mean
		ks      []touch
	}
	var rels []rel
	for q := range M {
		if !a.got[q] {
			continue
		}
		x := z[q*D : (q+1)*D]
		b := make([]float64, D)
		S, ok := kernelMean(b, y0, n0, x, a.h, beta)
		if !ok {
			continue // the canaries could decide whether q is released
		}
		r := rel{S: S, rel: a.rel[q*D : (q+1)*D], dv: make([]float64, D)}
		for c := range D {
			r.dv[c] = a.rel[q*D+c] - b[c]
		}
		for k := range m {
			if d2 := cluster.SqDist(x, a.y[k*D:(k+1)*D]); d2 < h2 {
				r.ks = append(r.ks, touch{k, ipow(1-d2/h2, beta)})
			}
		}
		if len(r.ks) > 0 {
			rels = append(rels, r)
		}
	}
	G := mat.NewSymDense(m, nil)
	rhs := make([]float64, m)
	var sv [][]float64
	for _, r := range rels {
		half := 0.0 // the expected weight of the included canaries
		for _, t := range r.ks {
			half += t.w / 2
		}
		sc := 1 / (r.S + half)
		sv = sv[:0]
		for _, t := range r.ks {
			v := make([]float64, D)
			yk := a.y[t.k*D : (t.k+1)*D]
			for c := range D {
				v[c] = sc * t.w * (yk[c] - r.rel[c])
			}
			sv = append(sv, v)
		}
		for i, ti := range r.ks {
			for j := i; j < len(r.ks); j++ {
				tj := r.ks[j]
				var g float64
				for c := range D {
					g += sv[i][c] * sv[j][c]
				}
				G.SetSym(ti.k, tj.k, G.At(ti.k, tj.k)+g)
			}
			var f float64
			for c := range D {
				f += sv[i][c] * sc * r.S * r.dv[c]
			}
			rhs[ti.k] += f
		}
	}
	x := make([]float64, m)
	for k := range x {
		x[k] = 0.5
	}
	top := 0.0
	for k := range m {
		top = max(top, G.At(k, k))
	}
	if top == 0 {
		return x // no canary on a released query
	}
	seen := make([]bool, m) // the canary is on a released query
	for k := range m {
		seen[k] = G.At(k, k) > 0
		G.SetSym(k, k, G.At(k, k)+1e-12*top)
	}
	var ch mat.Cholesky
	if !ch.Factorize(G) {
		return x
	}
	sol := mat.NewVecDense(m, nil)
	if err := ch.SolveVecTo(sol, mat.NewVecDense(m, rhs)); err != nil {
		return x
	}
	for k := range m {
		x[k] = sol.AtVec(k)
		if !seen[k] {
			// on no released query: no evidence either way, so the
			// neutral score between out (0) and in (1)
			x[k] = 0.5
		}
	}
	return x
}

// emit scores the canaries and reports the audit (nothing without one).
func (a *paperCanaries) emit(ctl *core.Control, y0 []float64, n0 int, z []float64, M, D int, delta float64) error {
	if a == nil {
		return nil
	}
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	res, err := audit.Score(a.scores(y0, n0, z, M, D), a.in, delta, 1-a.spec.Confidence)
	if err != nil {
		return fmt.Errorf("dpmd: audit: %w", err)
	}
	ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Setting: fmt.Sprintf("paper mode: %d canaries are real extra references, each within h of its own query (an excluded one stands for a record replaced by a far point; the paper's adjacency is replace-one); the attacker sees what the paper releases, iteration 1's noisy mean b̃ of every query, knows every other reference, and scores the canaries by a least-squares fit of their inclusions to the mean shifts they would cause (queries the canaries could gate, and later iterations, ignored); best of %d guessing rules (Bonferroni)", res.Canaries, res.Rules)})
	return nil
}
