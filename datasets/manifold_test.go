package datasets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestManifoldConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		cfg     ManifoldConfig
		wantErr bool
	}{
		{"circle native", ManifoldConfig{Kind: Circle}, false},
		{"circle in R^2 explicitly", ManifoldConfig{Kind: Circle, D: 2}, false},
		{"sphere in R^100", ManifoldConfig{Kind: Sphere, D: 100}, false},
		{"torus below native", ManifoldConfig{Kind: Torus, D: 2}, true},
		{"negative D", ManifoldConfig{Kind: Circle, D: -1}, true},
		{"D too large", ManifoldConfig{Kind: Circle, D: maxManifoldAmbient + 1}, true},
		{"unknown kind", ManifoldConfig{Kind: SwissRoll + 1}, true},
		{"negative kind", ManifoldConfig{Kind: -1}, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("%+v.Validate() = %v, want error %v", tc.cfg, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadGeneratorConfig) {
				t.Errorf("%+v.Validate() = %v, want it to wrap ErrBadGeneratorConfig", tc.cfg, err)
			}
		})
	}
}

func TestManifoldSampleValidate(t *testing.T) {
	m, err := NewManifold(ManifoldConfig{Kind: Sphere})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc    string
		cfg     SampleConfig
		wantErr bool
	}{
		{"normal", SampleConfig{N: 10, Scale: 0.1}, false},
		{"zero noise", SampleConfig{N: 1}, false},
		{"zero n", SampleConfig{N: 0}, true},
		{"negative n", SampleConfig{N: -5}, true},
		{"negative scale", SampleConfig{N: 5, Scale: -0.1}, true},
		{"NaN scale", SampleConfig{N: 5, Scale: math.NaN()}, true},
		{"Inf scale", SampleConfig{N: 5, Scale: math.Inf(1)}, true},
		{"bad noise kind", SampleConfig{N: 5, Noise: NoiseGaussianNormalized + 1}, true},
		{"too many", SampleConfig{N: maxManifoldSampleLen}, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := m.Sample(tc.cfg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Sample(%+v) = %v, want error %v", tc.cfg, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadGeneratorConfig) {
				t.Errorf("Sample(%+v) = %v, want it to wrap ErrBadGeneratorConfig", tc.cfg, err)
			}
		})
	}
}

func TestParseManifoldKind(t *testing.T) {
	for k := Circle; k <= SwissRoll; k++ {
		got, err := ParseManifoldKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseManifoldKind(%q) = %v, %v, want %v", k.String(), got, err, k)
		}
	}
	if _, err := ParseManifoldKind("klein"); !errors.Is(err, ErrBadGeneratorConfig) {
		t.Errorf("ParseManifoldKind(klein) = %v, want ErrBadGeneratorConfig", err)
	}
}

// TestManifoldCleanOnManifold checks that clean points lie on the manifold,
// natively and embedded, and that the embedding is an isometry (QᵀQ = I).
func TestManifoldCleanOnManifold(t *testing.T) {
	for k := Circle; k <= SwissRoll; k++ {
		_, dim, _ := k.native()
		for _, D := range []int{0, dim + 4} {
			t.Run(fmt.Sprintf("%v/D=%d", k, D), func(t *testing.T) {
				m, err := NewManifold(ManifoldConfig{Kind: k, D: D, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				s, err := m.Sample(SampleConfig{N: 500, Scale: 0.1, Seed: 4})
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]float64, s.N)
				if err := m.DistancesTo(dst, s.Clean); err != nil {
					t.Fatal(err)
				}
				if worst := slices.Max(dst); worst > 1e-12 {
					t.Errorf("%v D=%d: max distance of clean points = %g, want ≤ 1e-12", k, s.D, worst)
				}
				if q := m.Embedding(); q != nil {
					for a := range dim {
						for b := range dim {
							var dot float64
							for i := range s.D {
								dot += q[i*dim+a] * q[i*dim+b]
							}
							want := 0.0
							if a == b {
								want = 1
							}
							if math.Abs(dot-want) > 1e-12 {
								t.Errorf("(QᵀQ)[%d][%d] = %g, want %g", a, b, dot, want)
							}
						}
					}
				}
			})
		}
	}
}

