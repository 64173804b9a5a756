package dpsgd

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"

	"github.com/dpscope/dpscope/internal/errkind"
)

// Recorder records the privacy cost of each step before it is taken, for
// example the accountant's ledger. RecordStep is called with the sampling
// rate q and the noise multiplier σ of the step about to run (for Shuffled
// batches q = B/N, which the accountant must not treat as Poisson: see
// Config.Covered). A non-nil error refuses the step: Step returns it
// wrapped and changes nothing.
type Recorder interface {
	RecordStep(q, sigma float64) error
}

// LossFunc runs one chunk of a batch: for the records cells, it must build
// the input (Views rows per record, view s of record i in row
// s·len(cells) + i), run the network's forward pass (a layer may run on
// every row or on the first view's len(cells) rows only, as the decoder
// does under nn.Autoencoder.ForwardDecode), add the per-sample
// loss gradients and run the backward pass that fills every layer's signal
// (nn.Autoencoder.Backward), but not form the weight gradients. It returns
// Σ_i L_i over the chunk. cells is reused after the call returns.
type LossFunc func(cells []int) (loss float64, err error)

// StepStats describes one step.
type StepStats struct {
	// Step counts the steps taken, starting at 1.
	Step int
	// BatchSize is the number of records in the batch.
	BatchSize int
	// Loss is the mean per-sample loss over the batch (0 for an empty one).
	Loss float64
	// MeanNorm is the mean per-sample gradient norm, before clipping, of
	// the perturbed group [0] and of the rest [1]; with ClipJoint [0] is
	// the whole gradient's and [1] is 0.
	MeanNorm [2]float64
	// Clipped is the fraction of samples whose factor was below 1, per
	// group as MeanNorm.
	Clipped [2]float64
}

// DPSGD runs DP-SGD steps on a network. It owns every buffer it needs,
// allocates nothing per step and starts no goroutine; between steps
// compute.Split's helper goroutine may draw its next step's noise while it
// idles (noiseAhead). Not safe for concurrent use.
type DPSGD struct {
	cfg      Config
	net      *nn.Net
	opt      nn.Optimizer
	rec      Recorder
	records  int
	sampling *rand.Rand
	noise    *normalSource
	ahead    noiseAhead // the next step's noise, drawn ahead
	smp      *sampler
	maxCells int
	group    []int        // group of each layer of net
	sq       [2][]float64 // per-sample squared norms of the chunk
	fac      [2][]float32 // per-row clip factors of the chunk (a cell's factor on each of its views' rows)
	scratch  []float32    // for nn.Dense.AccumulateGradWeighted
	steps    int
}

// New returns DP-SGD for net, a data set of records records and the
// optimizer opt (built for len(net.Params) parameters). rec may be nil.
// Chunks hold net.MaxRows()/Views records. It returns an error wrapping
// ErrConfig if cfg is invalid, records < 1 or net.MaxRows() < Views.
func New(net *nn.Net, opt nn.Optimizer, records int, cfg Config, rec Recorder) (*DPSGD, error) {
	if err := cfg.Validate(net.NumLayers()); err != nil {
		return nil, fmt.Errorf("dpsgd: New: %w", err)
	}
	if records < 1 {
		return nil, errkind.Wrapf(ErrConfig, "dpsgd: New: records is %d, must be at least 1", records)
	}
	maxCells := net.MaxRows() / cfg.views()
	if maxCells < 1 {
		return nil, errkind.Wrapf(ErrConfig, "dpsgd: New: MaxRows is %d, must be at least Views = %d", net.MaxRows(), cfg.views())
	}
	d := &DPSGD{
		cfg: cfg, net: net, opt: opt, rec: rec, records: records,
		sampling: rand.New(newSource(cfg.Seed, 1, cfg.Secure)),
		noise:    newNormalSource(cfg.Seed, 2, cfg.Secure),
		smp:      newSampler(records),
		maxCells: maxCells,
		group:    make([]int, len(net.Layers)),
	}
	for k := range d.sq {
		d.sq[k] = make([]float64, maxCells)
		d.fac[k] = make([]float32, maxCells*cfg.views())
	}
	widest := 0
	for _, l := range net.Layers {
		if l.In < l.Out {
			widest = max(widest, l.In)
		}
	}
	d.scratch = make([]float32, net.MaxRows()*widest)
	d.setGroups()
	return d, nil
}

