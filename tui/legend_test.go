package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestLossChartLegend checks that a loss made of parts gets a legend with
// each part's glyph and name, so the lines read without colour.
func TestLossChartLegend(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	rc := &runPaneOf(m).charts
	rc.observe(core.StepEvent{Step: 1, Loss: 2, Parts: []core.NamedValue{{Name: "zinb", Value: 1.5}, {Name: "instance", Value: 0.5}}})
	title := stripANSI(rc.title(chartLoss, 300))
	for _, s := range rc.xy[chartLoss].AllSeries() {
		if !strings.Contains(title, s.Pattern.Glyph()+s.Name) {
			t.Errorf("loss title %q has no legend entry for %s", title, s.Name)
		}
	}
	if n := len(rc.xy[chartLoss].AllSeries()); n != 3 {
		t.Errorf("%d loss series, want loss, zinb and instance", n)
	}
}
