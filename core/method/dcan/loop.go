package dcan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/dpsgd"
	"github.com/dpscope/dpscope/core/nn"

	"github.com/dpscope/dpscope/internal/errkind"
)

// train runs the epochs of a stage: before each epoch the hook (stage 2's
// target refresh), then the steps with a checkpoint at every boundary, then
// the epoch's evaluation.
func (r *runState) train(ctx context.Context, stage int, loss dpsgd.LossFunc, before func(epoch int) error) error {
	for epoch := 1; epoch <= r.s.epochs[stage-1] && !r.exhausted; epoch++ {
		r.epoch = epoch
		start := time.Now()
		if before != nil {
			if err := before(epoch); err != nil {
				return err
			}
		}
		if !r.private {
			r.rng.Shuffle(len(r.perm), func(i, j int) { r.perm[i], r.perm[j] = r.perm[j], r.perm[i] })
		}
		for s := 0; s < r.spe; s++ {
			ps, err := r.ctl.Checkpoint(ctx)
			if err != nil {
				return err
			}
			r.applyPatches(ps)
			if err := r.oneStep(loss, s); err != nil {
				if errors.Is(err, accountant.ErrBudgetExceeded) {
					r.exhaust(fmt.Sprintf("stage %d, epoch %d", stage, epoch))
					break
				}
				return err
			}
		}
		// The evaluation is left out, as the PyTorch peer's
		// --no-epoch-metrics leaves it out (docs/PERFORMANCE.md).
		r.trainTime[stage-1] += time.Since(start)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.evaluate(ctx); err != nil {
			return err
		}
	}
	return nil
}

// oneStep takes one optimisation step and reports it.
func (r *runState) oneStep(loss dpsgd.LossFunc, s int) error {
	m := r.m
	m.parts = [numParts]float64{}
	if m.trainMu {
		m.dmu.Zero()
	}
	var (
		mean  float64
		size  int
		denom float64
		err   error
	)
	if r.private {
		var st dpsgd.StepStats
		st, err = r.dp.Step(loss)
		mean, size, denom = st.Loss, st.BatchSize, r.q*float64(m.n)
	} else {
		size = r.batch
		mean, err = r.plainStep(loss, r.perm[s*r.batch:(s+1)*r.batch])
		denom = float64(size)
	}
	if err == nil {
		err = nn.CheckFinite("loss", mean)
	}
	if err != nil {
		if errors.Is(err, dpsgd.ErrNonFinite) || errors.Is(err, nn.ErrNonFinite) {
			return &NonFiniteError{Stage: r.stage, Epoch: r.epoch, Step: r.step + 1, Err: err}
		}
		return err
	}
	if m.trainMu {
		r.updateCentroids(denom)
	}
	r.step++
	r.done[r.stage-1]++
	r.cells[r.stage-1] += size
	ev := core.StepEvent{Stage: r.stage, Epoch: r.epoch, Step: r.step, Loss: mean}
	if size > 0 {
		name := "zinb"
		if !m.counts {
			name = "mse"
		}
		b := float64(size)
		ev.Parts = []core.NamedValue{{Name: name, Value: m.parts[partRecon] / b}}
		if r.stage == 1 {
			ev.Parts = append(ev.Parts, core.NamedValue{Name: "instance", Value: m.parts[partInstance] / b})
		} else {
			ev.Parts = append(ev.Parts, core.NamedValue{Name: "kl", Value: m.parts[partKL] / b},
				core.NamedValue{Name: "cc", Value: m.parts[partCC] / b})
		}
	}
	r.ctl.Emit(ev)
	if r.private {
		r.ctl.Emit(r.priv.budgetEvent(r.step, r.plan(), r.sigma, false))
	}
	return nil
}

