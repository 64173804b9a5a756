package dpmd

import (
	"math"

	"github.com/dpscope/dpscope/core"
)

// MethodName is the name dpmd registers under in core.
const MethodName = "dpmd"

// PaperDelta is the δ of the DP-MD paper's experiments (METHODS.md §2);
// dpscope defaults to 1e-5.
const PaperDelta = 0.1

var inf = math.Inf(1)

// optionSpecs are dpmd's settings (Params), by the names of ParseSpec;
// core.Config.Options and the "manifold:" data spec share them. The live
// ones are applied between iterations (LiveOptions).
var optionSpecs = []core.OptionSpec{
	{Key: "manifold", Kind: core.KindChoice, Choices: []string{"circle", "sphere", "torus", "swissroll"}, Doc: "denoise a synthetic manifold instead of the data set"},
	{Key: "D", Kind: core.KindInt, Min: 0, Max: inf, Doc: "ambient dimension of a synthetic manifold (0 or absent: native, 2 for the circle, 3 otherwise)"},
	{Key: "n", Kind: core.KindInt, Default: DefaultN, Min: 0, Max: inf, Doc: "synthetic reference points"},
	{Key: "queries", Aliases: []string{"m"}, Kind: core.KindInt, Default: DefaultQueries, Min: 0, Max: inf, Doc: "synthetic query points m"},
	{Key: "sigma", Kind: core.KindFloat, Default: DefaultSigma, Min: 0, Max: inf, Doc: "noise level σ of the synthetic references (queries get √σ); not a DP noise"},
	{Key: "noise", Kind: core.KindChoice, Default: "ball", Choices: []string{"ball", "gauss", "gaussian"}, Doc: "noise of the synthetic points: uniform in the ℓ2 ball of radius σ, or Gaussian"},
	{Key: "h", Kind: core.KindFloat, Min: 0, Max: inf, Live: true, Doc: "bandwidth h (absent: 2√(τσ) on a manifold, from k-NN distances on data)"},
	{Key: "d", Kind: core.KindInt, Min: 0, Max: inf, Live: true, Doc: "intrinsic dimension d (absent: the manifold's, or from local PCA on data)"},
	{Key: "T", Kind: core.KindInt, Default: DefaultT, Min: 0, Max: 1000, Live: true, Doc: "denoising iterations"},
	{Key: "theta", Kind: core.KindFloat, Default: DefaultTheta, Min: 0, Max: 1, Live: true, Doc: "the projector's share θ of each iteration's budget, in (0, 1)"},
	{Key: "C_P", Aliases: []string{"CP"}, Kind: core.KindFloat, Default: 1.0, Min: 0, Max: inf, Doc: "constant C_P of the projector's sensitivity (paper mode)"},
	{Key: "C_m", Aliases: []string{"Cm"}, Kind: core.KindFloat, Default: 1.0, Min: 0, Max: inf, Doc: "constant C_m of the mean's sensitivity (paper mode)"},
	{Key: "s_min", Kind: core.KindFloat, Min: 0, Max: inf, Doc: "sound mode's public floor on the released kernel mass: a query whose released mass is below it stays (absent: max(d + 1, 3ς_S))"},
	{Key: "tangents", Kind: core.KindBool, Doc: "sound mode: also release the kernel second moment and step along its normal space (default: mean-shift step, whole budget on numerator and mass)"},
	{Key: "nonprivate", Kind: core.KindChoice, Default: string(NonPrivateEigProj), Choices: []string{string(NonPrivateEigProj), string(NonPrivatePx)}, Doc: "the non-private ceiling compared against"},
	{Key: "max_queries", Kind: core.KindInt, Default: DefaultMaxQueries, Min: 0, Max: inf, Doc: "n_max of the data-set split n_q = min(n_max, ⌈2√n⌉)"},
	{Key: "pcs", Kind: core.KindInt, Default: DefaultPCs, Min: 0, Max: inf, Doc: "principal components a data set is reduced to before denoising"},
}

// quick are the settings of an interactive run, seconds long: a sphere in
// R^20 with 5,000 references and 200 queries.
var quick = map[string]string{"manifold": "sphere", "D": "20", "n": "5000", "queries": "200"}

func init() {
	core.Register(core.Method{
		Name: MethodName, Title: "DP-MD", Family: core.FamilyDenoising,
		Doc:   "DP manifold denoising: queries moved towards a manifold estimated from private references",
		Modes: []core.Mode{core.ModePaper, core.ModeSound, core.ModeNonPrivate},
		Presets: []core.Preset{
			{Label: "DP-MD paper", Mode: core.ModePaper, Options: quick},
			{Label: "DP-MD sound", Mode: core.ModeSound, Options: quick},
			{Label: "DP-MD non-private", Mode: core.ModeNonPrivate, Options: quick},
		},
		Needs:     core.NeedsNothing,
		Options:   optionSpecs,
		Expect:    Expect,
		Audit:     auditDoc,
		DependsOn: []string{"delta (the paper's experiments use 0.1)", "option C_P", "option C_m"},
		Null:      Null,
		NullLabel: "queries not denoised",
		New:       func(cfg core.Config) (core.Engine, error) { return New(cfg, Params{}) },
	})
}

// Null is DP-MD's null run: the same queries clustered as they are, after
// no denoising iteration (T = 0) and without privacy — what the method
// gives without learning from the references, the line every private
// curve must rise above for the denoising to have helped.
func Null(cfg core.Config) core.Config {
	opts := make(map[string]string, len(cfg.Options)+1)
	for k, v := range cfg.Options {
		opts[k] = v
	}
	opts["T"] = "0"
	cfg.Options = opts
	cfg.Mode, cfg.Epsilon, cfg.Sigma = core.ModeNonPrivate, 0, 0
	return cfg
}
