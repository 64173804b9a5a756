package fed

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
)

// applyPatches takes the live changes queued before round: the number of
// clients (the split is redrawn and a new ledger segment opened), σ, C,
// the ε target (σ re-solved by the paper's split, or by RDP for FedSC's
// extension, for the whole schedule), δ and the learning rate. Each
// applied patch is acknowledged from round on; a patch the variant cannot
// take is rejected with the reason and changes nothing.
func (s *sim) applyPatches(ps []core.Patch, round int) error {
	for _, p := range ps {
		if err := s.check(p); err != nil {
			s.ctl.Rejected(p, round, err)
			continue
		}
		if p.LearningRate != nil {
			s.lr = *p.LearningRate
		}
		if pr := s.pr; pr != nil {
			if p.Clip != nil {
				pr.clip = *p.Clip
			}
			if p.Delta != nil {
				pr.delta = *p.Delta
			}
			if p.Sigma != nil {
				pr.z, pr.fromEps = *p.Sigma, false
			}
			if p.Epsilon != nil {
				pr.target, pr.fromEps = *p.Epsilon, true
			}
		}
		if p.Clients != nil && *p.Clients != s.k {
			if err := s.redraw(*p.Clients, round); err != nil {
				s.ctl.Rejected(p, round, err)
				continue
			}
			s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf("round %d: %d clients now take part; the split was redrawn (%s)", round, s.k, s.describe())})
		}
		if pr := s.pr; pr != nil && pr.fromEps && (p.Epsilon != nil || p.Delta != nil || p.Clients != nil) {
			if err := pr.solve(s.k); err != nil {
				return err
			}
		}
		if pr := s.pr; pr != nil && pr.fromEps && (p.Epsilon != nil || p.Delta != nil || p.Clients != nil) {
			eff := p
			eff.Sigma = new(float64)
			*eff.Sigma = pr.z
			s.ctl.AppliedAs(p, eff, round)
		} else {
			s.ctl.Applied(p, round)
		}
		s.ctl.Emit(s.pr.guarantee(s.e.v, s.e.cfg.Mode, s.k, false))
	}
	return nil
}

// check returns why p cannot be applied, or nil.
func (s *sim) check(p core.Patch) error {
	if p.Layers != nil {
		return configErr("layer range", p.Layers, "unset: federated methods have no layer range")
	}
	private := p.Sigma != nil || p.Clip != nil || p.Epsilon != nil || p.Delta != nil
	if private && s.pr == nil {
		return configErr("privacy patch", p, "empty in nonprivate mode")
	}
	if p.Clients != nil && *p.Clients > s.d.Cells {
		return configErr("clients", *p.Clients, fmt.Sprintf("at most the number of cells, %d", s.d.Cells))
	}
	return nil
}
