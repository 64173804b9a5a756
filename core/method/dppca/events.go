package dppca

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
)

// AccountantGDP names the ε dppca reports: exact GDP composition of its
// Gaussian mechanisms, converted once to (ε, δ), for one cell added or
// removed.
const AccountantGDP = "GDP exact (one cell added/removed)"

// AccountantRDP names the ledger's RDP figure, shown beside it (looser:
// RDP's conversion is not tight for Gaussians).
const AccountantRDP = "RDP ledger (one cell added/removed)"

// emitBudget reports ε spent over every release so far and projected at the
// end of the current one (plan pl).
func (r *runner) emitBudget(pl Plan) {
	l := r.e.ledger
	if l == nil {
		return
	}
	delta := r.st.delta
	ev := core.BudgetEvent{Step: r.step, Delta: delta, Target: r.st.eps}
	if e, err := EpsilonOf(r.spentMu(), delta); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantGDP, Epsilon: e})
	}
	if rep, err := l.Report(delta, accountant.LedgerOptions{SkipPLD: true}); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: AccountantRDP, Epsilon: rep.Total.EpsilonRDP})
	}
	if e, err := EpsilonOf(math.Sqrt(r.muPrev*r.muPrev+pl.Mu*pl.Mu), delta); err == nil {
		ev.Projected = []core.EpsilonValue{{Accountant: AccountantGDP, Epsilon: e}}
	}
	for _, c := range l.Components() {
		if mu, err := accountant.GDPMu(l.Events(c)); err == nil {
			if e, err := EpsilonOf(mu, delta); err == nil {
				ev.Components = append(ev.Components, core.NamedValue{Name: c, Value: e})
			}
		}
	}
	r.ctl.Emit(ev)
}

// emitRound reports the clustering after Lloyd round t: its scores against
// the labels (when known) and the first two private components.
func (r *runner) emitRound(out *Outcome, t int, last bool) {
	m := out.Matrix
	p := len(out.Eigen)
	truth := make([]int, m.N)
	for i := range truth {
		truth[i] = -1
	}
	if m.Labels != nil {
		copy(truth, m.Labels)
		if s, err := cluster.Score(m.Labels, out.Labels); err == nil {
			vals := []core.NamedValue{{Name: "ARI", Value: s.ARI}, {Name: "NMI", Value: s.NMI}}
			if last {
				vals = append(vals, core.NamedValue{Name: "ACC", Value: s.ACC})
			}
			vals = append(vals, core.NamedValue{Name: "non-empty clusters", Value: float64(out.NonEmpty)})
			r.ctl.Emit(core.MetricsEvent{Stage: 3, Epoch: t, Step: r.step, Values: vals, Unreleased: true})
		}
	}
	x, y := make([]float64, m.N), make([]float64, m.N)
	for i := range m.N {
		x[i] = out.Proj[i*p]
		if p > 1 {
			y[i] = out.Proj[i*p+1]
		}
	}
	r.ctl.Emit(core.EmbeddingEvent{Step: r.step, X: x, Y: y, Cluster: append([]int(nil), out.Labels...), Truth: truth})
}

// finish reports the end of the last release: the collapse check, the
// guarantee with the audited ε, and the result.
func (r *runner) finish(out *Outcome) error {
	k := r.src.K
	if 2*out.NonEmpty < k {
		r.ctl.Emit(core.WarningEvent{Message: collapseMessage(out, k)})
	}
	var audited []core.EpsilonValue
	if r.e.ledger != nil {
		if e, err := EpsilonOf(r.spentMu(), r.st.delta); err == nil {
			audited = []core.EpsilonValue{{Accountant: AccountantGDP, Epsilon: e}}
		}
	}
	r.ctl.Emit(r.guarantee(audited))
	m := out.Matrix
	emb := make([]float32, len(out.Proj))
	for i, v := range out.Proj {
		emb[i] = float32(v)
	}
	n, p := m.N, len(out.Eigen)
	if c := r.aud.inputCells(); c >= 0 && c < n {
		n = c // the input canaries follow the real cells and are no result
	}
	r.ctl.Emit(core.ResultEvent{Cells: n, Dim: p, Embedding: emb[:n*p], Cluster: append([]int(nil), out.Labels[:n]...), Barcodes: m.Barcodes[:n]})
	return nil
}

