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
		// The privacy settings are worked out on a copy and committed only
		// once the new target is known to be reachable, so a rejected patch
		// changes nothing.
		var next privacy
		if pr := s.pr; pr != nil {
			next = *pr
			if p.Clip != nil {
				next.clip = *p.Clip
			}
			if p.Delta != nil {
				next.delta = *p.Delta
			}
			if p.Sigma != nil {
				next.z, next.fromEps = *p.Sigma, false
			}
			if p.Epsilon != nil {
				next.target, next.fromEps = *p.Epsilon, true
			}
			k := s.k
			if p.Clients != nil {
				k = *p.Clients
			}
			if next.fromEps && (p.Epsilon != nil || p.Delta != nil || p.Clients != nil) {
				if err := next.solveRemaining(k); err != nil {
					s.ctl.Rejected(p, round, err)
					continue
				}
			}
			if err := next.reachable(k); err != nil {
				s.ctl.Rejected(p, round, err)
				continue
			}
		}
		if p.Clients != nil && *p.Clients != s.k {
			if err := s.redraw(*p.Clients, round); err != nil {
				s.ctl.Rejected(p, round, err)
				continue
			}
			s.ctl.Emit(core.WarningEvent{Message: fmt.Sprintf("round %d: %d clients now take part; the split was redrawn (%s)", round, s.k, s.describe()), Note: true})
		}
		if pr := s.pr; pr != nil {
			next.segment = pr.segment // redraw may have opened a new one
			*pr = next
		}
		if p.LearningRate != nil {
			s.lr = *p.LearningRate
			if s.rp != nil {
				s.rp.lrByNoise = false // the user's rate from now on
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
		s.ctl.Emit(s.guarantee(false))
		if p.Sigma != nil || p.Epsilon != nil || p.Delta != nil || p.Clients != nil {
			s.warnNoise()
		}
	}
	return nil
}

// check returns why p cannot be applied, or nil.
func (s *sim) check(p core.Patch) error {
	if p.Layers != nil {
		return configErr("layer range", p.Layers, "unset: federated methods have no layer range")
	}
	private := p.Sigma != nil || p.Clip != nil || p.Epsilon != nil || p.Delta != nil
	if private && s.rp != nil {
		return configErr("privacy patch", p, "empty with the record unit (its σ is fixed for the planned rounds; start a new run)")
	}
	if private && s.pr == nil {
		return configErr("privacy patch", p, "empty in nonprivate mode")
	}
	if p.Clients != nil && *p.Clients > s.d.Cells {
		return configErr("clients", *p.Clients, fmt.Sprintf("at most the number of cells, %d", s.d.Cells))
	}
	return nil
}
