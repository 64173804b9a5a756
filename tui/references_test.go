package tui

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
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

// TestVerdictOnScreen: a private run not above its null beyond seed noise
// says so on the Run screen once it has ended, its ARI is starred in the
// Compare table with the verdict on the line under it, and the CSV export
// carries it; a run above its null, a non-private run and a run still
// going say nothing.
func TestVerdictOnScreen(t *testing.T) {
	null := &reference.Line{ARI: 0.28, ARISD: 0.066, Seeds: 5}
	// One run against five null runs: 2 SE = 2·0.066·√(1 + 1/5) ≈ 0.145.
	for _, tc := range []struct {
		private bool
		ari     float64
		want    string
	}{
		{true, 0.33, reference.NoLearning},
		{true, 0.42, reference.NoLearning},
		{true, 0.43, ""},
		{false, 0.33, ""},
		{true, math.NaN(), ""},
	} {
		if got := reference.RunVerdict(tc.private, tc.ari, null); got != tc.want {
			t.Errorf("verdict(private %v, ARI %v) = %q, want %q", tc.private, tc.ari, got, tc.want)
		}
	}
	if got := reference.RunVerdict(true, 0.1, nil); got != "" {
		t.Errorf("a method with no null: verdict %q", got)
	}

	rc := runCharts{started: true, private: true, refs: runReferences{null: null},
		metrics: []core.NamedValue{{Name: "NMI", Value: 0.46}, {Name: "ARI", Value: 0.33}}}
	if got, _ := rc.verdict(RunRunning); got != "" {
		t.Errorf("a running run's verdict %q, want none", got)
	}
	if got, _ := rc.verdict(RunFinished); got != reference.NoLearning {
		t.Errorf("the ended run's verdict %q, want %q", got, reference.NoLearning)
	}

	// With the run's settings at the null's seeds the verdict is paired: a
	// steady gain the one-run figure could not show is learning.
	paired := *null
	paired.SeedARI = []float64{0.27, 0.28, 0.29, 0.28, 0.28}
	self := &reference.Line{Seeds: 5, SeedARI: []float64{0.37, 0.39, 0.38, 0.37, 0.39}}
	rc.refs = runReferences{null: &paired, self: self}
	if got, l := rc.verdict(RunFinished); got != "" || l == nil || math.Abs(l.Gain-0.100) > 1e-9 {
		t.Errorf("paired verdict %q, %+v; want learning, gain 0.100", got, l)
	}
	rc.refs = runReferences{null: null}

	r := runRecord{ID: 3, Mode: core.ModeSound, ARI: 0.33, NMI: 0.46, refs: runReferences{null: null}}
	if c := r.ariCell(); c != "*0.330" {
		t.Errorf("ARI cell %q, want *0.330", c)
	}
	cp := &comparePane{c: &Common{Styles: styles.DefaultStyles(true)}, records: []runRecord{r}, w: 160}
	if l := stripANSI(cp.referenceLine()); !strings.Contains(l, "run 3: *ARI "+reference.NoLearning) || !strings.Contains(l, "null (no learning) ARI 0.280") {
		t.Errorf("line under the table %q: want the verdict and the null", l)
	}
	names, values := exportRow(r, nil, "devel")
	if i := slices.Index(names, "verdict"); i < 0 || values[i] != reference.NoLearning {
		t.Errorf("export: verdict column %d in %v", i, names)
	}
	r.ARI = 0.5
	if c := r.ariCell(); c != "0.500" {
		t.Errorf("ARI cell %q above the null, want it bare", c)
	}
}
