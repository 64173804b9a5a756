package dpmd

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// ErrParams is wrapped by every error about Params or a data spec; it
// matches core.ErrBadConfig under errors.Is.
var ErrParams error = &core.MethodConfigError{Method: "dpmd"}

// ErrInput is wrapped by every error about the points given to LocalPCA or
// a Denoiser (empty, mis-shaped or non-finite data).
var ErrInput = errors.New("dpmd: invalid input")

// paramf formats "dpmd: <format>" wrapping ErrParams without its words.
func paramf(format string, args ...any) error {
	return core.Wrapf(ErrParams, "dpmd: "+format, args...)
}

// NonPrivateVariant says which non-private denoiser is the ceiling.
type NonPrivateVariant string

const (
	// NonPrivateEigProj moves x to b_x + P̂(x − b_x), P̂ the top-d
	// eigenprojector of P_x: the DP pipeline with zero noise (METHODS.md §2,
	// the default).
	NonPrivateEigProj NonPrivateVariant = "eigproj"
	// NonPrivatePx uses the averaged projector P_x as it is (the numpy
	// peer's non-private mode).
	NonPrivatePx NonPrivateVariant = "px"
)

// Defaults of Params.
const (
	DefaultN          = 10000
	DefaultQueries    = 1000
	DefaultSigma      = 0.1
	DefaultT          = 2
	DefaultTheta      = 0.5
	DefaultMaxQueries = 1000 // n_max of the scRNA-seq split
	DefaultPCs        = 50
	MaxReferences     = 5000 // references kept from a data set (paper, App. E)
)

// Params are the parameters of DP manifold denoising that core.Config has
// no field for. Zero values select the documented defaults; Resolve fills
// them in. A Params is a plain value, safe to copy.
type Params struct {
	// Manifold is circle, sphere, torus or swissroll for a synthetic run,
	// empty for a data set.
	Manifold string `json:"manifold,omitempty" toml:"manifold"`
	// D is the ambient dimension of a synthetic manifold. 0: native (2 for
	// the circle, 3 otherwise).
	D int `json:"D,omitempty" toml:"D"`
	// N is the number of synthetic references. Default DefaultN.
	N int `json:"n,omitempty" toml:"n"`
	// Queries is the number m of synthetic queries. Default DefaultQueries.
	Queries int `json:"queries,omitempty" toml:"queries"`
	// Sigma is the size σ of the references' noise (queries get √σ). Default
	// DefaultSigma. Must be > 0.
	Sigma float64 `json:"sigma,omitempty" toml:"sigma"`
	// Gaussian switches the noise from uniform in the ℓ2 ball of radius σ
	// (the paper's bounded noise, the default) to N(0, σ²/D·I).
	Gaussian bool `json:"gaussian,omitempty" toml:"gaussian"`
	// H is the bandwidth h. 0: 2√(τσ) with τ the reach (synthetic), or
	// from k-NN distances (data set; see ChooseBandwidth).
	H float64 `json:"h,omitempty" toml:"h"`
	// Dim is the intrinsic dimension d, 1 ≤ d < D. 0: the manifold's
	// (synthetic) or from local PCA (data set).
	Dim int `json:"d,omitempty" toml:"d"`
	// T is the number of iterations. Default DefaultT.
	T int `json:"T,omitempty" toml:"T"`
	// Theta is the projector's share θ ∈ (0, 1) of each iteration's
	// budget. Default DefaultTheta.
	Theta float64 `json:"theta,omitempty" toml:"theta"`
	// CP and Cm are the constants of the paper's sensitivity bounds
	// Δ_P = C_P/(n h^d), Δ_m = C_m/(n h^(d−1)), which the paper never
	// gives. Default 1.
	CP float64 `json:"C_P,omitempty" toml:"C_P"`
	Cm float64 `json:"C_m,omitempty" toml:"C_m"`
	// SMin is sound mode's public floor on the released kernel mass: a
	// query whose released mass S̃ is below it stays where it is. 0:
	// SoundMassFloor, max(d + 1, 3ς_S): three noise standard deviations
	// of the mass, and at least the paper's d + 1 references.
	SMin float64 `json:"s_min,omitempty" toml:"s_min"`
	// Tangents makes sound mode release the kernel second moment and step
	// along its top-d normal space (METHODS.md §2 as first written). Off by
	// default: the second moment's eigengap, ≈ S·h²/(d(d+4)) for the kernel
	// (1 − r²/h²)^(d+2), is below the spectral norm of its noise
	// (≈ 2√D·ς_M, ς_M ∝ h²) unless the kernel mass S is in the thousands,
	// so at the budgets of interest the tangents are noise; sound mode then
	// spends the whole budget on numerator and mass and takes the
	// mean-shift step x + m.
	Tangents bool `json:"tangents,omitempty" toml:"tangents"`
	// NonPrivate selects the ceiling compared against. Default
	// NonPrivateEigProj.
	NonPrivate NonPrivateVariant `json:"nonprivate,omitempty" toml:"nonprivate"`
	// MaxQueries is n_max of the data-set split n_q = min(n_max, ⌈2√n⌉).
	// Default DefaultMaxQueries.
	MaxQueries int `json:"max_queries,omitempty" toml:"max_queries"`
	// PCs is the number of principal components a data set is reduced to
	// before denoising (a departure: the paper denoises the scaled genes).
	// Default DefaultPCs.
	PCs int `json:"pcs,omitempty" toml:"pcs"`
}

