package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The synthetic manifolds of DP manifold denoising follow the generators of
// the numpy peer ../shared/peers/dpmd_numpy.py (classes Circle, Sphere,
// Torus, SwissRoll and Embedded) — same parameterisation, radii and ranges —
// so that results of the two can be compared.

// ManifoldKind names a synthetic manifold.
type ManifoldKind int

const (
	// Circle is the unit circle S¹ in R², uniform in angle (= arc length).
	Circle ManifoldKind = iota
	// Sphere is the unit sphere S² in R³, uniform (normalised Gaussians).
	Sphere
	// Torus is the torus T² in R³ with radii TorusR (centre of the tube) and
	// TorusTubeR (tube), uniform with respect to area: the tube angle θ has
	// density ∝ R + r cos θ (rejection sampling, Diaconis, Holmes &
	// Shahshahani 2013, https://arxiv.org/abs/1202.6036), the axial angle φ
	// is uniform; x = ((R + r cos θ) cos φ, (R + r cos θ) sin φ, r sin θ).
	Torus
	// SwissRoll is scikit-learn's make_swiss_roll surface scaled by
	// s = SwissRollScale = 1/π, height centred:
	// t ~ U[SwissRollT0, SwissRollT1] = U[1.5π, 4.5π],
	// v ~ U[−SwissRollHalfHeight, SwissRollHalfHeight] = U[−10.5, 10.5],
	// x = s (t cos t, v, t sin t). Uniform in the parameters, so the area
	// density is ∝ 1/√(1 + t²), about 3× denser on the inner turn.
	SwissRoll
)

// Parameters of the torus and Swiss roll (dpmd_numpy.py defaults).
const (
	TorusR               = 2.0 / 3.0     // torus: distance of the tube centre from the axis
	TorusTubeR           = 1.0 / 3.0     // torus: tube radius (= the reach)
	SwissRollScale       = 1 / math.Pi   // Swiss roll: scale s of sklearn's make_swiss_roll
	SwissRollT0          = 1.5 * math.Pi // Swiss roll: first value of the spiral parameter t
	SwissRollT1          = 4.5 * math.Pi // Swiss roll: last value of t
	SwissRollHalfHeight  = 10.5          // Swiss roll: half range of the height v (before scaling)
	maxManifoldAmbient   = 100_000
	maxManifoldSampleLen = 200_000_000
)

var manifoldNames = [...]string{"circle", "sphere", "torus", "swissroll"}

// String returns "circle", "sphere", "torus" or "swissroll" (the peer's
// --manifold names).
func (k ManifoldKind) String() string {
	if k < 0 || int(k) >= len(manifoldNames) {
		return fmt.Sprintf("ManifoldKind(%d)", int(k))
	}
	return manifoldNames[k]
}

// ParseManifoldKind returns the kind named s (as printed by String), or an
// error wrapping ErrBadGeneratorConfig.
func ParseManifoldKind(s string) (ManifoldKind, error) {
	for k, n := range manifoldNames {
		if n == s {
			return ManifoldKind(k), nil
		}
	}
	return 0, simBadf("manifold is %q, must be one of circle, sphere, torus, swissroll", s)
}

// native returns the intrinsic dimension d, the native ambient dimension
// and the nominal reach τ (dpmd_numpy.py's tau).
func (k ManifoldKind) native() (d, dim int, tau float64) {
	switch k {
	case Circle:
		return 1, 2, 1
	case Sphere:
		return 2, 3, 1
	case Torus:
		return 2, 3, math.Min(TorusTubeR, TorusR-TorusTubeR)
	default:
		return 2, 3, 1
	}
}

// ManifoldConfig configures NewManifold.
type ManifoldConfig struct {
	// Kind is the manifold. Default (zero): Circle.
	Kind ManifoldKind
	// D is the ambient dimension. Zero means the native one (2 for the
	// circle, 3 otherwise); a larger D carries the manifold into R^D by a
	// random linear isometry x ↦ Qx, Q (D × native) with orthonormal
	// columns, the Q factor of a Gaussian matrix.
	D int
	// Seed seeds the embedding Q (unused when D is the native dimension).
	Seed uint64
}

