package core

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Patch is a live change to a running run. Nil fields are left unchanged.
// The engine applies a patch at its next step (or round) boundary, records
// it in the privacy ledger and answers with a PatchEvent.
type Patch struct {
	Epsilon      *float64    `json:"epsilon,omitempty"` // new target ε: σ is re-solved for the remaining steps
	Delta        *float64    `json:"delta,omitempty"`
	Sigma        *float64    `json:"sigma,omitempty"`
	Clip         *float64    `json:"clip,omitempty"`
	Layers       *LayerRange `json:"layers,omitempty"`
	LearningRate *float64    `json:"learning_rate,omitempty"`
	Clients      *int        `json:"clients,omitempty"`
	// Options sets a method's own live settings by name, as Config.Options
	// does at the start (e.g. dpmd's "h", "d", "T", "theta"). Only keys the
	// method's OptionSpecs mark Live reach the engine, with values their
	// specs accept: any other is rejected at the checkpoint.
	Options map[string]string `json:"options,omitempty"`
}

// Validate checks the values a patch sets, independently of the method.
func (p Patch) Validate() error {
	if p.Epsilon != nil {
		if err := checkEpsilon(*p.Epsilon, false); err != nil {
			return err
		}
	}
	if p.Delta != nil {
		if err := checkDelta(*p.Delta); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"sigma", p.Sigma}, {"clip", p.Clip}, {"learning rate", p.LearningRate}} {
		if f.v != nil {
			if err := checkPositive(f.name, *f.v); err != nil {
				return err
			}
		}
	}
	if p.Clients != nil && *p.Clients < 1 {
		return badf("clients is %d, must be ≥ 1", *p.Clients)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Options)) {
		if k == "" || p.Options[k] == "" {
			return badf("option %q=%q is empty, must be KEY=VALUE with both set", k, p.Options[k])
		}
	}
	return nil
}

// checkOptions returns why an engine whose options are specs cannot take
// p's options (a key not declared Live, or a value its spec rejects), or
// nil.
func (p Patch) checkOptions(specs []OptionSpec) error {
	allowed := Method{Options: specs}.LiveKeys()
	for _, k := range slices.Sorted(maps.Keys(p.Options)) {
		s, ok := Method{Options: specs}.Option(k)
		if !ok || !s.Live {
			if len(allowed) == 0 {
				return badf("option %q cannot change during a run: this method takes no live options", k)
			}
			return badf("option %q cannot change during a run, must be one of %s", k, strings.Join(allowed, ", "))
		}
		if _, err := s.parse(p.Options[k]); err != nil {
			return err
		}
	}
	return nil
}

// String lists the fields the patch sets, e.g. "σ=1.2 layers=1-3".
func (p Patch) String() string {
	var parts []string
	add := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, name+"="+strconv.FormatFloat(*v, 'g', 4, 64))
		}
	}
	add("ε", p.Epsilon)
	add("δ", p.Delta)
	add("σ", p.Sigma)
	add("C", p.Clip)
	add("lr", p.LearningRate)
	if p.Layers != nil {
		parts = append(parts, "layers="+p.Layers.String())
	}
	if p.Clients != nil {
		parts = append(parts, "clients="+strconv.Itoa(*p.Clients))
	}
	for _, k := range slices.Sorted(maps.Keys(p.Options)) {
		parts = append(parts, k+"="+p.Options[k])
	}
	if len(parts) == 0 {
		return "(no change)"
	}
	return strings.Join(parts, " ")
}
