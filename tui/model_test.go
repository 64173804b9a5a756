package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestTabsSwitch(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	for _, tc := range []struct {
		desc string
		keys []string
		want int
	}{
		{"tab moves right", []string{"tab"}, TabBudget},
		{"shift+tab wraps left", []string{"shift+tab"}, TabAudit},
		{"digit jumps", []string{"4"}, TabPlanner},
		{"tab wraps", []string{"7", "tab"}, TabRun},
		{"digit jumps to the audit", []string{"7"}, TabAudit},
		{"three tabs", []string{"tab", "tab", "tab"}, TabPlanner},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got := press(t, m, tc.keys...)
			if got.Active() != tc.want {
				t.Errorf("after %v: tab %d, want %d", tc.keys, got.Active(), tc.want)
			}
			if title := got.Pane(tc.want).Title(); !strings.Contains(text(got), title) {
				t.Errorf("view lacks the tab title %q", title)
			}
		})
	}
}

func TestEveryTabFitsEverySize(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	for _, size := range [][2]int{{80, 24}, {100, 30}, {160, 48}, {200, 60}, {60, 20}} {
		m = send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for tab := range 6 {
			m = press(t, m, string(rune('1'+tab)))
			for _, help := range []bool{false, true} {
				if help != m.showHelp {
					m = press(t, m, "?")
				}
				view := m.View().Content
				checkFits(t, view, size[0], size[1])
				if !strings.Contains(view, "dpscope") {
					t.Errorf("%v tab %d: no header", size, tab)
				}
			}
		}
	}
}

func TestHelpOverlayListsPaneKeys(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	short := m.helpView() // the help bar (the Run pane's own key line also says "restart")
	m = press(t, m, "?")
	full := text(m)
	for _, want := range []string{"restart", "type value", "prev screen", "colour: cluster/truth"} {
		if strings.Contains(short, want) {
			t.Errorf("short help already shows %q", want)
		}
		if !strings.Contains(full, want) {
			t.Errorf("full help lacks %q:\n%s", want, full)
		}
	}
}

// TestHelpBarAlwaysEndsWithHelpAndQuit: on every screen, down to 60
// columns, the bar keeps "? help" and "q quit" and cuts the pane's keys.
func TestHelpBarAlwaysEndsWithHelpAndQuit(t *testing.T) {
	for _, width := range []int{60, 80, 160} {
		m := sized(t, testModel(t, fakeFast), width, 24)
		for tab := range m.panes {
			m = press(t, m, string(rune('1'+tab)))
			bar := ansi.Strip(m.helpView())
			if !strings.HasSuffix(bar, "? help • q quit") {
				t.Errorf("width %d, tab %d: help bar %q does not end with ? help • q quit", width, tab+1, bar)
			}
			if w := ansi.StringWidth(bar); w > width {
				t.Errorf("width %d, tab %d: help bar is %d cells", width, tab+1, w)
			}
		}
	}
}

// TestTooSmallSaysWhatItNeeds: below the minimum size the screen names the
// size it needs, fits the terminal, and q still quits.
func TestTooSmallSaysWhatItNeeds(t *testing.T) {
	for _, size := range [][2]int{{59, 24}, {80, 19}, {30, 8}} {
		m := sized(t, testModel(t, fakeFast), size[0], size[1])
		view := m.View().Content
		checkFits(t, view, size[0], size[1])
		if want := "need 60×20"; !strings.Contains(ansi.Strip(view), want) {
			t.Errorf("%v: screen lacks %q:\n%s", size, want, ansi.Strip(view))
		}
		if _, cmd := m.Update(kp("q")); cmd == nil {
			t.Errorf("%v: q gives no command, want tea.Quit", size)
		}
	}
}

func TestQuitWithoutRun(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := sized(t, testModel(t, fakeFast), 80, 24)
		_, cmd := m.Update(kp(k))
		if cmd == nil {
			t.Fatalf("%s: no command, want tea.Quit", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s: command gives %T, want tea.QuitMsg", k, cmd())
		}
	}
}

func TestQuitConfirmsDuringRun(t *testing.T) {
	m := sized(t, testModel(t, fakeSlow), 80, 24)
	next, cmd := m.Update(kp("s"))
	m = next.(Model)
	// Run the start request and core.Start, but not the event wait.
	for range 2 {
		msg := cmd()
		next, cmd = m.Update(msg)
		m = next.(Model)
	}
	if m.RunState() != RunRunning {
		t.Fatalf("state %v after start, want running", m.RunState())
	}
	run := m.run
	defer run.Wait()
	next, cmd = m.Update(kp("q"))
	m = next.(Model)
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("q quit at once during a run, want a confirmation")
		}
	}
	if !strings.Contains(text(m), "Stop it and quit?") {
		t.Errorf("no confirmation dialog:\n%s", m.View().Content)
	}
	checkFits(t, m.View().Content, 80, 24)
	next, _ = m.Update(kp("n"))
	m = next.(Model)
	if strings.Contains(text(m), "Stop it and quit?") {
		t.Error("dialog still shown after n")
	}
	next, _ = m.Update(kp("q"))
	m = next.(Model)
	_, cmd = m.Update(kp("y"))
	if cmd == nil {
		t.Fatal("y: no command, want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("y did not quit")
	}
	// y stopped the run: its events end.
	for range run.Events() {
	}
}

func TestThemeFollowsBackground(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	dark := m.c.Styles.Title.GetForeground()
	m = send(t, m, tea.BackgroundColorMsg{Color: lightColor{}})
	if m.isDark {
		t.Fatal("still dark after a light background")
	}
	if light := m.c.Styles.Title.GetForeground(); light == dark {
		t.Error("title colour did not change with the theme")
	}
}

// lightColor is a white background.
type lightColor struct{}

func (lightColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }
