package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
)

// TestAutoencoderLayout checks layer numbers, widths and ParamRange of the
// DP-DCAN autoencoder and of the MSE variant.
func TestAutoencoderLayout(t *testing.T) {
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: 2000, Act: Tanh, MaxRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ in, out, num int }{
		{2000, 256, 1}, {256, 64, 2}, {64, 32, 3}, {32, 64, 4}, {64, 256, 5},
		{256, 2000, 6}, {256, 2000, 6}, {256, 2000, 6},
	}
	if len(ae.Layers) != len(want) {
		t.Fatalf("len(Layers) = %d, want %d", len(ae.Layers), len(want))
	}
	for i, w := range want {
		if d := ae.Layers[i]; d.In != w.in || d.Out != w.out || d.Number != w.num {
			t.Errorf("Layers[%d] = %d→%d #%d, want %d→%d #%d", i, d.In, d.Out, d.Number, w.in, w.out, w.num)
		}
	}
	if lo, hi := ae.ParamRange(1, 3); lo != 0 || hi != 2000*256+256+256*64+64+64*32+32 {
		t.Errorf("ParamRange(1, 3) = %d, %d, want 0, %d", lo, hi, 2000*256+256+256*64+64+64*32+32)
	}
	if _, hi := ae.ParamRange(6, 6); hi != len(ae.Params) {
		t.Errorf("ParamRange(6, 6) ends at %d, want %d", hi, len(ae.Params))
	}
	mse, err := NewAutoencoder(AutoencoderConfig{Genes: 2000, Act: ReLU, Output: OutputLinear, MaxRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 2000-256-64-32-64-256-2000: 1,060,864 weights and 2,672 biases.
	if got := len(mse.Params); got != 1063536 {
		t.Errorf("len(Params) of the MSE autoencoder = %d, want 1063536", got)
	}
}

func TestAutoencoderConfigValidate(t *testing.T) {
	ok := AutoencoderConfig{Genes: 10, Act: Tanh, MaxRows: 4}
	tests := []struct {
		desc    string
		mod     func(*AutoencoderConfig)
		wantErr bool
	}{
		{"valid", func(*AutoencoderConfig) {}, false},
		{"relu", func(c *AutoencoderConfig) { c.Act = ReLU }, false},
		{"no hidden layers", func(c *AutoencoderConfig) { c.Hidden = []int{} }, false},
		{"zero genes", func(c *AutoencoderConfig) { c.Genes = 0 }, true},
		{"negative hidden", func(c *AutoencoderConfig) { c.Hidden = []int{8, -1} }, true},
		{"negative latent", func(c *AutoencoderConfig) { c.Latent = -2 }, true},
		{"identity activation", func(c *AutoencoderConfig) { c.Act = Identity }, true},
		{"sigmoid activation", func(c *AutoencoderConfig) { c.Act = Sigmoid }, true},
		{"bad output", func(c *AutoencoderConfig) { c.Output = 7 }, true},
		{"zero rows", func(c *AutoencoderConfig) { c.MaxRows = 0 }, true},
		{"bad init", func(c *AutoencoderConfig) { c.Init = 9 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c := ok
			tc.mod(&c)
			_, err := NewAutoencoder(c)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrConfig)) {
				t.Errorf("NewAutoencoder(%+v) = %v, want error %v wrapping ErrConfig", c, err, tc.wantErr)
			}
		})
	}
}

// TestAutoencoderGradZINB checks every parameter gradient of a small tanh
// ZINB autoencoder against central finite differences, with a loss that
// also acts on the embedding (ZINB + Σ c·z), as DP-DCAN's stages do.
func TestAutoencoderGradZINB(t *testing.T) {
	const n, g = 4, 7
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: g, Hidden: []int{5, 4}, Latent: 3, Act: Tanh, MaxRows: n, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := randMatrix(rng, n, g, -1, 1)
	counts := compute.NewMatrix(n, g, nil)
	for i := range counts.Data {
		if rng.Float64() < 0.6 {
			counts.Data[i] = float32(rng.IntN(9) + 1)
		}
	}
	sf := []float32{0.8, 1, 1.3, 2}
	c := randMatrix(rng, n, 3, -1, 1)
	loss := func() float64 {
		ae.Forward(x)
		l := ZINB(ae.OutputGrad(HeadMu), ae.OutputGrad(HeadTheta), ae.OutputGrad(HeadPi),
			counts, ae.Output(HeadMu), ae.Output(HeadTheta), ae.Output(HeadPi), sf, 1)
		z, dz := ae.Latent(), ae.LatentGrad()
		for i, v := range z.Data[:n*3] {
			l += 0.5 * float64(c.Data[i]) * float64(v)
			dz.Data[i] += 0.5 * c.Data[i]
		}
		return l
	}
	loss()
	ae.Backward()
	ae.AccumulateGrads(0)
	grads := append([]float32(nil), ae.Grads...)
	checkGradVector(t, "Grads", ae.Params, grads, 1e-2, loss, 1e-4, 1e-2, 1e-2, 0)
}

