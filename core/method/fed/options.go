package fed

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// Variant is one of the federated methods; each is registered with core
// under its Name.
type Variant int

// The variants (docs/METHODS.md §3–4).
const (
	// FL is federated averaging of client updates (PPML-Omics Algorithm 1)
	// with the clustering autoencoder. Mode nonprivate only.
	FL Variant = iota
	// FLDP is FL with per-client clipping and local Gaussian noise, σ from
	// the paper's FL-DP budget (ε_l, δ_l).
	FLDP
	// PPMLOmics is FL-DP with the paper's per-client budget (ε_b, δ_b),
	// size-weighted updates φ_k = d_k/d and the decentralized
	// randomization of the noisy updates (Algorithm 2).
	PPMLOmics
	// FedSC is federated BYOL: online encoder with input-dropout masking,
	// predictor, EMA target with stop-gradient, divergence-aware client
	// update, size-weighted FedAvg.
	FedSC
)

var variantNames = [...]string{"fl", "fl-dp", "ppml-omics", "fedsc"}

// Name returns the method name the variant is registered under.
func (v Variant) Name() string {
	if v >= 0 && int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// autoencoder reports whether the variant trains the PPML-Omics
// autoencoder (and not FedSC's BYOL encoder).
func (v Variant) autoencoder() bool { return v != FedSC }

// Protocol is the decentralized randomization (DR) of PPML-Omics.
type Protocol int

const (
	// ProtocolSwap is the paper's Algorithm 2: for i = 1…K−1, j uniform in
	// 1…K, clients i and j exchange their updates. It is not a uniform
	// permutation (for K = 3 the six permutations have probabilities
	// 2/9, 2/9, 2/9, 1/9, 1/9, 1/9). The default.
	ProtocolSwap Protocol = iota
	// ProtocolFisherYates is a uniform Fisher–Yates shuffle.
	ProtocolFisherYates
)

// String returns "swap" or "fisher-yates".
func (p Protocol) String() string {
	switch p {
	case ProtocolSwap:
		return "swap"
	case ProtocolFisherYates:
		return "fisher-yates"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// ParseProtocol reads "swap" or "fisher-yates".
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "swap":
		return ProtocolSwap, nil
	case "fisher-yates", "fy", "uniform":
		return ProtocolFisherYates, nil
	}
	return 0, configErr("DR protocol", fmt.Sprintf("%q", s), "swap or fisher-yates")
}

// Divergence is FedSC's client update rule at the start of a round.
type Divergence int

const (
	// DivergenceCalibrated is Eq. (4) as printed with α read as FedEMA's
	// auto-scaler target τ ("controls the magnitude of μ"; FedEMA's paper
	// uses τ = 0.7, FedSC's α): μ_k = min(α·d_k⁰/d, 1),
	// d_k⁰ the client's divergence at its first divergence-aware update,
	// so μ_k = α there and every client starts each round within α·d_k⁰
	// of the global model. The printed rule's radius α is an absolute
	// weight norm: at dpscope's scale d stays below 0.7 until round 12–13,
	// so no global weight reaches a client before then (docs/RESULTS.md,
	// fedsc7); this one is scale-free. The default (the zero value):
	// on fedsc6's simulation, fresh draws 31–34, it beat the printed rule
	// under the rule of commit 42d231d (docs/RESULTS.md, fedsc8).
	DivergenceCalibrated Divergence = iota
	// DivergencePrinted is FedSC's Eq. (4) as printed,
	// μ_k = min(α/‖W_g − W_k‖, 1): a client keeps less of its local model
	// the further it has drifted from the global one. The default until
	// the thirteenth FedSC session (fedsc8), which replaced it by
	// DivergenceCalibrated under a rule stated first; the paper's prose
	// says the opposite ("retain more local knowledge when the divergence
	// is large"), which is FedEMA's rule below.
	DivergencePrinted
	// DivergenceFedEMA is FedEMA's rule (Zhuang, Wen & Zhang, ICLR 2022,
	// https://arxiv.org/abs/2204.04385): W_k ← μ_k W_k + (1 − μ_k) W_g with
	// μ_k = min(λ_k‖W_g − W_k‖, 1) and λ_k = α/‖W_g − W_k‖ fixed at the
	// client's first update. On class-disjoint clients it feeds back: a
	// client that drifts keeps more of itself and drifts further, and on
	// pbmc_4k (noniid:2, seed 0) every client sits at μ_k = 1 from round
	// 3–12 on, never taking the global model again, so the server averages
	// four unrelated networks (docs/RESULTS.md, FedSC).
	DivergenceFedEMA
	// DivergenceOff replaces every client's online encoder and predictor
	// by the global ones (FedAvg-BYOL, FedU's plain protocol).
	DivergenceOff
)

// String returns "calibrated", "printed", "fedema" or "off".
func (d Divergence) String() string {
	switch d {
	case DivergencePrinted:
		return "printed"
	case DivergenceFedEMA:
		return "fedema"
	case DivergenceOff:
		return "off"
	case DivergenceCalibrated:
		return "calibrated"
	}
	return fmt.Sprintf("Divergence(%d)", int(d))
}

const divergenceChoices = "calibrated, printed, fedema or off"

// ParseDivergence reads "calibrated", "printed", "fedema" or "off".
func ParseDivergence(s string) (Divergence, error) {
	for _, d := range []Divergence{DivergenceCalibrated, DivergencePrinted, DivergenceFedEMA, DivergenceOff} {
		if d.String() == s {
			return d, nil
		}
	}
	return 0, configErr("divergence rule", fmt.Sprintf("%q", s), divergenceChoices)
}

// AELoss is the reduction of the autoencoder's squared error.
type AELoss int

const (
	// AELossMean is the paper's MSE (the authors' torch nn.MSELoss): the
	// squared error averaged over genes, then over the cells of a batch.
	// The default.
	AELossMean AELoss = iota
	// AELossSum sums the squared error over genes (then averages over the
	// cells of a batch): the same as AELossMean with the learning rate
	// multiplied by the number of genes. At lr 1e-3 on 2,000 scaled genes
	// it diverges in centralised training on yan (docs/RESULTS.md,
	// "Federated methods").
	AELossSum
)

// String returns "mean" or "sum".
func (l AELoss) String() string {
	switch l {
	case AELossMean:
		return "mean"
	case AELossSum:
		return "sum"
	}
	return fmt.Sprintf("AELoss(%d)", int(l))
}

// ParseAELoss reads "mean" or "sum".
func ParseAELoss(s string) (AELoss, error) {
	for _, l := range []AELoss{AELossMean, AELossSum} {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, configErr("autoencoder loss", fmt.Sprintf("%q", s), "mean or sum")
}

// LocalOptimizer is the clients' local optimizer of the autoencoder
// variants.
type LocalOptimizer int

const (
	// OptimizerAuto picks by mode: OptimizerSGD in paper mode (the
	// published method), OptimizerAdam in the nonprivate and sound modes.
	OptimizerAuto LocalOptimizer = iota
	// OptimizerSGD is plain SGD, PPML-Omics' local optimizer.
	OptimizerSGD
	// OptimizerAdam is Adam (β = 0.9, 0.999) with fresh moments in every
	// round: dpscope's retuning of the nonprivate and sound modes, since
	// SGD at lr 1e-3 on the mean-over-genes MSE hardly moves the model
	// (docs/METHODS.md §3).
	OptimizerAdam
)

// String returns "auto", "sgd" or "adam".
func (o LocalOptimizer) String() string {
	switch o {
	case OptimizerAuto:
		return "auto"
	case OptimizerSGD:
		return "sgd"
	case OptimizerAdam:
		return "adam"
	}
	return fmt.Sprintf("LocalOptimizer(%d)", int(o))
}

// ParseLocalOptimizer reads "auto", "sgd" or "adam".
func ParseLocalOptimizer(s string) (LocalOptimizer, error) {
	for _, o := range []LocalOptimizer{OptimizerAuto, OptimizerSGD, OptimizerAdam} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, configErr("local optimizer", fmt.Sprintf("%q", s), "auto, sgd or adam")
}

// Defaults (docs/METHODS.md §3–4).
const (
	DefaultRoundsAE        = 5   // E of PPML-Omics
	DefaultRoundsFedSC     = 300 // the paper's R
	DefaultLocalEpochsAE   = 1   // one local epoch per round (PPML-Omics)
	DefaultLocalEpochsBYOL = 5   // E = 5 local epochs (FedSC)
	DefaultBatchAE         = 8   // PPML-Omics
	DefaultBatchBYOL       = 128 // FedSC
	// DefaultBatchAERetuned is the autoencoder variants' batch in the
	// nonprivate and sound modes (with OptimizerAdam): on pbmc_4k it ends
	// five rounds at a lower reconstruction loss than batch 8 (0.640 vs
	// 0.672) in half the time.
	DefaultBatchAERetuned  = 64
	DefaultLRAE            = 1e-3  // PPML-Omics SGD
	DefaultLRBYOL          = 0.032 // FedSC SGD
	DefaultMomentum        = 0.5   // FedSC §4.1 (the FedEMA code uses 0.9)
	DefaultWeightDecay     = 5e-4  // FedSC
	DefaultMaskProb        = 0.9   // FedSC input dropout
	DefaultEMADecay        = 0.99  // FedSC target EMA
	DefaultDivergenceAlpha = 0.7   // FedSC α
	DefaultClientRate      = 1.0   // every client in every round (FedSC)
	DefaultLatent          = 128   // PPML-Omics bottleneck
)

// MaxDecorr bounds Params.Decorr: a thousand times the official FedDecorr
// scripts' 0.1, beyond which BYOL's loss (at most 4 a half) would be a
// rounding error next to the penalty's.
const MaxDecorr = 100

// DefaultHidden is the PPML-Omics encoder's hidden width (d→1024→128).
var DefaultHidden = []int{1024}

// DefaultEncoder are FedSC's encoder widths G→200→40→60.
var DefaultEncoder = []int{200, 40, 60}

// DefaultPredictorHidden is the hidden width of FedSC's predictor
// 60→128→60.
const DefaultPredictorHidden = 128

// ErrConfig is wrapped by every error about a configuration value; it
// matches core.ErrBadConfig under errors.Is.
var ErrConfig error = &core.MethodConfigError{Method: "fed"}

// configErr formats "fed: <name> is <value>, must be <constraint>"
// wrapping ErrConfig.
func configErr(name string, v any, constraint string) error {
	return core.Wrapf(ErrConfig, "fed: %s is %v, must be %s", name, v, constraint)
}

// Params holds the settings of a federated run that core.Config does not
// carry. The zero value selects every default; the registered factories use
// it. Not safe for concurrent modification.
type Params struct {
	// Data, when non-nil, is used instead of loading Config.Data.
	Data *datasets.Preprocessed
	// Split is the client split as datasets.ParseSplit reads it ("iid",
	// "equal", "noniid:2", "dirichlet:0.5"), or "paper" (FedSC's §4.1:
	// noniid:S with S = max(1, ⌊classes/K⌋), 2 on PBMC and 4 on mouse
	// bladder with K = 4; iid when the data have no labels). Empty:
	// "equal" (PPML-Omics' equal random parts) for fl, fl-dp and
	// ppml-omics, "paper" for fedsc.
	Split string
	// LocalEpochs per round; 0 means Config.Epochs[1] when given, else
	// DefaultLocalEpochsAE or DefaultLocalEpochsBYOL.
	LocalEpochs int
	// Batch is the local mini-batch size; 0 means DefaultBatchAE or
	// DefaultBatchBYOL.
	Batch int
	// Hidden and Latent are the autoencoder's widths; nil and 0 mean
	// DefaultHidden and DefaultLatent.
	Hidden []int
	Latent int
	// Loss is the reduction of the autoencoder's squared error; the zero
	// value is the paper's AELossMean.
	Loss AELoss
	// Optimizer is the autoencoder clients' local optimizer; the zero
	// value picks by mode (OptimizerAuto).
	Optimizer LocalOptimizer
	// Unit is the privacy unit of fl-dp and ppml-omics; the zero value is
	// UnitClient (the paper's mechanism). UnitRecord is dpscope's
	// record-level design (a private federated projection, then local
	// full-batch DP-SGD; the package doc, "Record-level sound mode"), in
	// sound mode or as its nonprivate twin.
	Unit Unit
	// Front is UnitRecord's front end, FrontPCA (the default),
	// FrontRandom (a seeded random projection, no data) or FrontNone (the
	// genes themselves); Proj its width, 0 meaning DefaultProjRecord.
	Front string
	Proj  int
	// CellClip is UnitRecord's per-cell clipping bound; 0 means
	// DefaultCellClip.
	CellClip float64
	// Protocol is PPML-Omics' DR protocol; the zero value is ProtocolSwap.
	Protocol Protocol
	// TrustedShuffle declares that the DR permutation is drawn by a trusted
	// party that the server cannot observe. Only then, with
	// ProtocolFisherYates, is the shuffle-model bound (FMT21) credited when
	// its condition holds.
	TrustedShuffle bool
	// Clusters is k of k-means; 0 means the number of classes.
	Clusters int
	// Workers bounds the client goroutines; 0 means GOMAXPROCS.
	Workers int
	// EvalEvery is the number of rounds between evaluations (k-means,
	// metrics, embedding); 0 means 1. The last round is always evaluated.
	EvalEvery int

	// Encoder, PredictorHidden, MaskProb, EMADecay, Momentum, WeightDecay,
	// DivergenceAlpha and Divergence configure FedSC; zero values mean the
	// Default constants (DivergenceCalibrated is the zero value). NoEMA makes
	// the target the online encoder itself (decay 0, still stop-gradient).
	Encoder         []int
	PredictorHidden int
	MaskProb        float64
	EMADecay        float64
	NoEMA           bool
	Momentum        float64
	WeightDecay     float64
	DivergenceAlpha float64
	Divergence      Divergence
	// ClientRate is q of FedSC: each client takes part in a round
	// independently with probability q (Poisson client sampling; in sound
	// mode accounted as the subsampled Gaussian, in nonprivate mode the
	// size weights run over the participants); 0 means DefaultClientRate.
	ClientRate float64
	// LRSchedule is FedSC's learning rate over the rounds: LRConstant (the
	// zero value) or LRCosine.
	LRSchedule LRSchedule
	// Warmup is FedSC's FedAvg warm-up: in rounds 1…Warmup every client
	// starts from the global model whole (μ_k = 0, as DivergenceOff),
	// after it Divergence applies (the calibrated rule measuring its d_k⁰
	// at round Warmup+1). 0 (the default) is no warm-up. A candidate for
	// the non-IID loss on pbmc_4k (the averaged model is built before the
	// clients drift apart); docs/RESULTS.md, fedsc9.
	Warmup int
	// Target is what a FedSC client's EMA target encoder takes from the
	// global model at a round's start: TargetLocal (the zero value) or
	// TargetMix.
	Target TargetSync
	// ServerMomentum is β of FedSC's server momentum (FedAvgM, Hsu et al.
	// 2019, https://arxiv.org/abs/1909.06335): the server keeps a velocity
	// v ← β·v + Δ̄ of the aggregated update Δ̄ of the encoder and predictor
	// weights and applies w ← w + v (server rate 1); the BatchNorm
	// running statistics take Δ̄ alone, since a velocity could overshoot a
	// variance below 0. 0 (the default) is plain FedAvg, the paper's. A
	// candidate for the non-IID loss: under a 2-types-per-client split
	// the averaged update is small and its direction persists across
	// rounds while the clients' conflicting parts cancel, which momentum
	// accumulates (docs/RESULTS.md, fedsc11).
	ServerMomentum float64
	// Predictor is what a FedSC client does with the predictor head:
	// PredictorShared (the zero value, the paper's) or PredictorLocal.
	Predictor PredictorSync
	// Decorr is β of FedDecorr (Shi et al., ICLR 2023,
	// https://arxiv.org/abs/2210.00226) in FedSC's local loss: each of the
	// two BYOL halves adds β·L of the official code's regulariser (see
	// decorr) on the online encoder's output for its view, the
	// representation FedSC clusters on. 0 (the default) is off, the
	// paper's FedSC. A candidate for the non-IID loss: a client that sees
	// 2 of 8 cell types can meet its BYOL loss in a few dimensions, and
	// FedDecorr's analysis is that such local collapse is what the
	// averaged model inherits (docs/RESULTS.md, fedsc13). A client-side
	// loss term: in sound mode (client-level DP) it changes what a client
	// computes, not the clipping, the noise or the accounting.
	Decorr float64
	// BNStats is where a FedSC client's encoder BatchNorm running
	// statistics come from at the start of a round: BNMix (the zero value)
	// or BNGlobal or BNLocal.
	BNStats BNStats
	// EvalBN is the BatchNorm statistics FedSC's evaluation embeds with:
	// EvalBNRunning (the zero value) or EvalBNPooled.
	EvalBN EvalBN
}

// BNStats is where a FedSC client's encoder BatchNorm running statistics
// come from at the start of a round (after its first, which takes the
// global model whole). BatchNorm runs on batch statistics in training, so
// the running statistics change no training step: they reach only what
// the server averages and the evaluation embeds with (EvalBNRunning).
type BNStats int

const (
	// BNMix μ-mixes them with the global ones like every other weight
	// (W_k ← μW_k + (1−μ)W_g over the whole vector).
	BNMix BNStats = iota
	// BNGlobal sets them to the global model's, and μ-mixes the
	// parameters only: the FedEMA reference code, whose EMA update runs
	// over parameters() and loads the global state_dict's buffers.
	BNGlobal
	// BNLocal keeps the client's own (FedBN-like statistics; the affine
	// weights are still averaged): the server's statistics are then the
	// size-weighted average of statistics that never saw another client's
	// cells.
	BNLocal
)

var bnStatsNames = [...]string{"mix", "global", "local"}

// String returns the option value's name, as ParseBNStats reads it.
func (b BNStats) String() string { return enumName(b, "BNStats", bnStatsNames[:]) }

// ParseBNStats reads "mix", "global" or "local".
func ParseBNStats(s string) (BNStats, error) {
	return parseEnum[BNStats](s, bnStatsNames[:], "BatchNorm statistics at download", "mix, global or local")
}

// TargetSync is what a FedSC client's EMA target encoder takes from the
// global model when the client downloads it (rounds after its first, which
// sets online and target to the global online encoder).
type TargetSync int

const (
	// TargetLocal keeps the target the client's own (the paper uploads and
	// updates the online encoder and predictor only; FedEMA's code with
	// dynamic_ema_online does the same).
	TargetLocal TargetSync = iota
	// TargetMix gives the target the online encoder's download,
	// W_t ← μ_k W_t + (1 − μ_k) W_g^o with the same μ_k (its BatchNorm
	// statistics as Params.BNStats treats the online ones'). BYOL's target
	// is an EMA of the online encoder; under TargetLocal the download
	// moves the online encoder toward the global one and leaves the
	// target where local training left it, so the first local steps pull
	// the online encoder back to the client's own features. Under
	// TargetMix the target's lag behind the online encoder is kept
	// (W_t − W_o becomes μ_k(W_t − W_o)). A candidate for the non-IID
	// loss (docs/RESULTS.md, fedsc10).
	TargetMix
)

var targetSyncNames = [...]string{"local", "mix"}

// String returns the option value's name, as ParseTargetSync reads it.
func (t TargetSync) String() string { return enumName(t, "TargetSync", targetSyncNames[:]) }

// ParseTargetSync reads "local" or "mix".
func ParseTargetSync(s string) (TargetSync, error) {
	return parseEnum[TargetSync](s, targetSyncNames[:], "target at download", "local or mix")
}

// PredictorSync is whether a FedSC client's BYOL predictor head is
// federated.
type PredictorSync int

const (
	// PredictorShared uploads the predictor with the online encoder and
	// μ_k-mixes it with the global one at a download, as the paper's
	// Eq. (3) does with the whole online network (FedEMA shares it too;
	// FedU shares it unless the client's predictor has drifted far from
	// the global one).
	PredictorShared PredictorSync = iota
	// PredictorLocal keeps each client's predictor its own: it starts from
	// the server's initial predictor at the client's first round, is
	// neither uploaded nor mixed after it, and persists across rounds; the
	// server's predictor never moves. The encoder, its statistics and the
	// target are federated as under PredictorShared. A candidate for the
	// non-IID loss: with 2 types per client a predictor fitted to the
	// client's own cells could absorb client-specific drift, so that the
	// shared encoder's updates conflict less (docs/RESULTS.md, fedsc12).
	// In sound mode the clipped upload has zeros in the predictor's
	// coordinates and the aggregator's noise on them is discarded (post-
	// processing): the Gaussian mechanism's sensitivity is C whatever the
	// dimension, so the accounting is unchanged; only the clip norm C is
	// spent on the encoder alone.
	PredictorLocal
)

var predictorSyncNames = [...]string{"shared", "local"}

// String returns the option value's name, as ParsePredictorSync reads it.
func (t PredictorSync) String() string { return enumName(t, "PredictorSync", predictorSyncNames[:]) }

// ParsePredictorSync reads "shared" or "local".
func ParsePredictorSync(s string) (PredictorSync, error) {
	return parseEnum[PredictorSync](s, predictorSyncNames[:], "predictor", "shared or local")
}

// EvalBN is the BatchNorm statistics of FedSC's evaluation embedding.
type EvalBN int

const (
	// EvalBNRunning uses the global model's running statistics: the
	// size-weighted average of the clients'. On non-IID clients that
	// average holds the pooled mean but only the within-client part of
	// the pooled variance.
	EvalBNRunning EvalBN = iota
	// EvalBNPooled uses every BatchNorm layer's exact mean and variance
	// over all cells under the global model (layer by layer). Each client
	// could send its per-feature sums of x and x², so a federated server
	// can form them; they are summaries of the clients' cells outside any
	// privacy accounting, so the option is for nonprivate mode only.
	EvalBNPooled
)

var evalBNNames = [...]string{"running", "pooled"}

// String returns the option value's name, as ParseEvalBN reads it.
func (e EvalBN) String() string { return enumName(e, "EvalBN", evalBNNames[:]) }

// ParseEvalBN reads "running" or "pooled".
func ParseEvalBN(s string) (EvalBN, error) {
	return parseEnum[EvalBN](s, evalBNNames[:], "evaluation BatchNorm statistics", "running or pooled")
}

// LRSchedule is the learning rate of FedSC's local SGD as a function of
// the round.
type LRSchedule int

const (
	// LRConstant uses the configured rate η in every round (the paper
	// states one rate and no schedule).
	LRConstant LRSchedule = iota
	// LRCosine decays it as FedEMA's code does (EasyFL applications/fedssl,
	// client.py compute_lr with its main.py default lr_type "cosine"):
	// η_r = η·(1 + cos(π·(r−1)/R))/2 in round r of R, so round 1 uses η and
	// the last round about η·π²/(4R²).
	LRCosine
)

var lrScheduleNames = [...]string{"constant", "cosine"}

// String returns the option value's name, as ParseLRSchedule reads it.
func (l LRSchedule) String() string { return enumName(l, "LRSchedule", lrScheduleNames[:]) }

// ParseLRSchedule reads "constant" or "cosine".
func ParseLRSchedule(s string) (LRSchedule, error) {
	return parseEnum[LRSchedule](s, lrScheduleNames[:], "learning-rate schedule", "constant or cosine")
}

// rate returns the learning rate of round r (1-based) of R for base rate lr.
func (l LRSchedule) rate(lr float64, r, rounds int) float64 {
	if l != LRCosine || rounds < 1 {
		return lr
	}
	return lr * (1 + math.Cos(math.Pi*float64(r-1)/float64(rounds))) / 2
}

// SplitPaper is the split spelling of FedSC's non-IID benchmark (Params.Split).
const SplitPaper = "paper"

// withDefaults returns p with the defaults of variant v filled in.
func (p Params) withDefaults(v Variant) Params {
	ae := v.autoencoder()
	if p.Split == "" {
		p.Split = map[bool]string{true: "equal", false: SplitPaper}[ae]
	}
	if p.LocalEpochs == 0 {
		p.LocalEpochs = map[bool]int{true: DefaultLocalEpochsAE, false: DefaultLocalEpochsBYOL}[ae]
	}
	if p.Batch == 0 {
		p.Batch = map[bool]int{true: DefaultBatchAE, false: DefaultBatchBYOL}[ae]
	}
	if p.Hidden == nil {
		p.Hidden = append([]int(nil), DefaultHidden...)
	}
	p.Latent = cmp.Or(p.Latent, DefaultLatent)
	p.EvalEvery = cmp.Or(p.EvalEvery, 1)
	if p.Encoder == nil {
		p.Encoder = append([]int(nil), DefaultEncoder...)
	}
	p.PredictorHidden = cmp.Or(p.PredictorHidden, DefaultPredictorHidden)
	p.MaskProb = cmp.Or(p.MaskProb, DefaultMaskProb)
	if p.EMADecay == 0 && !p.NoEMA {
		p.EMADecay = DefaultEMADecay
	}
	if p.NoEMA {
		p.EMADecay = 0
	}
	p.Momentum = cmp.Or(p.Momentum, DefaultMomentum)
	p.WeightDecay = cmp.Or(p.WeightDecay, DefaultWeightDecay)
	p.DivergenceAlpha = cmp.Or(p.DivergenceAlpha, DefaultDivergenceAlpha)
	p.ClientRate = cmp.Or(p.ClientRate, DefaultClientRate)
	return p
}

// Validate checks p (after defaults) for variant v.
func (p Params) Validate(v Variant) error {
	p = p.withDefaults(v)
	if p.Split == SplitPaper && v != FedSC {
		return configErr("split", fmt.Sprintf("%q", p.Split), "iid, equal, noniid:S or dirichlet:ALPHA (\"paper\" is FedSC's)")
	}
	if _, err := datasets.ParseSplit(p.Split); err != nil && p.Split != SplitPaper {
		return core.Wrapf(ErrConfig, "%w", err)
	}
	checks := []struct {
		name string
		v    int
		min  int
	}{{"local epochs", p.LocalEpochs, 1}, {"batch", p.Batch, 1}, {"latent width", p.Latent, 1},
		{"eval every", p.EvalEvery, 1}, {"predictor width", p.PredictorHidden, 1},
		{"clusters", p.Clusters, 0}, {"workers", p.Workers, 0}}
	for _, c := range checks {
		if c.v < c.min {
			return configErr(c.name, c.v, fmt.Sprintf("≥ %d", c.min))
		}
	}
	for i, h := range p.Hidden {
		if h < 1 {
			return configErr(fmt.Sprintf("hidden width %d", i+1), h, "≥ 1")
		}
	}
	if len(p.Encoder) < 1 {
		return configErr("encoder widths", p.Encoder, "at least one width")
	}
	for i, h := range p.Encoder {
		if h < 1 {
			return configErr(fmt.Sprintf("encoder width %d", i+1), h, "≥ 1")
		}
	}
	if p.Protocol != ProtocolSwap && p.Protocol != ProtocolFisherYates {
		return configErr("DR protocol", int(p.Protocol), "swap or fisher-yates")
	}
	if p.Optimizer < OptimizerAuto || p.Optimizer > OptimizerAdam {
		return configErr("local optimizer", int(p.Optimizer), "auto, sgd or adam")
	}
	if err := frontCheck(p); err != nil {
		return err
	}
	if p.Unit != UnitClient && p.Unit != UnitRecord {
		return configErr("privacy unit", int(p.Unit), "client or record")
	}
	if p.Unit == UnitRecord && v != FLDP && v != PPMLOmics {
		return configErr("privacy unit", p.Unit, "client for "+v.Name()+" (record applies to fl-dp and ppml-omics)")
	}
	if p.Loss != AELossMean && p.Loss != AELossSum {
		return configErr("autoencoder loss", int(p.Loss), "mean or sum")
	}
	if p.Divergence < DivergenceCalibrated || p.Divergence > DivergenceOff {
		return configErr("divergence rule", int(p.Divergence), divergenceChoices)
	}
	units := []struct {
		name string
		v    float64
	}{{"mask probability", p.MaskProb}, {"EMA decay", p.EMADecay}, {"momentum", p.Momentum}}
	for _, u := range units {
		if math.IsNaN(u.v) || u.v < 0 || u.v >= 1 {
			return configErr(u.name, u.v, "in [0, 1)")
		}
	}
	if math.IsNaN(p.WeightDecay) || math.IsInf(p.WeightDecay, 0) || p.WeightDecay < 0 {
		return configErr("weight decay", p.WeightDecay, "finite and ≥ 0")
	}
	if math.IsNaN(p.DivergenceAlpha) || p.DivergenceAlpha <= 0 || p.DivergenceAlpha > 1 {
		return configErr("divergence alpha", p.DivergenceAlpha, "in (0, 1]")
	}
	if math.IsNaN(p.ClientRate) || p.ClientRate <= 0 || p.ClientRate > 1 {
		return configErr("client rate", p.ClientRate, "in (0, 1]")
	}
	if p.Warmup < 0 {
		return configErr("warm-up rounds", p.Warmup, "≥ 0")
	}
	if math.IsNaN(p.ServerMomentum) || p.ServerMomentum < 0 || p.ServerMomentum >= 1 {
		return configErr("server momentum", p.ServerMomentum, "in [0, 1)")
	}
	if math.IsNaN(p.Decorr) || p.Decorr < 0 || p.Decorr > MaxDecorr {
		return configErr("FedDecorr coefficient", p.Decorr, fmt.Sprintf("in [0, %g]", float64(MaxDecorr)))
	}
	if p.LRSchedule < LRConstant || p.LRSchedule > LRCosine {
		return configErr("learning-rate schedule", int(p.LRSchedule), "constant or cosine")
	}
	if p.Target < TargetLocal || p.Target > TargetMix {
		return configErr("target at download", int(p.Target), "local or mix")
	}
	if p.Predictor < PredictorShared || p.Predictor > PredictorLocal {
		return configErr("predictor", int(p.Predictor), "shared or local")
	}
	if p.BNStats < BNMix || p.BNStats > BNLocal {
		return configErr("BatchNorm statistics at download", int(p.BNStats), "mix, global or local")
	}
	if p.EvalBN < EvalBNRunning || p.EvalBN > EvalBNPooled {
		return configErr("evaluation BatchNorm statistics", int(p.EvalBN), "running or pooled")
	}
	return nil
}

// enumName is the String of FedSC's small option enums: names[v], or
// typ(v) for a value outside them.
func enumName[T ~int](v T, typ string, names []string) string {
	if v < 0 || int(v) >= len(names) {
		return fmt.Sprintf("%s(%d)", typ, int(v))
	}
	return names[v]
}

// parseEnum is their parser: the index of s in names, or an error naming
// the setting (what) and the values it takes (want).
func parseEnum[T ~int](s string, names []string, what, want string) (T, error) {
	for i, n := range names {
		if s == n {
			return T(i), nil
		}
	}
	return 0, configErr(what, fmt.Sprintf("%q", s), want)
}