func (d *DPSGD) setGroups() {
	for i, l := range d.net.Layers {
		d.group[i] = groupRest
		if l.Number >= d.cfg.Perturbed.First && l.Number <= d.cfg.Perturbed.Last {
			d.group[i] = groupPerturbed
		}
	}
}

// Config returns the configuration in use.
func (d *DPSGD) Config() Config { return d.cfg }

// SetConfig changes σ, C, the perturbed range, the clipping mode or the
// batching from the next step (a live patch). Views, Seed and Secure cannot
// change. It returns an error wrapping ErrConfig, and keeps the old
// configuration, if cfg is invalid.
func (d *DPSGD) SetConfig(cfg Config) error {
	if err := cfg.Validate(d.net.NumLayers()); err != nil {
		return err
	}
	if cfg.views() != d.cfg.views() || cfg.Seed != d.cfg.Seed || cfg.Secure != d.cfg.Secure {
		return errkind.Wrapf(ErrConfig, "dpsgd: SetConfig: Views, Seed and Secure cannot change during a run")
	}
	d.cfg = cfg
	d.setGroups()
	return nil
}

// StepsPerEpoch returns the number of steps that visit N records in
// expectation: round(1/q) for Poisson batches, ⌊N/B⌋ for Shuffled ones.
func (d *DPSGD) StepsPerEpoch() int {
	if d.cfg.Batching == Shuffled {
		return d.records / batchSize(d.cfg.SampleRate, d.records)
	}
	return max(1, int(math.Round(1/d.cfg.SampleRate)))
}

// Step samples a batch, offers the step to the Recorder, forms the clipped
// gradient sum through loss (one call per chunk), adds noise to the
// perturbed layers, divides by the expected batch size and takes an
// optimizer step. On error no parameter changes; the error wraps the
// Recorder's, the LossFunc's, or ErrNonFinite.
func (d *DPSGD) Step(loss LossFunc) (StepStats, error) {
	q := d.cfg.SampleRate
	batch := d.smp.next(d.cfg.Batching, q, d.sampling)
	denom := q * float64(d.records)
	if d.cfg.Batching == Shuffled {
		denom = float64(len(batch))
		q = denom / float64(d.records)
	}
	if d.rec != nil {
		if err := d.rec.RecordStep(q, d.cfg.NoiseMultiplier); err != nil {
			return StepStats{}, fmt.Errorf("dpsgd: step %d refused: %w", d.steps+1, err)
		}
	}
	// Dividing by the expected batch size is folded into the clip factors
	// and the noise's scale: one pass over the gradients fewer.
	st, err := d.clippedSum(batch, loss, 1/denom)
	if err != nil {
		return st, err
	}
	lo, hi := d.net.ParamRange(d.cfg.Perturbed.First, d.cfg.Perturbed.Last)
	noised := hi > lo && d.cfg.NoiseMultiplier > 0
	if noised {
		g, std := d.net.Grads[lo:hi], float32(d.cfg.NoiseMultiplier*d.cfg.ClipNorm/denom)
		if !d.ahead.take(d.noise, g, std) {
			d.noise.addScaled(g, std)
		}
	}
	d.opt.Step(d.net.Params, d.net.Grads)
	if noised {
		// The next step's draws, on the helper goroutine while it idles.
		d.ahead.start(d.noise, hi-lo)
	}
	d.steps++
	st.Step = d.steps
	return st, nil
}