// TestAutoencoderGradMSETwoViews checks the gradient of the ReLU MSE
// autoencoder run on two views of each cell stacked in one batch, with the
// loss MSE(both views) + NegCosine(z of view 1, z of view 2).
func TestAutoencoderGradMSETwoViews(t *testing.T) {
	const cells, g = 3, 6
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: g, Hidden: []int{8}, Latent: 4, Act: ReLU,
		Output: OutputLinear, MaxRows: 2 * cells, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := randMatrix(rng, 2*cells, g, -1, 1)
	loss := func() float64 {
		ae.Forward(x)
		l := MSE(ae.OutputGrad(0), ae.Output(0), x, 1)
		z, dz := ae.Latent(), ae.LatentGrad()
		l += NegCosine(dz.View(0, 0, cells, 4), dz.View(cells, 0, cells, 4), z.View(0, 0, cells, 4), z.View(cells, 0, cells, 4), 1)
		return l
	}
	loss()
	ae.Backward()
	ae.AccumulateGrads(0)
	grads := append([]float32(nil), ae.Grads...)
	checkGradVector(t, "Grads", ae.Params, grads, 1e-3, loss, 2e-3, 1e-2, 1e-2, 3)
}

// TestAutoencoderEncodeOnly checks that Backward after Encode gives the
// encoder the gradient of a latent loss and the decoder none.
func TestAutoencoderEncodeOnly(t *testing.T) {
	const n, g = 3, 5
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: g, Hidden: []int{4}, Latent: 2, Act: Tanh, MaxRows: n, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	x := randMatrix(rng, n, g, -1, 1)
	ae.Forward(x) // leaves the decoder with rows, which Encode must reset
	loss := func() float64 {
		ae.Encode(x)
		z, dz := ae.Latent(), ae.LatentGrad()
		l := 0.0
		for i, v := range z.Data[:n*2] {
			l += float64(v) * float64(v)
			dz.Data[i] += 2 * v
		}
		return l
	}
	loss()
	ae.Backward()
	ae.AccumulateGrads(0)
	grads := append([]float32(nil), ae.Grads...)
	checkGradVector(t, "Grads", ae.Params, grads, 1e-2, loss, 1e-4, 1e-2, 1e-2, 0)
	_, hi := ae.ParamRange(1, 2)
	for i, v := range grads[hi:] {
		if v != 0 {
			t.Fatalf("decoder gradient [%d] = %g, want 0", hi+i, v)
		}
	}
}

