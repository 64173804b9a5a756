package dcan

import (
	"cmp"
	"errors"
	"fmt"
	"math"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// MethodName is the name under which the trainer is registered with core.
const MethodName = "dcan"

// DefaultEpochs are the epochs of stage 1 and stage 2 used when
// core.Config.Epochs is empty. On the default data set (2,000 cells ×
// 1,942 genes) stage 1 stops improving after about 20 epochs (it then
// fits noise) and stage 2, with the dispersion initialisation
// (Options.NoDispersionInit), gains until about its 20th epoch and then
// loses, so a whole run takes about 2 minutes on the shared two-core
// machine (docs/RESULTS.md). Until 2026-11-22 the default was 20 + 10, at
// which the real-data figures of docs/RESULTS.md were measured (they say
// so). The authors' code trains 50 and 40 epochs; set Config.Epochs to
// follow it.
//
// It is core.DefaultEpochs, where every face of dpscope reads it.
var DefaultEpochs = core.DefaultEpochs

// Paper defaults (docs/METHODS.md §1).
const (
	DefaultRho          = 0.99 // stage-1 weight of ZINB against the instance loss (the authors' code: 0.8; see Options.Rho)
	DefaultMaskProb     = 0.2  // probability that an input entry is zeroed in a view
	DefaultStage1LR     = 1e-3 // Adam
	DefaultStage2LR     = 1.0  // Adadelta
	DefaultAdadeltaRo   = 0.95 // Adadelta's decay ρ
	DefaultResetEvery   = 5    // epochs between k-means re-sets of the centroids in paper mode
	DefaultChunkCells   = 256  // cells per forward pass
	DefaultInitRestarts = 10   // k-means++ restarts of the stage-2 centroids
)

// DefaultBeta are the stage-2 weights (β1, β2, β3) of ZINB, KL and L_cc.
var DefaultBeta = [3]float64{0.4, 0.4, 0.2}

// Sound-mode DP k-means defaults.
const (
	// DefaultKMeansIterations is the number of noisy Lloyd iterations.
	DefaultKMeansIterations = 5
	// DefaultKMeansNoiseRatio is the DP k-means noise multiplier over the
	// training σ: each of the 2·T Gaussian releases (sums with sensitivity
	// R, counts with sensitivity 1) has noise multiplier ratio·σ.
	DefaultKMeansNoiseRatio = 3.0
	// DefaultEmbedClip is R, the public L2 bound to which embeddings are
	// clipped before DP k-means.
	DefaultEmbedClip = 4.0
)

// ErrConfig is wrapped by every error about a configuration value; it
// matches core.ErrBadConfig under errors.Is.
var ErrConfig error = &core.MethodConfigError{Method: "dcan"}

// ErrNonFinite is wrapped by NonFiniteError.
var ErrNonFinite = errors.New("dcan: non-finite loss")

// NonFiniteError reports a loss that became NaN or ±Inf: the run stops at
// that step. It wraps ErrNonFinite and the underlying cause.
type NonFiniteError struct {
	Stage, Epoch, Step int
	Err                error
}

// Error names the stage, epoch and step.
func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("dcan: loss is not finite at stage %d, epoch %d, step %d: %v", e.Stage, e.Epoch, e.Step, e.Err)
}

// Unwrap returns ErrNonFinite, core.ErrDiverged (so that a front end can
// say the run diverged without knowing this package) and the cause.
func (e *NonFiniteError) Unwrap() []error { return []error{ErrNonFinite, core.ErrDiverged, e.Err} }