// TestManifoldNormalOffsets checks the distance functions on points moved
// off the manifold by a known amount along a normal (less than the reach,
// so the foot point stays the same).
func TestManifoldNormalOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t.Run("torus", func(t *testing.T) {
		m, _ := NewManifold(ManifoldConfig{Kind: Torus})
		for range 300 {
			th, ph := 2*math.Pi*rng.Float64(), 2*math.Pi*rng.Float64()
			delta := 0.3*rng.Float64() - 0.15 // inside or outside the tube
			r := TorusTubeR + delta
			x := []float64{(TorusR + r*math.Cos(th)) * math.Cos(ph), (TorusR + r*math.Cos(th)) * math.Sin(ph), r * math.Sin(th)}
			if got := m.Distance(x); math.Abs(got-math.Abs(delta)) > 1e-12 {
				t.Fatalf("Distance(%v) = %.15g, want %.15g", x, got, math.Abs(delta))
			}
		}
	})
	t.Run("swissroll", func(t *testing.T) {
		m, _ := NewManifold(ManifoldConfig{Kind: SwissRoll})
		const s = SwissRollScale
		for range 300 {
			tt := SwissRollT0 + 0.5 + (SwissRollT1-SwissRollT0-1)*rng.Float64()
			v := 10 * (2*rng.Float64() - 1)
			tx, tz := math.Cos(tt)-tt*math.Sin(tt), math.Sin(tt)+tt*math.Cos(tt)
			nn := math.Hypot(tx, tz)
			delta := 0.4*rng.Float64() - 0.2
			x := []float64{s*tt*math.Cos(tt) + delta*tz/nn, s * v, s*tt*math.Sin(tt) - delta*tx/nn}
			if got := m.Distance(x); math.Abs(got-math.Abs(delta)) > 1e-12 {
				t.Fatalf("Distance at t=%g, offset %g = %.15g, want %.15g", tt, delta, got, math.Abs(delta))
			}
		}
	})
	t.Run("embedded sphere", func(t *testing.T) {
		m, _ := NewManifold(ManifoldConfig{Kind: Sphere, D: 10, Seed: 5})
		s, _ := m.Sample(SampleConfig{N: 200, Seed: 6})
		q := m.Embedding()
		for i := range s.N {
			// An offset orthogonal to the range of Q, of length 0.3.
			off := make([]float64, 10)
			for j := range off {
				off[j] = rng.NormFloat64()
			}
			for c := range 3 {
				var dot float64
				for j := range off {
					dot += q[j*3+c] * off[j]
				}
				for j := range off {
					off[j] -= dot * q[j*3+c]
				}
			}
			var nn float64
			for _, v := range off {
				nn += v * v
			}
			x := slices.Clone(s.Clean[i*10 : (i+1)*10])
			for j := range x {
				x[j] += 0.3 * off[j] / math.Sqrt(nn)
			}
			if got := m.Distance(x); math.Abs(got-0.3) > 1e-12 {
				t.Fatalf("Distance(point + orthogonal 0.3) = %.15g, want 0.3", got)
			}
		}
	})
}

