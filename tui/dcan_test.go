package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	_ "github.com/dpscope/dpscope/core/method/dcan" // the real engine, as method "dcan"
	"github.com/dpscope/dpscope/datasets"
)

// TestLiveRunChangesShowDCAN starts a DP-DCAN run on the default data with
// the real engine (five epochs per stage: long enough that both changes
// land before the run ends, on a fast machine too), changes σ and then the layer range while it trains, and
// checks the charts, the guarantee and the ledger follow; it stops the run
// as soon as both changes have shown.
func TestLiveRunChangesShowDCAN(t *testing.T) {
	m := New(Config{
		Summary: datasets.Summary{Name: "default", Source: "builtin:default"},
		Backend: "test", Method: "dcan", ExportDir: t.TempDir(), Seed: 1, Epochs: [2]int{5, 5},
		NoReferences: true, // the five null runs of DCAN would compete with the timed run
	})
	sigma0 := runPaneOf(m).Params().Sigma
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36))
	typeKeys(tm, "s")
	waitText(t, tm, "/100: ")                       // the loss chart's title once a step is in: "step k/100: loss"
	typeKeys(tm, "j", "j", "j", "j", "l")           // σ up one step
	waitText(t, tm, "took effect")                  // the engine applied it (the status line says so)
	typeKeys(tm, "j", "j", "j", "h")                // noise to 2: layers 1-2
	waitText(t, tm, "3□", "layers=1-2 took effect") // layer 3 unlit, then the engine applied it (not "sent"; a bare ▼ is redrawn with every step)
	typeKeys(tm, "x")
	waitText(t, tm, "run stopped")
	typeKeys(tm, "q", "y") // y: quit with the run autosaved, not saved to a file
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(Model)

	rp := runPaneOf(final)
	sigma := rp.Params().Sigma
	if sigma <= sigma0 {
		t.Errorf("σ after one step up = %v, want above %v", sigma, sigma0)
	}
	if got := rp.Params().Layers.String(); got != "1-2" {
		t.Errorf("layers = %s, want 1-2", got)
	}
	for i, name := range []string{"loss", "ε"} {
		if n := len(rp.charts.xy[i].Markers()); n != 2 {
			t.Errorf("%s chart has %d live-change markers, want 2", name, n)
		}
	}
	// The engine re-stated the guarantee for layers 1-2: layer 3 of the
	// released encoder now trains without noise.
	if g := rp.charts.guarantee; g == nil || !strings.Contains(strings.Join(g.Reasons, " "), "3 of the released encoder") {
		t.Errorf("guarantee after the layer change = %+v, want a reason naming layer 3", g)
	}
	bp := final.Pane(TabBudget).(*budgetPane)
	// The first stretch runs at the σ the engine calibrated for ε, which
	// is the σ the interface showed before the run: it asked the method
	// (core.Method.Calibrate), which shares the engine's calibration.
	if l := bp.sched.budget.Ledger; len(l) != 2 || l[0].NoiseMultiplier != sigma0 || l[1].NoiseMultiplier != sigma {
		t.Errorf("engine's ledger %+v, want σ %v then σ %v", l, sigma0, sigma)
	}
	if bp.budget == nil || bp.budget.Step == 0 || len(bp.budget.Spent) == 0 {
		t.Fatalf("Budget pane has no ledger from the engine: %+v", bp.budget)
	}
	bp.SetSize(120, 30)
	view := stripANSI(bp.View())
	for _, want := range []string{fmt.Sprintf("σ %.3g", sigma0), fmt.Sprintf("σ %.3g", sigma), "ledger at step"} {
		if !strings.Contains(view, want) {
			t.Errorf("Budget screen lacks %q:\n%s", want, view)
		}
	}
}
