package nn

import (
	"fmt"

	"github.com/dpscope/dpscope/core/compute"
)

// Output is the kind of output layer of an autoencoder.
type Output int

const (
	// OutputZINB ends the decoder with the three ZINB heads of DP-DCAN:
	// mean μ = clamp(exp(·), 1e-5, 1e6), dispersion θ = clamp(softplus(·),
	// 1e-4, 1e4) and dropout π = sigmoid(·), all Hidden[0]→Genes.
	OutputZINB Output = iota
	// OutputLinear ends the decoder with one linear layer Hidden[0]→Genes,
	// for the MSE loss.
	OutputLinear
)

// Head indices for Autoencoder.Output and OutputGrad with OutputZINB.
const (
	HeadMu    = 0
	HeadTheta = 1
	HeadPi    = 2
)

// AutoencoderConfig configures an autoencoder
//
//	Genes → Hidden[0] → … → Hidden[k-1] → Latent → Hidden[k-1] → … → Hidden[0] → head(s) → Genes
//
// with Act after every hidden layer and a linear bottleneck. Layers are
// numbered 1… in that order, the heads sharing the last number: with the
// DP-DCAN defaults, 1 = G→256, 2 = 256→64, 3 = 64→32, 4 = 32→64,
// 5 = 64→256, 6 = the heads (docs/METHODS.md §1).
type AutoencoderConfig struct {
	// Genes is the input width G. Required.
	Genes int
	// Hidden are the encoder's hidden widths; nil means {256, 64}.
	Hidden []int
	// Latent is the bottleneck width; 0 means 32.
	Latent int
	// Act is the hidden activation, Tanh or ReLU. Required: the zero value
	// Identity is rejected.
	Act Activation
	// Output selects the ZINB heads (the zero value) or a linear output.
	Output Output
	// MaxRows is the largest batch, in rows, that the buffers hold (with
	// two views of each cell, twice the number of cells). Required.
	MaxRows int
	// Init is the initialisation scheme; the zero value is InitPyTorch.
	Init Init
	// Seed seeds the initialisation.
	Seed uint64
}

// withDefaults returns c with its documented defaults filled in.
func (c AutoencoderConfig) withDefaults() AutoencoderConfig {
	if c.Hidden == nil {
		c.Hidden = []int{256, 64}
	}
	if c.Latent == 0 {
		c.Latent = 32
	}
	return c
}

// Validate returns an error wrapping ErrConfig for the first invalid field.
func (c AutoencoderConfig) Validate() error {
	c = c.withDefaults()
	if c.Genes < 1 {
		return configErr("Genes", c.Genes, "at least 1")
	}
	for i, h := range c.Hidden {
		if h < 1 {
			return configErr(fmt.Sprintf("Hidden[%d]", i), h, "at least 1")
		}
	}
	if c.Latent < 1 {
		return configErr("Latent", c.Latent, "at least 1")
	}
	if c.Act != Tanh && c.Act != ReLU {
		return configErr("Act", c.Act, "tanh or relu")
	}
	if c.Output != OutputZINB && c.Output != OutputLinear {
		return configErr("Output", int(c.Output), "OutputZINB or OutputLinear")
	}
	if c.MaxRows < 1 {
		return configErr("MaxRows", c.MaxRows, "at least 1")
	}
	if c.Init != InitPyTorch && c.Init != InitGlorot {
		return configErr("Init", int(c.Init), "InitPyTorch or InitGlorot")
	}
	return nil
}

// Autoencoder is the DP-DCAN autoencoder (or its MSE variant) with its
// batch buffers. It is not safe for concurrent use.
type Autoencoder struct {
	// Net holds the parameters, gradients and layers; dpsgd works on it.
	Net
	cfg     AutoencoderConfig
	enc     []*Dense // encoder, the last is the linear bottleneck
	dec     []*Dense // decoder hidden layers
	heads   []*Dense // 3 ZINB heads or 1 linear output
	decoded bool     // the last pass ran the decoder
}

// NewAutoencoder builds and initialises an autoencoder. It returns an error
// wrapping ErrConfig if cfg is invalid.
func NewAutoencoder(cfg AutoencoderConfig) (*Autoencoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("nn: NewAutoencoder: %w", err)
	}
	cfg = cfg.withDefaults()
	cfg.Hidden = append([]int(nil), cfg.Hidden...)
	var specs []layerSpec
	widths := append(append([]int{cfg.Genes}, cfg.Hidden...), cfg.Latent)
	num := 0
	for i := 1; i < len(widths); i++ { // encoder
		num++
		act := cfg.Act
		if i == len(widths)-1 {
			act = Identity
		}
		specs = append(specs, layerSpec{widths[i-1], widths[i], num, act})
	}
	for i := len(widths) - 1; i > 1; i-- { // decoder hidden layers
		num++
		specs = append(specs, layerSpec{widths[i], widths[i-1], num, cfg.Act})
	}
	num++
	top := cfg.Latent
	if len(cfg.Hidden) > 0 {
		top = cfg.Hidden[0]
	}
	if cfg.Output == OutputZINB {
		specs = append(specs,
			layerSpec{top, cfg.Genes, num, ExpClamp},
			layerSpec{top, cfg.Genes, num, SoftplusClamp},
			layerSpec{top, cfg.Genes, num, Sigmoid})
	} else {
		specs = append(specs, layerSpec{top, cfg.Genes, num, Identity})
	}
	a := &Autoencoder{Net: newNet(specs, cfg.MaxRows, cfg.Init, cfg.Seed), cfg: cfg}
	ne := len(cfg.Hidden) + 1
	a.enc = a.Layers[:ne]
	a.dec = a.Layers[ne : 2*ne-1]
	a.heads = a.Layers[2*ne-1:]
	return a, nil
}

