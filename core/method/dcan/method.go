package dcan

import (
	"math"

	"github.com/dpscope/dpscope/core"
)

// allLayers is DPE-DCAN's and sound mode's range: every layer noised.
var allLayers = core.LayerRange{First: 1, Last: numLayers}

// optionSpecs are DP-DCAN's own settings (core.Config.Options), each
// setting the Options field of the same meaning.
var optionSpecs = []core.OptionSpec{
	{Key: "k", Kind: core.KindInt, Default: nil, Min: 0, Max: math.Inf(1), Doc: "K, the number of clusters (0 or absent: the number of classes of the data)"},
	{Key: "act", Kind: core.KindChoice, Default: "tanh", Choices: []string{"tanh", "relu"}, Doc: "hidden activation"},
	{Key: "rho", Kind: core.KindFloat, Default: DefaultRho, Min: 0, Max: 1, Doc: "ρ of stage 1, the weight of ZINB against the instance loss (0: the default)"},
	{Key: "mask", Kind: core.KindFloat, Default: DefaultMaskProb, Min: 0, Max: 1, Doc: "masking probability of the two views (0: the default)"},
	{Key: "init_restarts", Kind: core.KindInt, Default: DefaultInitRestarts, Min: 0, Max: math.Inf(1), Doc: "k-means++ restarts of the stage-2 centroids (0: the default)"},
	{Key: "reset_every", Kind: core.KindInt, Default: nil, Doc: "epochs between k-means re-sets of the centroids (negative: never; absent: 5 in paper mode, never otherwise)"},
	{Key: "denoise", Kind: core.KindBool, Default: false, Doc: "stage 1 reconstructs each cell from a third, masked copy"},
	{Key: "gene_mean_init", Kind: core.KindBool, Default: true, Doc: "start the ZINB mean head's bias at each gene's mean size-normalised count"},
	{Key: "dispersion_init", Kind: core.KindBool, Default: true, Doc: "start the ZINB dispersion head's bias at each gene's method-of-moments dispersion"},
}

func init() {
	core.Register(core.Method{
		Name: MethodName, Title: "DP-DCAN", Family: core.FamilyDPSGD,
		Doc:   "DP-DCAN: a ZINB autoencoder with contrastive clustering, trained by DP-SGD on chosen layers",
		Modes: []core.Mode{core.ModeNonPrivate, core.ModePaper, core.ModeSound},
		Presets: []core.Preset{
			{Label: "DCAN", Mode: core.ModeNonPrivate},
			{Label: "DP-DCAN paper", Mode: core.ModePaper},
			{Label: "DPE-DCAN", Mode: core.ModePaper, Layers: &allLayers},
			// The paper's network under whole-network DP-SGD: kept to show
			// why the redesign (method dcan-sound) was needed.
			{Label: "DP-DCAN sound (paper network)", Mode: core.ModeSound, Layers: &allLayers},
		},
		Needs: core.NeedsClip | core.NeedsSampleRate | core.NeedsLayers | core.NeedsSigma | core.NeedsEpochs |
			core.NeedsLearningRate | core.NeedsAccountant,
		Options:   optionSpecs,
		Expect:    Expect,
		Calibrate: Calibrate,
		DependsOn: []string{"layers (paper mode: 1-6 or none)", "epsilon (the filter's target; raised mid-run: conditional)",
			"sigma changed mid-run without a target (conditional)", "secure_noise", "option k"},
		Null:       Null,
		Audit:      auditDoc,
		InputAudit: inputAuditDoc,
		CheckData:  checkData,
		New:        func(cfg core.Config) (core.Engine, error) { return New(cfg, Options{}) },
	})
}

// checkData refuses before the run an option k larger than the cells the
// preprocessing leaves (kTooLarge), as the trainer would after loading.
func checkData(cfg core.Config) error {
	opt, err := applyKeys(Options{}, cfg.Options)
	if err != nil || opt.K == 0 {
		return nil // New reports a bad option; k = 0 is the classes'
	}
	prep, err := cfg.LoadData()
	if err != nil {
		return nil // the run reports it
	}
	if opt.K > prep.Data.Cells {
		return kTooLarge(opt.K, prep.Data.Cells, cfg.Data)
	}
	return nil
}

// Null is DCAN's null run: the same network and clustering step, trained
// for no epoch, without privacy (the run then clusters its untrained
// codes).
func Null(cfg core.Config) core.Config {
	cfg.Mode, cfg.Epsilon, cfg.Sigma = core.ModeNonPrivate, 0, 0
	cfg.Epochs = []int{0, 0}
	return cfg
}

// Expect is the guarantee a configuration can carry before the run
// (docs/METHODS.md §1, privacy reading); Reading says the same, with the
// run's circumstances, once it starts.
func Expect(cfg core.Config) (core.Guarantee, []string) {
	switch {
	case cfg.Mode == core.ModeNonPrivate:
		return core.GuaranteeNone, []string{"DCAN trains without noise"}
	case cfg.Mode == core.ModeSound:
		return core.GuaranteeFormal, []string{"whole-network DP-SGD with Poisson sampling and DP k-means, every release in the ledger; it assumes the preprocessing constants and K are public (the engine lists the assumptions), and a target raised mid-run makes it conditional"}
	case cfg.Layers != allLayers:
		return core.GuaranteeNone, []string{
			"only layers " + cfg.Layers.String() + " are noised: un-noised layers trained on private data shape every noised gradient, so no formal guarantee holds for the released encoder; the paper's ε is its own accounting",
			"k-means centroids and the DEC target use all cells without noise"}
	default:
		return core.GuaranteePaperOnly, []string{"all layers noised, but centroids and the DEC target use private data without noise"}
	}
}
