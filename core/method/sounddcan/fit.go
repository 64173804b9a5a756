package sounddcan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/method/dppca"
)

// ErrInput is wrapped by errors about data the method cannot use.
var ErrInput = errors.New("dcan-sound: invalid input")

// Outcome is what one run computed.
type Outcome struct {
	Plan Plan
	// Start is the dppca stage's release.
	Start *dppca.Outcome
	// Codes are the n × p final codes, Centres the K × p final released
	// centres, Labels each cell's nearest centre.
	Codes   []float32
	Centres []float32
	Labels  []int
	// NonEmpty is the number of clusters holding cells at the end.
	NonEmpty int
	// Losses is the mean loss of every step.
	Losses []float64
}

// Hooks are called during a fit (all optional): after the dppca stage,
// after every step, after every head round (0-based round, the steps done).
type Hooks struct {
	Start func(out *dppca.Outcome)
	Step  func(st dpsgd.StepStats, mse, kl float64)
	Round func(round, steps int, md *model)
	// Record enters one mechanism (one release) into the ledger.
	Record func(m dppca.Mechanism) error
}

// stepRecorder offers every DP-SGD step to the hooks' Record.
type stepRecorder struct {
	pl  Plan
	rec func(dppca.Mechanism) error
}

// RecordStep implements dpsgd.Recorder: one Gaussian mechanism of
// sensitivity C and noise z·C (q = 1).
func (s stepRecorder) RecordStep(q, z float64) error {
	if q != 1 {
		return fmt.Errorf("dcan-sound: step with sampling rate %g, the plan is full-batch (q = 1)", q)
	}
	return s.rec(dppca.Mechanism{Name: MechSGD, Sens: s.pl.C, Sigma: z * s.pl.C, Count: 1})
}

// Fit runs the whole method once under pl: the dppca stage, then S
// full-batch DP-SGD steps with a head round every Every steps and one at
// the end. Noise comes from rng (dppca stage and head) and from dpsgd's
// own streams seeded by seed (or crypto/rand when secure).
func Fit(ctx context.Context, src *dppca.Source, pl Plan, o Options, rng *rand.Rand, seed uint64, secure bool, hk Hooks) (*Outcome, error) {
	do, err := o.dppcaOptions()
	if err != nil {
		return nil, err
	}
	record := func(m dppca.Mechanism) error {
		if hk.Record == nil || !pl.Private() {
			return nil
		}
		return hk.Record(m)
	}
	kOver := min(o.Over*src.K, src.Data.Cells())
	over, err := dppca.NewSource(src.Data, kOver)
	if err != nil {
		return nil, err
	}
	start, err := dppca.Release(ctx, over, pl.DPPCA, do, rng)
	if err != nil {
		return nil, err
	}
	for _, m := range pl.DPPCA.Mechanisms() {
		if err := record(m); err != nil {
			return nil, err
		}
	}
	if hk.Start != nil {
		hk.Start(start)
	}
	md, err := newModel(start, kOver, o.Gamma, seed)
	if err != nil {
		return nil, err
	}
	var rec dpsgd.Recorder
	if pl.Private() && hk.Record != nil {
		rec = stepRecorder{pl: pl, rec: hk.Record}
	}
	sgd, err := md.newDPSGD(pl.Z, pl.C, o.LR, o.Momentum, seed, secure, rec)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Plan: pl, Start: start}
	round := 0
	head := func(steps int) error {
		md.headRound(pl.Sums, pl.Counts, pl.R, round > 0, rng)
		for _, m := range []dppca.Mechanism{{Name: MechSums, Sens: pl.R, Sigma: pl.Sums, Count: 1}, {Name: MechCounts, Sens: 1, Sigma: pl.Counts, Count: 1}} {
			if err := record(m); err != nil {
				return err
			}
		}
		if round == 0 && kOver != src.K {
			md.merge(src.K, rng)
		}
		if hk.Round != nil {
			hk.Round(round, steps, md)
		}
		round++
		return nil
	}
	for s := range o.Steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s%o.Every == 0 {
			if err := head(s); err != nil {
				return nil, err
			}
		}
		md.mse, md.kl = 0, 0
		st, err := sgd.Step(md.loss)
		if err != nil {
			return nil, err
		}
		out.Losses = append(out.Losses, st.Loss)
		if hk.Step != nil {
			hk.Step(st, md.mse/float64(md.n), md.kl/float64(md.n))
		}
	}
	if err := head(o.Steps); err != nil {
		return nil, err
	}
	out.Codes = append([]float32(nil), md.codes...)
	out.Centres = append([]float32(nil), md.mu.Data...)
	out.Labels = append([]int(nil), md.labels...)
	out.NonEmpty = md.nonEmpty
	return out, nil
}
