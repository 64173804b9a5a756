package sounddcan

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core/method/dppca"
)

// ErrOptions is wrapped by every error about an option value.
var ErrOptions = errors.New("dcan-sound: invalid option")

func optf(format string, args ...any) error {
	return fmt.Errorf("dcan-sound: "+format+": %w", append(args, ErrOptions)...)
}

// Defaults, fixed in advance by the rules in the package comment.
const (
	DefaultSteps    = 100
	DefaultGradClip = 0.05
	DefaultMomentum = 0.9
	DefaultGamma    = 0.1
)

// Shares of μ² (GDP), fixed in advance: the dppca stage, the network's
// DP-SGD and the DEC head's Lloyd rounds. They sum to 1. Option "net"
// changes the network's share; the other two then keep their ratio 5 : 2.
const (
	ShareDPPCA = 0.5
	ShareSGD   = 0.3
	ShareHead  = 0.2
)

// Options are dcan-sound's own settings (core.Config.Options). Zero values
// select the defaults; Resolve fills them in.
type Options struct {
	// P, Genes, Prep and K are passed to the dppca stage ("p", "genes",
	// "prep", "k").
	P, Genes int
	Prep     dppca.Prep
	K        int
	// Steps is the number S of full-batch DP-SGD steps ("steps"); 0 steps
	// is not allowed (use dppca for that).
	Steps int
	// Every is the number of steps between two head rounds ("every");
	// 0 takes steps/5.
	Every int
	// GradClip is the per-cell gradient clip C ("gclip").
	GradClip float64
	// LR is the learning rate ("lr"); 0 takes the rule η/C.
	LR float64
	// Momentum of SGD ("momentum").
	Momentum float64
	// Gamma is the weight γ of the DEC loss ("gamma").
	Gamma float64
	// Net is the network's share of μ² ("net"), in (0, 1).
	Net float64
	// Over is the over-clustering factor of the dppca stage ("over"): it
	// clusters into Over·K centres, merged into K after the first head
	// round; 1 keeps dppca's K centres.
	Over int
}

// Keys are the option names Parse accepts.
var Keys = []string{"p", "genes", "prep", "k", "steps", "every", "gclip", "lr", "momentum", "gamma", "over", "net"}

// Parse reads the options from a core.Config.Options map: unknown keys and
// malformed values are errors naming the key; the result is resolved and
// validated.
func Parse(vals map[string]string) (Options, error) {
	var o Options
	for _, key := range slices.Sorted(maps.Keys(vals)) {
		v := strings.TrimSpace(vals[key])
		switch key {
		case "p", "genes", "k", "steps", "every", "over":
			n, err := strconv.Atoi(v)
			if err != nil {
				return Options{}, optf("option %s is %q, must be an integer", key, v)
			}
			if n < 1 {
				return Options{}, optf("option %s is %d, must be ≥ 1", key, n)
			}
			*map[string]*int{"p": &o.P, "genes": &o.Genes, "k": &o.K, "steps": &o.Steps, "every": &o.Every, "over": &o.Over}[key] = n
		case "gclip", "lr", "momentum", "gamma", "net":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				return Options{}, optf("option %s is %q, must be a finite number ≥ 0", key, v)
			}
			*map[string]*float64{"gclip": &o.GradClip, "lr": &o.LR, "momentum": &o.Momentum, "gamma": &o.Gamma, "net": &o.Net}[key] = f
		case "prep":
			o.Prep = dppca.Prep(v)
		default:
			return Options{}, optf("option %q is unknown, must be one of %s", key, strings.Join(Keys, ", "))
		}
	}
	return o.Resolve()
}

