package tui

import (
	"strconv"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// fedFields sets the federated family's fields: clients, rounds, local
// epochs, the split, the DR protocol (a method with option "protocol") and
// σ.
func (p *runPane) fedFields(fs []field) {
	pr := &p.params
	isFed := func() bool { return pr.V().Family() == familyFederated }
	fs[fClients] = field{name: "clients K", value: func() string { return strconv.Itoa(pr.Fed.Clients) },
		step: func(d int) error { return stepInt("clients", &pr.Fed.Clients, d, 1, 10000) },
		set:  func(s string) error { return setInt("clients", &pr.Fed.Clients, s, 1, 10000) },
		hint: func() string {
			if p.c.RunState.Active() {
				return "live"
			}
			return ""
		}, shown: isFed, live: true, patch: func() core.Patch { v := pr.Fed.Clients; return core.Patch{Clients: &v} }}
	fs[fRounds] = field{name: "rounds", value: func() string { return strconv.Itoa(pr.Fed.Rounds) },
		step: func(d int) error { return stepInt("rounds", &pr.Fed.Rounds, d, 1, 10000) },
		set:  func(s string) error { return setInt("rounds", &pr.Fed.Rounds, s, 1, 10000) }, shown: isFed}
	fs[fLocalEpochs] = field{name: "local ep.", value: func() string { return strconv.Itoa(pr.Fed.LocalEpochs) },
		step: func(d int) error { return stepInt("local epochs", &pr.Fed.LocalEpochs, d, 1, 1000) },
		set:  func(s string) error { return setInt("local epochs", &pr.Fed.LocalEpochs, s, 1, 1000) }, shown: isFed}
	fs[fSplit] = field{name: "split", value: func() string { return pr.Fed.Split },
		step: func(d int) error { pr.Fed.Split = cycle(splits, pr.Fed.Split, d); return nil },
		set: func(s string) error {
			if _, err := datasets.ParseSplit(s); err != nil {
				return err
			}
			pr.Fed.Split = s
			return nil
		}, shown: isFed}
	fs[fProtocol] = field{name: "DR protocol", value: func() string { return pr.Fed.Protocol },
		step: func(d int) error { pr.Fed.Protocol = cycle(protocols(pr.V()), pr.Fed.Protocol, d); return nil }, shown: func() bool { _, ok := pr.V().Desc().Option("protocol"); return ok }}
	fs[fFedSigma] = field{name: "σ noise", value: func() string {
		if pr.Fed.Sigma == 0 {
			return "auto"
		}
		return strconv.FormatFloat(pr.Fed.Sigma, 'g', 4, 64)
	},
		step: func(d int) error {
			if pr.Fed.Sigma == 0 {
				pr.Fed.Sigma = 1
				return nil
			}
			pr.Fed.Sigma = round3(scaleStep(pr.Fed.Sigma, 1.1, d))
			return nil
		},
		set: func(s string) error {
			if s == "auto" || s == "0" {
				pr.Fed.Sigma = 0
				return nil
			}
			v, err := parsePositive("σ", s)
			if err == nil {
				pr.Fed.Sigma = v
			}
			return err
		}, locked: p.notPrivate, hint: func() string {
			if pr.Private() && pr.Fed.Sigma == 0 {
				return "from ε"
			}
			return ""
		}, shown: isFed, live: true, patch: func() core.Patch {
			if pr.Fed.Sigma == 0 { // back to auto: σ from the ε target
				v := pr.Fed.Epsilon
				return core.Patch{Epsilon: &v}
			}
			v := pr.Fed.Sigma
			return core.Patch{Sigma: &v}
		}}
}