// Validate returns an error wrapping ErrBadGeneratorConfig when c is invalid.
func (c ManifoldConfig) Validate() error {
	if c.Kind < Circle || c.Kind > SwissRoll {
		return simBadf("manifold kind is %d, must be in [0, %d]", int(c.Kind), int(SwissRoll))
	}
	_, dim, _ := c.Kind.native()
	if c.D != 0 && (c.D < dim || c.D > maxManifoldAmbient) {
		return simBadf("D is %d, must be 0 (native) or in [%d, %d] for the %s", c.D, dim, maxManifoldAmbient, c.Kind)
	}
	return nil
}

// Manifold is a synthetic manifold M in R^D with its exact (or, for the
// Swiss roll, numerically exact) distance function. It is immutable and safe
// for concurrent use.
type Manifold struct {
	kind     ManifoldKind
	d, dim   int       // intrinsic and native ambient dimension
	ambient  int       // D
	tau      float64   // nominal reach
	q        []float64 // D × dim row-major, orthonormal columns; nil when D = dim
	spiralTs []float64 // Swiss roll: the search grid over t
}

// NewManifold returns the manifold cfg describes, or an error wrapping
// ErrBadGeneratorConfig.
func NewManifold(cfg ManifoldConfig) (*Manifold, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("datasets: new manifold: %w", err)
	}
	d, dim, tau := cfg.Kind.native()
	m := &Manifold{kind: cfg.Kind, d: d, dim: dim, ambient: dim, tau: tau}
	if cfg.D > dim {
		m.ambient = cfg.D
		rng := rand.New(rand.NewPCG(cfg.Seed, simStream(1<<40)))
		g := mat.NewDense(cfg.D, dim, nil)
		for i := range cfg.D {
			for j := range dim {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(g)
		var q mat.Dense
		qr.QTo(&q)
		m.q = make([]float64, cfg.D*dim)
		for i := range cfg.D {
			for j := range dim {
				m.q[i*dim+j] = q.At(i, j)
			}
		}
	}
	if cfg.Kind == SwissRoll {
		m.spiralTs = spiralGrid()
	}
	return m, nil
}

// Kind returns the kind of manifold.
func (m *Manifold) Kind() ManifoldKind { return m.kind }

// Dim returns the intrinsic dimension d (1 for the circle, 2 otherwise).
func (m *Manifold) Dim() int { return m.d }

// Ambient returns the ambient dimension D.
func (m *Manifold) Ambient() int { return m.ambient }

// Reach returns the nominal reach τ used by dpmd_numpy.py for the default
// bandwidth: 1 for the circle, the sphere and the Swiss roll (whose reach is
// 0.98 on the inner turn), TorusTubeR for the torus.
func (m *Manifold) Reach() float64 { return m.tau }

// Embedding returns a copy of Q (D × native, row-major, orthonormal
// columns), or nil when the manifold lives in its native space.
func (m *Manifold) Embedding() []float64 { return append([]float64(nil), m.q...) }

// NoiseKind names a noise distribution of SampleConfig.
type NoiseKind int

const (
	// NoiseBall is uniform in the l2 ball of radius s in R^D (uniform in the
	// ball, not on its surface): e = s U^(1/D) g/‖g‖, g ~ N(0, I_D),
	// U ~ U(0, 1) — dpmd_numpy.py's ball_noise, the paper's bounded noise.
	NoiseBall NoiseKind = iota
	// NoiseGaussian is N(0, s² I_D): standard deviation s per coordinate.
	NoiseGaussian
	// NoiseGaussianNormalized is N(0, (s²/D) I_D), so that E‖e‖² = s² —
	// dpmd_numpy.py's gauss_noise (its --noise gauss).
	NoiseGaussianNormalized
)

// SampleConfig configures Manifold.Sample.
type SampleConfig struct {
	// N is the number of points. Required, at least 1; N·D at most 2·10⁸.
	N int
	// Noise is the noise distribution. Default (zero): NoiseBall.
	Noise NoiseKind
	// Scale is the noise scale s (ball radius or standard deviation), at
	// least 0; zero gives noisy points equal to the clean ones.
	Scale float64
	// Seed seeds the points and the noise.
	Seed uint64
}

// ManifoldSample holds n points on a manifold and their noisy copies, both
// row-major n × D.
type ManifoldSample struct {
	N, D  int
	Clean []float64 // x_i on M
	Noisy []float64 // x_i + e_i
}

// Sample draws cfg.N points from the manifold's sampling distribution (see
// ManifoldKind) and adds independent noise. It returns an error wrapping
// ErrBadGeneratorConfig when cfg is invalid. The result is a pure function
// of m and cfg.
func (m *Manifold) Sample(cfg SampleConfig) (*ManifoldSample, error) {
	switch {
	case cfg.N < 1 || float64(cfg.N)*float64(m.ambient) > maxManifoldSampleLen:
		return nil, fmt.Errorf("datasets: manifold sample: %w",
			simBadf("n is %d, must be in [1, %d] for D = %d", cfg.N, maxManifoldSampleLen/m.ambient, m.ambient))
	case cfg.Noise < NoiseBall || cfg.Noise > NoiseGaussianNormalized:
		return nil, fmt.Errorf("datasets: manifold sample: %w",
			simBadf("noise is %d, must be in [0, %d]", int(cfg.Noise), int(NoiseGaussianNormalized)))
	}
	if err := simCheckRange("noise scale", cfg.Scale, 0, math.Inf(1), false); err != nil {
		return nil, fmt.Errorf("datasets: manifold sample: %w", err)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, simStream(1<<41)))
	n, D := cfg.N, m.ambient
	s := &ManifoldSample{N: n, D: D, Clean: make([]float64, n*D), Noisy: make([]float64, n*D)}
	native := make([]float64, m.dim)
	for i := range n {
		m.sampleNative(rng, native)
		m.embed(s.Clean[i*D:(i+1)*D], native)
	}
	copy(s.Noisy, s.Clean)
	scratch := make([]float64, D)
	for i := range n {
		addNoise(rng, s.Noisy[i*D:(i+1)*D], scratch, cfg.Noise, cfg.Scale)
	}
	return s, nil
}

