package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/tui/styles"
)

// TestBaselineLegend: the metrics chart's second header line names the
// baseline and its ARI, beside B1.
func TestBaselineLegend(t *testing.T) {
	st := styles.DefaultStyles(true)
	refs := runReferences{b1: &reference.Line{ARI: 0.69, Seeds: 5}, baseline: &reference.Line{ARI: 0.41, Seeds: 5}, baselineOf: "dppca"}
	got := stripANSI(refs.legend(st))
	for _, want := range []string{"B1 0.69", "dppca 0.41"} {
		if !strings.Contains(got, want) {
			t.Errorf("legend %q lacks %q", got, want)
		}
	}
	if n := len(refs.lines(st)); n != 2 {
		t.Errorf("%d reference lines, want B1 and the baseline", n)
	}
	if s := refs.session(); refsOf(s) != refs {
		t.Errorf("a session file does not keep the baseline: %+v", s)
	}
}