// collapseMessage says why fewer than K/2 clusters hold cells.
func collapseMessage(out *Outcome, k int) string {
	pl := out.Plan
	msg := fmt.Sprintf("only %d of K = %d clusters hold cells after %d rounds", out.NonEmpty, k, pl.T)
	if w := underWords(pl, out.Matrix.NoisyN, k, out.K, out.Eigen, out.under, out.underCount); w != "" {
		// under=auto chose fewer centres: that is the first reason
		msg += ": " + w
		if 2*out.NonEmpty >= out.K {
			return msg
		}
		msg += "; and fewer than half of those hold cells"
	}
	if pl.Private() {
		per := float64(out.Matrix.N) / float64(k)
		msg += fmt.Sprintf(": at this ε the noise on each cluster sum (σ = %.3g per coordinate, √p·σ = %.3g against a radius R = %.3g) and count (σ = %.3g, against ≈ %.0f cells per cluster) moves the centres of small clusters away from their cells, and centres that start where no cell is never win any; a larger ε, fewer rounds T, or fewer components p leave more noise budget per release",
			pl.Sums, math.Sqrt(float64(pl.P))*pl.Sums, pl.R, pl.Counts, per)
	} else {
		msg += ": centres that started from the random ball where no cell lies win no cell (nonprivate Lloyd from a data-free start); more rounds T may recover them"
	}
	return msg
}

// kmeansMessage states what the released covariance decided for the
// k-means: p, and whether the first rounds over-cluster (with the
// relative centre noise overRule read).
func kmeansMessage(rl *release) string {
	over := rl.chooseOver()
	k0, k, p := rl.src.K, rl.k, len(rl.out.Eigen)
	// what overRule read: the plan of T rounds (merge=early re-spreads
	// the k-means share over more once over-clustering is chosen)
	rho := centreNoise(rl.pl.WithRounds(rl.o.T), rl.out.Matrix.NoisyN, 2*k, rl.out.Eigen)
	s := fmt.Sprintf("k-means on p = %d private components", p)
	if rl.o.ProjRandom > 0 && (!rl.o.ProjAuto || rl.out.ProjFired) {
		s = fmt.Sprintf("k-means on a public random projection to p = %d (proj=random, rows clipped to Rp = %.3g; no covariance released)", p, rl.pl.R)
		if rl.o.ProjAuto {
			s += fmt.Sprintf(" (proj=auto: the covariance's noise edge %.3g would be at least ñ·R²/K = %.3g, the most one average cluster could give; its share went to the k-means)",
				rl.out.ProjEdge, rl.out.ProjBound)
		}
	}
	if rl.out.CentreFired {
		s += fmt.Sprintf(" (centre=auto: rows recentred on their released mean and clipped again to Rc = %.3g, as the covariance's noise edge is at least ñ·R²/K)", rl.pl.R)
	}
	if w := underWords(rl.pl, rl.out.Matrix.NoisyN, k0, k, rl.out.Eigen, rl.o.Under, rl.o.UnderCount); w != "" {
		s += "; " + w
	}
	switch {
	case over > 1:
		s += fmt.Sprintf(": the first %d rounds with %d centres, then merged into K = %d", rl.o.mergeAt(), min(over*k, rl.out.Matrix.N), k)
		if n := rl.rounds(); n != rl.o.T {
			s += fmt.Sprintf(" for %d more rounds (merge=early: %d in all, the same k-means budget)", n-rl.o.mergeAt(), n)
		}
	default:
		s += fmt.Sprintf(": K = %d centres, no over-clustering", k)
	}
	if rl.o.Over == OverAuto && rl.o.Init != InitKMeansPlusPlus {
		s += fmt.Sprintf(" (over=auto: relative noise of a centre of 2K clusters %.3g, threshold %g)", rho, rl.o.overMax())
	}
	return s
}

