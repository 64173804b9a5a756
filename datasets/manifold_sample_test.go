package datasets

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// The statistical checks below use z-bounds of 5 standard errors: each
// falsely fails with probability below 6e-7 (normal approximation).

// TestManifoldBallNoise checks that ball noise stays within the radius and
// is uniform in the ball: (‖e‖/s)^D ~ U(0, 1), so its mean is 1/2 with
// standard error 1/√(12 n) (noise on the sphere of radius s would give 1).
func TestManifoldBallNoise(t *testing.T) {
	for _, D := range []int{2, 5, 20} {
		t.Run(fmt.Sprintf("D=%d", D), func(t *testing.T) {
			kind := Circle
			if D > 2 {
				kind = Sphere
			}
			m, err := NewManifold(ManifoldConfig{Kind: kind, D: D, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			const n, s = 20000, 0.3
			smp, err := m.Sample(SampleConfig{N: n, Noise: NoiseBall, Scale: s, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			var mean float64
			for i := range n {
				var r2 float64
				for j := range D {
					e := smp.Noisy[i*D+j] - smp.Clean[i*D+j]
					r2 += e * e
				}
				r := math.Sqrt(r2)
				if r > s*(1+1e-12) {
					t.Fatalf("ball noise norm %g exceeds the radius %g", r, s)
				}
				mean += math.Pow(r/s, float64(D))
			}
			mean /= n
			if tol := 5 / math.Sqrt(12*n); math.Abs(mean-0.5) > tol {
				t.Errorf("mean of (‖e‖/s)^D = %.4f, want 0.5 ± %.4f (uniform in the ball)", mean, tol)
			}
		})
	}
}

// TestManifoldGaussianNoise checks the per-coordinate variance of both
// Gaussian noises: the mean of e_k² over n·D coordinates is σ² with
// standard error σ²√(2/(nD)).
func TestManifoldGaussianNoise(t *testing.T) {
	const n, D, s = 5000, 8, 0.2
	m, _ := NewManifold(ManifoldConfig{Kind: Sphere, D: D, Seed: 1})
	for _, tc := range []struct {
		desc  string
		noise NoiseKind
		sd    float64
	}{
		{"N(0, s² I)", NoiseGaussian, s},
		{"N(0, s²/D I)", NoiseGaussianNormalized, s / math.Sqrt(D)},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			smp, _ := m.Sample(SampleConfig{N: n, Noise: tc.noise, Scale: s, Seed: 3})
			var ss, sum float64
			for k := range smp.Noisy {
				e := smp.Noisy[k] - smp.Clean[k]
				ss += e * e
				sum += e
			}
			v := tc.sd * tc.sd
			got := ss / (n * D)
			if tol := 5 * v * math.Sqrt(2.0/(n*D)); math.Abs(got-v) > tol {
				t.Errorf("mean e² = %.6g, want %.6g ± %.2g", got, v, tol)
			}
			if tol := 5 * tc.sd / math.Sqrt(n*D); math.Abs(sum/(n*D)) > tol {
				t.Errorf("mean e = %.3g, want 0 ± %.2g", sum/(n*D), tol)
			}
		})
	}
}

// TestTorusAreaUniform checks that the tube angle θ has density
// (1 + a cos θ)/(2π), a = r/R = 1/2 (area-uniform), not uniform: E cos θ =
// a/2 = 1/4 with variance E cos²θ − 1/16 = 7/16; E sin θ = 0 with variance
// E sin²θ = 1/2; and a χ² test of 12 equal θ bins against the area
// density (critical value 37.4 for 11 degrees of freedom at p = 1e-4).
func TestTorusAreaUniform(t *testing.T) {
	const n = 20000
	m, _ := NewManifold(ManifoldConfig{Kind: Torus})
	smp, _ := m.Sample(SampleConfig{N: n, Seed: 11})
	const a = TorusTubeR / TorusR
	var sumCos, sumSin, sumCosPhi float64
	const bins = 12
	var counts [bins]float64
	for i := range n {
		x := smp.Clean[i*3 : i*3+3]
		rho := math.Hypot(x[0], x[1])
		th := math.Atan2(x[2], rho-TorusR)
		sumCos += math.Cos(th)
		sumSin += math.Sin(th)
		sumCosPhi += x[0] / rho
		b := int((th + math.Pi) / (2 * math.Pi) * bins)
		counts[min(b, bins-1)]++
	}
	if tol := 5 * math.Sqrt(7.0/16/n); math.Abs(sumCos/n-a/2) > tol {
		t.Errorf("mean cos θ = %.4f, want %.4f ± %.4f (area-uniform)", sumCos/n, a/2, tol)
	}
	if tol := 5 * math.Sqrt(0.5/n); math.Abs(sumSin/n) > tol || math.Abs(sumCosPhi/n) > tol {
		t.Errorf("mean sin θ = %.4f, mean cos φ = %.4f, want 0 ± %.4f", sumSin/n, sumCosPhi/n, tol)
	}
	var chi2 float64
	for b := range bins {
		lo := -math.Pi + 2*math.Pi*float64(b)/bins
		hi := lo + 2*math.Pi/bins
		p := (hi - lo + a*(math.Sin(hi)-math.Sin(lo))) / (2 * math.Pi)
		d := counts[b] - n*p
		chi2 += d * d / (n * p)
	}
	if chi2 > 37.4 {
		t.Errorf("χ² of θ bins against the area density = %.1f, want ≤ 37.4 (11 d.f., p = 1e-4); counts %v", chi2, counts)
	}
}

// TestManifoldDeterministic checks that equal seeds give equal embeddings
// and samples, and different seeds different ones.
func TestManifoldDeterministic(t *testing.T) {
	for k := Circle; k <= SwissRoll; k++ {
		t.Run(k.String(), func(t *testing.T) {
			draw := func(embedSeed, seed uint64) *ManifoldSample {
				m, err := NewManifold(ManifoldConfig{Kind: k, D: 7, Seed: embedSeed})
				if err != nil {
					t.Fatal(err)
				}
				s, err := m.Sample(SampleConfig{N: 100, Scale: 0.1, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			a, b := draw(1, 2), draw(1, 2)
			if !slices.Equal(a.Clean, b.Clean) || !slices.Equal(a.Noisy, b.Noisy) {
				t.Errorf("two samples with equal seeds differ")
			}
			if c := draw(1, 3); slices.Equal(a.Clean, c.Clean) {
				t.Errorf("samples with seeds 2 and 3 are equal")
			}
			if c := draw(4, 2); slices.Equal(a.Clean, c.Clean) {
				t.Errorf("embeddings with seeds 1 and 4 give equal points")
			}
		})
	}
}

var manifoldSink *ManifoldSample

func BenchmarkManifoldDistance(b *testing.B) {
	for k := Circle; k <= SwissRoll; k++ {
		b.Run(k.String(), func(b *testing.B) {
			m, _ := NewManifold(ManifoldConfig{Kind: k, D: 10, Seed: 1})
			s, _ := m.Sample(SampleConfig{N: 10000, Scale: 0.3, Seed: 2})
			dst := make([]float64, s.N)
			b.ReportAllocs()
			for b.Loop() {
				if err := m.DistancesTo(dst, s.Noisy); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.N)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			manifoldSink = s
		})
	}
}
