package tui

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/fed"
	"github.com/dpscope/dpscope/core/manifold"
)

// ManifoldKinds are the choices of DP-MD's manifold control: the synthetic
// manifolds of core/manifold, then "data" for the loaded data set.
var ManifoldKinds = []string{"circle", "sphere", "torus", "swissroll", "data"}

// ManifoldParams are DP-MD's settings (core/manifold's Params, as Options).
type ManifoldParams struct {
	Kind    string  // one of ManifoldKinds
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

// PaperDelta is the δ of the DP-MD paper's experiments (METHODS.md §2),
// offered as a hint: dpscope defaults to 1e-5.
const PaperDelta = 0.1

// defaultManifoldParams keeps a run to seconds: a sphere in R^20 with 5,000
// references and 200 queries.
func defaultManifoldParams() ManifoldParams {
	return ManifoldParams{Kind: "sphere", D: 20, N: 5000, Queries: 200, Noise: manifold.DefaultSigma,
		T: manifold.DefaultT, Theta: manifold.DefaultTheta, Epsilon: 1, Delta: 1e-5}
}

// Synthetic reports whether the run denoises a generated manifold (not the
// loaded data set).
func (m ManifoldParams) Synthetic() bool { return m.Kind != "data" }

// Splits are the choices of the federated split control (datasets.ParseSplit).
var Splits = []string{"iid", "equal", "noniid:2", "dirichlet:0.5"}

// Protocols are PPML-Omics' decentralized randomizations.
var Protocols = []string{"swap", "fisher-yates"}

// FedParams are the federated methods' settings.
type FedParams struct {
	Clients     int
	Rounds      int
	LocalEpochs int
	Split       string // one of Splits
	Protocol    string // one of Protocols (ppml-omics)
	Epsilon     float64
	Delta       float64
	Clip        float64
	Sigma       float64 // noise multiplier; 0: the engine solves it from ε

	of int // the federated variant whose defaults the settings follow
}

// defaultFedParams returns v's defaults (core/fed's, with fewer FedSC
// rounds so an interactive run takes seconds to a minute).
func defaultFedParams(v Variant) FedParams {
	p := FedParams{Clients: fed.DefaultClientsFL, Rounds: fed.DefaultRoundsAE, LocalEpochs: fed.DefaultLocalEpochsAE,
		Split: "equal", Protocol: "swap", Epsilon: 5, Delta: 1e-5, Clip: 5, of: slices.Index(Variants, v)}
	switch {
	case v.Method == "fedsc":
		p.Clients, p.Rounds, p.LocalEpochs, p.Split, p.Clip = fed.DefaultClientsFedSC, 10, fed.DefaultLocalEpochsBYOL, "iid", 1
	case v.Mode != core.ModeNonPrivate:
		p.Clients = fed.DefaultClientsDP
	}
	return p
}

// follow returns p for variant to after a switch from variant from: a
// setting still at from's default takes to's; one the user changed stays.
func (p FedParams) follow(from, to Variant) FedParams {
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
	return p
}

// SetVariant switches the method control to Variants[i]. The federated
// settings still at the last federated method's defaults take the new
// one's.
func (p *Params) SetVariant(i int) {
	p.Variant = i
	if to := p.V(); to.Family() == FamilyFed {
		p.Fed = p.Fed.follow(Variants[p.Fed.of], to)
		p.Fed.of = i
	}
}

// ManifoldData returns the Data of a DP-MD run: "manifold:KIND" for a
// synthetic manifold, the loaded data set otherwise.
func (p Params) ManifoldData() string {
	if p.Manifold.Synthetic() {
		return manifold.SpecPrefix + p.Manifold.Kind
	}
	return p.Data
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// manifoldConfig is the DP-MD run: its noise follows from ε, δ and the
// sensitivities (Sigma stays 0; Options "sigma" is the data's noise level).
// Clip and SampleRate are unused by dpmd but validated by core: 1.
func (p Params) manifoldConfig(method string) core.Config {
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
func (p Params) fedConfig(method string) core.Config {
	f := p.Fed
	c := core.Config{Data: p.Data, Method: method, Mode: p.V().Mode, Clip: 1, SampleRate: 1, Seed: p.Seed,
		Clients: f.Clients, Epochs: []int{f.Rounds, f.LocalEpochs},
		Options: map[string]string{"split": f.Split}}
	if p.V().Method == "ppml-omics" {
		c.Options["protocol"] = f.Protocol
	}
	if p.Private() {
		c.Epsilon, c.Delta, c.Clip, c.Sigma = f.Epsilon, f.Delta, f.Clip, f.Sigma
	}
	return c
}

// epsilon, delta and clip point at the family's own ε, δ and C.
func (p *Params) epsilon() *float64 {
	switch p.V().Family() {
	case FamilyManifold:
		return &p.Manifold.Epsilon
	case FamilyFed:
		return &p.Fed.Epsilon
	}
	return &p.Epsilon
}

func (p *Params) delta() *float64 {
	switch p.V().Family() {
	case FamilyManifold:
		return &p.Manifold.Delta
	case FamilyFed:
		return &p.Fed.Delta
	}
	return &p.Delta
}

func (p *Params) clip() *float64 {
	if p.V().Family() == FamilyFed {
		return &p.Fed.Clip
	}
	return &p.Clip
}

// dpsgd reports whether the run is DP-SGD with a schedule the interface
// accounts itself (a private DCAN variant): σ solved for ε by RDP, the
// Budget pane's RDP/PLD audit. Other engines account for themselves.
func (p Params) dpsgd() bool { return p.Private() && p.V().Family() == FamilyDCAN }

// stepWord is what one x step of the Run charts is for the family.
func (f Family) stepWord() string {
	switch f {
	case FamilyManifold:
		return "iteration"
	case FamilyFed:
		return "round"
	}
	return "step"
}

// plannedSteps is the x range of the Run charts before the engine states
// its plan.
func (p Params) plannedSteps() int {
	switch p.V().Family() {
	case FamilyManifold:
		return p.Manifold.T
	case FamilyFed:
		return p.Fed.Rounds
	}
	return p.Steps()
}

// fedVariant returns core/fed's variant of a federated method.
func fedVariant(method string) fed.Variant {
	v, err := fed.ParseVariant(method)
	if err != nil {
		return fed.FL
	}
	return v
}

// expectedOther is the guarantee of a DP-MD or federated variant before
// its engine states it: core/fed's own reading, and METHODS.md §2 for DP-MD.
func expectedOther(pr Params) (core.Guarantee, []string) {
	v := pr.V()
	if v.Family() == FamilyFed {
		proto, _ := fed.ParseProtocol(pr.Fed.Protocol)
		eps := pr.Fed.Epsilon
		if pr.Fed.Sigma != 0 {
			eps = 0
		}
		return fed.Reasons(fedVariant(v.Method), v.Mode, eps, proto)
	}
	switch v.Mode {
	case core.ModeNonPrivate:
		return core.GuaranteeNone, []string{"non-private denoising: the utility ceiling, no noise"}
	case core.ModeSound:
		return core.GuaranteeFormal, []string{"numerator and mass released separately with a public floor, a private second moment for the tangents, every query moved: (ε, δ)-DP by zCDP, under the assumptions the engine lists"}
	}
	return core.GuaranteeConditional, []string{
		"the paper's sensitivity bounds hold only with high probability and their constants C_P, C_m are unspecified",
		"the \"fewer than d + 1 neighbours → unchanged\" rule publishes a noiseless count",
		fmt.Sprintf("the paper's experiments use δ = %g; dpscope defaults to 1e-5", PaperDelta)}
}
