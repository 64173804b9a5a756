package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestLearnGoldenScreens compares the Learn tab, the glossary and the
// presenter mode, without styles, at 80×24 and 160×48, with colour and
// under NO_COLOR (go test -update rewrites them).
func TestLearnGoldenScreens(t *testing.T) {
	screens := map[string][]string{
		"learn":     {"5", "l"},
		"glossary":  {"5", "g"},
		"presenter": {"5", "P", "space"},
	}
	goldenScreens(t, []string{"learn", "glossary", "presenter"}, func(t *testing.T, size [2]int, name string) {
		m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1})
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
		typeKeys(tm, screens[name]...)
		typeKeys(tm, "q")
		final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
		view := final.View().Content
		checkFits(t, view, size[0], size[1])
		teatest.RequireEqualOutput(t, []byte(stripANSI(view)))
	})
}

// TestLessonExperimentKey presses enter on lesson 1: the Run pane and
// every other pane take ε = 1 with σ solved for it, and the Run screen
// is shown; during a run the key is refused and nothing changes.
func TestLessonExperimentKey(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = press(t, m, "5", "enter")
	if m.Active() != TabRun {
		t.Fatalf("tab %d after enter on lesson 1, want the Run tab", m.Active())
	}
	rp := runPaneOf(m).Params()
	if rp.Epsilon != 1 || rp.V().Mode != "sound" {
		t.Errorf("Run pane ε %v mode %s, want ε 1 in a sound mode", rp.Epsilon, rp.V().Mode)
	}
	if e, err := lessonEpsilon(rp.SampleRate, rp.Sigma, rp.Steps(), rp.Delta); err != nil || e > 1.001 {
		t.Errorf("σ %v projects ε %v (%v), want ≤ 1", rp.Sigma, e, err)
	}
	if bp := m.Pane(TabBudget).(*budgetPane); bp.params.Epsilon != 1 {
		t.Errorf("Budget pane ε %v, want 1", bp.params.Epsilon)
	}
	if !strings.Contains(m.Status(), "lesson 1") {
		t.Errorf("status %q does not name the lesson", m.Status())
	}
	// Lesson 7 (RDP vs PLD) switches the accountant and opens Budget.
	m = press(t, m, "5", "l", "l", "l", "l", "l", "l", "enter")
	if m.Active() != TabBudget || runPaneOf(m).Params().Accountant != "pld" {
		t.Errorf("lesson 7: tab %d accountant %s, want Budget and pld", m.Active(), runPaneOf(m).Params().Accountant)
	}
	// During a run the lesson does not touch the settings.
	m = press(t, m, "5")
	m.c.RunState = RunRunning
	before := runPaneOf(m).Params()
	m = press(t, m, "h", "h", "h", "h", "h", "h", "enter")
	if m.Active() != TabLearn || runPaneOf(m).Params().Epsilon != before.Epsilon || !strings.Contains(m.Status(), "a run is going") {
		t.Errorf("during a run: tab %d ε %v status %q, want Learn, unchanged, refused", m.Active(), runPaneOf(m).Params().Epsilon, m.Status())
	}
}

// TestGlossaryOverlay opens the glossary from the Run screen, scrolls it
// to its end and closes it.
func TestGlossaryOverlay(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	m = press(t, m, "g")
	v := text(m)
	if !strings.Contains(v, "Glossary") || !strings.Contains(v, "ε (epsilon)") {
		t.Fatalf("g did not open the glossary:\n%s", v)
	}
	for range 20 {
		m = press(t, m, "f")
	}
	if v := text(m); !strings.Contains(v, "ledger") {
		t.Errorf("the glossary's end is not reachable by scrolling:\n%s", v)
	}
	checkFits(t, m.View().Content, 80, 24)
	// Screen keys pass through: the glossary stays open over the Budget.
	m = press(t, m, "2")
	if m.Active() != TabBudget || !strings.Contains(text(m), "Glossary") {
		t.Errorf("2 with the glossary open: tab %d, glossary shown %v; want Budget under the glossary", m.Active(), strings.Contains(text(m), "Glossary"))
	}
	m = press(t, m, "1", "esc")
	if v := text(m); strings.Contains(v, "Glossary") {
		t.Errorf("esc did not close the glossary:\n%s", v)
	}
	if m.Active() != TabRun {
		t.Errorf("tab %d after the glossary, want Run", m.Active())
	}
}

// TestGlossaryCoversTerms checks that every term the screens and lessons
// use is explained.
func TestGlossaryCoversTerms(t *testing.T) {
	var all strings.Builder
	for _, e := range glossaryTerms {
		if e.def == "" {
			t.Errorf("glossary term %q has no definition", e.term)
		}
		all.WriteString(e.term + "\n")
	}
	for _, want := range []string{"ε", "δ", "σ", "noise multiplier", "clipping bound C", "sampling rate q", "RDP", "PLD", "GDP", "zCDP",
		"accountant", "composition", "amplification", "DP-SGD", "ghost clipping", "B1", "null", "ARI", "NMI", "silhouette",
		"formal", "conditional", "paper-only", "none", "sound", "paper", "nonprivate", "layer range", "federated", "secure aggregation",
		"trade-off curve", "membership inference", "audit", "privacy unit", "ledger", "session tally"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("glossary lacks %q", want)
		}
	}
}

// TestPresenterSteps toggles the presenter mode, steps through lesson 1
// with space and moves on to lesson 2 after its last step.
func TestPresenterSteps(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	m = press(t, m, "5", "P")
	lp := m.Pane(TabLearn).(*learnPane)
	if !lp.present || lp.step != 1 {
		t.Fatalf("P: present %v step %d, want on at step 1", lp.present, lp.step)
	}
	v := text(m)
	if !strings.Contains(v, "largest certainty") || !strings.Contains(v, "space next step") || strings.Contains(v, "Reading the numbers") {
		t.Errorf("presenter step 1 should show the chart and the title only:\n%s", v)
	}
	n := len(lp.blocks())
	for range n - 1 {
		m = press(t, m, "space")
	}
	if lp.step != n || !strings.Contains(text(m), "Try it") {
		t.Errorf("after %d steps: step %d, want %d with the experiment line:\n%s", n-1, lp.step, n, text(m))
	}
	checkFits(t, m.View().Content, 80, 24)
	m = press(t, m, "space")
	if lp.index != 1 || lp.step != 1 {
		t.Errorf("space after the last step: lesson %d step %d, want lesson 2 step 1", lp.index+1, lp.step)
	}
	m = press(t, m, "P")
	if lp.present {
		t.Error("P did not leave the presenter mode")
	}
	_ = m
}

// TestPresenterFitsEveryLesson draws every lesson in the presenter mode at
// its last step, at 80×24 and 160×48: the screen fits, shows the lesson's
// chart title and legend, and ends with the experiment line.
func TestPresenterFitsEveryLesson(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		m := sized(t, testModel(t, fakeFast), size[0], size[1])
		m = press(t, m, "5", "P")
		lp := m.Pane(TabLearn).(*learnPane)
		for i, l := range lp.lessons {
			lp.index = i // before blocks(): it reads the current lesson
			lp.step, lp.dirty = len(lp.blocks()), true
			m = send(t, m, FrameMsg{})
			v := text(m)
			checkFits(t, m.View().Content, size[0], size[1])
			if lp.pchart.title == "" || !strings.Contains(v, "Try it") || !strings.Contains(v, "space next lesson") {
				t.Errorf("%dx%d lesson %s: title %q, screen:\n%s", size[0], size[1], l.slug, lp.pchart.title, v)
			}
		}
	}
}