// ClippedSum sets net.Grads to Σ_i clip(∇L_i) over the records of batch,
// calling loss on chunks of at most MaxRows/Views records, and returns the
// batch's statistics. It adds no noise and does not scale; Step calls it.
// It returns an error wrapping ErrNonFinite if a loss or a per-sample norm
// is not finite.
func (d *DPSGD) ClippedSum(batch []int, loss LossFunc) (StepStats, error) {
	return d.clippedSum(batch, loss, 1)
}

// clippedSum is ClippedSum with every clipped gradient multiplied by scale.
func (d *DPSGD) clippedSum(batch []int, loss LossFunc, scale float64) (StepStats, error) {
	st := StepStats{BatchSize: len(batch)}
	if len(batch) == 0 {
		clear(d.net.Grads)
		return st, nil
	}
	views, c := d.cfg.views(), d.cfg.ClipNorm
	beta := float32(0)
	for start := 0; start < len(batch); start += d.maxCells {
		cells := batch[start:min(start+d.maxCells, len(batch))]
		m := len(cells)
		l, err := loss(cells)
		if err != nil {
			return st, fmt.Errorf("dpsgd: loss: %w", err)
		}
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return st, errkind.Wrapf(ErrNonFinite, "dpsgd: loss of a chunk is %v, must be finite", l)
		}
		st.Loss += l
		sq0, sq1 := d.sq[0][:m], d.sq[1][:m]
		clear(sq0)
		clear(sq1)
		for k, l := range d.net.Layers {
			switch l.Rows() {
			case 0:
			case views * m:
				addGhostSqNorms(d.sq[d.group[k]][:m], l, views, m)
			case m: // the first view's rows only (nn.Autoencoder.ForwardDecode)
				addGhostSqNorms(d.sq[d.group[k]][:m], l, 1, m)
			default:
				panic(fmt.Errorf("dpsgd: layer %d ran on %d rows, must be Views×%d = %d or %d: %w", k, l.Rows(), m, views*m, m, compute.ErrShape))
			}
		}
		f0, f1 := d.fac[0][:m], d.fac[1][:m]
		for i := range m {
			if math.IsNaN(sq0[i]) || math.IsInf(sq0[i], 0) || math.IsNaN(sq1[i]) || math.IsInf(sq1[i], 0) {
				return st, errkind.Wrapf(ErrNonFinite, "dpsgd: gradient norm of record %d is not finite", cells[i])
			}
			if d.cfg.Clipping == ClipJoint {
				s := sq0[i] + sq1[i]
				f := clipFactor(s, c)
				f0[i], f1[i] = float32(f*scale), float32(f*scale)
				st.MeanNorm[0] += math.Sqrt(s)
				if f < 1 {
					st.Clipped[0]++
				}
				continue
			}
			g0, g1 := clipFactor(sq0[i], c), clipFactor(sq1[i], c)
			f0[i], f1[i] = float32(g0*scale), float32(g1*scale)
			st.MeanNorm[0] += math.Sqrt(sq0[i])
			st.MeanNorm[1] += math.Sqrt(sq1[i])
			if g0 < 1 {
				st.Clipped[0]++
			}
			if g1 < 1 {
				st.Clipped[1]++
			}
		}
		for u := 1; u < views; u++ {
			copy(d.fac[0][u*m:(u+1)*m], f0)
			copy(d.fac[1][u*m:(u+1)*m], f1)
		}
		for k, l := range d.net.Layers {
			// A layer that ran on the first view only reads the first m
			// factors, those of its rows.
			l.AccumulateGradWeighted(beta, d.fac[d.group[k]][:views*m], d.scratch)
		}
		beta = 1
	}
	n := float64(len(batch))
	st.Loss /= n
	for k := range 2 {
		st.MeanNorm[k] /= n
		st.Clipped[k] /= n
	}
	return st, nil
}
