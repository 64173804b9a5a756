package tui

import (
	"math"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
)

// viewSink keeps benchmark results alive.
var viewSink string

// fullRun is a long synthetic run: steps steps with loss parts and a
// budget each, metrics every 10 steps, an embedding of cells points every
// 50, and a live change every 500 steps, so that every chart of the Run
// pane holds more points than it keeps (chart.DefaultCapacity).
func fullRun(steps, cells int) []core.Event {
	evs := []core.Event{
		core.GuaranteeEvent{Status: core.GuaranteePaperOnly, Reasons: []string{"only layers 1-3 noised"}},
		core.StageEvent{Stage: 1, Name: "instance", Steps: steps},
	}
	sigma := 2.0
	for s := 1; s <= steps; s++ {
		if s%500 == 0 {
			evs = append(evs, core.PatchEvent{Patch: core.Patch{Sigma: &sigma}, Step: s, Applied: true})
		}
		l := 1/math.Sqrt(float64(s)) + 0.05*math.Sin(float64(s))
		evs = append(evs,
			core.StepEvent{Stage: 1, Epoch: 1 + s/10, Step: s, Loss: l,
				Parts: []core.NamedValue{{Name: "zinb", Value: 0.8 * l}, {Name: "instance", Value: 0.2 * l}}},
			core.BudgetEvent{Step: s, Delta: 1e-5, Target: 4,
				Spent:      []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4 * math.Sqrt(float64(s)/float64(steps))}, {Accountant: "PLD", Epsilon: 3.4 * math.Sqrt(float64(s)/float64(steps))}},
				Projected:  []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4}, {Accountant: "PLD", Epsilon: 3.4}},
				Components: []core.NamedValue{{Name: "stage 1", Value: 0.1}}})
		if s%10 == 0 {
			q := float64(s) / float64(steps)
			evs = append(evs, core.MetricsEvent{Step: s, Values: []core.NamedValue{{Name: "ARI", Value: 0.8 * q}, {Name: "NMI", Value: 0.85 * q}, {Name: "silhouette", Value: 0.3 * q}}})
		}
		if s%50 == 0 {
			e := core.EmbeddingEvent{Step: s, X: make([]float64, cells), Y: make([]float64, cells), Cluster: make([]int, cells), Truth: make([]int, cells)}
			for i := range cells {
				c := i % 8
				a := 2*math.Pi*float64(c)/8 + 0.3*math.Sin(float64(i))
				r := 3 + math.Cos(float64(i)*1.7)
				e.X[i], e.Y[i], e.Cluster[i], e.Truth[i] = r*math.Cos(a), r*math.Sin(a), c, (c+i%3)%8
			}
			evs = append(evs, e)
		}
	}
	return evs
}

// fullModel is the root model at w×h on the Run tab, mid-run, with every
// chart full and drawn. Commands are dropped: nothing waits.
func fullModel(tb testing.TB, w, h int) Model {
	tb.Helper()
	m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: tb.TempDir()})
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = next.(Model)
	m.c.RunID, m.c.RunState = 1, RunRunning
	m.broadcast(RunStartedMsg{ID: 1, Config: runPaneOf(m).Params().Config(fakeFast)})
	evs := fullRun(4000, 2000)
	for len(evs) > 0 {
		n := min(len(evs), maxBatch)
		m.broadcast(EngineEventsMsg{ID: 1, Events: evs[:n]})
		evs = evs[n:]
	}
	m.frame()
	return m
}

func TestFullChartsDrawn(t *testing.T) {
	m := fullModel(t, 160, 48)
	rc := &runPaneOf(m).charts
	if len(rc.visible) != numRunCharts {
		t.Fatalf("%d charts visible at 160×48, want all %d", len(rc.visible), numRunCharts)
	}
	for _, i := range rc.visible {
		if rc.xy[i].Empty() || rc.xy[i].View() == "" {
			t.Errorf("chart %s is empty", rc.titles[i])
		}
	}
	// The step charts share one x range, so a step falls in the same
	// column on each and the live-change markers line up.
	lo, hi := rc.xy[chartLoss].XRange()
	for _, i := range []int{chartEpsilon, chartMetrics} {
		if l, h := rc.xy[i].XRange(); l != lo || h != hi {
			t.Errorf("chart %s x range = [%v, %v], want the loss chart's [%v, %v]", rc.titles[i], l, h, lo, hi)
		}
	}
	// Stage 1 planned 4000 steps over 10 epochs; stage 2 has 10 more.
	if lo != 0 || hi != 8000 {
		t.Errorf("loss chart x range = [%v, %v], want [0, 8000]", lo, hi)
	}
	checkFits(t, m.View().Content, 160, 48)
}

// BenchmarkView renders the Run screen at 160×48 with every chart full.
// "View" is what every key press costs (charts are cached); "Frame" adds
// the redraw of all four charts that the frame tick does after new events.
func BenchmarkView(b *testing.B) {
	m := fullModel(b, 160, 48)
	rc := &runPaneOf(m).charts
	b.Run("View", func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			viewSink = m.View().Content
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(b.N), "ms/op")
	})
	b.Run("Frame", func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			rc.dirty = true
			m.frame()
			viewSink = m.View().Content
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(b.N), "ms/op")
	})
}
