package dpmd

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/dpscope/dpscope/core"
)

// LiveOptions are the keys of core.Patch.Options that dpmd applies between
// iterations (the specs marked Live): the bandwidth h, the intrinsic
// dimension d, the number of iterations T and the projector's share θ.
var LiveOptions = core.Method{Options: optionSpecs}.LiveKeys()

// live is what a patch can change while the denoiser runs.
type live struct {
	eps, delta float64
	rhoSpent   float64 // zCDP ρ spent by the iterations done
	bud        *Budget // nil in nonprivate mode
	tg         *Tangents
	dn         *Denoiser
}

// patchErr is a rejected patch's reason.
func patchErr(format string, args ...any) error {
	return fmt.Errorf("dpmd: "+format+": %w", append(args, ErrParams)...)
}

// applyPatch applies pt before iteration t+1 (t iterations done), all or
// nothing: every value is checked, the local PCA recomputed when h or d
// change, and the budget left re-split over the iterations left with the new
// θ, h and d, before anything is committed.
func (r *runner) applyPatch(ctx context.Context, pt core.Patch, t int, st *live) error {
	if pt.Sigma != nil || pt.Clip != nil || pt.Layers != nil || pt.LearningRate != nil || pt.Clients != nil {
		return patchErr("dpmd takes only ε, δ and the options %v live", LiveOptions)
	}
	pr := r.pr
	h, d, T, theta := pr.H, pr.Dim, r.p.T, r.p.Theta
	for _, k := range slices.Sorted(maps.Keys(pt.Options)) {
		v := pt.Options[k]
		switch k {
		case "h", "theta":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return patchErr("%s is %q, must be a finite number", k, v)
			}
			if k == "h" {
				if f <= 0 {
					return patchErr("h is %v, must be > 0", f)
				}
				h = f
			} else {
				if f <= 0 || f >= 1 {
					return patchErr("theta is %v, must be in (0, 1)", f)
				}
				theta = f
			}
		case "d", "T":
			n, err := strconv.Atoi(v)
			if err != nil {
				return patchErr("%s is %q, must be an integer", k, v)
			}
			if k == "d" {
				if n < 1 || n >= pr.D {
					return patchErr("d is %d, must satisfy 1 ≤ d < D = %d", n, pr.D)
				}
				d = n
			} else {
				if n < t+1 || n > 1000 {
					return patchErr("T is %d, must be in [%d, 1000]: %d iterations are done and the next one takes the patch", n, t+1, t)
				}
				T = n
			}
		default:
			return patchErr("option %q cannot change during a run, must be one of %v", k, LiveOptions)
		}
	}
	private := st.bud != nil
	if !private && (pt.Epsilon != nil || pt.Delta != nil || theta != r.p.Theta) {
		return patchErr("nonprivate mode has no budget: ε, δ and theta cannot change")
	}
	eps, delta := st.eps, st.delta
	if pt.Epsilon != nil {
		eps = *pt.Epsilon
	}
	if pt.Delta != nil {
		delta = *pt.Delta
	}
	tg, dn := st.tg, st.dn
	geometry := h != pr.H || d != pr.Dim
	if geometry {
		if err := checkGeometry(h, d, pr.D); err != nil {
			return err
		}
		t0 := time.Now()
		var err error
		if tg, err = LocalPCA(ctx, pr.Y, pr.N, pr.D, h, d); err != nil {
			return err
		}
		if dn, err = NewDenoiser(pr.Y, pr.N, pr.D, h, d, tg); err != nil {
			return err
		}
		dn.Secure = r.cfg.SecureNoise
		r.out.LocalPCA += time.Since(t0)
	}
	var bud *Budget
	if private {
		p := r.p
		p.Theta = theta
		var err error
		if bud, err = r.rebudget(eps, delta, st.rhoSpent, T-t, p, h, d); err != nil {
			return err
		}
	}
	// Commit.
	st.eps, st.delta, st.tg, st.dn = eps, delta, tg, dn
	if private {
		st.bud = bud
		r.out.Budget = bud
	}
	pr.H, pr.Dim = h, d
	r.p.T, r.p.Theta = T, theta
	if geometry {
		msg := fmt.Sprintf("iteration %d: h = %.4g, d = %d (set live): local PCA recomputed", t+1, h, d)
		if tg.Small > 0 {
			msg += fmt.Sprintf("; %d references have fewer than d + 1 = %d neighbours within h", tg.Small, d+1)
		}
		r.ctl.Emit(core.WarningEvent{Message: msg})
	}
	if private {
		r.ctl.Emit(noiseWarning(r.cfg.Mode, *bud, t+1))
	}
	return nil
}

// noiseWarning states the noise standard deviations from iteration it on.
func noiseWarning(mode core.Mode, b Budget, it int) core.WarningEvent {
	if mode == core.ModeSound {
		msg := fmt.Sprintf("per-query noise from iteration %d (before the overlap factor): numerator and scaled mass released jointly, kernel (1 − r²/h²)₊^%d, Δ = s·h = %.3g; numerator ς = %.3g, mass ς = %.3g (= ς/λ, λ = %.3g)", it, b.Beta, b.SensM, b.Noise.Mean, b.Noise.Mass, b.SensS)
		if b.Noise.Tangents {
			msg += fmt.Sprintf(", second moment ς = %.3g (Δ = %.3g)", b.Noise.Projector, b.SensP)
		}
		return core.WarningEvent{Message: msg}
	}
	msg := fmt.Sprintf("noise from iteration %d: projector ς_P = %.3g (Δ_P = C_P/(n h^d) = %.3g), mean ς_m = %.3g (Δ_m = C_m/(n h^(d−1)) = %.3g)",
		it, b.Noise.Projector, b.SensP, b.Noise.Mean, b.SensM)
	if b.Noise.Projector < 1e-6 {
		msg += " — negligible: the paper's bounds are not scale-invariant, and with h > 1 in the data's units h^d makes them vanish"
	}
	return core.WarningEvent{Message: msg}
}
