package sounddcan

import (
	"fmt"

	"github.com/dpscope/dpscope/core/method/dppca"
)

// Option handoff's values (Options.Handoff): where a run is handed to
// dppca's own pipeline, by ρ, the noise the network would leave on a mean
// at its full share (from the released cell count; the ρ target=auto
// reads). A run handed off has dppca as it runs alone for its start
// (genes=auto, p=auto, its 10 rounds, over=auto with its own merge, and
// under target=auto its total 10³) with
// every Lloyd round holding a light centre (hold=on), and no DP-SGD step:
// the network's share goes to the start and the head, as under steps=0.
const (
	// HandoffOff never hands a run off (the default).
	HandoffOff = "off"
	// HandoffLow hands off where ρ ≤ HandoffRho and without noise (rule
	// H of the eleventh session, stated as "lownoise=dppca"; rejected on
	// fresh simulations).
	HandoffLow = "low"
	// HandoffMid hands off where TargetRho < ρ ≤ the staged split's bound:
	// the band where the network runs at its full share on the 10⁴ start
	// (rule H2 of the eleventh session).
	HandoffMid = "mid"
	// HandoffMidMerge hands off in the same band as HandoffMid, but the
	// start clusters into HandoffOver·K centres that the head's round
	// weights and merges into K, as the default start does (rule H3):
	// only centres whose released count clears the head's bar enter the
	// merge, so a centre left where no cell is nearest does not become a
	// cluster.
	HandoffMidMerge = "midmerge"
	// DefaultHandoff is option handoff's default: off. Rule H3 passed
	// for midmerge on its simulations (eleventh session), but the lead
	// kept it an option: it hands the first screen (builtin:default, ε 4)
	// to dppca with no DP-SGD step, against DECISIONS "Default method",
	// and loses on small sets the rule did not cover (cellbench_celseq2_3cl
	// ε 16 0.517 → 0.153; a 300-cell simulation −0.08 at ε 32 and 64).
	DefaultHandoff = HandoffOff
)

// HandoffOver is handoff=midmerge's over-clustering factor: 2, the
// factor dppca's own over=auto over-clusters by.
const HandoffOver = 2

// HandoffRho is handoff=low's bound, in units of R, fixed in advance
// (rule H, docs/RESULTS.md "dcan-sound, eleventh session"): half of
// TargetRho. Where the noise the network would leave on a mean at its
// full share is at most that, net=rho already cuts its share to a quarter
// of the full one or less (ρ ∝ 1/√share), so the start carries the result
// and the question is only which start is better at that budget.
const HandoffRho = TargetRho / 2

// handoff returns o as a run handed to dppca's pipeline runs it: the
// start dppca's own rules with hold=on, no DP-SGD step (its share to the
// start and the head, as steps=0). It is idempotent.
func (o Options) handoff() Options {
	o.Start, o.Hold, o.NoTrain = StartDPPCA, HoldOn, true
	o.Genes, o.GenesScale, o.GenesFloor, o.GenesWhole, o.GenesRulesAtDefault = dppca.GenesAuto, 0, 0, false, false
	o.P, o.PRule, o.PSpan = dppca.DefaultPCap, dppca.PRuleEdge, false
	o.Over = 1
	if o.Handoff == HandoffMidMerge {
		o.Over = HandoffOver // dppca into 2K (no merge of its own), the head merges
	}
	return o
}

// handsOff reports whether a run of o with ρ, the noise the network would
// leave on a mean at its full share (0 without noise), is handed to
// dppca's pipeline.
func (o Options) handsOff(rho float64) bool {
	switch o.Handoff {
	case HandoffLow:
		return rho <= HandoffRho
	case HandoffMid, HandoffMidMerge:
		return rho > TargetRho && rho <= o.StageBound
	}
	return false
}

// handoffOn reports whether a private run of o decides the handoff: an
// option other than off, with the staged split on (the handoff's bands
// are read from the ρ the split reads; stage=off asks for the fixed
// design).
func (o Options) handoffOn() bool {
	return o.Handoff != HandoffOff && o.Stage == StageAuto
}

// handoffMerge says how a handed-off start reaches K centres, for the
// run's messages.
func (o Options) handoffMerge() string {
	if o.Handoff == HandoffMidMerge {
		return fmt.Sprintf("%dK centres weighted and merged into K by the head's round", HandoffOver)
	}
	return "dppca's own over-clustering and merge"
}

// handoffBound describes the band of ρ option handoff hands off, for the
// run's messages.
func (o Options) handoffBound() string {
	if o.Handoff == HandoffMid || o.Handoff == HandoffMidMerge {
		return "in (TargetRho, stagerho]"
	}
	return "at most TargetRho/2"
}
