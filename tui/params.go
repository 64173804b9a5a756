package tui

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Variant is a method as the user picks it: a registered engine method, a
// mode and, for DPE-DCAN, a fixed layer range.
type Variant struct {
	Label  string
	Method string // the engine's registered name: dcan, dpmd, fl, fl-dp, ppml-omics, fedsc
	Mode   core.Mode
	Layers *core.LayerRange // fixed range; nil: the user's
}

// Family is the kind of engine behind a variant: it decides the controls
// the Run pane shows and how the charts read.
type Family int

// The engine families.
const (
	FamilyDCAN     Family = iota // DP-SGD on an autoencoder: layers, q, epochs per stage
	FamilyManifold               // DP manifold denoising: iterations over queries
	FamilyFed                    // federated: rounds over clients
)

// Family returns the variant's engine family.
func (v Variant) Family() Family {
	switch v.Method {
	case "dpmd":
		return FamilyManifold
	case "fl", "fl-dp", "ppml-omics", "fedsc":
		return FamilyFed
	}
	return FamilyDCAN
}

// Variants are the choices of the method control, in order.
var Variants = []Variant{
	{Label: "DCAN", Method: "dcan", Mode: core.ModeNonPrivate},
	{Label: "DP-DCAN paper", Method: "dcan", Mode: core.ModePaper},
	{Label: "DPE-DCAN", Method: "dcan", Mode: core.ModePaper, Layers: &core.LayerRange{First: 1, Last: 6}},
	{Label: "DP-DCAN sound", Method: "dcan", Mode: core.ModeSound, Layers: &core.LayerRange{First: 1, Last: 6}},
	{Label: "DP-MD paper", Method: "dpmd", Mode: core.ModePaper},
	{Label: "DP-MD sound", Method: "dpmd", Mode: core.ModeSound},
	{Label: "DP-MD non-private", Method: "dpmd", Mode: core.ModeNonPrivate},
	{Label: "FL", Method: "fl", Mode: core.ModeNonPrivate},
	{Label: "FL-DP", Method: "fl-dp", Mode: core.ModePaper},
	{Label: "PPML-Omics paper", Method: "ppml-omics", Mode: core.ModePaper},
	{Label: "PPML-Omics sound", Method: "ppml-omics", Mode: core.ModeSound},
	{Label: "FedSC", Method: "fedsc", Mode: core.ModeNonPrivate},
	{Label: "FedSC + client DP", Method: "fedsc", Mode: core.ModeSound},
}

// fedFirst is the index of FL, the first federated method, whose defaults
// the federated settings start from.
const fedFirst = 7

// NumLayers is the number of autoencoder layers in the layer strip:
// encoder 1–3, decoder 4–6.
const NumLayers = 6

// Params are the run settings the Run pane edits. A value; copy freely.
type Params struct {
	Variant    int // index into Variants
	Data       string
	Epsilon    float64 // target ε
	Delta      float64
	Sigma      float64 // noise multiplier σ
	Clip       float64 // clipping bound C
	Layers     core.LayerRange
	SampleRate float64
	Epochs     [2]int // per stage
	Accountant string // "rdp" or "pld"
	Seed       uint64

	// Manifold are DP-MD's settings (FamilyManifold).
	Manifold ManifoldParams
	// Fed are the federated methods' settings (FamilyFed).
	Fed FedParams
}

// DefaultParams returns the paper's defaults (METHODS.md §1): ε 4, δ 1e-5,
// C 0.1, q 0.1, layers 1–3, 10 epochs per stage, with σ solved for ε by
// RDP.
func DefaultParams(data string, seed uint64) Params {
	return defaultParams(data, seed, [2]int{10, 10})
}

// defaultParams is DefaultParams with the epochs per stage given.
func defaultParams(data string, seed uint64, epochs [2]int) Params {
	p := Params{
		Variant: 1, Data: data, Epsilon: 4, Delta: 1e-5, Clip: 0.1,
		Layers: core.LayerRange{First: 1, Last: 3}, SampleRate: 0.1,
		Epochs: epochs, Accountant: "rdp", Seed: seed,
		Manifold: defaultManifoldParams(), Fed: defaultFedParams(Variants[fedFirst]),
	}
	if s, err := SolveSigma(p.Epsilon, p.Delta, p.SampleRate, p.Steps(), nil); err == nil {
		p.Sigma = s
	} else {
		p.Sigma = 1
	}
	return p
}