// Options holds the DP-DCAN settings that core.Config does not carry. The
// zero value selects every default; the registered factory uses it.
type Options struct {
	// Data, when non-nil, is used instead of loading Config.Data (tests and
	// programs that already hold a preprocessed data set).
	Data *datasets.Preprocessed
	// K is the number of clusters. Zero: the number of classes of the data
	// set's labels (an error when it has none).
	K int
	// Act is the hidden activation; the zero value (Identity) means Tanh.
	Act nn.Activation
	// Rho is ρ of stage 1, the weight of ZINB against the instance loss;
	// 0 means DefaultRho (0.99). The paper gives no value; the authors'
	// run.sh uses 0.8 with their column-wise cosine over the batch. With
	// the per-cell cosine of Eq. 5 that docs/METHODS.md requires, 0.8
	// lets the instance loss dominate the encoder's gradient (it is
	// minimised by features that masking does not change) and costs most
	// of the clustering signal on the default data set: ARI 0.14 against
	// 0.63 at ρ = 0.99 (docs/RESULTS.md). Set 0.8 to follow the authors.
	Rho float64
	// Beta are (β1, β2, β3) of stage 2; all zero means DefaultBeta.
	Beta [3]float64
	// MaskProb is the masking probability of the two views; 0 means
	// DefaultMaskProb.
	MaskProb float64
	// Clipping is dpsgd.ClipGroups (the default, Algorithm 2) or
	// dpsgd.ClipJoint (the authors' code). Sound mode always clips jointly:
	// with every layer noised, the two groups are one.
	Clipping dpsgd.ClipMode
	// ResetEvery is the number of epochs between k-means re-sets of the
	// stage-2 centroids in nonprivate and paper modes. 0 means
	// DefaultResetEvery in paper mode (docs/METHODS.md §1 and the
	// authors' code) and never in nonprivate mode, where a re-set undoes
	// what DEC has refined since the last one (docs/RESULTS.md); a
	// negative value never re-sets them. Sound mode never re-sets.
	ResetEvery int
	// KMeansIterations, KMeansNoiseRatio and EmbedClip configure sound
	// mode's DP k-means; 0 means the Default values.
	KMeansIterations int
	KMeansNoiseRatio float64
	EmbedClip        float64
	// PLDEvery is the number of epochs between PLD reports in BudgetEvent;
	// 0 chooses about 6 per run, a negative value reports PLD only at the
	// end of the run. PLD takes tens to hundreds of milliseconds.
	PLDEvery int
	// NoPLD leaves PLD out of every report, the final one included (for
	// tests and sweeps that only need RDP).
	NoPLD bool
	// ChunkCells is the number of cells per forward pass; 0 means
	// DefaultChunkCells.
	ChunkCells int
	// NoGeneMeanInit keeps PyTorch's default initialisation for the bias
	// of the ZINB mean head. By default (false) that bias starts at
	// log m_g, with m_g the mean over cells of gene g's size-normalised
	// count, so that μ starts at each gene's mean instead of 1: the gene
	// means of scRNA-seq data span four orders of magnitude, and with
	// Adam at lr 1e-3 the bias alone moves about 1e-3 per step, so the
	// decoder otherwise spends the whole schedule fitting them
	// (docs/RESULTS.md). Not in the paper; the means are a preprocessing
	// constant computed without noise (the guarantee says so).
	NoGeneMeanInit bool
	// NoDispersionInit keeps PyTorch's default initialisation for the bias
	// of the ZINB dispersion head. By default (false) θ starts at each
	// gene's method-of-moments dispersion m²/(v − m) of its size-normalised
	// counts (clamped to [0.01, 1000]) instead of softplus(0) = 0.69, a
	// dispersion so large that the likelihood hardly depends on μ: on the
	// default data set, together with the 20 + 20 DefaultEpochs, DCAN goes
	// from 0.635 (20 + 10 without it) to 0.710 ARI and from 0.741 to 0.809
	// NMI over ten seeds (docs/RESULTS.md).
	// Not in the paper; like the means, a preprocessing constant computed
	// without noise (the guarantee says so).
	NoDispersionInit bool
	// InitRestarts is the number of k-means++ restarts of the k-means that
	// sets the stage-2 centroids in nonprivate and paper modes (the one of
	// least inertia is kept); 0 means DefaultInitRestarts.
	InitRestarts int
	// CenterInstance computes the instance loss on the views' embeddings
	// minus z̄, the mean embedding over all cells at the last epoch
	// boundary (held fixed during the epoch), so that a common offset no
	// longer makes every cosine ≈ 1. Nonprivate mode only (z̄ uses every
	// cell without noise). Measured on the default data set: no better
	// than without it at ρ = 0.99, much worse at ρ = 0.9 (docs/RESULTS.md).
	CenterInstance bool
	// Denoise makes stage 1 reconstruct each cell's counts from a third,
	// independently masked copy of its input instead of the clean input.
	Denoise bool
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Act == nn.Identity {
		o.Act = nn.Tanh
	}
	o.Rho = cmp.Or(o.Rho, DefaultRho)
	o.Beta = cmp.Or(o.Beta, DefaultBeta)
	o.MaskProb = cmp.Or(o.MaskProb, DefaultMaskProb)
	o.KMeansIterations = cmp.Or(o.KMeansIterations, DefaultKMeansIterations)
	o.KMeansNoiseRatio = cmp.Or(o.KMeansNoiseRatio, DefaultKMeansNoiseRatio)
	o.EmbedClip = cmp.Or(o.EmbedClip, DefaultEmbedClip)
	o.ChunkCells = cmp.Or(o.ChunkCells, DefaultChunkCells)
	o.InitRestarts = cmp.Or(o.InitRestarts, DefaultInitRestarts)
	return o
}