// TestAutoencoderLearns trains the MSE autoencoder with Adam on data of rank
// 3 and checks that the reconstruction error falls below 10 % of its
// initial value (a convergence test in the style of gorgonia's
// solvers_test.go, with a fixed seed and step cap).
func TestAutoencoderLearns(t *testing.T) {
	const n, g, rank = 64, 20, 3
	rng := rand.New(rand.NewPCG(8, 8))
	f, l := randMatrix(rng, n, rank, -1, 1), randMatrix(rng, rank, g, -1, 1)
	x := compute.NewMatrix(n, g, nil)
	compute.MulTo(x, f, false, l, false, 1, 0)
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: g, Hidden: []int{32}, Latent: rank, Act: Tanh,
		Output: OutputLinear, MaxRows: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := NewAdam(len(ae.Params), AdamConfig{LR: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64
	for step := range 600 {
		ae.Forward(x)
		last = MSE(ae.OutputGrad(0), ae.Output(0), x, 1.0/n) / n
		if step == 0 {
			first = last
		}
		ae.Backward()
		ae.AccumulateGrads(0)
		opt.Step(ae.Params, ae.Grads)
	}
	if !(last < 0.1*first) || math.IsNaN(last) {
		t.Errorf("MSE after 600 Adam steps = %.4g, want < 10%% of the initial %.4g", last, first)
	}
}

// TestTrainingStepAllocs checks that a whole training step allocates nothing.
func TestTrainingStepAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	const n, g = 16, 12
	ae, err := NewAutoencoder(AutoencoderConfig{Genes: g, Hidden: []int{8}, Latent: 4, Act: Tanh, MaxRows: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x := randMatrix(rng, 2*n, g, 0, 3)
	sf := make([]float32, 2*n)
	for i := range sf {
		sf[i] = 1
	}
	opt, _ := NewAdam(len(ae.Params), AdamConfig{LR: 1e-3})
	allocs := testing.AllocsPerRun(20, func() {
		ae.Forward(x)
		ZINB(ae.OutputGrad(HeadMu), ae.OutputGrad(HeadTheta), ae.OutputGrad(HeadPi),
			x, ae.Output(HeadMu), ae.Output(HeadTheta), ae.Output(HeadPi), sf, 1)
		z, dz := ae.Latent(), ae.LatentGrad()
		NegCosine(dz.View(0, 0, n, 4), dz.View(n, 0, n, 4), z.View(0, 0, n, 4), z.View(n, 0, n, 4), 1)
		ae.Backward()
		ae.AccumulateGrads(0)
		opt.Step(ae.Params, ae.Grads)
	})
	if allocs != 0 {
		t.Errorf("training step allocates %v times, want 0", allocs)
	}
}

// TestForwardDecodeMatchesForward checks that decoding only the first rows
// gives, bit for bit, the outputs of those rows and the weight gradients
// of a full Forward whose other rows' output gradients are zero (DCAN's
// masked views), with and without decoder hidden layers, and that an
// out-of-range row count panics with compute.ErrShape. Bit for bit holds
// on gonum's kernels; with OpenBLAS the test's tiny products fall on both
// sides of compute.GemmThreshold as the row count changes, so they only
// agree to rounding.
func TestForwardDecodeMatchesForward(t *testing.T) {
	b, _ := compute.Init()
	same := func(got, want float32) bool {
		if b.Name == compute.NameGonum {
			return math.Float32bits(got) == math.Float32bits(want)
		}
		return math.Abs(float64(got-want)) <= 1e-5*(1+math.Abs(float64(want)))
	}
	for _, hidden := range [][]int{{8, 5}, {}} {
		const n, rows, genes = 12, 4, 30
		cfg := AutoencoderConfig{Genes: genes, Hidden: hidden, Latent: 3, Act: Tanh, MaxRows: n, Seed: 7}
		full, err := NewAutoencoder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		part, _ := NewAutoencoder(cfg)
		x := randMatrix(rand.New(rand.NewPCG(1, 2)), n, genes, -1, 1)
		run := func(a *Autoencoder, decode func()) ([]float32, []float32) {
			decode()
			for k := range a.NumOutputs() {
				o, g := a.Output(k), a.OutputGrad(k)
				for i := range rows {
					for j, v := range o.RawRowView(i) {
						g.RawRowView(i)[j] += v - float32(k+j%3)
					}
				}
			}
			z, dz := a.Latent(), a.LatentGrad()
			for i := range n {
				for j, v := range z.RawRowView(i) {
					dz.RawRowView(i)[j] += 0.5 * v
				}
			}
			out := append([]float32(nil), a.Output(HeadMu).Data[:rows*genes]...)
			a.Backward()
			a.AccumulateGrads(0)
			return out, append([]float32(nil), a.Grads...)
		}
		outF, gradF := run(full, func() { full.Forward(x) })
		outP, gradP := run(part, func() { part.ForwardDecode(x, rows) })
		if got := part.Output(HeadMu).Rows; got != rows {
			t.Errorf("hidden %v: Output rows = %d, want %d", hidden, got, rows)
		}
		for i := range outF {
			if !same(outP[i], outF[i]) {
				t.Fatalf("hidden %v: output %d = %v, Forward gives %v", hidden, i, outP[i], outF[i])
			}
		}
		for i := range gradF {
			if !same(gradP[i], gradF[i]) {
				t.Fatalf("hidden %v: gradient %d = %v, Forward gives %v", hidden, i, gradP[i], gradF[i])
			}
		}
		// Decoding no row leaves only the latent gradient, as Encode.
		part.ForwardDecode(x, 0)
		enc, _ := NewAutoencoder(cfg)
		enc.Encode(x)
		for _, a := range []*Autoencoder{part, enc} {
			z, dz := a.Latent(), a.LatentGrad()
			copy(dz.Data, z.Data)
			a.Backward()
			a.AccumulateGrads(0)
		}
		for i := range enc.Grads {
			if !same(part.Grads[i], enc.Grads[i]) {
				t.Fatalf("hidden %v: ForwardDecode(x, 0) gradient %d = %v, Encode gives %v", hidden, i, part.Grads[i], enc.Grads[i])
			}
		}
		for _, bad := range []int{-1, n + 1} {
			func() {
				defer func() {
					if err, ok := recover().(error); !ok || !errors.Is(err, compute.ErrShape) {
						t.Errorf("ForwardDecode(x, %d) recovered %v, want an error wrapping compute.ErrShape", bad, err)
					}
				}()
				part.ForwardDecode(x, bad)
			}()
		}
	}
}
