package dpsgd

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// z5 is the two-sided standard normal quantile for a false-failure rate of
// 10⁻⁵ per check (as in google/differential-privacy's noise tests).
const z5 = 4.41717

// zeroLoss runs the forward and backward passes with no loss gradient, so
// every clipped gradient is 0 and a step's update is pure noise.
func zeroLoss(f *fixture) LossFunc {
	return func(cells []int) (float64, error) {
		x := f.in.View(0, 0, len(cells), f.data.Cols)
		for i, r := range cells {
			copy(x.RawRowView(i), f.data.RawRowView(r))
		}
		f.ae.Forward(x)
		f.ae.Backward()
		return 0, nil
	}
}

// TestNoiseScale checks the noise of one step: with zero gradients and SGD
// at lr 1, the update of a perturbed parameter is −N(0, σ²C²)/(qN); the
// rest must not move. The mean and variance of the n scaled updates are
// compared with 0 and σ²C² within z·σC/√n and z·σ²C²·√(2/n) (normal
// approximations of the sampling distributions), so each check fails
// falsely with probability about 10⁻⁵. It runs with seeded (xoshiro) and
// secure (ChaCha8) noise.
func TestNoiseScale(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(map[bool]string{false: "seeded", true: "secure"}[secure], func(t *testing.T) { testNoiseScale(t, secure) })
	}
}

