package dcan

import (
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/nn"
)

// OptionKeys are the keys of core.Config.Options (the command line's
// --opt KEY=VALUE) that DP-DCAN reads; optionSpecs documents each.
var OptionKeys = func() []string {
	keys := make([]string, len(optionSpecs))
	for i, s := range optionSpecs {
		keys[i] = s.Key
	}
	return keys
}()

// applyKeys sets the fields of o named by kv (core.Config.Options), parsed
// by core.ParseOptions against optionSpecs. An unknown key or a value that
// does not parse is an error wrapping ErrConfig and core.ErrBadConfig.
func applyKeys(o Options, kv map[string]string) (Options, error) {
	v, err := core.ParseOptions(optionSpecs, kv)
	if err != nil {
		return o, core.Wrapf(ErrConfig, "dcan: %w", err)
	}
	v.IntTo("k", &o.K)
	if act, ok := v["act"]; ok {
		o.Act = map[any]nn.Activation{"tanh": nn.Tanh, "relu": nn.ReLU}[act]
	}
	v.FloatTo("rho", &o.Rho)
	v.FloatTo("mask", &o.MaskProb)
	v.IntTo("init_restarts", &o.InitRestarts)
	v.IntTo("reset_every", &o.ResetEvery)
	v.BoolTo("denoise", &o.Denoise)
	if b, ok := v["gene_mean_init"].(bool); ok {
		o.NoGeneMeanInit = !b
	}
	if b, ok := v["dispersion_init"].(bool); ok {
		o.NoDispersionInit = !b
	}
	return o, nil
}
