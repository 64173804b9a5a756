package fed

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestRunVariants runs every variant in every mode it accepts on tiny data
// and checks the events the dashboard relies on.
func TestRunVariants(t *testing.T) {
	d := simData(t, 240, 60, 4)
	for _, tc := range []struct {
		v    Variant
		mode core.Mode
	}{
		{FL, core.ModeNonPrivate}, {FLDP, core.ModePaper}, {FLDP, core.ModeSound},
		{PPMLOmics, core.ModePaper}, {PPMLOmics, core.ModeSound}, {PPMLOmics, core.ModeNonPrivate},
		{FedSC, core.ModeNonPrivate}, {FedSC, core.ModeSound},
	} {
		t.Run(tc.v.Name()+"/"+string(tc.mode), func(t *testing.T) {
			cfg := baseConfig(tc.v, tc.mode)
			evs := runEngine(t, cfg, newEngine(t, cfg, tc.v, smallParams(d)))
			steps, stages, budgets := 0, 0, 0
			var final core.GuaranteeEvent
			for _, ev := range evs {
				switch ev := ev.(type) {
				case core.StepEvent:
					steps++
					if len(ev.Parts) != cfg.Clients || ev.Parts[0].Name != "client 1" {
						t.Errorf("step parts %v, want %d clients named client 1…", ev.Parts, cfg.Clients)
					}
					if math.IsNaN(ev.Loss) || ev.Loss <= 0 {
						t.Errorf("step %d loss %v", ev.Step, ev.Loss)
					}
				case core.StageEvent:
					stages++
				case core.BudgetEvent:
					budgets++
				case core.GuaranteeEvent:
					final = ev
				}
			}
			if steps != 3 || stages != 1 {
				t.Errorf("%d steps and %d stages, want 3 and 1", steps, stages)
			}
			if (budgets > 0) != (tc.mode != core.ModeNonPrivate) {
				t.Errorf("%d budget events in mode %s", budgets, tc.mode)
			}
			if ari, ok := lastMetric(evs, "ARI"); !ok || math.IsNaN(ari) {
				t.Errorf("no ARI reported")
			}
			if _, ok := lastMetric(evs, "JI"); !ok {
				t.Errorf("no JI reported")
			}
			r := result(t, evs)
			if r.Cells != d.Cells || len(r.Embedding) != r.Cells*r.Dim || len(r.Cluster) != d.Cells {
				t.Errorf("result %d cells × %d, %d values, %d clusters", r.Cells, r.Dim, len(r.Embedding), len(r.Cluster))
			}
			if tc.mode != core.ModeNonPrivate && len(final.Audited) == 0 {
				t.Errorf("final guarantee has no audited ε: %+v", final)
			}
			if len(final.Reasons) == 0 {
				t.Errorf("final guarantee has no reasons")
			}
			t.Logf("ARI %.3f guarantee %s audited %v published %v", must(lastMetric(evs, "ARI")), final.Status, final.Audited, final.Published)
		})
	}
}

func must(v float64, _ bool) float64 { return v }

func TestNewRejects(t *testing.T) {
	d := simData(t, 240, 60, 4)
	for _, tc := range []struct {
		desc string
		v    Variant
		mut  func(*core.Config, *Params)
	}{
		{"fl in paper mode", FL, func(c *core.Config, _ *Params) { c.Mode, c.Delta, c.Clip, c.Epsilon = core.ModePaper, 1e-5, 5, 5 }},
		{"fedsc in paper mode", FedSC, func(c *core.Config, _ *Params) { c.Mode, c.Delta, c.Clip, c.Epsilon = core.ModePaper, 1e-5, 5, 5 }},
		{"zero rounds in a private mode", FLDP, func(c *core.Config, _ *Params) {
			c.Mode, c.Delta, c.Clip, c.Epsilon, c.Epochs = core.ModePaper, 1e-5, 5, 5, []int{0}
		}},
		{"three epoch counts", FL, func(c *core.Config, _ *Params) { c.Epochs = []int{1, 1, 1} }},
		{"zero local epochs", FL, func(c *core.Config, _ *Params) { c.Epochs = []int{1, 0} }},
		{"bad split", FL, func(_ *core.Config, p *Params) { p.Split = "dirichlet:0" }},
		{"s = 0", FL, func(_ *core.Config, p *Params) { p.Split = "noniid:0" }},
		{"mask 1", FedSC, func(_ *core.Config, p *Params) { p.MaskProb = 1 }},
		{"alpha 2", FedSC, func(_ *core.Config, p *Params) { p.DivergenceAlpha = 2 }},
		{"bad protocol", PPMLOmics, func(_ *core.Config, p *Params) { p.Protocol = 7 }},
		{"bad loss", FL, func(_ *core.Config, p *Params) { p.Loss = 7 }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(tc.v, core.ModeNonPrivate)
			p := smallParams(d)
			tc.mut(&cfg, &p)
			if _, err := New(cfg, tc.v, p); !errors.Is(err, ErrConfig) || !errors.Is(err, core.ErrBadConfig) {
				t.Errorf("New = %v, want an error wrapping ErrConfig", err)
			}
		})
	}
}

// TestRunBadSplit checks that a split the data cannot take is a clear
// error: s larger than the number of classes, K larger than the cells.
func TestRunBadSplit(t *testing.T) {
	d := simData(t, 240, 60, 4)
	for _, tc := range []struct {
		desc    string
		split   string
		clients int
	}{{"s > classes", "noniid:5", 4}, {"K > cells", "iid", 241}} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(FL, core.ModeNonPrivate)
			cfg.Clients = tc.clients
			p := smallParams(d)
			p.Split = tc.split
			e := newEngine(t, cfg, FL, p)
			if _, err := e.newSim(nil, d); err == nil {
				t.Errorf("newSim accepted split %s with %d clients", tc.split, tc.clients)
			}
		})
	}
}

// TestEmptyClientReported runs a Dirichlet split so skewed that clients are
// left with no cell: the run goes on, and a warning names them.
func TestEmptyClientReported(t *testing.T) {
	d := simData(t, 240, 60, 4)
	cfg := baseConfig(FL, core.ModeNonPrivate)
	cfg.Clients, cfg.Epochs = 30, []int{1}
	p := smallParams(d)
	p.Split = "dirichlet:0.01"
	evs := runEngine(t, cfg, newEngine(t, cfg, FL, p))
	warned := false
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "hold no cell") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning about clients with no cell")
	}
	if _, ok := lastMetric(evs, "ARI"); !ok {
		t.Error("no ARI reported")
	}
}
