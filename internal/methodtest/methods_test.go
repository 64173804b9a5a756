package methodtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	_ "github.com/dpscope/dpscope/core/method/dcan" // registers dcan
	_ "github.com/dpscope/dpscope/core/method/dpmd" // registers dpmd
	_ "github.com/dpscope/dpscope/core/method/fed"  // registers fl, fl-dp, ppml-omics, fedsc
	"github.com/dpscope/dpscope/datasets"
)

// smallPrep shrinks the default built-in set to 64 genes, so a run of any
// method takes seconds.
func smallPrep() *datasets.PreprocessConfig {
	p := datasets.DefaultPreprocessConfig()
	p.NTopGenes = 64
	return &p
}

// variant is one method and mode with the smallest settings that exercise
// every mechanism of its plan.
type variant struct {
	name string
	cfg  core.Config
}

// variants returns every private method and mode at target ε.
func variants(eps float64) []variant {
	base := core.Config{Data: "builtin:default", Preprocess: smallPrep(), Epsilon: eps, Delta: 1e-5, Seed: 3}
	dcan := func(mode core.Mode) core.Config {
		c := base
		c.Method, c.Mode, c.Clip, c.SampleRate, c.Epochs = "dcan", mode, 0.1, 0.25, []int{1, 1}
		c.Layers = core.LayerRange{First: 1, Last: 6}
		return c
	}
	fed := func(method string, mode core.Mode) core.Config {
		c := base
		c.Method, c.Mode, c.Clip, c.SampleRate, c.Clients, c.Epochs = method, mode, 1, 1, 4, []int{3, 1}
		return c
	}
	// DP-MD on a synthetic circle, where its sound mode moves queries at
	// these budgets (on builtin:default its mass gate keeps every query in
	// place, so the noise would not show in what it reports).
	dpmd := func(mode core.Mode) core.Config {
		c := base
		c.Method, c.Mode, c.Clip, c.SampleRate, c.Data = "dpmd", mode, 1, 1, "manifold:circle"
		c.Preprocess = nil
		c.Options = map[string]string{"T": "3", "manifold": "circle", "n": "4000", "queries": "50"}
		return c
	}
	// PPML-Omics noises every client's update locally: at a small ε its
	// local training diverges (an honest early end, but not the plan under
	// test), so it runs at ten times the target.
	ppml := func(mode core.Mode) core.Config {
		c := fed("ppml-omics", mode)
		c.Epsilon = 10 * eps
		return c
	}
	// CI runs the sound modes (the ones that carry a guarantee);
	// DPSCOPE_LONG adds the paper modes.
	modes := []core.Mode{core.ModeSound}
	if os.Getenv("DPSCOPE_LONG") != "" {
		modes = append(modes, core.ModePaper)
	}
	var out []variant
	for _, mode := range modes {
		out = append(out,
			variant{"dcan/" + string(mode), dcan(mode)},
			variant{"fl-dp/" + string(mode), fed("fl-dp", mode)},
			variant{"ppml-omics/" + string(mode), ppml(mode)},
			variant{"dpmd/" + string(mode), dpmd(mode)},
		)
	}
	// FedSC has no paper mode: the paper makes no DP claim.
	out = append(out, variant{"fedsc/sound", fed("fedsc", core.ModeSound)})
	if raceEnabled {
		// One variant per engine: dcan, fed (FedSC's central noise), dpmd.
		out = []variant{out[0], out[len(out)-1], out[3]}
	}
	return out
}

// record is what a run reported.
type record struct {
	planned, steps int
	budget         *core.BudgetEvent
	audited        []core.EpsilonValue
	done           *core.DoneEvent
	err            error
	data           *core.DataEvent
	patches        []core.PatchEvent
	events         []core.Event
}

// follow runs cfg to its end, applying patch (if not nil) once the first
// step is in, and collects what it reported.
func follow(t *testing.T, cfg core.Config, patch *core.Patch) record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run, err := core.StartWith(ctx, cfg, core.Options{KeepAll: true})
	if err != nil {
		t.Fatalf("Start(%s %s): %v", cfg.Method, cfg.Mode, err)
	}
	var rec record
	for ev := range run.Events() {
		rec.events = append(rec.events, ev)
		switch ev := ev.(type) {
		case core.StageEvent:
			rec.planned += ev.Steps
		case core.StepEvent:
			rec.steps = max(rec.steps, ev.Step)
			if patch != nil {
				run.Apply(*patch)
				patch = nil
			}
		case core.BudgetEvent:
			rec.budget = &ev
		case core.GuaranteeEvent:
			if len(ev.Audited) > 0 {
				rec.audited = ev.Audited
			}
		case core.DataEvent:
			rec.data = &ev
		case core.PatchEvent:
			rec.patches = append(rec.patches, ev)
		case core.DoneEvent:
			rec.done = &ev
		case core.ErrorEvent:
			rec.err = ev.Err
		}
	}
	run.Wait()
	return rec
}
