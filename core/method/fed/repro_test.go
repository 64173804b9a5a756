package fed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestBitReproducible runs the same configuration under GOMAXPROCS 1 and 2
// (one and two client goroutines) and requires identical losses and final
// embeddings, bit for bit.
func TestBitReproducible(t *testing.T) {
	d := simData(t, 240, 60, 4)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, v := range []Variant{PPMLOmics, FedSC} {
		t.Run(v.Name(), func(t *testing.T) {
			mode := core.ModePaper
			if v == FedSC {
				mode = core.ModeNonPrivate
			}
			var losses [2][]float64
			var embs [2][]float32
			for i, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				cfg := baseConfig(v, mode)
				cfg.Clients, cfg.Epochs = 5, []int{2}
				evs := runEngine(t, cfg, newEngine(t, cfg, v, smallParams(d)))
				for _, ev := range evs {
					if s, ok := ev.(core.StepEvent); ok {
						losses[i] = append(losses[i], s.Loss)
						for _, p := range s.Parts {
							losses[i] = append(losses[i], p.Value)
						}
					}
				}
				embs[i] = result(t, evs).Embedding
			}
			if !slices.Equal(losses[0], losses[1]) {
				t.Errorf("losses differ between GOMAXPROCS 1 and 2:\n%v\n%v", losses[0], losses[1])
			}
			if !slices.Equal(embs[0], embs[1]) {
				t.Errorf("final embeddings differ between GOMAXPROCS 1 and 2")
			}
		})
	}
}

// TestFedAvgIdenticalClients checks that K clients holding the same data
// and taking full-batch steps average to centralised gradient descent:
// every Δ_k equals the central Δ, so w_t + η·mean Δ_k is the central model
// (to float32 rounding).
func TestFedAvgIdenticalClients(t *testing.T) {
	d := simData(t, 240, 60, 4)
	x := dataMatrix(d)
	cells := make([]int, 40)
	for i := range cells {
		cells[i] = i * 5
	}
	p := smallParams(d)
	p.Batch, p.LocalEpochs = len(cells), 3
	p = p.withDefaults(FL)
	l, err := newAELearner(x, p, 3)
	if err != nil {
		t.Fatal(err)
	}
	w0 := slices.Clone(l.server)
	const k, lr = 4, 0.002
	upd := make([][]float32, k)
	for c := range k {
		w, _ := l.newWorker()
		upd[c] = make([]float32, l.size())
		if _, err := w.local(context.Background(), job{round: 1, client: c, cells: cells, lr: lr, out: upd[c]}); err != nil {
			t.Fatal(err)
		}
	}
	sum := make([]float32, l.size())
	if err := Aggregate(context.Background(), sum, upd, 2); err != nil {
		t.Fatal(err)
	}
	compute.Axpy(float32(lr/k), sum, l.server)

	// centralised: the same model, three full-batch SGD steps on the cells
	ae, _ := nn.NewAutoencoder(l.cfg)
	copy(ae.Params, w0)
	sgd, _ := nn.NewSGD(len(ae.Params), nn.SGDConfig{LR: lr})
	xb := compute.NewMatrix(len(cells), x.Cols, nil)
	for r, i := range cells {
		copy(xb.RawRowView(r), x.RawRowView(i))
	}
	for range 3 {
		ae.Forward(xb)
		nn.MSE(ae.OutputGrad(0), ae.Output(0), xb, 1) // the paper's loss: mean over genes
		ae.Backward()
		ae.AccumulateGrads(0)
		compute.Scal(1/float32(len(cells)), ae.Grads)
		sgd.Step(ae.Params, ae.Grads)
	}
	moved, worst := 0.0, 0.0
	for i, v := range ae.Params {
		moved = math.Max(moved, math.Abs(float64(v-w0[i])))
		worst = math.Max(worst, math.Abs(float64(v-l.server[i])))
	}
	if moved == 0 || worst > 1e-3*moved {
		t.Errorf("FedAvg of identical clients differs from central SGD by %g (central moved %g)", worst, moved)
	}
}

// TestLiveClients changes K between rounds: the split is redrawn, a new
// stage and ledger segment begin, the patch is acknowledged and the
// per-client losses follow the new K.
func TestLiveClients(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(FLDP, core.ModeSound)
	// runEngine holds the engine at round 2 until the patch is queued: it
	// takes effect there, on any number of cores.
	cfg.Epochs = []int{4}
	three := 3
	lr := 0.002
	evs := runEngine(t, cfg, newEngine(t, cfg, FLDP, smallParams(d)), core.Patch{Clients: &three, LearningRate: &lr})
	stages, applied, at := 0, false, 0
	var lastParts int
	var comps []core.NamedValue
	var title string
	var split core.ClientsEvent
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.StageEvent:
			stages++
			title = ev.Name
		case core.ClientsEvent:
			split = ev
		case core.PatchEvent:
			if ev.Applied && *ev.Patch.Clients == 3 && ev.Step == patchRound {
				applied, at = true, ev.Step
			}
		case core.StepEvent:
			lastParts = len(ev.Parts)
		case core.BudgetEvent:
			comps = ev.Components
			for _, v := range ev.Spent {
				if v.Label == "" || len(v.Label) > 16 {
					t.Errorf("spent %q has label %q, want a short one", v.Accountant, v.Label)
				}
			}
			if ev.Sigma <= 0 || ev.Orders == "" {
				t.Errorf("budget σ %v orders %q, want both", ev.Sigma, ev.Orders)
			}
		}
	}
	if stages != 2 || !applied || lastParts != 3 {
		t.Errorf("stages %d, applied %v, last step with %d clients; want 2, true, 3", stages, applied, lastParts)
	}
	// the last stage names the split in its title; the clients event gives
	// it as fields: round, K, the split's spelling, every client's cells
	// (240 cells in 3 equal parts) and classes
	if !strings.Contains(title, "K = 3 clients") || strings.Contains(title, "\n") {
		t.Errorf("stage name after K = 3: %q, want one title line", title)
	}
	if split.Round != at || split.K != 3 || split.Split != "equal" || len(split.Sizes) != 3 || split.Sizes[0]+split.Sizes[1]+split.Sizes[2] != 240 || len(split.Classes) != 3 || len(split.Classes[0]) == 0 {
		t.Errorf("clients event after K = 3: %+v", split)
	}
	var names []string
	for _, c := range comps {
		names = append(names, c.Name)
	}
	if want := fmt.Sprintf("K = 3 from round %d", at); len(names) != 2 || !strings.Contains(names[1], want) {
		t.Errorf("ledger segments %q, want K = 4 from round 1 and %s", names, want)
	}
}

// TestCancelPrompt stops a long run after its first round and checks that
// the run ends and leaves no goroutine behind.
func TestCancelPrompt(t *testing.T) {
	d := simData(t, 240, 60, 4)
	before := runtime.NumGoroutine()
	cfg := baseConfig(PPMLOmics, core.ModePaper)
	cfg.Epochs = []int{10000}
	queued <- newEngine(t, cfg, PPMLOmics, smallParams(d))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := core.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for ev := range run.Events() {
		if _, ok := ev.(core.StepEvent); ok {
			run.Stop()
			break
		}
	}
	done := make(chan struct{})
	go func() {
		for range run.Events() {
		}
		run.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run still alive 30 s after Stop")
	}
	fixture.GoroutinesBack(t, before)
}
