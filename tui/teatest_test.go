package tui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// hangGuard is how long a screen test waits for text or for the program
// to end before it fails. It guards against hangs only: a run that works
// ends in a second or two, but under -race with both cores busy (CI runs
// the packages in parallel) a wait of 20 s was once too short.
const hangGuard = time.Minute

// waitText waits until the program has written every one of wants. The
// output it reads is consumed: wait for what arrives together in one call.
func waitText(t *testing.T, tm *teatest.TestModel, wants ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range wants {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(hangGuard), teatest.WithCheckInterval(20*time.Millisecond))
}

func typeKeys(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(kp(k))
	}
}

// TestGoldenScreens compares the first screen of every tab but the
// Planner, without styles, at 80×24 and 160×48 with the fixed seed, and
// under NO_COLOR (go test -update rewrites them).
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		// Not the Planner (4): its ε figures arrive from an accountant
		// command whose end the output cannot show reliably, so its golden
		// screens are drawn from a settled model (TestPlannerGoldenScreens).
		for _, tab := range []string{"1", "2", "3", "5", "6", "7", "1nc", "2nc", "3nc", "5nc", "6nc", "7nc"} {
			label := fmt.Sprintf("%dx%d_tab%s", size[0], size[1], tab)
			if t2, ok := strings.CutSuffix(tab, "nc"); ok {
				tab, label = t2, fmt.Sprintf("%dx%d_tab%s_nocolor", size[0], size[1], t2)
			}
			t.Run(label, func(t *testing.T) {
				if strings.HasSuffix(label, "_nocolor") {
					t.Setenv("NO_COLOR", "1")
				}
				m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
				typeKeys(tm, tab)
				switch tab {
				case "2":
					waitText(t, tm, "RDP vs PLD")
				case "6":
					waitText(t, tm, "no B1") // builtin:toy does not exist: B1 says why
				}
				typeKeys(tm, "q")
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
				view := final.View().Content
				checkFits(t, view, size[0], size[1])
				teatest.RequireEqualOutput(t, []byte(stripANSI(view)))
			})
		}
	}
}

// TestTradeoffSweep sweeps the fake engine from the Trade-off tab: every
// run of the grid comes back, the curve has one point per ε and the
// non-private point, and the sweep's privacy cost is shown.
func TestTradeoffSweep(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "gonum", Method: fakeFast, ExportDir: t.TempDir(), Epochs: [2]int{1, 1}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
	typeKeys(tm, "6", "w")
	waitText(t, tm, "done, 27/27") // the curve's state line (the status line is redrawn by diffs)
	typeKeys(tm, "q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(hangGuard)).(Model)
	cp := final.Pane(TabTradeoff).(*curvePane)
	if want := len(curveEpsilons)*len(curveSeeds) + len(curveSeeds); cp.sw == nil || cp.sw.finished != want || len(cp.sw.failures) != 0 {
		t.Fatalf("sweep: %+v, want %d runs finished, none failed", cp.sw, want)
	}
	cp.dirty = true
	cp.Frame()
	if n := cp.chart.Series("mean").Len(); n != len(curveEpsilons) {
		t.Errorf("mean series has %d points, want %d", n, len(curveEpsilons))
	}
	if n := cp.chart.Series("non-private").Len(); n != 1 {
		t.Errorf("non-private series has %d points, want 1", n)
	}
	if v := final.View().Content; !strings.Contains(v, "private runs on this data") {
		t.Errorf("the sweep's privacy cost is not shown:\n%s", v)
	}
	// The session's tally counts the sweep's private runs on the data set.
	if c := final.tally.byData["builtin:toy"]; c == nil || c.PrivateRuns != len(curveEpsilons)*len(curveSeeds) {
		t.Errorf("session tally %+v, want %d private runs", c, len(curveEpsilons)*len(curveSeeds))
	}
	if h := final.header(); !strings.Contains(h, "session:") {
		t.Errorf("header %q does not show the session's tally", h)
	}
}

// TestLiveRunChangesShow starts a run, changes σ and the layer range while
// it goes, and checks the screen and the ledger show both changes.
func TestLiveRunChangesShow(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "gonum", Method: fakeSlow, ExportDir: t.TempDir()})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
	typeKeys(tm, "s")
	waitText(t, tm, "stage 1 instance")
	// The output is a stream of screen diffs: wait for glyphs that only a
	// change can bring.
	typeKeys(tm, "j", "j", "j", "j", "l") // σ up one step
	waitText(t, tm, "▼")                  // a live-change marker on the charts
	typeKeys(tm, "j", "j", "j", "h")      // noise to 2: layers 1-2
	// The engine's acknowledgment, not a second "▼": the first marker is
	// redrawn with every chart update.
	waitText(t, tm, "layers=1-2 took effect")
	typeKeys(tm, "x", "2")
	waitText(t, tm, "ledger at step", "finished")
	typeKeys(tm, "q", "y") // y: quit with the run autosaved, not saved to a file
	final := tm.FinalModel(t, teatest.WithFinalTimeout(hangGuard)).(Model)

	// The stopped private run is in the session's tally.
	if c := final.tally.byData["builtin:toy"]; c == nil || c.PrivateRuns != 1 {
		t.Errorf("session tally %+v, want the one private run", c)
	}
	rp := runPaneOf(final)
	sigma := rp.Params().Sigma
	if got := rp.Params().Layers.String(); got != "1-2" {
		t.Errorf("layers %s, want 1-2", got)
	}
	if n := len(rp.charts.xy[chartLoss].Markers()); n != 2 {
		t.Errorf("loss chart has %d live-change markers, want 2", n)
	}
	bp := final.Pane(TabBudget).(*budgetPane)
	if b := bp.sched.budget; b == nil || len(b.Ledger) != 2 || b.Ledger[1].NoiseMultiplier != sigma {
		t.Errorf("engine's last budget report %+v, want a ledger whose second stretch is at σ %v", b, sigma)
	}
	// The program quit with the last audit possibly in flight: run the
	// audit of the stopped run's whole ledger (as the engine reported it)
	// to its end, as the program would have.
	bp.busy, bp.stale = false, true
	if cmd := bp.maybeAudit(); cmd != nil {
		bp.Update(cmd())
	}
	bp.Frame()
	view := stripANSI(bp.View())
	if want := fmt.Sprintf("σ %.3g", sigma); !strings.Contains(view, want) {
		t.Errorf("Budget screen lacks the new %s:\n%s", want, view)
	}
	if recs := final.Pane(TabCompare).(*comparePane).Records(); len(recs) != 1 || recs[0].Outcome != "stopped" {
		t.Errorf("Compare records %+v, want one stopped run", recs)
	}
}
