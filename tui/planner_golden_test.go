package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestPlannerGoldenScreens is the Planner's golden screen (tab 4) at 80×24
// and 160×48, with and without NO_COLOR. Its ε figures arrive from
// accountant commands, so the model is driven directly and every command
// is run to its end (settle) before the screen is drawn: the screen then
// does not depend on timing, as a teatest program's output would.
func TestPlannerGoldenScreens(t *testing.T) {
	goldenScreens(t, []string{"tab4"}, func(t *testing.T, size [2]int, _ string) {
		m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1})
		m = press(t, sized(t, m, size[0], size[1]), "4")
		view := stripANSI(m.View().Content)
		if strings.Contains(view, "RDP 0 ") {
			t.Fatalf("the Planner still shows an unfinished ε:\n%s", view)
		}
		checkFits(t, m.View().Content, size[0], size[1])
		teatest.RequireEqualOutput(t, []byte(view))
	})
}
