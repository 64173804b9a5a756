package tui

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dpscope/dpscope/core"
)

// Variant is a method as the user picks it: one preset of a registered
// method (core.Method.Entries), with its mode, an optional fixed layer
// range and preset settings.
type Variant struct {
	Label  string
	Method string // the engine's registered name
	Mode   core.Mode
	Layers *core.LayerRange // fixed range; nil: the user's
	desc   core.Method
	preset core.Preset
}

// Family is the kind of engine behind a variant (core.Family): it decides
// the controls the Run pane shows and how the charts read.
type Family = core.Family

// The engine families with a form of their own; any other family (e.g.
// core.FamilyClustering) gets the common fields and its options'.
const (
	familyDPSGD     = core.FamilyDPSGD     // DP-SGD on an autoencoder: layers, q, epochs per stage
	familyDenoising = core.FamilyDenoising // DP manifold denoising: iterations over queries
	familyFederated = core.FamilyFederated // federated: rounds over clients
)

// Family returns the variant's engine family.
func (v Variant) Family() Family { return v.desc.Family }

// Desc returns the descriptor of the variant's method.
func (v Variant) Desc() core.Method { return v.desc }

// variants are the choices of the method control, in order: every preset
// of every registered method (core.Methods). Registration ends with the
// init functions, so the list is built once, at its first use.
var variants = sync.OnceValue(func() []Variant {
	var out []Variant
	for _, m := range core.Methods() {
		for _, p := range m.Entries() {
			out = append(out, Variant{Label: p.Label, Method: m.Name, Mode: p.Mode, Layers: p.Layers, desc: m, preset: p})
		}
	}
	return out
})

// variantIndex is the index of the first variant of family f (0 if none).
func variantIndex(f Family) int {
	for i, v := range variants() {
		if v.Family() == f {
			return i
		}
	}
	return 0
}

// defaultVariant is the registered default entry (core.Preset.Default), or
// else the second DP-SGD entry (DCAN's paper mode, the published method).
func defaultVariant() int {
	for i, v := range variants() {
		if v.preset.Default {
			return i
		}
	}
	return min(variantIndex(familyDPSGD)+1, len(variants())-1)
}

// numLayers is the number of autoencoder layers in the layer strip:
// encoder 1–3, decoder 4–6.
const numLayers = 6

// runParams are the run settings the Run pane edits. A value; copy freely.
type runParams struct {
	Variant    int // index into variants
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
	// Audit asks the run for an empirical privacy audit (core.Config.Audit,
	// the defaults of core.AuditSpec); only a method with an audit
	// (core.Method.Audit) takes it, so Config drops it for the others.
	Audit bool `json:",omitempty"`

	// Manifold are DP-MD's settings (familyDenoising).
	Manifold manifoldParams
	// Fed are the federated methods' settings (familyFederated).
	Fed fedParams
	// Opts are the own options of a method of another family, by key, as
	// typed (its OptionSpecs make the fields).
	Opts map[string]string
}

// defaultParams returns the defaults every face shares (core.DefaultConfig:
// ε, δ, C, q, the accountant) with the paper's layers 1–3 (METHODS.md §1),
// σ as the method solves it for ε (1 when it offers no preview), and the
// seed and epochs per stage given.
func defaultParams(data string, seed uint64, epochs [2]int) runParams {
	d := core.DefaultConfig(data)
	p := runParams{
		Variant: defaultVariant(), Data: data, Epsilon: d.Epsilon, Delta: d.Delta, Clip: d.Clip,
		Layers: core.LayerRange{First: 1, Last: 3}, SampleRate: d.SampleRate,
		Epochs: epochs, Accountant: d.Accountant, Seed: seed,
		Manifold: defaultManifoldParams(), Fed: defaultFedParams(variants()[variantIndex(familyFederated)]),
		Opts: map[string]string{},
	}
	p.Sigma = 1
	if c, err := p.calibrate(false); err == nil {
		p.Sigma = c.Sigma
	}
	return p
}

// V returns the chosen variant.
func (p runParams) V() Variant { return variants()[p.Variant] }

// Private reports whether the variant adds noise.
func (p runParams) Private() bool { return p.V().Mode != core.ModeNonPrivate }

// EffectiveLayers returns the noised range: the variant's fixed one or the
// user's.
func (p runParams) EffectiveLayers() core.LayerRange {
	if l := p.V().Layers; l != nil {
		return *l
	}
	return p.Layers
}

// StepsPerEpoch is the expected number of Poisson-sampled steps of an
// epoch, round(1/q).
func (p runParams) StepsPerEpoch() int { return max(int(math.Round(1/p.SampleRate)), 1) }

// Steps is the planned number of steps of both stages.
func (p runParams) Steps() int { return (p.Epochs[0] + p.Epochs[1]) * p.StepsPerEpoch() }

// Config returns the engine configuration of the chosen variant, run by
// its own engine (method ""), or by method when one is given (tests and
// demos run every variant on a fake engine).
func (p runParams) Config(method string) core.Config {
	c := p.config(method)
	if p.Auditable() && p.Audit {
		c.Audit = &core.AuditSpec{}
	}
	return c
}

// Auditable reports whether the chosen variant's method can run an
// empirical privacy audit (core.AuditableMethods).
func (p runParams) Auditable() bool { return p.V().Desc().Audit != "" }

// config is Config without the audit.
func (p runParams) config(method string) core.Config {
	if method == "" {
		method = p.V().Method
	}
	switch p.V().Family() {
	case familyDenoising:
		return p.manifoldConfig(method)
	case familyFederated:
		return p.fedConfig(method)
	case familyDPSGD:
	default:
		return p.genericConfig(method)
	}
	c := core.Config{
		Data: p.Data, Method: method, Mode: p.V().Mode, SampleRate: p.SampleRate,
		Epochs: []int{p.Epochs[0], p.Epochs[1]}, Accountant: p.Accountant, Seed: p.Seed,
		Layers: p.EffectiveLayers(),
	}
	if p.Private() {
		c.Epsilon, c.Delta, c.Sigma, c.Clip = p.Epsilon, p.Delta, p.Sigma, p.Clip
		if c.Epsilon > 0 {
			// The engine calibrates σ for every mechanism its plan uses
			// (sound mode's DP k-means too), as the σ control's preview
			// (calibrate) showed; it reports the σ on its budget events.
			c.Sigma = 0
		}
	}
	return c
}

// errNoPreview is calibrate's error for a method that sets its noise
// itself and offers no preview (no core.Method.Calibrate): the interface
// then shows no projection rather than one of its own.
var errNoPreview = errors.New("the method sets its noise itself and offers no preview")

// errNoReleases is the audit's error when the engine's budget reports list
// no releases (BudgetEvent.Ledger and .Planned are empty).
var errNoReleases = errors.New("the engine reports no ledger of releases")

// calibrate asks the variant's method for its noise preview
// (core.Method.Calibrate): with σ the ε that σ projects at the end of the
// method's whole plan, without it the σ the engine would solve for the
// target ε. The interface does no σ arithmetic of its own.
func (p runParams) calibrate(withSigma bool) (core.Calibration, error) {
	cal := p.V().Desc().Calibrate
	if cal == nil || !p.Private() {
		return core.Calibration{}, fmt.Errorf("tui: %s: %w", p.V().Label, errNoPreview)
	}
	cfg := p.Config("")
	cfg.Sigma = 0
	if withSigma {
		cfg.Sigma = p.Sigma
	}
	c, err := cal(cfg)
	if err == nil && len(c.Projected) == 0 {
		err = fmt.Errorf("tui: %s's preview projects no ε", p.V().Label)
	}
	return c, err
}
