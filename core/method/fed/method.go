package fed

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// Option specs of the federated methods (core.Config.Options). Every
// variant takes the common ones; the others only where they mean something.
var (
	commonSpecs = []core.OptionSpec{
		{Key: "split", Kind: core.KindString, Default: nil, Doc: "client split: iid | equal | noniid:S | dirichlet:A | paper (default equal; paper for fedsc: noniid:S, S = classes/K)"},
		{Key: "local_epochs", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "local epochs per round (default: --epochs' second value, else 1, or 5 for fedsc)"},
		{Key: "batch", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "local mini-batch size (default 8, or 128 for fedsc)"},
		{Key: "clusters", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "k of k-means (default: the number of classes)"},
		{Key: "eval_every", Kind: core.KindInt, Default: 1, Min: 0, Max: math.Inf(1), Doc: "rounds between evaluations"},
	}
	aeSpecs = []core.OptionSpec{
		{Key: "loss", Kind: core.KindChoice, Default: "mean", Choices: []string{"mean", "sum"}, Doc: "reduction of the autoencoder's squared error over genes"},
		{Key: "hidden", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "autoencoder hidden width (default 1024, or 64 with the record unit)"},
		{Key: "latent", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "autoencoder bottleneck width (default 128, or 16 with the record unit)"},
		{Key: "optimizer", Kind: core.KindChoice, Default: "auto", Choices: []string{"auto", "sgd", "adam"}, Doc: "clients' local optimizer (auto: sgd in paper mode, adam otherwise)"},
	}
	drSpecs = []core.OptionSpec{
		{Key: "protocol", Kind: core.KindChoice, Default: "swap", Choices: []string{"swap", "fisher-yates"}, Doc: "PPML-Omics' decentralized randomization"},
		{Key: "trusted_shuffle", Kind: core.KindBool, Default: false, Doc: "a trusted party the server cannot observe draws the permutation"},
	}
	unitSpecs = []core.OptionSpec{
		{Key: "unit", Kind: core.KindChoice, Default: "client", Choices: []string{"client", "record"}, Doc: "privacy unit: client (the paper's clipped, noised client updates) or record (one cell: private federated projection, then local full-batch DP-SGD; sound or nonprivate)"},
		{Key: "front", Kind: core.KindChoice, Default: FrontPCA, Choices: []string{FrontPCA, FrontRandom, FrontNone}, Doc: "record unit's front end: pca (federated Analyze Gauss) or random (a seeded random projection, no data)"},
		{Key: "cell_clip", Kind: core.KindFloat, Default: nil, Min: 0, Max: math.Inf(1), Doc: "record unit's per-cell clipping bound (default 0.1)"},
		{Key: "proj", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "record unit's projection width (default 32)"},
	}
	byolSpecs = []core.OptionSpec{
		{Key: "mask", Kind: core.KindFloat, Default: DefaultMaskProb, Min: 0, Max: 1, Doc: "FedSC input-dropout probability (0: the default)"},
		{Key: "ema_decay", Kind: core.KindFloat, Default: DefaultEMADecay, Min: 0, Max: 1, Doc: "FedSC target EMA decay (0: the default)"},
		{Key: "no_ema", Kind: core.KindBool, Default: false, Doc: "the target is the online encoder itself"},
		{Key: "momentum", Kind: core.KindFloat, Default: DefaultMomentum, Min: 0, Max: 1, Doc: "local SGD momentum (0: the default, the paper's 0.5)"},
		{Key: "weight_decay", Kind: core.KindFloat, Default: DefaultWeightDecay, Min: 0, Max: math.Inf(1), Doc: "local SGD weight decay (0: the default)"},
		{Key: "divergence", Kind: core.KindChoice, Default: "calibrated", Choices: []string{"calibrated", "printed", "fedema", "off"}, Doc: "FedSC's divergence-aware client update: Eq. (4) with α scaled to the client's first divergence (FedEMA's auto-scaler; the default), Eq. (4) as printed, FedEMA's rule, or none"},
		{Key: "divergence_alpha", Kind: core.KindFloat, Default: DefaultDivergenceAlpha, Min: 0, Max: 1, Doc: "α of the divergence-aware update (0: the default)"},
		{Key: "lr_schedule", Kind: core.KindChoice, Default: "constant", Choices: lrScheduleNames[:], Doc: "FedSC's local learning rate over the rounds: constant (the paper states no schedule) or cosine decay to 0 over the planned rounds (FedEMA's code)"},
		{Key: "warmup", Kind: core.KindInt, Default: 0, Min: 0, Max: math.Inf(1), Doc: "FedSC's FedAvg warm-up: rounds 1…W start every client from the global model whole (μ = 0), the divergence rule after them (0: none, the default)"},
		{Key: "target", Kind: core.KindChoice, Default: "local", Choices: targetSyncNames[:], Doc: "FedSC client's EMA target at a round's start: its own (local, the paper's) or μ-mixed with the global online encoder like the online one (mix)"},
		{Key: "server_momentum", Kind: core.KindFloat, Default: 0, Min: 0, Max: 0.99, Doc: "β of FedSC's server momentum (FedAvgM): the server's velocity v ← β·v + mean update of the encoder and predictor weights is applied at rate 1 (0: plain FedAvg, the default and the paper's)"},
		{Key: "predictor", Kind: core.KindChoice, Default: "shared", Choices: predictorSyncNames[:], Doc: "FedSC client's BYOL predictor head: uploaded and μ-mixed with the global one like the encoder (shared, the paper's) or its own across rounds, never uploaded (local)"},
		{Key: "decorr", Kind: core.KindFloat, Default: 0, Min: 0, Max: MaxDecorr, Doc: "β of FedDecorr on FedSC's clients: β times the decorrelation penalty of the online encoder's batch output (the official code's form, whose scripts use 0.1) is added to each BYOL half of the local loss; a client-side term, no change to sound mode's accounting (0: off, the default and the paper's)"},
		{Key: "bn", Kind: core.KindChoice, Default: "mix", Choices: bnStatsNames[:], Doc: "FedSC client's BatchNorm running statistics at a round's start: μ-mixed with the global ones like every weight, the global ones (FedEMA's code), or its own"},
		{Key: "eval_bn", Kind: core.KindChoice, Default: "running", Choices: evalBNNames[:], Doc: "FedSC evaluation's BatchNorm statistics: the global model's running ones, or every layer's exact moments over all cells (nonprivate mode only)"},
		{Key: "client_rate", Kind: core.KindFloat, Default: DefaultClientRate, Min: 0, Max: 1, Doc: "probability q that a client takes part in a round (Poisson client sampling, accounted in sound mode; 0: the default)"},
	}
)