// noiseMessage states the noise of a release, with the matrix it runs on.
func noiseMessage(pl Plan, m *Matrix, o Options, k int) string {
	ps := fmt.Sprint(o.P)
	switch o.PRule {
	case PRuleEdge:
		ps = fmt.Sprintf("the released eigenvalues above the noise edge %.3g, %d to %d", pl.Edge(), MinAutoP, min(o.P, m.H))
	}
	if o.ProjRandom > 0 && !o.ProjAuto {
		ps = fmt.Sprintf("%d of a public random projection (proj=random)", min(o.ProjRandom, m.H))
	}
	head := fmt.Sprintf("%d cells × %d genes, K = %d, p = %s, T = %d, R = %.3g (%d of %d rows clipped)", m.N, m.H, k, ps, o.T, pl.R, m.Clipped, m.N)
	if pl.AutoClip {
		how := "read from the released row-norm histogram"
		if pl.ClipFellBack {
			how = "the fallback: the histogram too noisy"
		}
		name := "auto"
		if pl.SubDim > 0 {
			name = fmt.Sprintf("subspace, h_ref %d", pl.SubDim)
		}
		head += fmt.Sprintf("; clip=%s: R = %.3g·√h (%s)", name, pl.ClipChosen, how)
	}
	if pl.Depth > 0 {
		head += fmt.Sprintf("; depth cap: median library %.0f counts, genes of mean log value ≥ %.3g (%g expected counts per cell) kept", pl.Depth, meanLogFloor(pl.MinCount, pl.DepthTotal, pl.Depth), pl.MinCount)
	}
	if !pl.Private() {
		return head + "; nonprivate: no noise"
	}
	s := fmt.Sprintf("%s; GDP μ = %.4g for ε = %g, δ = %g; noise σ: ", head, pl.Mu, pl.Epsilon, pl.Delta)
	if pl.PrivatePrep {
		s += fmt.Sprintf("gene ranking %.3g (Δ = 1), cell count %.3g (Δ = 1), gene means %.3g and %.3g (Δ = %.3g), spreads %.3g (Δ = %.3g), ",
			pl.Rank, pl.Count, pl.Mean, pl.Mean2, meanClipPerGene*math.Sqrt(float64(pl.pool())), pl.Spread, spreadClipPerGene*math.Sqrt(float64(pl.pool())))
	}
	if pl.PCA1 > 0 {
		s += fmt.Sprintf("covariance of the %d candidate genes %.3g on the diagonal (Δ = %.3g), ", pl.pool(), pl.PCA1, pl.R1*pl.R1)
	}
	if pl.Seed > 0 {
		s += fmt.Sprintf("seeding histogram %.3g per bin (Δ = 1), ", pl.Seed)
	}
	if pl.Norms > 0 {
		s += fmt.Sprintf("row-norm histogram %.3g per bin (Δ = 1), ", pl.Norms)
	}
	if pl.Offset > 0 {
		// offset=dir fired: say what it released and whether it acted
		how := "projected out"
		if !m.OffsetRemoved {
			how = "below 0.5, kept"
		}
		s += fmt.Sprintf("rows' mean direction %.3g (Δ = 1; the means' predicted offset %.2g·R, released length %.2f, %s), ", pl.Offset, m.OffsetPred, m.OffsetLen, how)
	}
	if o.ProjRandom > 0 && !o.ProjAuto {
		// no covariance; the sums' Δ becomes the projection's radius Rp
		return s + fmt.Sprintf("no covariance (proj=random), cluster sums %.3g per unit of Δ (Δ = Rp, the projected rows' radius), cluster counts %.3g (Δ = 1) per round",
			pl.Sums/pl.R, pl.Counts)
	}
	return s + fmt.Sprintf("covariance %.3g on the diagonal, %.3g off it (Δ = R² = %.3g), cluster sums %.3g (Δ = R), cluster counts %.3g (Δ = 1) per round",
		pl.PCA, pl.PCA/math.Sqrt2, pl.R*pl.R, pl.Sums, pl.Counts)
}
