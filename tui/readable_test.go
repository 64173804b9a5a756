package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestCompareDropsColumnsAt80 checks the Compare table at 80 columns: the
// low-priority columns are dropped, and a marker line names them with the
// selected run's values; at 160 columns every column is shown.
func TestCompareDropsColumnsAt80(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	m = feed(t, m, 1, fakeRun(1))
	m = feed(t, m, 2, fakeRun(2))
	m = press(t, m, "3")
	v := text(m)
	checkFits(t, m.View().Content, 80, 24)
	for _, want := range []string{"ε", "accountant", "unit", "ARI", "guarantee", "› run 2, hidden columns: mode paper · layers 1-3 · time"} {
		if !strings.Contains(v, want) {
			t.Errorf("80×24 Compare lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, " time ") && !strings.Contains(v, "hidden columns") {
		t.Errorf("the time column is drawn at 80 columns:\n%s", v)
	}
	m = press(t, m, "k") // the marker follows the selection
	if !strings.Contains(text(m), "› run 1, hidden columns") {
		t.Errorf("the marker does not follow the selected run:\n%s", text(m))
	}
	if got := len(shownColumns(160)); got != len(compareColumns) {
		t.Errorf("%d columns at 160, want all %d", got, len(compareColumns))
	}
	for w := 20; w <= 160; w += 7 {
		width := 2
		for _, j := range shownColumns(w) {
			width += compareColumns[j].w
		}
		essential := 2
		for _, c := range compareColumns {
			if c.prio == 0 {
				essential += c.w
			}
		}
		if width > w && width != essential {
			t.Errorf("at %d columns the table is %d wide with droppable columns left", w, width)
		}
	}
}

// TestBudgetReasonsScroll gives a run twenty-five reasons and a warning on
// an 80×24 screen: the text says there is more, and scrolling reaches the
// last reason and the warning.
func TestBudgetReasonsScroll(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 80, 24)
	var reasons []string
	for i := 1; i <= 25; i++ {
		reasons = append(reasons, fmt.Sprintf("reason number %d", i))
	}
	evs := append(fakeRun(1), core.GuaranteeEvent{Status: core.GuaranteeConditional, Reasons: reasons}, core.WarningEvent{Message: "the loss diverged once"})
	m = feed(t, m, 1, evs)
	m = press(t, m, "2")
	v := text(m)
	if strings.Contains(v, "reason number 25") || !strings.Contains(v, "more lines: ↓/pgdn scrolls") {
		t.Fatalf("before scrolling: want the marker and no last reason:\n%s", v)
	}
	for i := 0; i < 10 && !strings.Contains(text(m), "the loss diverged once"); i++ {
		m = press(t, m, "f") // page down
	}
	v = text(m)
	if !strings.Contains(v, "reason number 25") || !strings.Contains(v, "the loss diverged once") {
		t.Errorf("scrolling did not reach the last reason and the warning:\n%s", v)
	}
	checkFits(t, m.View().Content, 80, 24)
	m = press(t, m, "b", "b", "b", "b", "b", "b")
	if !strings.Contains(text(m), "guarantee") {
		t.Errorf("scrolling back up lost the top:\n%s", text(m))
	}
}

// TestBudgetNotesApart: a run's notes (WarningEvents marked Note: its
// plan) are announced as notes in the status line and listed under
// "notes of the run" on the Budget screen, apart from its warnings.
func TestBudgetNotesApart(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	note := core.WarningEvent{Message: "plan: K = 8, p = 10", Note: true}
	for _, tc := range []struct {
		ev   core.WarningEvent
		want string
	}{{note, "note: plan: K = 8, p = 10"}, {core.WarningEvent{Message: "the loss rose"}, "warning: the loss rose"}} {
		m.noteEvents([]core.Event{tc.ev}) // what Update does with a run's events
		if m.status != tc.want {
			t.Errorf("status line after %+v: %q, want %q", tc.ev, m.status, tc.want)
		}
	}
	m = feed(t, m, 1, append(fakeRun(1), note, core.WarningEvent{Message: "the loss rose"}))
	m = press(t, m, "2")
	v := text(m)
	notes, warns := strings.Index(v, "notes of the run"), strings.Index(v, "warnings of the run")
	plan, rose := strings.Index(v, "plan: K = 8"), strings.Index(v, "the loss rose")
	if notes < 0 || warns < 0 || !(notes < plan && plan < warns && warns < rose) {
		t.Errorf("Budget screen: want the plan under \"notes of the run\" and the warning under \"warnings of the run\":\n%s", v)
	}
}