// validate checks the options after defaults.
func (o Options) validate() error {
	unit := func(name string, v float64, open bool) error {
		if math.IsNaN(v) || v < 0 || v > 1 || (open && (v == 0 || v == 1)) {
			return configErr(name, v, "in [0, 1]")
		}
		return nil
	}
	pos := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return configErr(name, v, "finite and > 0")
		}
		return nil
	}
	switch {
	case o.K < 0:
		return configErr("K", o.K, "≥ 0")
	case o.Act != nn.Tanh && o.Act != nn.ReLU:
		return configErr("activation", o.Act, "tanh or relu")
	case o.Clipping != dpsgd.ClipGroups && o.Clipping != dpsgd.ClipJoint:
		return configErr("clipping", o.Clipping, "groups or joint")
	case o.KMeansIterations < 0:
		return configErr("k-means iterations", o.KMeansIterations, "≥ 0")
	case o.InitRestarts < 1:
		return configErr("init restarts", o.InitRestarts, "≥ 1")
	case o.ChunkCells < 1:
		return configErr("chunk cells", o.ChunkCells, "≥ 1")
	}
	if err := unit("rho", o.Rho, false); err != nil {
		return err
	}
	if err := unit("mask probability", o.MaskProb, false); err != nil {
		return err
	}
	for i, b := range o.Beta {
		if err := unit(fmt.Sprintf("beta%d", i+1), b, false); err != nil {
			return err
		}
	}
	if err := pos("k-means noise ratio", o.KMeansNoiseRatio); err != nil {
		return err
	}
	return pos("embedding clip", o.EmbedClip)
}

// configErr formats "dcan: <name> is <value>, must be <constraint>"
// wrapping ErrConfig.
func configErr(name string, v any, constraint string) error {
	return core.Wrapf(ErrConfig, "dcan: %s is %v, must be %s", name, v, constraint)
}

// numLayers is the number of layer numbers of the DP-DCAN autoencoder.
const numLayers = 6

// settings is a validated configuration: core.Config with the method's
// defaults resolved, and the options.
type settings struct {
	cfg    core.Config
	opt    Options
	epochs [2]int
	layers core.LayerRange // perturbed layers (private modes)
}

// resolve validates cfg for this method and fills its defaults.
func resolve(cfg core.Config, opt Options) (settings, error) {
	if err := cfg.Validate(); err != nil {
		return settings{}, err
	}
	opt = opt.withDefaults()
	if err := opt.validate(); err != nil {
		return settings{}, err
	}
	s := settings{cfg: cfg, opt: opt, epochs: DefaultEpochs}
	switch len(cfg.Epochs) {
	case 0:
	case 1:
		s.epochs[0] = cfg.Epochs[0]
	case 2:
		s.epochs = [2]int{cfg.Epochs[0], cfg.Epochs[1]}
	default:
		return settings{}, configErr("epochs", cfg.Epochs, "one or two stages [stage1, stage2]")
	}
	if cfg.Accountant == "pld" {
		return settings{}, configErr("accountant", cfg.Accountant,
			"rdp: the target is enforced by an RDP filter (Feldman & Zrnic), which stays valid when σ changes mid-run; PLD is reported beside it")
	}
	if cfg.Clients != 0 {
		return settings{}, configErr("clients", cfg.Clients, "0: dcan is not federated")
	}
	switch cfg.Mode {
	case core.ModePaper:
		if opt.CenterInstance {
			return settings{}, configErr("center instance", true, "false in private modes")
		}
		s.layers = cfg.Layers
		if s.layers == (core.LayerRange{}) {
			s.layers = core.LayerRange{First: 1, Last: 3}
		}
		if err := s.layers.Validate(numLayers); err != nil {
			return settings{}, core.Wrapf(ErrConfig, "dcan: %w", err)
		}
	case core.ModeSound:
		if opt.CenterInstance {
			return settings{}, configErr("center instance", true, "false in private modes")
		}
		s.layers = core.LayerRange{First: 1, Last: numLayers}
		if cfg.Layers != (core.LayerRange{}) && cfg.Layers != s.layers {
			return settings{}, configErr("layers", cfg.Layers, "1-6 (or unset) in sound mode, which noises the whole network")
		}
		s.opt.Clipping = dpsgd.ClipJoint
	}
	return s, nil
}
