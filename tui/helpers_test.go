package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui/internal/fake"
)

// The fake engines the tests start: instant, and one that takes a few
// milliseconds a step so a run can be changed while it goes.
const (
	fakeFast = "tui-fake"
	fakeSlow = "tui-fake-slow"
)

func init() {
	fake.Register(fakeFast, 0)
	fake.Register(fakeSlow, 25*time.Millisecond)
}

func testSummary() datasets.Summary {
	return datasets.Summary{Name: "toy", Source: "builtin:toy", Cells: 300, Genes: 50, KeptCells: 300, SelectedGenes: 50,
		Classes: []datasets.ClassCount{{Name: "alpha", Cells: 200}, {Name: "beta", Cells: 100}}}
}

func testModel(t *testing.T, method string) Model {
	t.Helper()
	return New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: method, ExportDir: t.TempDir()})
}

// kp builds a key press from its name ("j", "enter", "tab", "shift+tab").
func kp(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// settle runs cmd and feeds what it returns back into m, recursively, the
// way the runtime would, skipping frame ticks and commands that block on a
// run's events. It returns the model and the messages it saw.
func settle(t *testing.T, m Model, cmd tea.Cmd) (Model, []tea.Msg) {
	t.Helper()
	var seen []tea.Msg
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Fatal("settle: too many commands")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := runCmd(c)
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case FrameMsg:
			continue
		}
		seen = append(seen, msg)
		next, c2 := m.Update(msg)
		m = next.(Model)
		queue = append(queue, c2)
	}
	return m, seen
}

// runCmd runs c, giving up on commands that wait (ticks, engine waits).
func runCmd(c tea.Cmd) tea.Msg {
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(30 * time.Second):
		return nil
	}
}

// send delivers msg and settles the commands it returns.
func send(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	next, cmd := m.Update(msg)
	out, _ := settle(t, next.(Model), cmd)
	return out
}

// press sends each key in turn.
func press(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = send(t, m, kp(k))
	}
	return m
}

// sized returns a model after Init and a window size.
func sized(t *testing.T, m Model, w, h int) Model {
	t.Helper()
	m, _ = settle(t, m, m.Init())
	return send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// checkFits fails when the view has more lines than h or a line wider than w.
func checkFits(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) > h {
		t.Errorf("view has %d lines, more than the terminal's %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, w, l)
		}
	}
}

// text is the model's screen without styles.
func text(m Model) string { return ansi.Strip(m.View().Content) }

func stripANSI(s string) string { return ansi.Strip(s) }

// rdpOf is the accountant's ε of pr's DP-SGD steps at σ (dpscope's orders):
// what DP-DCAN's preview must project in paper mode, whose plan is those
// steps alone.
func rdpOf(sigma float64, pr runParams) (float64, error) {
	return accountant.ProjectRDP(nil, pr.SampleRate, sigma, pr.Steps(), pr.Delta, accountant.DefaultOrders.Orders())
}

// goldenScreens runs fn as one subtest for each terminal size of the golden
// screens (80×24, 160×48), each name and each colour setting, named as the
// golden files are (WxH_name, WxH_name_nocolor); NO_COLOR is set in the
// second. One loop for every golden test, so a size added here is drawn
// by all of them.
func goldenScreens(t *testing.T, names []string, fn func(t *testing.T, size [2]int, name string)) {
	t.Helper()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, name := range names {
			for _, noColor := range []bool{false, true} {
				label := fmt.Sprintf("%dx%d_%s", size[0], size[1], name)
				if noColor {
					label += "_nocolor"
				}
				t.Run(label, func(t *testing.T) {
					if noColor {
						t.Setenv("NO_COLOR", "1")
					}
					fn(t, size, name)
				})
			}
		}
	}
}