// Resolve returns p with every zero field set to its default (H and Dim
// stay 0 when they depend on the data) and validates it.
func (p Params) Resolve() (Params, error) {
	p.N = cmp.Or(p.N, DefaultN)
	p.Queries = cmp.Or(p.Queries, DefaultQueries)
	p.T = cmp.Or(p.T, DefaultT)
	p.MaxQueries = cmp.Or(p.MaxQueries, DefaultMaxQueries)
	p.PCs = cmp.Or(p.PCs, DefaultPCs)
	p.Sigma = cmp.Or(p.Sigma, DefaultSigma)
	p.Theta = cmp.Or(p.Theta, DefaultTheta)
	p.CP = cmp.Or(p.CP, 1)
	p.Cm = cmp.Or(p.Cm, 1)
	p.NonPrivate = cmp.Or(p.NonPrivate, NonPrivateEigProj)
	return p, p.Validate()
}

// Validate checks every field that is set; zero means "default" where the
// field says so. The error wraps ErrParams and names the field.
func (p Params) Validate() error {
	if p.Manifold != "" {
		if _, err := datasets.ParseManifoldKind(p.Manifold); err != nil {
			return paramf("manifold is %q, must be circle, sphere, torus or swissroll", p.Manifold)
		}
	}
	ints := []struct {
		name string
		v    int
	}{{"D", p.D}, {"n", p.N}, {"queries", p.Queries}, {"d", p.Dim}, {"T", p.T}, {"max queries", p.MaxQueries}, {"pcs", p.PCs}}
	for _, f := range ints {
		if f.v < 0 {
			return paramf("%s is %d, must be ≥ 1 (0 for the default)", f.name, f.v)
		}
	}
	if p.D != 0 && p.Dim != 0 && p.Dim >= p.D {
		return paramf("d is %d, must be < D = %d", p.Dim, p.D)
	}
	if p.T > 1000 {
		return paramf("T is %d, must be ≤ 1000", p.T)
	}
	floats := []struct {
		name string
		v    float64
	}{{"sigma", p.Sigma}, {"h", p.H}, {"C_P", p.CP}, {"C_m", p.Cm}, {"s_min", p.SMin}}
	for _, f := range floats {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return paramf("%s is %v, must be finite and > 0 (0 for the default)", f.name, f.v)
		}
	}
	if math.IsNaN(p.Theta) || p.Theta < 0 || p.Theta >= 1 {
		return paramf("theta is %v, must be in (0, 1) (0 for %v)", p.Theta, DefaultTheta)
	}
	switch p.NonPrivate {
	case "", NonPrivateEigProj, NonPrivatePx:
	default:
		return paramf("nonprivate is %q, must be %s or %s", p.NonPrivate, NonPrivateEigProj, NonPrivatePx)
	}
	return nil
}

// SpecPrefix starts a synthetic data spec in core.Config.Data.
const SpecPrefix = "manifold:"

// IsSpec reports whether data names a synthetic manifold ("manifold:…").
func IsSpec(data string) bool { return strings.HasPrefix(data, SpecPrefix) }

// ParseSpec reads a synthetic data spec such as
//
//	manifold:sphere?D=100&n=30000&queries=1000&sigma=0.3&T=2
//
// into Params. Keys: D, n, queries (or m), sigma, noise (ball|gauss), h,
// d, T, theta, C_P, C_m, s_min, tangents, nonprivate (eigproj|px). The error wraps
// ErrParams and names the bad key. The result is validated, not resolved.
func ParseSpec(spec string) (Params, error) {
	if !IsSpec(spec) {
		return Params{}, paramf("data spec is %q, must start with %q", spec, SpecPrefix)
	}
	kind, query, _ := strings.Cut(strings.TrimPrefix(spec, SpecPrefix), "?")
	p := Params{Manifold: kind}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return Params{}, paramf("data spec query %q is malformed (%v), must be key=value pairs joined by &", query, err)
	}
	flat := make(map[string]string, len(vals))
	for key, vs := range vals {
		flat[key] = vs[len(vs)-1]
	}
	if err := p.set(flat, "data spec key"); err != nil {
		return Params{}, err
	}
	return p, p.Validate()
}

// set assigns the keys of vals (the names of ParseSpec, optionSpecs) to p,
// parsed by core.ParseOptions; what names the source in errors ("data spec
// key", "option"). The error wraps ErrParams and core.ErrBadConfig.
func (p *Params) set(vals map[string]string, what string) error {
	v, err := core.ParseOptions(optionSpecs, vals)
	if err != nil {
		return fmt.Errorf("dpmd: %s: %w: %w", what, err, ErrParams)
	}
	v.StringTo("manifold", &p.Manifold)
	v.IntTo("D", &p.D)
	v.IntTo("n", &p.N)
	v.IntTo("queries", &p.Queries)
	v.IntTo("d", &p.Dim)
	v.IntTo("T", &p.T)
	v.IntTo("max_queries", &p.MaxQueries)
	v.IntTo("pcs", &p.PCs)
	v.FloatTo("sigma", &p.Sigma)
	v.FloatTo("h", &p.H)
	v.FloatTo("theta", &p.Theta)
	v.FloatTo("C_P", &p.CP)
	v.FloatTo("C_m", &p.Cm)
	v.FloatTo("s_min", &p.SMin)
	if n, ok := v["noise"]; ok {
		p.Gaussian = n != "ball"
	}
	v.BoolTo("tangents", &p.Tangents)
	if n, ok := v["nonprivate"].(string); ok {
		p.NonPrivate = NonPrivateVariant(n)
	}
	return nil
}