// Config returns the configuration with defaults filled in.
func (a *Autoencoder) Config() AutoencoderConfig { return a.cfg }

// Encode runs the encoder on the rows of x (one sample per row) and marks
// the decoder as not run. The latent gradient buffer is zeroed, ready for
// losses to add into. It panics, wrapping compute.ErrShape, if x is not
// n×Genes with n <= MaxRows.
func (a *Autoencoder) Encode(x compute.Matrix) {
	h := x
	for _, d := range a.enc {
		d.Forward(h)
		h = d.Output()
	}
	a.LatentGrad().Zero()
	for _, d := range a.dec {
		d.Skip()
	}
	for _, d := range a.heads {
		d.Skip()
	}
	a.decoded = false
}

// Forward runs the whole autoencoder on the rows of x. The latent and
// output gradient buffers are zeroed, ready for losses to add into. It
// panics like Encode.
func (a *Autoencoder) Forward(x compute.Matrix) { a.ForwardDecode(x, x.Rows) }

// ForwardDecode runs the encoder on every row of x and the decoder on its
// first rows rows only, for losses that use the codes of the other rows
// but not their reconstructions (DCAN's masked views: decoding them cost
// about half of a stage-1 step and fed nothing). Output and OutputGrad
// then have rows rows, Latent and LatentGrad x.Rows; Backward adds the
// decoder's signal into the first rows rows of LatentGrad. The result for
// those rows is the same, bit for bit, as Forward's. It panics like
// Encode, or wrapping compute.ErrShape if rows is outside 0..x.Rows.
func (a *Autoencoder) ForwardDecode(x compute.Matrix, rows int) {
	if rows < 0 || rows > x.Rows {
		panic(fmt.Errorf("nn: ForwardDecode: %d rows to decode of %d: %w", rows, x.Rows, compute.ErrShape))
	}
	a.Encode(x)
	h := a.Latent().View(0, 0, rows, a.cfg.Latent)
	for _, d := range a.dec {
		d.Forward(h)
		h = d.Output()
	}
	for _, d := range a.heads {
		d.Forward(h)
		d.Signal().Zero()
	}
	a.decoded = true
}

// Latent returns the bottleneck output z of the last pass (n×Latent).
func (a *Autoencoder) Latent() compute.Matrix { return a.enc[len(a.enc)-1].Output() }

// LatentGrad returns the buffer for ∂L/∂z (n×Latent), zeroed by Encode and
// Forward; losses on the embedding add into it.
func (a *Autoencoder) LatentGrad() compute.Matrix { return a.enc[len(a.enc)-1].Signal() }

// NumOutputs returns the number of output heads: 3 for OutputZINB, 1 for
// OutputLinear.
func (a *Autoencoder) NumOutputs() int { return len(a.heads) }

// Output returns head k's output of the last Forward (n×Genes): with
// OutputZINB, k is HeadMu, HeadTheta or HeadPi; with OutputLinear, 0.
func (a *Autoencoder) Output(k int) compute.Matrix { return a.heads[k].Output() }

// OutputGrad returns the buffer for ∂L/∂(head k's output), zeroed by
// Forward; the reconstruction loss adds into it.
func (a *Autoencoder) OutputGrad(k int) compute.Matrix { return a.heads[k].Signal() }

// Backward computes every layer's signal ∂L/∂Z from the gradients the losses
// added into OutputGrad (if the last pass was Forward) and LatentGrad, and
// leaves the weight gradients to Net.AccumulateGrads. It overwrites the
// output and latent gradient buffers.
func (a *Autoencoder) Backward() {
	if a.decoded {
		// The decoder ran on the first rows of the latent (ForwardDecode).
		rows := a.heads[0].Rows()
		latentTop := a.LatentGrad().View(0, 0, rows, a.cfg.Latent)
		dTop := latentTop
		if len(a.dec) > 0 {
			dTop = a.dec[len(a.dec)-1].Signal()
		}
		for i, h := range a.heads {
			h.ActGrad()
			beta := float32(1)
			if i == 0 && len(a.dec) > 0 {
				beta = 0 // the latent buffer already holds the latent losses
			}
			h.BackInputTo(dTop, beta)
		}
		for i := len(a.dec) - 1; i >= 0; i-- {
			d := a.dec[i]
			d.ActGrad()
			if i > 0 {
				d.BackInputTo(a.dec[i-1].Signal(), 0)
			} else {
				d.BackInputTo(latentTop, 1)
			}
		}
	}
	for i := len(a.enc) - 1; i >= 0; i-- {
		d := a.enc[i]
		d.ActGrad()
		if i > 0 {
			d.BackInputTo(a.enc[i-1].Signal(), 0)
		}
	}
}
