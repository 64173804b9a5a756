package tui

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
)

func runPaneOf(m Model) *runPane { return m.Pane(TabRun).(*runPane) }

func TestEditingSigmaReprojectsEpsilon(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	rp := runPaneOf(m)
	before := rp.Params()
	m = press(t, m, "j", "j", "j", "j") // to σ
	m = press(t, m, "l")                // σ × 1.1
	after := runPaneOf(m).Params()
	if !(after.Sigma > before.Sigma) {
		t.Fatalf("σ %v after l, want more than %v", after.Sigma, before.Sigma)
	}
	want, err := rdpOf(after.Sigma, after)
	if err != nil {
		t.Fatal(err)
	}
	if got := runPaneOf(m).Projected(); math.Abs(got-want) > 1e-9 {
		t.Errorf("projected ε = %v, want %v", got, want)
	}
	if !(after.Epsilon < before.Epsilon) {
		t.Errorf("target ε %v did not follow the larger σ (was %v)", after.Epsilon, before.Epsilon)
	}
	if !strings.Contains(text(m), "→ ε "+fmtEps(want)) {
		t.Errorf("σ hint lacks → ε %s:\n%s", fmtEps(want), text(m))
	}
}

func TestEditingEpsilonResolvesSigma(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	m = press(t, m, "j", "j", "enter")
	if !m.Pane(TabRun).Capturing() {
		t.Fatal("enter on ε did not start typing")
	}
	m = press(t, m, "backspace", "backspace", "backspace", "backspace", "2", "enter")
	p := runPaneOf(m).Params()
	if p.Epsilon != 2 {
		t.Fatalf("ε = %v after typing 2, want 2", p.Epsilon)
	}
	eps, err := rdpOf(p.Sigma, p)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(eps-2)/2 > 1e-3 {
		t.Errorf("σ %v gives ε %v by RDP, want the target 2", p.Sigma, eps)
	}
}

func TestTypedValueRejected(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	before := runPaneOf(m).Params()
	m = press(t, m, "j", "j", "j", "enter", "backspace", "backspace", "backspace", "backspace", "backspace", "2", "enter") // δ = 2
	if got := runPaneOf(m).Params().Delta; got != before.Delta {
		t.Errorf("δ = %v after typing 2, want it kept at %v", got, before.Delta)
	}
	if !m.errored || !strings.Contains(m.Status(), "δ") {
		t.Errorf("status %q, want an error about δ", m.Status())
	}
}

func TestLayerStripLightsNoisedLayers(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	if got := strings.Count(text(m), "■"); got != 3 {
		t.Errorf("%d lit layers, want 3 (1–3)", got)
	}
	m = press(t, m, "j", "j", "j", "j", "j", "j", "j", "l", "l", "l") // noise to 6
	if got := runPaneOf(m).Params().Layers; got != (core.LayerRange{First: 1, Last: 6}) {
		t.Errorf("layers %v, want 1-6", got)
	}
	if got := strings.Count(text(m), "■"); got != 6 {
		t.Errorf("%d lit layers, want 6", got)
	}
	m = press(t, m, "l")
	if !m.errored {
		t.Error("no error stepping past layer 6")
	}
	// DCAN adds no noise: nothing lit.
	m = press(t, m, "k", "k", "k", "k", "k", "k", "k", "h")
	if got := runPaneOf(m).Params().V().Label; got != "DCAN" {
		t.Fatalf("method %q, want DCAN", got)
	}
	if got := strings.Count(text(m), "■"); got != 0 {
		t.Errorf("%d lit layers for DCAN, want 0", got)
	}
}

// fakeRun is a synthetic event sequence of a 40-step run with a σ change
// at step 20.
func fakeRun(id int) []core.Event {
	var evs []core.Event
	evs = append(evs, core.GuaranteeEvent{Status: core.GuaranteePaperOnly, Reasons: []string{"only layers 1-3 noised"}},
		core.StageEvent{Stage: 1, Name: "instance", Steps: 40})
	sigma0, sigma := 1.2, 2.5
	for s := 1; s <= 40; s++ {
		if s == 20 {
			evs = append(evs, core.PatchEvent{Patch: core.Patch{Sigma: &sigma}, Step: 20, Applied: true})
		}
		// The engine's ledger and plan: σ0 up to step 19, then σ.
		ledger := []core.Mechanism{{Component: "stage 1", SampleRate: 0.1, NoiseMultiplier: sigma0, Steps: min(s, 19)}}
		now := sigma0
		if s >= 20 {
			ledger = append(ledger, core.Mechanism{Component: "stage 1", SampleRate: 0.1, NoiseMultiplier: sigma, Steps: s - 19})
			now = sigma
		}
		var planned []core.Mechanism
		if s < 40 {
			planned = []core.Mechanism{{SampleRate: 0.1, NoiseMultiplier: now, Steps: 40 - s}}
		}
		evs = append(evs, core.StepEvent{Stage: 1, Epoch: 1 + s/10, Step: s, Loss: 1 / float64(s)},
			core.BudgetEvent{Step: s, Delta: 1e-5, Target: 4, Sigma: now, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 0.1 * float64(s)}},
				Projected: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4}}, Components: []core.NamedValue{{Name: "stage 1", Value: 0.1 * float64(s)}},
				Ledger: ledger, Planned: planned})
		if s%10 == 0 {
			evs = append(evs, core.MetricsEvent{Step: s, Values: []core.NamedValue{{Name: "ARI", Value: float64(s) / 50}, {Name: "NMI", Value: 0.5}, {Name: "silhouette", Value: 0.2}}},
				core.EmbeddingEvent{Step: s, X: []float64{0, 1, 2, 3}, Y: []float64{0, 1, 0, 1}, Cluster: []int{0, 0, 1, 1}, Truth: []int{0, 1, 0, 1}})
		}
	}
	return append(evs, core.DoneEvent{})
}