// plainStep is a non-private mini-batch step: the summed per-cell
// gradients over the batch divided by its size, then the optimizer. It
// returns the mean loss.
func (r *runState) plainStep(loss dpsgd.LossFunc, batch []int) (float64, error) {
	chunk := r.m.ae.MaxRows()
	if r.stage == 1 {
		chunk /= stage1Views
	}
	total, beta := 0.0, float32(0)
	for s := 0; s < len(batch); s += chunk {
		l, err := loss(batch[s:min(s+chunk, len(batch))])
		if err != nil {
			return 0, err
		}
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return 0, errkind.Wrapf(nn.ErrNonFinite, "dcan: loss of a chunk is %v, must be finite", l)
		}
		total += l
		r.m.ae.AccumulateGrads(beta)
		beta = 1
	}
	a := r.m.ae
	compute.Scal(float32(1/float64(len(batch))), a.Grads)
	r.opt.Step(a.Params, a.Grads)
	return total / float64(len(batch)), nil
}

// updateCentroids takes an Adadelta step on the centroids (nonprivate and
// paper modes) with the batch's KL gradient over denom plus β3·∇L_cc. The
// gradient is neither clipped nor noised: in paper mode this is one of the
// releases outside the ledger.
func (r *runState) updateCentroids(denom float64) {
	m := r.m
	compute.Copy(r.muGrad, m.dmu)
	compute.Scal(float32(1/denom), r.muGrad.Data)
	m.ccLoss(r.muGrad, m.beta[2])
	r.muOpt.Step(m.mu.Data, r.muGrad.Data)
	m.lcc = m.ccLoss(compute.Matrix{}, 0)
}

// evaluate reports the epoch's metrics, embedding and (every pldEvery
// epochs) the PLD budget.
func (r *runState) evaluate(ctx context.Context) error {
	r.epochs++
	m, e := r.m, r.emb
	r.encode()
	if r.stage == 1 {
		res, err := cluster.KMeans(ctx, e.z64, m.n, m.latent, cluster.KMeansConfig{K: m.k, NInit: 3, Seed: r.s.cfg.Seed + streamEval})
		if err != nil {
			return err
		}
		copy(e.pred, res.Labels)
	} else {
		nn.StudentTTo(e.q, e.z, m.mu)
		argmaxQ(e)
	}
	if err := report(r.ctl, e, m.n, m.latent, r.truth, r.stage, r.epoch, r.step); err != nil {
		return err
	}
	if r.private && r.pldEvery > 0 && r.epochs%r.pldEvery == 0 {
		r.ctl.Emit(r.priv.budgetEvent(r.step, r.plan(), r.sigma, true))
	}
	return nil
}

// guarantee states the run's guarantee: as planned at the start and after
// patches (final nil), as spent at the end (final is the last budget
// event, whose RDP and PLD figures become the audited ones).
func (r *runState) guarantee(final *core.BudgetEvent) core.GuaranteeEvent {
	mode := r.s.cfg.Mode
	status, reasons := Reading(mode, r.layers, r.circ)
	ev := core.GuaranteeEvent{Status: status, Reasons: reasons}
	if !r.private {
		return ev
	}
	pl, sigma := r.plan(), r.sigma
	if final != nil {
		pl, sigma = plan{}, 0
	}
	if e, err := r.priv.published(pl, sigma); err == nil {
		ev.Published = []core.EpsilonValue{{Accountant: "paper (Theorem 1)", Epsilon: e}}
	}
	if mode == core.ModePaper && (r.layers.First != 1 || r.layers.Last != numLayers) {
		return ev // audited: no valid guarantee (said in the reasons)
	}
	only := ""
	if mode == core.ModePaper {
		only = " (training steps only)"
	}
	if final == nil {
		ev.Audited = []core.EpsilonValue{{Accountant: "RDP" + only + " (planned)", Epsilon: r.priv.projected(pl, sigma)}}
		return ev
	}
	for _, v := range final.Spent {
		ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: v.Accountant + only, Epsilon: v.Epsilon})
	}
	return ev
}