// optionSpecs returns the option specs variant v takes.
func (v Variant) optionSpecs() []core.OptionSpec {
	specs := append([]core.OptionSpec{}, commonSpecs...)
	switch v {
	case FedSC:
		return append(specs, byolSpecs...)
	case PPMLOmics:
		specs = append(specs, drSpecs...)
	}
	if v == FLDP || v == PPMLOmics {
		specs = append(specs, unitSpecs...)
	}
	return append(specs, aeSpecs...)
}

// allSpecs is every federated option: ParamsFromOptions reads any of them.
var allSpecs = append(append(append(append(append([]core.OptionSpec{}, commonSpecs...), aeSpecs...), drSpecs...), unitSpecs...), byolSpecs...)

// descriptor is the registry entry of variant v.
func (v Variant) descriptor() core.Method {
	m := core.Method{
		Name: v.Name(), Family: core.FamilyFederated, Options: v.optionSpecs(),
		Needs: core.NeedsClients | core.NeedsEpochs | core.NeedsClip | core.NeedsSigma | core.NeedsLearningRate,
		Expect: func(cfg core.Config) (core.Guarantee, []string) {
			proto := ProtocolSwap
			if s, ok := cfg.Options["protocol"]; ok {
				proto, _ = ParseProtocol(s)
			}
			if cfg.Options["unit"] == UnitRecord.String() && cfg.Mode != core.ModeNonPrivate {
				return core.GuaranteeFormal, RecordReasons(v)
			}
			eps := cfg.Epsilon
			if cfg.Sigma != 0 {
				eps = 0
			}
			return Reasons(v, cfg.Mode, eps, proto)
		},
		Null:      Null,
		Calibrate: v.Calibrate,
		New: func(cfg core.Config) (core.Engine, error) {
			p, err := paramsFrom(v.optionSpecs(), cfg.Options)
			if err != nil {
				return nil, err
			}
			return New(cfg, v, p)
		},
	}
	fl := func(dp bool) core.Preset {
		p := core.Preset{Clients: DefaultClientsFL, Epochs: []int{DefaultRoundsAE, DefaultLocalEpochsAE}, Clip: 5}
		if dp {
			p.Clients = DefaultClientsDP
		}
		return p
	}
	switch v {
	case FL:
		m.Title, m.Doc = "FL", "federated averaging of client autoencoder updates (PPML-Omics Algorithm 1), no privacy"
		m.Modes = []core.Mode{core.ModeNonPrivate}
		m.DependsOn = []string{"nothing: FL never has a guarantee"}
		p := fl(false)
		p.Label, p.Mode = "FL", core.ModeNonPrivate
		m.Presets = []core.Preset{p}
	case FLDP:
		m.Title, m.Doc = "FL-DP", "FL with per-client clipping and local Gaussian noise (PPML-Omics' FL-DP)"
		m.Modes = []core.Mode{core.ModeNonPrivate, core.ModePaper, core.ModeSound}
		m.DependsOn = []string{"epsilon (the paper's composition corollary holds for ε < 1)"}
		p := fl(true)
		p.Label, p.Mode = "FL-DP", core.ModePaper
		r := recordPreset()
		r.Label = "FL-DP sound, one cell"
		m.Presets = []core.Preset{p, r}
	case PPMLOmics:
		m.Title, m.Doc = "PPML-Omics", "FL-DP with size-weighted updates and decentralized randomization (PPML-Omics Algorithm 2)"
		m.Modes = []core.Mode{core.ModeNonPrivate, core.ModePaper, core.ModeSound}
		m.DependsOn = []string{"epsilon (the paper's composition corollary holds for ε < 1)", "clients (the shuffle model's condition)",
			"option protocol", "option trusted_shuffle"}
		p, s, r := fl(true), fl(true), recordPreset()
		p.Label, p.Mode, s.Label, s.Mode = "PPML-Omics paper", core.ModePaper, "PPML-Omics sound", core.ModeSound
		r.Label = "PPML-Omics sound, one cell"
		m.Presets = []core.Preset{p, s, r}
	case FedSC:
		m.Title, m.Doc = "FedSC", "federated BYOL with a divergence-aware client update (FedSC); reaches the paper's Table 1 on mouse_bladder (ARI 0.42 vs 0.34) but not on pbmc_4k (0.42 vs 0.63; docs/RESULTS.md, fedsc8); sound adds client-level DP-FedAvg, which cannot learn with 4 clients (noise 59–660× the clipped updates)"
		m.Modes = []core.Mode{core.ModeNonPrivate, core.ModeSound}
		m.DependsOn = []string{"a trusted aggregator or secure aggregation (assumed)"}
		p := core.Preset{Clients: DefaultClientsFedSC, Epochs: []int{10, DefaultLocalEpochsBYOL}, Clip: 1,
			Options: map[string]string{"split": "iid"}}
		s := p
		p.Label, p.Mode, s.Label, s.Mode = "FedSC", core.ModeNonPrivate, "FedSC + client DP", core.ModeSound
		m.Presets = []core.Preset{p, s}
	}
	m.Audit = auditDoc // audit.go
	m.CheckData = checkData
	if v == FL {
		m.Calibrate = nil // FL adds no noise: nothing to preview
	}
	return m
}