// Resolve returns o with every zero field set to its default, validated.
// A zero Momentum or Gamma means the default; there is no way to ask for
// exactly 0 (use a tiny value).
func (o Options) Resolve() (Options, error) {
	if o.P == 0 {
		o.P = dppca.DefaultP
	}
	if o.Genes == 0 {
		o.Genes = dppca.DefaultGenes
	}
	if o.Prep == "" {
		o.Prep = dppca.PrepPrivate
	}
	if o.Steps == 0 {
		o.Steps = DefaultSteps
	}
	if o.Every == 0 {
		// Five target refreshes over the run (20 of the default 100 steps).
		o.Every = max(1, o.Steps/5)
	}
	if o.GradClip == 0 {
		o.GradClip = DefaultGradClip
	}
	if o.Momentum == 0 {
		o.Momentum = DefaultMomentum
	}
	if o.Gamma == 0 {
		o.Gamma = DefaultGamma
	}
	if o.Over == 0 {
		o.Over = OverCluster
	}
	if o.Net == 0 {
		o.Net = ShareSGD
	}
	if o.LR == 0 {
		// The whole possible path S·η/(1 − momentum) equals √p, the
		// encoder's initial Frobenius norm; lr = η/C since every clipped
		// gradient has norm ≤ C.
		eta := math.Sqrt(float64(o.P)) * (1 - o.Momentum) / float64(o.Steps)
		o.LR = eta / o.GradClip
	}
	return o, o.Validate()
}

// Validate checks a resolved Options; the error names the option.
func (o Options) Validate() error {
	switch {
	case o.P < 1 || o.P > 100:
		return optf("option p is %d, must be in [1, 100]", o.P)
	case o.Genes < 2 || o.Genes > 5000:
		return optf("option genes is %d, must be in [2, 5000]", o.Genes)
	case o.P > o.Genes:
		return optf("option p is %d, must be ≤ genes = %d", o.P, o.Genes)
	case o.K < 0:
		return optf("option k is %d, must be ≥ 1 (0: the number of classes)", o.K)
	case o.Steps < 1 || o.Steps > 10000:
		return optf("option steps is %d, must be in [1, 10000]", o.Steps)
	case o.Every < 1 || o.Every > o.Steps:
		return optf("option every is %d, must be in [1, steps = %d]", o.Every, o.Steps)
	case !(o.GradClip > 0) || o.GradClip > 100:
		return optf("option gclip is %v, must be in (0, 100]", o.GradClip)
	case !(o.Momentum >= 0) || o.Momentum >= 1:
		return optf("option momentum is %v, must be in [0, 1)", o.Momentum)
	case !(o.LR > 0) || o.LR > 100:
		return optf("option lr is %v, must be in (0, 100]", o.LR)
	case !(o.Gamma >= 0) || o.Gamma > 100:
		return optf("option gamma is %v, must be in [0, 100]", o.Gamma)
	case !(o.Net > 0) || o.Net >= 1:
		return optf("option net is %v, must be in (0, 1)", o.Net)
	case o.Over < 1 || o.Over > 20:
		return optf("option over is %d, must be in [1, 20]", o.Over)
	}
	switch o.Prep {
	case dppca.PrepPrivate, dppca.PrepPublic:
	default:
		return optf("option prep is %q, must be %s or %s", o.Prep, dppca.PrepPrivate, dppca.PrepPublic)
	}
	return nil
}

// Rounds is the number of head rounds: one every Every steps from step 0,
// and one after the last step.
func (o Options) Rounds() int { return (o.Steps-1)/o.Every + 2 }

// dppcaStageRounds is the dppca stage's Lloyd rounds: 5, the figure this
// design was measured with (dppca's own default has since become 10).
const dppcaStageRounds = 5

// dppcaOptions returns the options of the dppca stage: its defaults with
// p, genes, prep and k from o, and dppcaStageRounds.
func (o Options) dppcaOptions() (dppca.Options, error) {
	return dppca.Options{P: o.P, T: dppcaStageRounds, Genes: o.Genes, Prep: o.Prep, K: o.K}.Resolve()
}

// String lists the options as key=value pairs.
func (o Options) String() string {
	return fmt.Sprintf("p=%d genes=%d prep=%s k=%d steps=%d every=%d gclip=%g lr=%.4g momentum=%g gamma=%g over=%d net=%g",
		o.P, o.Genes, o.Prep, o.K, o.Steps, o.Every, o.GradClip, o.LR, o.Momentum, o.Gamma, o.Over, o.Net)
}

// shares returns the shares of μ² of the dppca stage, the network and the
// head.
func (o Options) shares() (dp, net, head float64) {
	rest := 1 - o.Net
	return rest * ShareDPPCA / (ShareDPPCA + ShareHead), o.Net, rest * ShareHead / (ShareDPPCA + ShareHead)
}
