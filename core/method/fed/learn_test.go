package fed

import (
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestNonprivateFLLearns trains nonprivate FL (the retuned defaults: Adam,
// batch 64) on a small simulated set with a weak signal and compares it
// with its untrained twin (0 rounds, the method's null run): the server
// model's reconstruction loss must fall well below the untrained one and
// the clustering must be better by a margin. Before Adam (SGD at lr 1e-3 on
// the mean-over-genes MSE) the server loss moved in its fourth digit.
func TestNonprivateFLLearns(t *testing.T) {
	d := simData(t, 600, 60, 4)
	run := func(rounds int, opt LocalOptimizer) (ari, loss float64) {
		cfg := baseConfig(FL, core.ModeNonPrivate)
		cfg.Epochs, cfg.Clients = []int{rounds}, 5
		p := Params{Data: d, Hidden: []int{64}, Latent: 16, Optimizer: opt}
		evs := runEngine(t, cfg, newEngine(t, cfg, FL, p))
		ari, _ = lastMetric(evs, "ARI")
		for _, ev := range evs {
			if s, ok := ev.(core.StepEvent); ok {
				loss = s.Loss
			}
		}
		if rounds == 0 { // no step event: the untrained server model's loss
			l, err := newAELearner(dataMatrix(d), p.withDefaults(FL), cfg.Seed)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := l.newWorker()
			_, loss = w.embed(make([]float64, d.Cells*w.embedDim()))
		}
		return ari, loss
	}
	ari0, loss0 := run(0, OptimizerAuto)
	ari, loss := run(20, OptimizerAuto)
	_, lossSGD := run(20, OptimizerSGD)
	t.Logf("untrained: ARI %.3f loss %.4f; 20 rounds: ARI %.3f loss %.4f; paper's SGD: loss %.4f", ari0, loss0, ari, loss, lossSGD)
	if loss > 0.95*loss0 {
		t.Errorf("server loss %.4f after 20 rounds, want < 0.95 × the untrained %.4f", loss, loss0)
	}
	if ari < ari0+0.1 {
		t.Errorf("ARI %.3f after 20 rounds, want ≥ the untrained %.3f + 0.1", ari, ari0)
	}
	// why the retuning: the paper's SGD at lr 1e-3 hardly moves the model
	if lossSGD < 0.99*loss0 {
		t.Errorf("paper's SGD: server loss %.4f, expected within 1%% of the untrained %.4f (else the retuning note is stale)", lossSGD, loss0)
	}
}