// sampleNative writes one point of M in its native coordinates into x.
func (m *Manifold) sampleNative(rng *rand.Rand, x []float64) {
	switch m.kind {
	case Circle:
		t := 2 * math.Pi * rng.Float64()
		x[0], x[1] = math.Cos(t), math.Sin(t)
	case Sphere:
		for {
			var nn float64
			for j := range x {
				x[j] = rng.NormFloat64()
				nn += x[j] * x[j]
			}
			if nn > 0 {
				nn = math.Sqrt(nn)
				for j := range x {
					x[j] /= nn
				}
				return
			}
		}
	case Torus:
		const a = TorusTubeR / TorusR
		var theta float64
		for {
			theta = 2 * math.Pi * rng.Float64()
			if rng.Float64()*(1+a) < 1+a*math.Cos(theta) {
				break
			}
		}
		phi := 2 * math.Pi * rng.Float64()
		rho := TorusR + TorusTubeR*math.Cos(theta)
		x[0], x[1], x[2] = rho*math.Cos(phi), rho*math.Sin(phi), TorusTubeR*math.Sin(theta)
	case SwissRoll:
		t := SwissRollT0 + (SwissRollT1-SwissRollT0)*rng.Float64()
		v := SwissRollHalfHeight * (2*rng.Float64() - 1)
		x[0], x[1], x[2] = SwissRollScale*t*math.Cos(t), SwissRollScale*v, SwissRollScale*t*math.Sin(t)
	}
}

// embed writes Q·native into dst (a copy when there is no embedding).
func (m *Manifold) embed(dst, native []float64) {
	if m.q == nil {
		copy(dst, native)
		return
	}
	for i := range dst {
		row := m.q[i*m.dim : (i+1)*m.dim]
		var v float64
		for j, c := range native {
			v += row[j] * c
		}
		dst[i] = v
	}
}

// addNoise adds one draw of the noise to x, using g (len(x)) as scratch.
func addNoise(rng *rand.Rand, x, g []float64, kind NoiseKind, s float64) {
	if s == 0 {
		return
	}
	D := len(x)
	switch kind {
	case NoiseBall:
		var nn float64
		for nn == 0 {
			for j := range g {
				g[j] = rng.NormFloat64()
				nn += g[j] * g[j]
			}
		}
		r := s * math.Pow(rng.Float64(), 1/float64(D)) / math.Sqrt(nn)
		for j := range x {
			x[j] += r * g[j]
		}
	case NoiseGaussian:
		for j := range x {
			x[j] += s * rng.NormFloat64()
		}
	case NoiseGaussianNormalized:
		sd := s / math.Sqrt(float64(D))
		for j := range x {
			x[j] += sd * rng.NormFloat64()
		}
	}
}