// denseManifold returns points on the native manifold on a parameter grid
// of about n points per intrinsic dimension, and the largest distance from
// any point of M to the grid (its covering radius, bounded from the grid
// spacing).
func denseManifold(k ManifoldKind, n int) (pts [][3]float64, cover float64) {
	switch k {
	case Circle:
		for a := range n {
			t := 2 * math.Pi * float64(a) / float64(n)
			pts = append(pts, [3]float64{math.Cos(t), math.Sin(t)})
		}
		return pts, math.Pi / float64(n)
	case Sphere:
		// Latitude-longitude grid: steps π/n in latitude, 2π/n in longitude.
		for a := 0; a <= n; a++ {
			lat := math.Pi*float64(a)/float64(n) - math.Pi/2
			for b := range n {
				lon := 2 * math.Pi * float64(b) / float64(n)
				pts = append(pts, [3]float64{math.Cos(lat) * math.Cos(lon), math.Cos(lat) * math.Sin(lon), math.Sin(lat)})
			}
		}
		return pts, math.Hypot(math.Pi/float64(n), 2*math.Pi/float64(n)) / 2
	case Torus:
		for a := range n {
			th := 2 * math.Pi * float64(a) / float64(n)
			for b := range n {
				ph := 2 * math.Pi * float64(b) / float64(n)
				rho := TorusR + TorusTubeR*math.Cos(th)
				pts = append(pts, [3]float64{rho * math.Cos(ph), rho * math.Sin(ph), TorusTubeR * math.Sin(th)})
			}
		}
		return pts, math.Hypot(TorusTubeR*2*math.Pi/float64(n), (TorusR+TorusTubeR)*2*math.Pi/float64(n)) / 2
	default:
		// The spiral arc only (x₂ = 0): the height is handled exactly.
		for a := 0; a <= n*n; a++ {
			tt := SwissRollT0 + (SwissRollT1-SwissRollT0)*float64(a)/float64(n*n)
			pts = append(pts, [3]float64{SwissRollScale * tt * math.Cos(tt), 0, SwissRollScale * tt * math.Sin(tt)})
		}
		dt := (SwissRollT1 - SwissRollT0) / float64(n*n)
		return pts, SwissRollScale * math.Hypot(1, SwissRollT1) * dt / 2
	}
}

// TestManifoldDistanceBruteForce compares Distance with the minimum
// distance to a dense sample of the manifold: exact ≤ brute ≤ exact + cover.
func TestManifoldDistanceBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tc := range []struct {
		kind ManifoldKind
		n    int
		box  float64
	}{
		{Circle, 20000, 2},
		{Sphere, 200, 2},
		{Torus, 250, 1.3},
		{SwissRoll, 200, 5},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			m, _ := NewManifold(ManifoldConfig{Kind: tc.kind})
			_, dim, _ := tc.kind.native()
			grid, cover := denseManifold(tc.kind, tc.n)
			s, _ := m.Sample(SampleConfig{N: 40, Scale: 0.3, Seed: 10})
			queries := slices.Clone(s.Noisy)
			for range 40 * dim {
				queries = append(queries, tc.box*(2*rng.Float64()-1))
			}
			if tc.kind == SwissRoll {
				queries = append(queries, 0, 0, 0, 0.3, 0.5, -0.2, 1.5, 0, 0.01)
			}
			for i := 0; i < len(queries)/dim; i++ {
				x := queries[i*dim : (i+1)*dim]
				y := x
				if tc.kind == SwissRoll { // brute force over the arc: drop the height
					y = []float64{x[0], 0, x[2]}
				}
				brute := math.Inf(1)
				for _, p := range grid {
					var d2 float64
					for j := range dim {
						d := y[j] - p[j]
						d2 += d * d
					}
					brute = math.Min(brute, d2)
				}
				brute = math.Sqrt(brute)
				if tc.kind == SwissRoll {
					hh := SwissRollScale * SwissRollHalfHeight
					brute = math.Hypot(brute, x[1]-math.Max(-hh, math.Min(hh, x[1])))
				}
				got := m.Distance(x)
				if got > brute+1e-12 || got < brute-cover-1e-12 {
					t.Errorf("Distance(%v) = %.12g, want within [%.12g, %.12g] (brute force over %d points)",
						x, got, brute-cover, brute, len(grid))
				}
			}
		})
	}
}