// V returns the chosen variant.
func (p Params) V() Variant { return Variants[p.Variant] }

// Private reports whether the variant adds noise.
func (p Params) Private() bool { return p.V().Mode != core.ModeNonPrivate }

// EffectiveLayers returns the noised range: the variant's fixed one or the
// user's.
func (p Params) EffectiveLayers() core.LayerRange {
	if l := p.V().Layers; l != nil {
		return *l
	}
	return p.Layers
}

// StepsPerEpoch is the expected number of Poisson-sampled steps of an
// epoch, round(1/q).
func (p Params) StepsPerEpoch() int { return max(int(math.Round(1/p.SampleRate)), 1) }

// Steps is the planned number of steps of both stages.
func (p Params) Steps() int { return (p.Epochs[0] + p.Epochs[1]) * p.StepsPerEpoch() }

// Config returns the engine configuration of the chosen variant, run by
// its own engine (method ""), or by method when one is given (tests and
// demos run every variant on a fake engine).
func (p Params) Config(method string) core.Config {
	if method == "" {
		method = p.V().Method
	}
	switch p.V().Family() {
	case FamilyManifold:
		return p.manifoldConfig(method)
	case FamilyFed:
		return p.fedConfig(method)
	}
	c := core.Config{
		Data: p.Data, Method: method, Mode: p.V().Mode, SampleRate: p.SampleRate,
		Epochs: []int{p.Epochs[0], p.Epochs[1]}, Accountant: p.Accountant, Seed: p.Seed,
		Layers: p.EffectiveLayers(),
	}
	if p.Private() {
		c.Epsilon, c.Delta, c.Sigma, c.Clip = p.Epsilon, p.Delta, p.Sigma, p.Clip
		if c.Epsilon > 0 {
			// The interface keeps ε and σ paired by its own DP-SGD-only
			// RDP solve; the engine calibrates σ for every mechanism its
			// plan uses (sound mode's DP k-means, its own RDP orders), so
			// that the run reaches its planned steps within ε. It reports
			// the σ it chose on its budget events.
			c.Sigma = 0
		}
	}
	return c
}

// rdpOrders are the RDP orders every ε in the interface uses.
var rdpOrders = accountant.OrdersDPAccounting.Orders()

// ProjectEpsilon returns ε at δ by RDP (improved conversion) of the spent
// schedule followed by steps more steps at rate q and noise σ. It takes
// about a millisecond, so Update may call it.
func ProjectEpsilon(spent []accountant.Event, q, sigma float64, steps int, delta float64) (float64, error) {
	evs := append([]accountant.Event{}, spent...)
	if steps > 0 {
		ev, err := accountant.SampledGaussianEvent(q, sigma, steps)
		if err != nil {
			return 0, err
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		return 0, nil
	}
	eps, _, err := accountant.EpsilonRDP(evs, delta, rdpOrders, accountant.Improved)
	return eps, err
}

// SolveSigma returns the smallest σ whose projected ε (spent schedule, then
// steps at rate q) stays within eps at δ, by RDP. It bisects on σ in log
// space (tens of RDP evaluations), so call it from a command.
func SolveSigma(eps, delta, q float64, steps int, spent []accountant.Event) (float64, error) {
	if len(spent) == 0 {
		return accountant.CalibrateRDP(accountant.Budget{Epsilon: eps, Delta: delta}, q, steps, rdpOrders, accountant.Improved, 1e-4)
	}
	if e0, err := ProjectEpsilon(spent, q, 1, 0, delta); err != nil || e0 >= eps {
		return 0, fmt.Errorf("tui: ε %.3g already spent, target %.3g cannot be met: %w", e0, eps, accountant.ErrUnreachable)
	}
	lo, hi := 1e-2, 1e4
	for range 48 {
		mid := math.Sqrt(lo * hi)
		e, err := ProjectEpsilon(spent, q, mid, steps, delta)
		if err != nil {
			return 0, err
		}
		if e > eps {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1+1e-4 {
			break
		}
	}
	return hi, nil
}