// recordPreset is sound mode with the record unit (--opt unit=record) at
// its defaults (package doc, "Record-level sound mode").
func recordPreset() core.Preset {
	return core.Preset{Mode: core.ModeSound, Clients: DefaultClientsFL,
		Epochs: []int{DefaultRoundsRecord, DefaultLocalStepsRecord}, Clip: DefaultCellClip,
		Options: map[string]string{"unit": UnitRecord.String()}}
}

func init() {
	for _, v := range []Variant{FL, FLDP, PPMLOmics, FedSC} {
		core.Register(v.descriptor())
	}
}

// ParamsFromOptions reads a federated run's own settings from
// core.Config.Options (the command line's --opt key=value), any variant's
// keys (allSpecs documents each). An unknown key or a malformed value is an
// error wrapping ErrConfig that names it. Zero values keep the defaults of
// Params.
func ParamsFromOptions(opts map[string]string) (Params, error) { return paramsFrom(allSpecs, opts) }

// paramsFrom parses opts against specs with core.ParseOptions.
func paramsFrom(specs []core.OptionSpec, opts map[string]string) (Params, error) {
	vals, err := core.ParseOptions(specs, opts)
	if err != nil {
		return Params{}, core.Wrapf(ErrConfig, "fed: %w", err)
	}
	var p Params
	vals.StringTo("split", &p.Split)
	vals.IntTo("local_epochs", &p.LocalEpochs)
	vals.IntTo("batch", &p.Batch)
	vals.IntTo("clusters", &p.Clusters)
	vals.IntTo("eval_every", &p.EvalEvery)
	vals.IntTo("latent", &p.Latent)
	var hidden int
	if vals.IntTo("hidden", &hidden); hidden > 0 {
		p.Hidden = []int{hidden}
	}
	vals.BoolTo("trusted_shuffle", &p.TrustedShuffle)
	vals.BoolTo("no_ema", &p.NoEMA)
	vals.FloatTo("mask", &p.MaskProb)
	vals.FloatTo("ema_decay", &p.EMADecay)
	vals.FloatTo("momentum", &p.Momentum)
	vals.FloatTo("weight_decay", &p.WeightDecay)
	vals.FloatTo("divergence_alpha", &p.DivergenceAlpha)
	vals.FloatTo("client_rate", &p.ClientRate)
	if s, ok := vals["loss"].(string); ok {
		p.Loss, _ = ParseAELoss(s) // a declared choice: it parses
	}
	if s, ok := vals["optimizer"].(string); ok {
		p.Optimizer, _ = ParseLocalOptimizer(s)
	}
	if s, ok := vals["unit"].(string); ok {
		p.Unit, _ = ParseUnit(s)
	}
	if s, ok := vals["front"].(string); ok {
		p.Front = s
	}
	vals.IntTo("proj", &p.Proj)
	vals.FloatTo("cell_clip", &p.CellClip)
	if s, ok := vals["protocol"].(string); ok {
		p.Protocol, _ = ParseProtocol(s)
	}
	if s, ok := vals["divergence"].(string); ok {
		p.Divergence, _ = ParseDivergence(s)
	}
	if s, ok := vals["lr_schedule"].(string); ok {
		p.LRSchedule, _ = ParseLRSchedule(s)
	}
	vals.IntTo("warmup", &p.Warmup)
	if s, ok := vals["target"].(string); ok {
		p.Target, _ = ParseTargetSync(s)
	}
	vals.FloatTo("server_momentum", &p.ServerMomentum)
	if s, ok := vals["predictor"].(string); ok {
		p.Predictor, _ = ParsePredictorSync(s)
	}
	vals.FloatTo("decorr", &p.Decorr)
	if s, ok := vals["bn"].(string); ok {
		p.BNStats, _ = ParseBNStats(s)
	}
	if s, ok := vals["eval_bn"].(string); ok {
		p.EvalBN, _ = ParseEvalBN(s)
	}
	return p, nil
}