func testNoiseScale(t *testing.T, secure bool) {
	const records = 50
	f := newFixture(t, records, 4000, 16, 1, nn.Tanh, 3) // 48,116 noised parameters: variance within ±2.9 %
	const q, sigma, c = 0.2, 1.7, 0.3
	before := append([]float32(nil), f.ae.Params...)
	opt, _ := nn.NewSGD(len(f.ae.Params), nn.SGDConfig{LR: 1})
	d, err := New(&f.ae.Net, opt, records, Config{SampleRate: q, NoiseMultiplier: sigma, ClipNorm: c,
		Perturbed: LayerRange{1, 2}, Seed: 42, Secure: secure}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(zeroLoss(f)); err != nil {
		t.Fatal(err)
	}
	lo, hi := f.ae.ParamRange(1, 2)
	var sum, sum2 float64
	for k := lo; k < hi; k++ {
		e := -float64(f.ae.Params[k]-before[k]) * q * records
		sum += e
		sum2 += e * e
	}
	n := float64(hi - lo)
	mean, v := sum/n, sum2/n-(sum/n)*(sum/n)
	sd := sigma * c
	if math.Abs(mean) > z5*sd/math.Sqrt(n) {
		t.Errorf("noise mean = %.5g, want 0 ± %.3g", mean, z5*sd/math.Sqrt(n))
	}
	if math.Abs(v-sd*sd) > z5*sd*sd*math.Sqrt(2/n) {
		t.Errorf("noise variance = %.5g, want %.5g ± %.3g", v, sd*sd, z5*sd*sd*math.Sqrt(2/n))
	}
	for k := range f.ae.Params {
		if (k < lo || k >= hi) && f.ae.Params[k] != before[k] {
			t.Fatalf("parameter %d outside the perturbed layers moved from %g to %g", k, before[k], f.ae.Params[k])
		}
	}
}

// TestPoissonSampling checks the batch sizes of Poisson sampling against
// Binomial(N, q): their mean within z·√(Nq(1−q)/steps) and their variance
// within z·Nq(1−q)·√(2/steps) (false-failure rate about 10⁻⁵ each), and
// that batches are sorted and without repeats.
func TestPoissonSampling(t *testing.T) {
	const n, q, steps = 1000, 0.1, 2000
	s := newSampler(n)
	rng := rand.New(newSource(7, 1, false))
	var sum, sum2 float64
	for range steps {
		b := s.next(Poisson, q, rng)
		for i := 1; i < len(b); i++ {
			if b[i] <= b[i-1] {
				t.Fatalf("batch not strictly increasing at %d: %d, %d", i, b[i-1], b[i])
			}
		}
		sum += float64(len(b))
		sum2 += float64(len(b)) * float64(len(b))
	}
	mean, v := sum/steps, sum2/steps-(sum/steps)*(sum/steps)
	wantV := n * q * (1 - q)
	if math.Abs(mean-n*q) > z5*math.Sqrt(wantV/steps) {
		t.Errorf("mean batch size = %.4g, want %g ± %.3g", mean, n*q, z5*math.Sqrt(wantV/steps))
	}
	if math.Abs(v-wantV) > z5*wantV*math.Sqrt(2.0/steps) {
		t.Errorf("batch size variance = %.4g, want %.4g ± %.3g", v, wantV, z5*wantV*math.Sqrt(2.0/steps))
	}
}

// TestShuffledSampling checks that shuffled batches have size round(qN) and
// that an epoch visits distinct records.
func TestShuffledSampling(t *testing.T) {
	const n, q = 103, 0.1
	s := newSampler(n)
	rng := rand.New(newSource(1, 1, false))
	seen := make(map[int]bool)
	for range n / 10 {
		b := s.next(Shuffled, q, rng)
		if len(b) != 10 {
			t.Fatalf("shuffled batch size = %d, want 10", len(b))
		}
		for _, r := range b {
			if seen[r] {
				t.Fatalf("record %d repeated within an epoch", r)
			}
			seen[r] = true
		}
	}
}

type recorder struct {
	q, sigma []float64
	refuse   error
}

func (r *recorder) RecordStep(q, sigma float64) error {
	if r.refuse != nil {
		return r.refuse
	}
	r.q, r.sigma = append(r.q, q), append(r.sigma, sigma)
	return nil
}

var errBudget = errors.New("budget exhausted")

// TestRecorder checks that each step is recorded with (q, σ), that a
// refused step changes nothing, and that shuffled batches are not covered.
func TestRecorder(t *testing.T) {
	f := newFixture(t, 30, 8, 16, 1, nn.Tanh, 2)
	opt, _ := nn.NewAdam(len(f.ae.Params), nn.AdamConfig{LR: 1e-2})
	rec := &recorder{}
	cfg := Config{SampleRate: 0.2, NoiseMultiplier: 1.1, ClipNorm: 1, Perturbed: LayerRange{1, 6}, Seed: 1}
	d, err := New(&f.ae.Net, opt, 30, cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := d.Step(f.loss); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.q) != 3 || rec.q[0] != 0.2 || rec.sigma[2] != 1.1 {
		t.Errorf("recorded q = %v, σ = %v, want three steps of (0.2, 1.1)", rec.q, rec.sigma)
	}
	before := append([]float32(nil), f.ae.Params...)
	rec.refuse = errBudget
	if _, err := d.Step(f.loss); !errors.Is(err, errBudget) {
		t.Errorf("Step with a refusing recorder = %v, want an error wrapping %v", err, errBudget)
	}
	for k := range before {
		if before[k] != f.ae.Params[k] {
			t.Fatalf("refused step moved parameter %d", k)
		}
	}
	if !cfg.Covered() {
		t.Errorf("Config{Batching: Poisson}.Covered() = false, want true")
	}
	if cfg.Batching = Shuffled; cfg.Covered() {
		t.Errorf("Config{Batching: Shuffled}.Covered() = true, want false")
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{SampleRate: 0.1, NoiseMultiplier: 1, ClipNorm: 0.1, Perturbed: LayerRange{1, 3}}
	tests := []struct {
		desc    string
		mod     func(*Config)
		wantErr bool
	}{
		{"valid", func(*Config) {}, false},
		{"q = 1", func(c *Config) { c.SampleRate = 1 }, false},
		{"σ = 0", func(c *Config) { c.NoiseMultiplier = 0 }, false},
		{"range 6-6", func(c *Config) { c.Perturbed = LayerRange{6, 6} }, false},
		{"q = 0", func(c *Config) { c.SampleRate = 0 }, true},
		{"q > 1", func(c *Config) { c.SampleRate = 1.5 }, true},
		{"q NaN", func(c *Config) { c.SampleRate = math.NaN() }, true},
		{"σ < 0", func(c *Config) { c.NoiseMultiplier = -1 }, true},
		{"σ Inf", func(c *Config) { c.NoiseMultiplier = math.Inf(1) }, true},
		{"σ NaN", func(c *Config) { c.NoiseMultiplier = math.NaN() }, true},
		{"C = 0", func(c *Config) { c.ClipNorm = 0 }, true},
		{"C Inf", func(c *Config) { c.ClipNorm = math.Inf(1) }, true},
		{"range 0-3", func(c *Config) { c.Perturbed = LayerRange{0, 3} }, true},
		{"range 4-7", func(c *Config) { c.Perturbed = LayerRange{4, 7} }, true},
		{"range 3-2", func(c *Config) { c.Perturbed = LayerRange{3, 2} }, true},
		{"bad clipping", func(c *Config) { c.Clipping = 5 }, true},
		{"bad batching", func(c *Config) { c.Batching = 5 }, true},
		{"negative views", func(c *Config) { c.Views = -1 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c := ok
			tc.mod(&c)
			if err := c.Validate(6); (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrConfig)) {
				t.Errorf("Config(%+v).Validate(6) = %v, want error %v wrapping ErrConfig", c, err, tc.wantErr)
			}
		})
	}
}

// TestNonFiniteLoss checks that a NaN loss stops the step with
// ErrNonFinite and changes no parameter.
func TestNonFiniteLoss(t *testing.T) {
	f := newFixture(t, 10, 8, 16, 1, nn.Tanh, 2)
	opt, _ := nn.NewAdam(len(f.ae.Params), nn.AdamConfig{LR: 1e-2})
	d, _ := New(&f.ae.Net, opt, 10, Config{SampleRate: 1, ClipNorm: 1, Perturbed: LayerRange{1, 6}}, nil)
	before := append([]float32(nil), f.ae.Params...)
	_, err := d.Step(func(cells []int) (float64, error) { return math.NaN(), nil })
	if !errors.Is(err, ErrNonFinite) {
		t.Errorf("Step(NaN loss) = %v, want an error wrapping ErrNonFinite", err)
	}
	for k := range before {
		if before[k] != f.ae.Params[k] {
			t.Fatalf("failed step moved parameter %d", k)
		}
	}
}

// TestDPSGDLearns trains the small autoencoder with DP-SGD (σ = 0.3,
// all layers) and checks the per-sample loss falls by 30 %.
func TestDPSGDLearns(t *testing.T) {
	const records = 200
	f := newFixture(t, records, 10, 64, 1, nn.Tanh, 4)
	// Make the data low-rank so there is something to learn.
	for i := range records {
		row := f.data.RawRowView(i)
		a, b := row[0], row[1]
		for j := range row {
			row[j] = a*float32(j%3-1) + b*float32(j%2)
		}
	}
	opt, _ := nn.NewAdam(len(f.ae.Params), nn.AdamConfig{LR: 1e-2})
	d, err := New(&f.ae.Net, opt, records, Config{SampleRate: 0.25, NoiseMultiplier: 0.3, ClipNorm: 1,
		Perturbed: LayerRange{1, 6}, Seed: 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64
	for s := range 300 {
		st, err := d.Step(f.loss)
		if err != nil {
			t.Fatal(err)
		}
		if s < 10 {
			first += st.Loss / 10
		}
		if s >= 290 {
			last += st.Loss / 10
		}
	}
	if !(last < 0.7*first) {
		t.Errorf("DP-SGD loss went from %.4g to %.4g, want a fall of at least 30%%", first, last)
	}
}

// TestStepAllocs checks that a DP-SGD step allocates nothing.
func TestStepAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	f := newFixture(t, 64, 10, 16, 2, nn.ReLU, 1)
	opt, _ := nn.NewAdam(len(f.ae.Params), nn.AdamConfig{LR: 1e-3})
	d, _ := New(&f.ae.Net, opt, 64, Config{SampleRate: 0.3, NoiseMultiplier: 1, ClipNorm: 0.1,
		Perturbed: LayerRange{1, 3}, Views: 2}, nil)
	loss := f.loss
	if a := testing.AllocsPerRun(20, func() { d.Step(loss) }); a != 0 {
		t.Errorf("Step allocates %v times, want 0", a)
	}
}

// TestFirstViewOnlyLayers checks that layers which ran on the first view's
// rows only (nn.Autoencoder.ForwardDecode, as DCAN's stage 1 decodes only
// the cell itself) give the same clipped sum and norms as a full forward
// pass whose other views' outputs receive no gradient.
func TestFirstViewOnlyLayers(t *testing.T) {
	const records, genes = 12, 9
	run := func(decodeFirst bool) ([]float32, StepStats) {
		f := newFixture(t, records, genes, 16, 2, nn.Tanh, 5)
		loss := func(cells []int) (float64, error) {
			m := len(cells)
			x := f.in.View(0, 0, 2*m, genes)
			for i, r := range cells {
				copy(x.RawRowView(i), f.data.RawRowView(r))
				row := x.RawRowView(m + i)
				copy(row, f.data.RawRowView(r))
				row[r%genes] = 0
			}
			if decodeFirst {
				f.ae.ForwardDecode(x, m)
			} else {
				f.ae.Forward(x)
			}
			first := func(a compute.Matrix) compute.Matrix { return a.View(0, 0, m, genes) }
			l := nn.MSE(first(f.ae.OutputGrad(0)), first(f.ae.Output(0)), first(x), 1)
			z, dz := f.ae.Latent(), f.ae.LatentGrad()
			d := z.Cols
			l += nn.NegCosine(dz.View(0, 0, m, d), dz.View(m, 0, m, d), z.View(0, 0, m, d), z.View(m, 0, m, d), 1)
			f.ae.Backward()
			return l, nil
		}
		dp, err := New(&f.ae.Net, nil, records, Config{SampleRate: 0.5, ClipNorm: 0.05, Views: 2,
			Perturbed: LayerRange{First: 1, Last: 3}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		batch := []int{0, 2, 3, 5, 7, 8, 9, 11, 1} // 9 cells: chunks of 8 and 1
		st, err := dp.ClippedSum(batch, loss)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), f.ae.Grads...), st
	}
	want, wantSt := run(false)
	got, gotSt := run(true)
	if gotSt.Clipped[0] == 0 || gotSt.Clipped[1] == 0 {
		t.Fatalf("no record was clipped (%+v): the test would not see the factors", gotSt)
	}
	for k := range 2 {
		if math.Abs(gotSt.MeanNorm[k]-wantSt.MeanNorm[k]) > 1e-5*wantSt.MeanNorm[k] || gotSt.Clipped[k] != wantSt.Clipped[k] {
			t.Errorf("group %d: mean norm %v, clipped %v; full forward: %v, %v", k, gotSt.MeanNorm[k], gotSt.Clipped[k], wantSt.MeanNorm[k], wantSt.Clipped[k])
		}
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5*(1e-3+math.Abs(float64(want[i]))) {
			t.Fatalf("gradient %d = %v, full forward gives %v", i, got[i], want[i])
		}
	}
}
