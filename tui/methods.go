package tui

import (
	"slices"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// dataKind is the manifold control's choice for the loaded data set.
const dataKind = "data"

// syntheticPrefix starts a synthetic manifold's data spec ("manifold:KIND").
const syntheticPrefix = "manifold:"

// manifoldKinds are the choices of the manifold control: the method's
// synthetic manifolds (its option "manifold"), then the loaded data set.
func manifoldKinds(v Variant) []string {
	s, _ := v.desc.Option("manifold")
	return append(slices.Clone(s.Choices), dataKind)
}

// manifoldParams are a denoising method's settings, as Options.
type manifoldParams struct {
	Kind    string  // one of manifoldKinds
	D       int     // ambient dimension (synthetic)
	N       int     // references (synthetic)
	Queries int     // queries (synthetic)
	Noise   float64 // noise level σ of the synthetic points (not a DP noise)
	T       int     // iterations
	Theta   float64 // the projector's share θ of each iteration's budget
	H       float64 // bandwidth h; 0: the engine's rule (2√(τσ), or k-NN distances on data)
	Dim     int     // intrinsic dimension d; 0: the manifold's, or local PCA on data
	Epsilon float64
	Delta   float64
}

// paperDelta is the δ of the DP-MD paper's experiments (METHODS.md §2),
// offered as a hint: dpscope defaults to 1e-5.
const paperDelta = 0.1

// optionValue is the value of key for variant v: its preset's, else the
// spec's default, else "".
func optionValue(v Variant, key string) string {
	if s, ok := v.preset.Options[key]; ok {
		return s
	}
	s, _ := v.desc.Option(key)
	return s.DefaultText()
}

func optionInt(v Variant, key string) int {
	n, _ := strconv.Atoi(optionValue(v, key))
	return n
}

func optionFloat(v Variant, key string) float64 {
	f, _ := strconv.ParseFloat(optionValue(v, key), 64)
	return f
}

// defaultManifoldParams are the first denoising variant's preset (a run of
// seconds) over its options' defaults.
func defaultManifoldParams() manifoldParams {
	v := variants()[variantIndex(familyDenoising)]
	kind := optionValue(v, "manifold")
	if kind == "" {
		kind = dataKind
	}
	return manifoldParams{Kind: kind, D: optionInt(v, "D"), N: optionInt(v, "n"), Queries: optionInt(v, "queries"),
		Noise: optionFloat(v, "sigma"), T: optionInt(v, "T"), Theta: optionFloat(v, "theta"), Epsilon: 1, Delta: 1e-5}
}

// Synthetic reports whether the run denoises a generated manifold (not the
// loaded data set).
func (m manifoldParams) Synthetic() bool { return m.Kind != dataKind }

// splits are the choices of the federated split control (datasets.ParseSplit).
var splits = []string{"iid", "equal", "noniid:2", "dirichlet:0.5"}

// protocols are the choices of the method's option "protocol" (PPML-Omics'
// decentralized randomizations).
func protocols(v Variant) []string {
	s, _ := v.desc.Option("protocol")
	return s.Choices
}

// fedParams are the federated methods' settings.
type fedParams struct {
	Clients     int
	Rounds      int
	LocalEpochs int
	Split       string // one of splits
	Protocol    string // one of protocols (a method with option "protocol")
	Unit        string // the preset's privacy unit option ("record"), "" for the method's default
	Epsilon     float64
	Delta       float64
	Clip        float64
	Sigma       float64 // noise multiplier; 0: the engine solves it from ε

	of int // the federated variant whose defaults the settings follow
}

// defaultFedParams returns v's defaults: its preset's clients, rounds,
// local epochs, clip and split (a run of seconds to a minute).
func defaultFedParams(v Variant) fedParams {
	p := fedParams{Clients: v.preset.Clients, Rounds: 5, LocalEpochs: 1, Split: "equal", Protocol: "swap",
		Epsilon: 5, Delta: 1e-5, Clip: v.preset.Clip, of: slices.IndexFunc(variants(), func(w Variant) bool { return w.Label == v.Label })}
	if len(v.preset.Epochs) > 0 {
		p.Rounds = v.preset.Epochs[0]
	}
	if len(v.preset.Epochs) > 1 {
		p.LocalEpochs = v.preset.Epochs[1]
	}
	if s := v.preset.Options["split"]; s != "" {
		p.Split = s
	}
	p.Unit = v.preset.Options["unit"]
	if s, ok := v.desc.Option("protocol"); ok {
		p.Protocol = s.DefaultText()
	}
	if p.Clients == 0 {
		p.Clients = 5
	}
	if p.Clip == 0 {
		p.Clip = 1
	}
	return p
}

// follow returns p for variant to after a switch from variant from: a
// setting still at from's default takes to's; one the user changed stays.
func (p fedParams) follow(from, to Variant) fedParams {
	a, b := defaultFedParams(from), defaultFedParams(to)
	if p.Clients == a.Clients {
		p.Clients = b.Clients
	}
	if p.Rounds == a.Rounds {
		p.Rounds = b.Rounds
	}
	if p.LocalEpochs == a.LocalEpochs {
		p.LocalEpochs = b.LocalEpochs
	}
	if p.Split == a.Split {
		p.Split = b.Split
	}
	if p.Clip == a.Clip {
		p.Clip = b.Clip
	}
	// the unit is the preset's, not a setting of the form
	p.Unit = b.Unit
	return p
}

// SetVariant switches the method control to variants()[i]. The federated
// settings still at the last federated method's defaults take the new
// one's.
func (p *runParams) SetVariant(i int) {
	p.Variant = i
	if to := p.V(); to.Family() == familyFederated {
		p.Fed = p.Fed.follow(variants()[p.Fed.of], to)
		p.Fed.of = i
	}
}

// ManifoldData returns the Data of a DP-MD run: "manifold:KIND" for a
// synthetic manifold, the loaded data set otherwise.
func (p runParams) ManifoldData() string {
	if p.Manifold.Synthetic() {
		return syntheticPrefix + p.Manifold.Kind
	}
	return p.Data
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// manifoldConfig is the DP-MD run: its noise follows from ε, δ and the
// sensitivities (Sigma stays 0; Options "sigma" is the data's noise level).
// Clip and SampleRate are unused by the denoising family but validated by
// core: 1.
func (p runParams) manifoldConfig(method string) core.Config {
	m := p.Manifold
	c := core.Config{Data: p.ManifoldData(), Method: method, Mode: p.V().Mode, Clip: 1, SampleRate: 1, Seed: p.Seed,
		Options: map[string]string{"T": strconv.Itoa(m.T), "theta": fmtFloat(m.Theta)}}
	if m.H > 0 {
		c.Options["h"] = fmtFloat(m.H)
	}
	if m.Dim > 0 {
		c.Options["d"] = strconv.Itoa(m.Dim)
	}
	if m.Synthetic() {
		c.Options["manifold"] = m.Kind
		c.Options["D"] = strconv.Itoa(m.D)
		c.Options["n"] = strconv.Itoa(m.N)
		c.Options["queries"] = strconv.Itoa(m.Queries)
		c.Options["sigma"] = fmtFloat(m.Noise)
	}
	if p.Private() {
		c.Epsilon, c.Delta = m.Epsilon, m.Delta
	}
	return c
}

// fedConfig is the federated run: Epochs = [rounds, local epochs].
func (p runParams) fedConfig(method string) core.Config {
	f := p.Fed
	c := core.Config{Data: p.Data, Method: method, Mode: p.V().Mode, Clip: 1, SampleRate: 1, Seed: p.Seed,
		Clients: f.Clients, Epochs: []int{f.Rounds, f.LocalEpochs},
		Options: map[string]string{"split": f.Split}}
	if _, ok := p.V().desc.Option("protocol"); ok {
		c.Options["protocol"] = f.Protocol
	}
	if f.Unit != "" {
		c.Options["unit"] = f.Unit
	}
	if p.Private() {
		c.Epsilon, c.Delta, c.Clip, c.Sigma = f.Epsilon, f.Delta, f.Clip, f.Sigma
	}
	return c
}

// epsilon, delta and clip point at the family's own ε, δ and C.
func (p *runParams) epsilon() *float64 {
	switch p.V().Family() {
	case familyDenoising:
		return &p.Manifold.Epsilon
	case familyFederated:
		return &p.Fed.Epsilon
	}
	return &p.Epsilon
}

func (p *runParams) delta() *float64 {
	switch p.V().Family() {
	case familyDenoising:
		return &p.Manifold.Delta
	case familyFederated:
		return &p.Fed.Delta
	}
	return &p.Delta
}

func (p *runParams) clip() *float64 {
	if p.V().Family() == familyFederated {
		return &p.Fed.Clip
	}
	return &p.Clip
}

// dpsgd reports whether the run is DP-SGD with a schedule the interface
// accounts itself (a private DCAN variant): σ solved for ε by RDP, the
// Budget pane's RDP/PLD audit. Other engines account for themselves.
func (p runParams) dpsgd() bool { return p.Private() && p.V().Family() == familyDPSGD }

// stepWord is what one x step of the Run charts is for the family.
func stepWord(f Family) string {
	switch f {
	case familyDenoising:
		return "iteration"
	case familyFederated:
		return "round"
	}
	return "step"
}

// plannedSteps is the x range of the Run charts before the engine states
// its plan.
func (p runParams) plannedSteps() int {
	switch p.V().Family() {
	case familyDenoising:
		return p.Manifold.T
	case familyFederated:
		return p.Fed.Rounds
	}
	return p.Steps()
}

// genericConfig is the run of a method whose family has no form of its
// own: the common fields and its options as typed. Clip and SampleRate
// are validated by core for every method: 1.
func (p runParams) genericConfig(method string) core.Config {
	c := core.Config{Data: p.Data, Method: method, Mode: p.V().Mode, Clip: 1, SampleRate: 1, Seed: p.Seed}
	for k, v := range p.Opts {
		if _, ok := p.V().desc.Option(k); ok && v != "" {
			if c.Options == nil {
				c.Options = map[string]string{}
			}
			c.Options[k] = v
		}
	}
	if p.Private() {
		c.Epsilon, c.Delta = p.Epsilon, p.Delta
	}
	return c
}
