package dcan

import (
	"math"

	"github.com/dpscope/dpscope/accountant"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/dpsgd"
)

// applyPatches applies the patches taken at a step boundary, each from the
// next step on, acknowledges them and re-states the guarantee.
func (r *runState) applyPatches(ps []core.Patch) {
	applied := false
	for _, p := range ps {
		if _, err := r.apply(p); err != nil {
			r.ctl.Rejected(p, r.step+1, err)
			continue
		}
		if p.Epsilon != nil || p.Delta != nil {
			// A target re-solves σ: say which σ is now in force.
			eff := p
			eff.Sigma = new(float64)
			*eff.Sigma = r.sigma
			r.ctl.AppliedAs(p, eff, r.step+1)
		} else {
			r.ctl.Applied(p, r.step+1)
		}
		applied = true
	}
	// The guarantee is re-stated after every applied patch, so the badge
	// a front end shows is always the engine's latest reading.
	if applied {
		r.ctl.Emit(r.guarantee(nil))
		if r.private {
			r.ctl.Emit(r.priv.budgetEvent(r.step, r.plan(), r.sigma, false))
		}
	}
}

// apply applies one patch atomically: it checks every field first, so a
// rejected patch changes nothing. It reports whether the guarantee (its
// status, reasons or figures) changed.
func (r *runState) apply(p core.Patch) (bool, error) {
	mode := r.s.cfg.Mode
	noisy := p.Epsilon != nil || p.Delta != nil || p.Sigma != nil || p.Clip != nil || p.Layers != nil
	switch {
	case p.Clients != nil:
		return false, configErr("clients", *p.Clients, "unset: dcan is not federated")
	case !r.private && noisy:
		return false, core.Wrapf(ErrConfig, "dcan: nonprivate mode has no noise: only the learning rate can change")
	case p.Layers != nil && mode != core.ModePaper:
		return false, configErr("layers", *p.Layers, "1-6: only paper mode takes a layer range")
	case p.Sigma != nil && (p.Epsilon != nil || p.Delta != nil):
		return false, core.Wrapf(ErrConfig, "dcan: a patch sets σ and an (ε, δ) target, must set one: a target solves σ")
	case r.exhausted && noisy:
		return false, core.Wrapf(ErrConfig, "dcan: the privacy budget is exhausted and noisy training has stopped")
	}
	if p.Layers != nil {
		if err := p.Layers.Validate(numLayers); err != nil {
			return false, err
		}
	}
	sigma, clip, layers := r.sigma, r.clip, r.layers
	if p.Sigma != nil {
		sigma = *p.Sigma
	}
	if p.Clip != nil {
		clip = *p.Clip
	}
	if p.Layers != nil {
		layers = *p.Layers
	}
	// A new (ε, δ) target re-solves σ for the remaining steps given what
	// the ledger has spent, and plans the filter that will enforce it;
	// both are computed here and committed only once everything checks.
	target, delta := r.priv.targetOr(0), r.circ.Delta
	retarget := p.Epsilon != nil || (p.Delta != nil && target > 0)
	if p.Epsilon != nil {
		target = *p.Epsilon
	}
	if p.Delta != nil {
		delta = *p.Delta
	}
	var filter *accountant.Filter
	if retarget {
		z, err := r.priv.solveSigma(target, delta, r.plan())
		if err != nil {
			return false, err
		}
		sigma = z
		if filter, err = r.priv.planFilter(target, delta, r.plan(), sigma); err != nil {
			return false, err
		}
	}
	var dcfg dpsgd.Config
	if r.private {
		dcfg = r.dp.Config()
		dcfg.NoiseMultiplier, dcfg.ClipNorm = sigma, clip
		dcfg.Perturbed.First, dcfg.Perturbed.Last = layers.First, layers.Last
		if err := dcfg.Validate(r.m.ae.NumLayers()); err != nil {
			return false, err
		}
	}
	if p.LearningRate != nil && !(*p.LearningRate > 0 && !math.IsInf(*p.LearningRate, 1)) {
		return false, configErr("learning rate", *p.LearningRate, "finite and > 0")
	}
	// Everything checked: commit. Only the optimiser and DP-SGD setters
	// can still refuse (they re-check what was checked above); the
	// learning rate is put back if the second does, so a refused patch
	// leaves the run as it was.
	if p.LearningRate != nil {
		old := r.opt.LR()
		if err := r.opt.SetLR(*p.LearningRate); err != nil {
			return false, err
		}
		if r.private {
			if err := r.dp.SetConfig(dcfg); err != nil {
				_ = r.opt.SetLR(old) // old was in force: it is valid
				return false, err
			}
		}
	} else if r.private {
		if err := r.dp.SetConfig(dcfg); err != nil {
			return false, err
		}
	}
	if retarget {
		r.priv.target, r.priv.filter = target, filter
	}
	changed := sigma != r.sigma || layers != r.layers || retarget || p.Delta != nil
	if retarget && (target > r.s.cfg.Epsilon || delta > r.s.cfg.Delta) {
		r.circ.TargetRaised = true
	}
	if p.Sigma != nil && r.priv != nil && r.priv.target == 0 {
		r.circ.AdaptiveNoFilter = true
	}
	if p.Delta != nil {
		r.priv.delta = delta
		r.circ.Delta = delta
	}
	if retarget {
		r.circ.Target = target
	}
	r.sigma, r.clip, r.layers = sigma, clip, layers
	return changed, nil
}
