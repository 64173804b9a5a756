package dpmd

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/datasets"
)

// runner is the state of one Run.
type runner struct {
	e   *Engine
	ctl *core.Control
	cfg core.Config
	p   Params
	pr  *Problem
	out *Outcome
	// nPriv is the data set's size n in the paper's noise: the references,
	// plus every canary of a paper-mode audit (replace-one neighbours
	// have one size, paperCanaries).
	nPriv int
}

func (r *runner) run(ctx context.Context) error {
	r.ctl.Emit(core.StageEvent{Stage: 1, Name: "data", Steps: 1})
	t0 := time.Now()
	var err error
	synthetic := IsSpec(r.cfg.Data) || r.p.Manifold != ""
	if synthetic {
		r.pr, err = Synthetic(r.p, r.cfg.Seed)
	} else {
		var opts datasets.LoadOptions
		if opts, err = r.cfg.LoadOptions(); err == nil {
			r.pr, err = FromData(ctx, r.cfg.Data, opts, r.p, r.cfg.Seed)
		}
	}
	if err != nil {
		return err
	}
	pr := r.pr
	if synthetic {
		r.ctl.Emit(core.DataEvent{Cells: pr.N + pr.M, Genes: pr.D})
	} else {
		r.ctl.Emit(core.DataEvent{Cells: pr.Cells, Genes: pr.Genes, Classes: pr.Classes})
	}
	if err := checkGeometry(pr.H, pr.Dim, pr.D); err != nil {
		return err
	}
	// A paper-mode audit's canaries are real references, added before the
	// local PCA; the attacker knows the references without them (y0).
	y0, n0 := pr.Y, pr.N
	r.nPriv = pr.N
	var paud *paperCanaries
	if r.cfg.Mode == core.ModePaper {
		if paud, err = newPaperCanaries(r.cfg, pr); err != nil {
			return err
		}
	}
	if paud != nil {
		rows, k := paud.included(pr.D)
		pr.Y = append(append([]float64(nil), y0...), rows...)
		pr.N += k
		r.nPriv = n0 + len(paud.in)
	}
	r.out = &Outcome{Problem: pr, Data: time.Since(t0), Denoise: map[string]time.Duration{}}
	r.e.out = r.out
	st := &live{eps: r.cfg.Epsilon, delta: r.cfg.Delta}
	if r.cfg.Mode != core.ModeNonPrivate {
		// The budget is set before the guarantee, which states its noise.
		b, err := NewBudget(r.cfg.Mode, r.cfg.Epsilon, r.cfg.Delta, pr.M, r.p.T, r.p, r.nPriv, pr.H, pr.Dim, pr.D)
		if err != nil {
			return err
		}
		st.bud = &b
	}
	r.ctl.Emit(guarantee(r.cfg.Mode, r.p, synthetic, r.cfg.SecureNoise, r.cfg.Epsilon, r.cfg.Delta, r.nPriv, st.bud))
	r.ctl.Emit(core.WarningEvent{Message: "bandwidth and dimension: " + pr.Choice, Note: true})

	// Every mode computes the local PCA: sound mode does not use it, but its
	// non-private ceiling does.
	{
		r.ctl.Emit(core.StageEvent{Stage: 2, Name: "local PCA", Steps: 1})
		t1 := time.Now()
		if st.tg, err = LocalPCA(ctx, pr.Y, pr.N, pr.D, pr.H, pr.Dim); err != nil {
			return err
		}
		r.out.LocalPCA = time.Since(t1)
		if st.tg.Small > 0 {
			r.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf("%d references have fewer than d + 1 = %d neighbours within h: their tangents are arbitrary", st.tg.Small, pr.Dim+1)})
		}
	}
	if st.dn, err = NewDenoiser(pr.Y, pr.N, pr.D, pr.H, pr.Dim, st.tg); err != nil {
		return err
	}
	st.dn.Secure = r.cfg.SecureNoise
	npKind, npName := StepEigProj, "nonprivate (top-d eigenprojection of P_x)"
	if r.p.NonPrivate == NonPrivatePx {
		npKind, npName = StepPx, "nonprivate (P_x as is)"
	}
	type track struct {
		name string
		kind StepKind
		x    []float64
	}
	tracks := []*track{{name: npName, kind: npKind, x: append([]float64(nil), pr.Z...)}}
	if r.cfg.Mode != core.ModeNonPrivate {
		kind := StepPaper
		if r.cfg.Mode == core.ModeSound {
			kind = StepSound
		}
		tracks = append(tracks, &track{name: string(r.cfg.Mode), kind: kind, x: append([]float64(nil), pr.Z...)})
		r.out.Budget = st.bud
		r.ctl.Emit(noiseWarning(r.cfg.Mode, *st.bud, 1))
	}
	main := tracks[len(tracks)-1]
	var aud *queryCanaries
	if paud == nil {
		if aud, err = newQueryCanaries(r.cfg, pr.M, pr.D); err != nil {
			return err
		}
	}
	r.ctl.Emit(core.StageEvent{Stage: 3, Name: "denoise", Steps: r.p.T})
	for t := 0; t < r.p.T; t++ {
		patches, err := r.ctl.Checkpoint(ctx)
		if err != nil {
			return err
		}
		T := r.p.T
		for _, pt := range patches {
			if err := r.applyPatch(ctx, pt, t, st); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r.ctl.Rejected(pt, t+1, err)
				continue
			}
			r.ctl.Applied(pt, t+1)
			// The guarantee is re-stated on every patch: its ε, δ and θ
			// may have changed.
			r.ctl.Emit(guarantee(r.cfg.Mode, r.p, synthetic, r.cfg.SecureNoise, st.eps, st.delta, r.nPriv, st.bud))
		}
		if r.p.T != T {
			// the TUI plans the stage from here: T − t iterations left
			r.ctl.Emit(core.StageEvent{Stage: 3, Name: "denoise", Steps: r.p.T - t})
		}
		bud, dn := st.bud, st.dn
		for k, tr := range tracks {
			var nz Noise
			if tr.kind >= StepPaper {
				nz = bud.Noise
			}
			K := 0 // overlap of the sound track's queries (0: no noise)
			if tr.kind == StepSound {
				// The queries' releases are joint: their noise follows
				// how many of them one reference can reach (Overlap).
				K = Overlap(tr.x, pr.M, pr.D, dn.h)
				nz = SoundNoise(*bud, r.p, K, pr.M)
				if t == 0 {
					msg := fmt.Sprintf("sound mode: one reference reaches only queries within h of it, pairwise within 2h, and the graph of queries within 2h has no such group larger than K = %d of the %d (its degeneracy + 1); the joint release has noise √(K/m) = %.3g times the per-query split's (same ρ): numerator ς = %.3g, mass ς = %.3g, floor s_min = %.3g (a query whose released mass is below it stays)",
						K, pr.M, math.Sqrt(float64(K)/float64(pr.M)), nz.Mean, nz.Mass, nz.SMin)
					if nz.Tangents {
						msg += fmt.Sprintf(", second moment ς = %.3g", nz.Projector)
					}
					r.ctl.Emit(core.WarningEvent{Message: msg})
				}
			}
			if tr == main && paud != nil && t == 0 {
				paud.h, paud.d = dn.h, dn.d
				nz.paud = paud
			}
			if tr == main && aud != nil {
				aud.setIteration(K, pr.D, dn.d, dn.h)
				nz.aud = aud
			}
			t2 := time.Now()
			still, err := dn.Iterate(ctx, tr.x, pr.M, tr.kind, nz, r.cfg.Seed, k, t)
			if err != nil {
				return err
			}
			r.out.Denoise[tr.name] += time.Since(t2)
			if tr == main && t == 0 {
				r.out.Unchanged = still
				if still > 0 {
					r.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf("%d of %d queries have fewer than d + 1 = %d references within h and were left unchanged (a noiseless count the paper publishes)", still, pr.M, pr.Dim+1)})
				}
			}
		}
		if bud != nil {
			if err := bud.record(r.e.ledger, r.cfg.Mode, pr.M); err != nil {
				return err
			}
			st.rhoSpent += float64(pr.M) * (bud.Split.RhoP + bud.Split.RhoM)
			r.ctl.Emit(core.BudgetEvent{Step: t + 1, Delta: st.delta, Target: st.eps, Orders: accountant.DefaultOrders.String(),
				Spent:     spentValues(st.rhoSpent, st.delta, r.e.ledger),
				Projected: spentValues(st.rhoSpent+float64(pr.M*(r.p.T-t-1))*(bud.Split.RhoP+bud.Split.RhoM), st.delta, nil)})
		}
		tr := r.score(main.name, main.x, false)
		parts := []core.NamedValue{{Name: "max distance", Value: tr.MaxDist}, {Name: "mean distance to clean", Value: tr.MeanClean}}
		loss := tr.MeanDist
		if pr.Manifold == nil {
			loss = meanMove(main.x, pr.Z, pr.M, pr.D)
			parts = nil
		}
		r.ctl.Emit(core.StepEvent{Stage: 3, Epoch: t + 1, Step: t + 1, Loss: loss, Parts: parts})
		X, Y := pr.view(main.x, pr.M)
		truth := pr.Labels
		if truth == nil {
			truth = make([]int, pr.M)
			for i := range truth {
				truth[i] = -1
			}
		}
		r.ctl.Emit(core.EmbeddingEvent{Step: t + 1, X: X, Y: Y, Truth: append([]int(nil), truth...)})
	}
	r.out.Params = r.p
	r.out.Tracks = append(r.out.Tracks, r.score("before", pr.Z, true))
	for _, tr := range tracks {
		r.out.Tracks = append(r.out.Tracks, r.score(tr.name, tr.x, true))
	}
	var vals []core.NamedValue
	for _, tr := range r.out.Tracks {
		// The track's column is its name less the variant in brackets:
		// "nonprivate (eigproj)" → "nonprivate".
		group, _, _ := strings.Cut(tr.Name, " (")
		add := func(measure string, v float64) {
			vals = append(vals, core.NamedValue{Name: tr.Name + ": " + measure, Value: v, Group: group, Measure: measure})
		}
		if pr.Manifold != nil {
			add("mean distance to M", tr.MeanDist)
			add("max distance to M", tr.MaxDist)
			add("mean distance to clean", tr.MeanClean)
			add("max distance to clean", tr.MaxClean)
		} else if pr.Labels != nil {
			add("ARI", tr.ARI)
			add("NMI", tr.NMI)
			add("ACC", tr.ACC)
			add("purity", tr.Purity)
		}
	}
	if last := r.out.Tracks[len(r.out.Tracks)-1]; pr.Manifold == nil && pr.Labels != nil {
		// The run's own track under the plain names every method uses, so
		// the summary's ari/nmi/acc are this mode's.
		vals = append(vals, core.NamedValue{Name: "ARI", Value: last.ARI}, core.NamedValue{Name: "NMI", Value: last.NMI},
			core.NamedValue{Name: "ACC", Value: last.ACC})
	}
	r.ctl.Emit(core.MetricsEvent{Stage: 3, Epoch: r.p.T, Step: r.p.T, Values: vals, Unreleased: true})
	emb := make([]float32, len(main.x))
	for i, v := range main.x {
		emb[i] = float32(v)
	}
	r.ctl.Emit(core.ResultEvent{Cells: pr.M, Dim: pr.D, Embedding: emb, Barcodes: pr.Barcodes})
	if paud != nil {
		return paud.emit(r.ctl, y0, n0, pr.Z, pr.M, pr.D, r.cfg.Delta)
	}
	return aud.emit(r.ctl, r.cfg.Mode, r.p.T)
}

