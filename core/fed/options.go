package fed

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ParamsFromOptions reads a federated run's own settings from
// core.Config.Options (the command line's --opt key=value):
//
//	split            iid | equal | noniid:S | dirichlet:A
//	local_epochs     local epochs per round
//	batch            local mini-batch size
//	loss             mean | sum (the autoencoder's squared error over genes)
//	protocol         swap | fisher-yates (PPML-Omics' randomization)
//	trusted_shuffle  true | false
//	clusters         k of k-means (default: the number of classes)
//	eval_every       rounds between evaluations
//	mask             FedSC input-dropout probability
//	ema_decay        FedSC target decay
//	no_ema           true | false
//	momentum         local SGD momentum
//	weight_decay     local SGD weight decay
//	divergence       fedema | printed | off (FedSC's divergence-aware update)
//	divergence_alpha α of the divergence-aware update
//
// An unknown key or a malformed value is an error wrapping ErrConfig that
// names it. Zero values keep the defaults of Params.
func ParamsFromOptions(opts map[string]string) (Params, error) {
	var p Params
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		v := strings.TrimSpace(opts[key])
		var err error
		switch key {
		case "split":
			p.Split = v
		case "local_epochs":
			p.LocalEpochs, err = strconv.Atoi(v)
		case "batch":
			p.Batch, err = strconv.Atoi(v)
		case "clusters":
			p.Clusters, err = strconv.Atoi(v)
		case "eval_every":
			p.EvalEvery, err = strconv.Atoi(v)
		case "loss":
			p.Loss, err = ParseAELoss(v)
		case "protocol":
			p.Protocol, err = ParseProtocol(v)
		case "divergence":
			p.Divergence, err = ParseDivergence(v)
		case "trusted_shuffle":
			p.TrustedShuffle, err = strconv.ParseBool(v)
		case "no_ema":
			p.NoEMA, err = strconv.ParseBool(v)
		case "mask":
			p.MaskProb, err = strconv.ParseFloat(v, 64)
		case "ema_decay":
			p.EMADecay, err = strconv.ParseFloat(v, 64)
		case "momentum":
			p.Momentum, err = strconv.ParseFloat(v, 64)
		case "weight_decay":
			p.WeightDecay, err = strconv.ParseFloat(v, 64)
		case "divergence_alpha":
			p.DivergenceAlpha, err = strconv.ParseFloat(v, 64)
		default:
			return Params{}, configErr("option "+strconv.Quote(key), v, "one of split, local_epochs, batch, loss, protocol, trusted_shuffle, clusters, eval_every, mask, ema_decay, no_ema, momentum, weight_decay, divergence, divergence_alpha")
		}
		if err != nil {
			return Params{}, configErr("option "+key, v, "a valid value ("+err.Error()+")")
		}
	}
	return p, nil
}