// feed plays a synthetic run into m as run id, without an engine.
func feed(t *testing.T, m Model, id int, evs []core.Event) Model {
	t.Helper()
	m.c.RunID = id
	m.c.RunState = RunRunning
	m = send(t, m, RunStartedMsg{ID: id, Config: runPaneOf(m).Params().Config(fakeFast)})
	for len(evs) > 0 { // in batches, as waitForEvents delivers them
		n := min(len(evs), 50)
		m, _ = settle(t, m, m.broadcast(EngineEventsMsg{ID: id, Events: evs[:n]}))
		evs = evs[n:]
	}
	m.c.RunState = RunFinished
	return send(t, m, EngineClosedMsg{ID: id})
}

func TestRunChartsFollowEvents(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	m = feed(t, m, 1, fakeRun(1))
	rc := &runPaneOf(m).charts
	if n := rc.xy[chartLoss].Series("loss").Len(); n != 40 {
		t.Errorf("loss chart has %d points, want 40", n)
	}
	for i, x := range rc.xy[:chartScatter] {
		if got := x.Markers(); len(got) != 1 || got[0] != 20 {
			t.Errorf("chart %d markers %v, want one at step 20", i, got)
		}
	}
	if rc.dirty {
		t.Error("charts still dirty after a frame")
	}
	view := text(m)
	for _, want := range []string{"ARI 0.80", "▼ σ=2.5 @ step 20", "⚠ metrics: true labels, not covered", "⚠ metrics ━ARI", "paper accounting only", "╍target 4"} {
		if !strings.Contains(view, want) {
			t.Errorf("Run view lacks %q", want)
		}
	}
	checkFits(t, m.View().Content, 160, 48)
	m = press(t, m, "t")
	if !strings.Contains(text(m), "by true label") {
		t.Error("t did not colour the scatter by true label")
	}
}

// TestFirstPageOf120x40 checks that a common terminal (120×40) shows the
// loss, the ε spent and the clustering metrics of a run on the Run screen's
// first page, without paging with v.
func TestFirstPageOf120x40(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = feed(t, m, 1, fakeRun(1))
	view := text(m)
	for _, want := range []string{"loss", "ε spent", "⚠ metrics ━ARI"} {
		if !strings.Contains(view, want) {
			t.Errorf("120×40 Run view lacks %q", want)
		}
	}
	checkFits(t, m.View().Content, 120, 40)
}

func TestEditDuringRunSendsPatch(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	m.c.RunState = RunRunning
	m = press(t, m, "j", "j", "j", "j")
	next, cmd := m.Update(kp("l"))
	m = next.(Model)
	_, msgs := settle(t, m, cmd)
	var patch *core.Patch
	for _, msg := range msgs {
		if p, ok := msg.(PatchMsg); ok {
			patch = &p.Patch
		}
	}
	if patch == nil || patch.Sigma == nil {
		t.Fatalf("no σ patch among %v", msgs)
	}
	if *patch.Sigma != runPaneOf(m).Params().Sigma {
		t.Errorf("patch σ %v, want the edited %v", *patch.Sigma, runPaneOf(m).Params().Sigma)
	}
	// Fields that cannot change live are locked.
	m = press(t, m, "k", "k", "k", "k", "l")
	if !m.errored || !strings.Contains(m.Status(), "fixed while a run is going") {
		t.Errorf("status %q, want the method locked during a run", m.Status())
	}
}

// fedSplitRun is a federated run of 5 rounds that starts with K = 20
// clients and goes to K = 30 at round 3; client k of the second split has
// 4 cells when k is a multiple of 3, else 3.
func fedSplitRun() []core.Event {
	split := func(round, k int) core.ClientsEvent {
		ev := core.ClientsEvent{Round: round, K: k, Split: "equal"}
		for c := 1; c <= k; c++ {
			cells := 3
			if c%3 == 0 {
				cells = 4
			}
			ev.Sizes = append(ev.Sizes, cells)
			ev.Classes = append(ev.Classes, []string{"A", "B"})
		}
		return ev
	}
	thirty := 30
	evs := []core.Event{core.StageEvent{Stage: 1, Steps: 5, Name: "fl, K = 20 clients"}, split(1, 20)}
	for r := 1; r <= 5; r++ {
		if r == 3 {
			evs = append(evs, core.PatchEvent{Patch: core.Patch{Clients: &thirty}, Step: 3, Applied: true},
				core.StageEvent{Stage: 2, Steps: 3, Name: "fl, K = 30 clients"}, split(3, 30))
		}
		evs = append(evs, core.StepEvent{Stage: 1 + r/3, Epoch: r, Step: r, Loss: 1 / float64(r)})
	}
	return append(evs, core.DoneEvent{})
}