// rebudget re-splits what is left of the budget (ε, δ) after rhoSpent over
// the left iterations still to run, with p's θ, bandwidth h and dimension d.
func (r *runner) rebudget(eps, delta, rhoSpent float64, left int, p Params, h float64, d int) (*Budget, error) {
	total, err := accountant.DPToZCDPClassic(eps, delta)
	if err != nil {
		return nil, err
	}
	rem := total - rhoSpent
	if rem <= 0 {
		return nil, fmt.Errorf("dpmd: ε = %g at δ = %g is already spent (ρ %.4g of %.4g), must leave budget for the remaining iterations", eps, delta, rhoSpent, total)
	}
	epsRem, err := accountant.ZCDPToDPClassic(rem, delta)
	if err != nil {
		return nil, err
	}
	b, err := NewBudget(r.cfg.Mode, epsRem, delta, r.pr.M, left, p, r.nPriv, h, d, r.pr.D)
	return &b, err
}

// score measures one track.
func (r *runner) score(name string, x []float64, final bool) Track {
	pr := r.pr
	tr := Track{Name: name, X: x}
	if pr.Manifold != nil {
		dist := make([]float64, pr.M)
		_ = pr.Manifold.DistancesTo(dist, x)
		for q, d := range dist {
			tr.MeanDist += d / float64(pr.M)
			tr.MaxDist = math.Max(tr.MaxDist, d)
			var c float64
			for j := range pr.D {
				v := x[q*pr.D+j] - pr.Clean[q*pr.D+j]
				c += v * v
			}
			c = math.Sqrt(c)
			tr.MeanClean += c / float64(pr.M)
			tr.MaxClean = math.Max(tr.MaxClean, c)
		}
		return tr
	}
	if !final || pr.Labels == nil || pr.Classes < 1 {
		return tr
	}
	km, err := cluster.KMeans(context.Background(), x, pr.M, pr.D, cluster.KMeansConfig{K: min(pr.Classes, pr.M), Seed: r.cfg.Seed})
	if err == nil {
		if s, err := cluster.Score(pr.Labels, km.Labels); err == nil {
			tr.ARI, tr.NMI, tr.ACC = s.ARI, s.NMI, s.ACC
		}
	}
	unit := append([]float64(nil), x...)
	for q := range pr.M {
		row := unit[q*pr.D : (q+1)*pr.D]
		var s float64
		for _, v := range row {
			s += v * v
		}
		if s > 0 {
			s = 1 / math.Sqrt(s)
			for j := range row {
				row[j] *= s
			}
		}
	}
	k := max(5, min(15, pr.M-1))
	if k < pr.M {
		tr.Purity, _ = cluster.NeighbourhoodPurity(unit, pr.M, pr.D, pr.Labels, k)
	}
	return tr
}

// meanMove returns the mean distance of the rows of x from those of z.
func meanMove(x, z []float64, m, D int) float64 {
	var s float64
	for q := range m {
		var d float64
		for j := range D {
			v := x[q*D+j] - z[q*D+j]
			d += v * v
		}
		s += math.Sqrt(d)
	}
	return s / float64(m)
}
