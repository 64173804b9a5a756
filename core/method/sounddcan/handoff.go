package sounddcan

import "github.com/dpscope/dpscope/core/method/dppca"

// Option lownoise's values (Options.LowNoise): what a run does where the
// noise the network would leave on a mean at its full share is small
// (ρ ≤ HandoffRho, from the released cell count).
const (
	// LowNoiseNet keeps the design as it is there: the default start and
	// the network at net's share.
	LowNoiseNet = "net"
	// LowNoiseDPPCA hands the run to dppca's own pipeline there: the
	// start is dppca as it runs alone (genes=auto, p=auto, its 10 rounds,
	// over=auto with its own merge) with every Lloyd round holding a
	// light centre (hold=on), and the network is left out, its share
	// going to the start and the head as under steps=0.
	LowNoiseDPPCA = "dppca"
	// DefaultLowNoise is option lownoise's default.
	DefaultLowNoise = LowNoiseNet
)

// HandoffRho is lownoise=dppca's bound, in units of R, fixed in advance
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
	o.Genes = dppca.GenesAuto
	o.P, o.PRule = dppca.DefaultPCap, dppca.PRuleEdge
	o.Over = 1
	return o
}

// handsOff reports whether a run of o with ρ, the noise the network would
// leave on a mean at its full share, is handed to dppca's pipeline.
func (o Options) handsOff(rho float64) bool {
	return o.LowNoise == LowNoiseDPPCA && rho <= HandoffRho
}