// NullSigma is the noise multiplier of the record unit's null run: so
// large that no release carries anything of the data.
const NullSigma = 1e6

// Null is a federated method's null run: its untrained server model,
// evaluated with the same clustering step after no round, without privacy.
// The record unit's null is its own pipeline run on noise alone (sound
// mode at σ = NullSigma, the default learning rate): the front end's basis
// is the noise's and rule G41's rate keeps the network at its
// initialisation, so only the evaluation's k-means sees the cells. A
// seeded random projection with the untrained network (front=random, the
// null before the thirty-first session) feeds the network inputs of unit
// variance, where the pipeline on noise feeds it tiny ones; on the small
// shared sets that null scored below the pipeline on noise (yan 0.11
// against 0.29, seeds 0–2) and let runs that learnt nothing read as
// learning.
func Null(cfg core.Config) core.Config {
	if cfg.Options["unit"] == UnitRecord.String() {
		cfg.Mode, cfg.Epsilon, cfg.Sigma, cfg.LearningRate, cfg.Audit = core.ModeSound, 0, NullSigma, 0, nil
		if !(cfg.Delta > 0 && cfg.Delta < 1) {
			cfg.Delta = core.DefaultDelta
		}
		if !(cfg.Clip > 0) {
			cfg.Clip = DefaultCellClip
		}
		return cfg
	}
	cfg.Mode, cfg.Epsilon, cfg.Sigma = core.ModeNonPrivate, 0, 0
	local := 0
	if len(cfg.Epochs) > 1 {
		local = cfg.Epochs[1]
	}
	cfg.Epochs = []int{0}
	if local > 0 {
		cfg.Epochs = append(cfg.Epochs, local)
	}
	return cfg
}

// checkData refuses before the run more clients than the data has cells
// once preprocessed; datasets.NewSplit refuses them only after the load,
// in a failed run. The load goes through the data cache, so the run's own
// costs nothing more; load errors are left to the run.
func checkData(cfg core.Config) error {
	if cfg.Clients == 0 {
		return nil // the variant's default, far below any data's cells
	}
	prep, err := cfg.LoadData()
	if err != nil {
		return nil
	}
	if cells := prep.Data.Cells; cfg.Clients > cells {
		return &core.OptionError{Key: "clients", Value: strconv.Itoa(cfg.Clients), Flag: true, Kind: ErrConfig,
			Reason: fmt.Sprintf("clients must be ≤ the %d cells of %s", cells, cfg.Data)}
	}
	return nil
}
