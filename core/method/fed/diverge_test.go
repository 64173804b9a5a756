package fed

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestDivergenceUnderPaperNoiseEndsWithWarning runs PPML-Omics at the
// paper's learning rate, where its noise (σ·C ≈ 70 per coordinate at
// ε_T = 5, C = 5) makes local training blow up within a few rounds: the run
// must end normally, keep the last finite server model, and say why.
func TestDivergenceUnderPaperNoiseEndsWithWarning(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(PPMLOmics, core.ModePaper)
	cfg.LearningRate = 0.1 // far above baseConfig's 1e-5: the noise lands in the weights
	cfg.Epochs = []int{6}
	evs := runEngine(t, cfg, newEngine(t, cfg, PPMLOmics, smallParams(d)))
	warned := false
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "training diverged") {
			warned = true
		}
	}
	if _, ok := evs[len(evs)-1].(core.DoneEvent); !ok {
		t.Fatalf("last event %T, want DoneEvent", evs[len(evs)-1])
	}
	if !warned {
		t.Fatal("no divergence warning: at this seed and learning rate training must blow up (the test exists to exercise that path)")
	}
	if _, ok := lastMetric(evs, "ARI"); !ok {
		t.Error("diverged run reported no metrics for the kept model")
	}
}
