package dcan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core/nn"
)

// OptionKeys are the keys of core.Config.Options (the command line's
// --opt KEY=VALUE) that DP-DCAN reads, each setting the Options field of
// the same meaning:
//
//	k               K, the number of clusters
//	act             tanh | relu
//	rho             ρ of stage 1
//	mask            the masking probability of the views
//	init_restarts   k-means++ restarts of the stage-2 centroids
//	reset_every     epochs between k-means re-sets of the centroids (negative: never)
//	denoise         true | false: stage 1 reconstructs from a masked copy
//	gene_mean_init  true | false (false is NoGeneMeanInit)
//	dispersion_init true | false (false is NoDispersionInit)
var OptionKeys = []string{"act", "denoise", "dispersion_init", "gene_mean_init", "init_restarts", "k", "mask", "reset_every", "rho"}

// applyKeys sets the fields of o named by kv (core.Config.Options). An
// unknown key or a value that does not parse is an error wrapping
// ErrConfig.
func applyKeys(o Options, kv map[string]string) (Options, error) {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(kv[k])
		var err error
		switch k {
		case "k":
			o.K, err = strconv.Atoi(v)
		case "act":
			switch strings.ToLower(v) {
			case "tanh":
				o.Act = nn.Tanh
			case "relu":
				o.Act = nn.ReLU
			default:
				err = fmt.Errorf("not tanh or relu")
			}
		case "rho":
			o.Rho, err = strconv.ParseFloat(v, 64)
		case "mask":
			o.MaskProb, err = strconv.ParseFloat(v, 64)
		case "init_restarts":
			o.InitRestarts, err = strconv.Atoi(v)
		case "reset_every":
			o.ResetEvery, err = strconv.Atoi(v)
		case "denoise":
			o.Denoise, err = strconv.ParseBool(v)
		case "gene_mean_init":
			var b bool
			b, err = strconv.ParseBool(v)
			o.NoGeneMeanInit = !b
		case "dispersion_init":
			var b bool
			b, err = strconv.ParseBool(v)
			o.NoDispersionInit = !b
		default:
			return o, configErr("option key", k, "one of "+strings.Join(OptionKeys, ", "))
		}
		if err != nil {
			return o, configErr("option "+k, v, "a valid value ("+err.Error()+")")
		}
	}
	return o, nil
}
