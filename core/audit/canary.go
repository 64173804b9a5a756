package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

func fmtInt(i int) string { return strconv.Itoa(i) }

// Observation is what the attacker of a gradient-canary audit sees.
type Observation int

const (
	// EveryGradient: the noisy gradient of every step (white-box, all
	// iterates: what DP-SGD's accounting covers). The score of a canary is
	// the sum over steps of the released gradient at its coordinate.
	EveryGradient Observation = iota
	// FinalWeights: only the parameters at the end (what a paper that
	// releases the trained model shows). The score is the initial minus the
	// final value of the canary's coordinate, since descent moves a
	// parameter against the canary's positive gradient.
	FinalWeights
)

// String describes the observation in words.
func (o Observation) String() string {
	switch o {
	case EveryGradient:
		return "white-box: every step's noisy gradient (all iterates)"
	case FinalWeights:
		return "the released final weights only"
	}
	return fmt.Sprintf("Observation(%d)", int(o))
}

// CanaryConfig configures Dirac gradient canaries. Not safe for concurrent
// use.
type CanaryConfig struct {
	// Canaries is m ≥ 1. Required.
	Canaries int
	// Lo and Hi bound the parameter indices [Lo, Hi) the canaries may sit
	// on (the noised, or the released, parameters); Hi − Lo ≥ Canaries.
	// Required.
	Lo, Hi int
	// SampleRate is the probability that an included canary takes part in
	// a step, as a record does (q of Poisson sampling), in (0, 1].
	// Required.
	SampleRate float64
	// ClipNorm is C > 0, the norm of each canary's gradient. Required.
	ClipNorm float64
	// Scale multiplies each canary's gradient as the step's clipped sum is
	// multiplied (1/(q·N) for DP-SGD's expected batch size). Required, > 0.
	Scale float64
	// Observe is what the attacker sees; EveryGradient by default.
	Observe Observation
	// Seed seeds the canaries' own streams (inclusion, coordinates and
	// per-step participation), apart from the run's, so that a run's noise
	// and sampling are unchanged by an audit.
	Seed uint64
}

// Validate returns an error wrapping ErrInput for the first invalid field.
func (c CanaryConfig) Validate() error {
	pos := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v > 0 }
	switch {
	case c.Canaries < 1:
		return bad("Canaries", c.Canaries, "at least 1")
	case c.Lo < 0 || c.Hi-c.Lo < c.Canaries:
		return bad("parameter range", fmt.Sprintf("[%d, %d)", c.Lo, c.Hi), fmt.Sprintf("non-negative and hold at least %d parameters", c.Canaries))
	case !pos(c.SampleRate) || c.SampleRate > 1:
		return bad("SampleRate", c.SampleRate, "in (0, 1]")
	case !pos(c.ClipNorm):
		return bad("ClipNorm", c.ClipNorm, "finite and > 0")
	case !pos(c.Scale):
		return bad("Scale", c.Scale, "finite and > 0")
	case c.Observe != EveryGradient && c.Observe != FinalWeights:
		return bad("Observe", c.Observe, "EveryGradient or FinalWeights")
	}
	return nil
}

// GradientCanaries are m Dirac gradient canaries: canary j, included with
// probability ½, adds C·Scale to coordinate coord[j] of the gradient of
// each step it takes part in (probability SampleRate). Not safe for
// concurrent use.
type GradientCanaries struct {
	cfg   CanaryConfig
	in    []bool
	coord []int
	score []float64
	init  []float64
	seen  bool
	steps int
	rng   *rand.Rand
}

// NewGradientCanaries draws the canaries' inclusion and coordinates. It
// returns an error wrapping ErrInput if cfg is invalid.
func NewGradientCanaries(cfg CanaryConfig) (*GradientCanaries, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("audit: NewGradientCanaries: %w", err)
	}
	m := cfg.Canaries
	g := &GradientCanaries{cfg: cfg, in: make([]bool, m), coord: make([]int, m),
		score: make([]float64, m), init: make([]float64, m),
		rng: rand.New(rand.NewPCG(cfg.Seed, 2))}
	draw := rand.New(rand.NewPCG(cfg.Seed, 1))
	for j := range g.in {
		g.in[j] = draw.IntN(2) == 1
	}
	// m distinct coordinates: a partial Fisher–Yates shuffle over a sparse
	// map, so that a range of millions of parameters costs O(m).
	swapped := map[int]int{}
	at := func(i int) int {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	n := cfg.Hi - cfg.Lo
	for j := range m {
		k := j + draw.IntN(n-j)
		g.coord[j] = cfg.Lo + at(k)
		swapped[k] = at(j)
	}
	return g, nil
}

// Included reports which canaries were included (the truth of the game).
func (g *GradientCanaries) Included() []bool { return append([]bool(nil), g.in...) }

// Steps returns the number of optimizer steps the canaries saw.
func (g *GradientCanaries) Steps() int { return g.steps }

// Optimizer is the step Wrap wraps. core/nn's Optimizer satisfies it; the
// audit keeps its own copy of the method set so that it depends on no
// network code and the interface's fake engines may score games too.
type Optimizer interface {
	Step(params, grads []float32)
	SetLR(lr float64) error
	LR() float64
}

// Wrap returns opt with the canaries inserted: each Step adds the
// participating canaries' gradients, records what the attacker observes
// and then runs opt's step. Wrapping every optimizer of a run (one per
// stage) with one GradientCanaries keeps one game over the whole run.
func (g *GradientCanaries) Wrap(opt Optimizer) Optimizer {
	return &canaryOpt{g: g, Optimizer: opt}
}

type canaryOpt struct {
	g *GradientCanaries
	Optimizer
}

func (o *canaryOpt) Step(params, grads []float32) {
	g := o.g
	if !g.seen {
		for j, c := range g.coord {
			g.init[j] = float64(params[c])
		}
		g.seen = true
	}
	add := float32(g.cfg.ClipNorm * g.cfg.Scale)
	for j, c := range g.coord {
		if g.in[j] && g.rng.Float64() < g.cfg.SampleRate {
			grads[c] += add
		}
		if g.cfg.Observe == EveryGradient {
			g.score[j] += float64(grads[c])
		}
	}
	o.Optimizer.Step(params, grads)
	if g.cfg.Observe == FinalWeights {
		for j, c := range g.coord {
			g.score[j] = g.init[j] - float64(params[c])
		}
	}
	g.steps++
}

// Scores returns the attacker's score of each canary (higher: more likely
// included), per the configured Observation.
func (g *GradientCanaries) Scores() []float64 { return append([]float64(nil), g.score...) }

// Audit scores the canaries into a Result at confidence 1 − β for δ
// (Score), with Setting describing the observation. Errors as Score.
func (g *GradientCanaries) Audit(delta, beta float64) (Result, error) {
	res, err := Score(g.score, g.in, delta, beta)
	res.Setting = "Dirac gradient canaries; the attacker sees " + g.cfg.Observe.String()
	return res, err
}