var (
	clientLineRE = regexp.MustCompile(`(?m)^(\d+): [34] cells, 2 classes`)
	moreLineRE   = regexp.MustCompile(`… (\d+) more clients \(3–4 cells each\)`)
)

// shownClients returns the client numbers listed at the left edge of view
// and the count of the "… N more clients" line (-1 without one).
func shownClients(view string) (shown []int, more int) {
	for _, m := range clientLineRE.FindAllStringSubmatch(view, -1) {
		n, _ := strconv.Atoi(m[1])
		shown = append(shown, n)
	}
	more = -1
	if m := moreLineRE.FindStringSubmatch(view); m != nil {
		more, _ = strconv.Atoi(m[1])
	}
	return shown, more
}

// TestClientListFitsPane renders a 30-client split at many sizes, beside
// and under the charts: the client counts (round 1 and the ▼ change) stay,
// clients 1…n are listed as far as the pane's height allows, and a last
// line counts the others, so listed + counted = 30 whenever a client is
// listed; the view never outgrows the terminal.
func TestClientListFitsPane(t *testing.T) {
	m := selectMethod(t, sized(t, testModel(t, ""), 120, 40), "FL")
	m = feed(t, m, 1, fedSplitRun())
	for _, w := range []int{120, 60} {
		for h := 40; h >= 1; h-- {
			m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
			view := text(m)
			p := runPaneOf(m)
			if ph := lipgloss.Height(p.View()); ph > p.h {
				t.Errorf("%d×%d: the Run pane's view has %d lines, more than its %d", w, h, ph, p.h)
			}
			if h > m.chromeHeight() { // below, the header and help alone overflow
				checkFits(t, m.View().Content, w, h)
			}
			shown, more := shownClients(view)
			for i, n := range shown {
				if n != i+1 {
					t.Fatalf("%d×%d: clients listed %v, want 1…%d in order", w, h, shown, len(shown))
				}
			}
			switch {
			case more >= 0 && len(shown)+more != 30:
				t.Errorf("%d×%d: %d clients listed + %d more = %d, want 30:\n%s", w, h, len(shown), more, len(shown)+more, view)
			case more < 0 && len(shown) > 0 && len(shown) != 30:
				t.Errorf("%d×%d: %d of 30 clients listed and no \"more clients\" line:\n%s", w, h, len(shown), view)
			}
			if len(shown) > 0 || more >= 0 {
				for _, seg := range []string{"round 1: K = 20, equal", "▼ round 3: K = 30, equal"} {
					if !strings.Contains(view, seg) {
						t.Errorf("%d×%d: clients listed but the count %q is cut:\n%s", w, h, seg, view)
					}
				}
			}
			if w != 120 {
				continue
			}
			switch h {
			case 40, 30: // room for some clients, not all
				if len(shown) == 0 || more <= 0 {
					t.Errorf("%d×%d: %d clients listed, %d more; want some listed and the rest counted:\n%s", w, h, len(shown), more, view)
				}
			case 25: // room for the counts and one line: no client, all counted (the form has 12 rows, the audit toggle's included)
				if len(shown) != 0 || more != 30 {
					t.Errorf("%d×%d: %d clients listed, %d more; want none listed and \"… 30 more clients\":\n%s", w, h, len(shown), more, view)
				}
			}
		}
	}
}

// TestMoreClients checks the "more clients" line: the count and the range
// of the hidden clients' cells.
func TestMoreClients(t *testing.T) {
	for _, c := range []struct {
		hidden []int
		want   string
	}{
		{[]int{3, 4}, "… 2 more clients (3–4 cells each)"},
		{[]int{25, 25}, "… 2 more clients (25 cells each)"},
		{[]int{7}, "… 1 more client (7 cells)"},
		{[]int{1, 1, 1}, "… 3 more clients (1 cell each)"},
	} {
		if got := moreClients(c.hidden); got != c.want {
			t.Errorf("moreClients(%v) = %q, want %q", c.hidden, got, c.want)
		}
	}
	c := &core.ClientsEvent{K: 2, Sizes: []int{250, 3}, Classes: [][]string{{"B", "T"}, {}}}
	if got := clientLine(c, 0) + " | " + clientLine(c, 1); got != "1: 250 cells, 2 classes (B, T) | 2: 3 cells, 0 classes" {
		t.Errorf("client lines = %q", got)
	}
}
