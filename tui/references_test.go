package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/tui/styles"
)

// TestBaselineFor: a sound run at a target ε is drawn against dppca at
// its ε when both count one cell; dppca's own runs, non-private runs,
// runs given σ and client-level federated runs get no baseline line.
func TestBaselineFor(t *testing.T) {
	dppca := core.Method{Name: "dppca", Baseline: true, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate}}
	sound := core.Config{Data: "builtin:default", Method: "dcan-sound", Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5}
	for _, tc := range []struct {
		name string
		edit func(*core.Config)
		want bool
	}{
		{"dcan-sound sound", func(*core.Config) {}, true},
		{"dcan-sound no noise", func(c *core.Config) { c.Mode, c.Epsilon = core.ModeNonPrivate, 0 }, false},
		{"σ without a target", func(c *core.Config) { c.Epsilon, c.Sigma = 0, 1.1 }, false},
		{"dppca itself", func(c *core.Config) { c.Method = "dppca" }, false},
		{"fl-dp, one client", func(c *core.Config) { c.Method = "fl-dp" }, false},
		{"fl-dp, one cell", func(c *core.Config) {
			c.Method, c.Options = "fl-dp", map[string]string{"unit": "record"}
		}, true},
	} {
		cfg := sound
		tc.edit(&cfg)
		b, ok := baselineFor(cfg, []core.Method{dppca})
		if ok != tc.want || (ok && b.Name != "dppca") {
			t.Errorf("%s: baseline %q, %v; want dppca: %v", tc.name, b.Name, ok, tc.want)
		}
	}
}

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
