package tui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/tui/chart"
)

func TestAuditRDPAndPLD(t *testing.T) {
	pr := defaultParams("builtin:toy", 1, [2]int{10, 10})
	// An engine's ledger (two stretches of DP-SGD steps) and plan (more
	// steps and sound mode's k-means releases): the audit composes all.
	mechs := []core.Mechanism{{Component: "stage 1", SampleRate: pr.SampleRate, NoiseMultiplier: 1.5, Steps: 50},
		{SampleRate: pr.SampleRate, NoiseMultiplier: pr.Sigma, Steps: 100}, {SampleRate: 1, NoiseMultiplier: 3 * pr.Sigma, Steps: 10}}
	r := audit(1, "test", pr.Delta, mechs)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.schedule) != 3 || r.schedule[1].Steps != 100 || r.schedule[1].NoiseMultiplier != pr.Sigma || r.schedule[2].SampleRate != 1 {
		t.Errorf("schedule %v, want 50 steps at σ 1.5, 100 at %v and 10 releases at 3σ", r.schedule, pr.Sigma)
	}
	want, _, _ := accountant.EpsilonRDP([]accountant.Event{{SampleRate: pr.SampleRate, NoiseMultiplier: 1.5, Steps: 50},
		{SampleRate: pr.SampleRate, NoiseMultiplier: pr.Sigma, Steps: 100}, {SampleRate: 1, NoiseMultiplier: 3 * pr.Sigma, Steps: 10}},
		pr.Delta, accountant.DefaultOrders.Orders(), accountant.Improved)
	if math.Abs(r.spent.EpsilonRDP-want) > 1e-9 {
		t.Errorf("audit RDP ε = %v, want %v", r.spent.EpsilonRDP, want)
	}
	if !(r.spent.EpsilonPLD > 0 && r.spent.EpsilonPLD < r.spent.EpsilonRDP) {
		t.Errorf("PLD ε = %v, want in (0, RDP %v)", r.spent.EpsilonPLD, r.spent.EpsilonRDP)
	}
	if len(r.curve) != tradeoffPoints {
		t.Fatalf("%d curve points, want %d", len(r.curve), tradeoffPoints)
	}
	for _, p := range r.curve {
		// No attacker beats the (ε, δ) bound of the PLD ε.
		bound := math.Max(0, math.Max(1-pr.Delta-math.Exp(r.spent.EpsilonPLD)*p.Alpha, math.Exp(-r.spent.EpsilonPLD)*(1-pr.Delta-p.Alpha)))
		if p.Beta < bound-1e-6 || p.Beta > 1-p.Alpha+1e-9 {
			t.Errorf("β(%v) = %v, want in [%v, %v]", p.Alpha, p.Beta, bound, 1-p.Alpha)
		}
	}
}

func TestBudgetShowsLedgerAndGuarantee(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	m = press(t, m, "2")
	if !strings.Contains(text(m), "expected guarantee") || !strings.Contains(text(m), "un-noised layers") {
		t.Errorf("before a run, Budget lacks the expected guarantee:\n%s", text(m))
	}
	m = feed(t, m, 1, fakeRun(1))
	view := text(m)
	for _, want := range []string{"guarantee: ✘ paper accounting only", "only layers 1-3 noised", "ledger at step 40", "stage 1", "total spent", "RDP vs PLD", "σ 2.5", "perfect privacy"} {
		if !strings.Contains(view, want) {
			t.Errorf("Budget lacks %q:\n%s", want, view)
		}
	}
	checkFits(t, m.View().Content, 160, 48)
}

func TestExpectedGuarantee(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		variant int
		layers  core.LayerRange
		want    core.Guarantee
	}{
		{"DCAN", 0, core.LayerRange{First: 1, Last: 3}, core.GuaranteeNone},
		{"paper, encoder only", 1, core.LayerRange{First: 1, Last: 3}, core.GuaranteeNone},
		{"DPE-DCAN", 2, core.LayerRange{First: 1, Last: 3}, core.GuaranteePaperOnly},
		{"sound", 3, core.LayerRange{First: 1, Last: 3}, core.GuaranteeFormal},
	} {
		pr := defaultParams("x", 1, [2]int{10, 10})
		pr.Variant, pr.Layers = tc.variant, tc.layers
		if got, _ := expectedGuarantee(pr); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.desc, got, tc.want)
		}
	}
}

func rec(id int, eps, ari float64) runRecord {
	return runRecord{ID: id, Mode: core.ModePaper, Epsilon: []core.EpsilonValue{{Accountant: "RDP", Epsilon: eps}}, ARI: ari, NMI: math.NaN()}
}

func TestPareto(t *testing.T) {
	recs := []runRecord{rec(1, 4, 0.5), rec(2, 2, 0.6), rec(3, 8, 0.55), rec(4, 8, 0.7), rec(5, 1, 0.1)}
	recs = append(recs, runRecord{ID: 6, Mode: core.ModeNonPrivate, ARI: 0.9})
	var ids []int
	for _, r := range pareto(recs) {
		ids = append(ids, r.ID)
	}
	if got, want := ids, []int{5, 2, 4}; !equalInts(got, want) {
		t.Errorf("pareto = %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCompareRecordsPinsAndExports(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	m = feed(t, m, 1, fakeRun(1))
	m = feed(t, m, 2, fakeRun(2))
	m = press(t, m, "3")
	cp := m.Pane(TabCompare).(*comparePane)
	if n := len(cp.Records()); n != 2 {
		t.Fatalf("%d records, want 2", n)
	}
	if r := cp.Records()[0]; r.ARI != 0.8 || r.epsilon("RDP") != 4 || r.Guarantee != core.GuaranteePaperOnly || r.Outcome != "finished" {
		t.Errorf("record = %+v, want ARI 0.8, ε 4, paper-only, finished", r)
	}
	m = press(t, m, "k", "space", "j")
	if !cp.Records()[0].Pinned || cp.Records()[1].Pinned {
		t.Error("space did not pin run 1 alone")
	}
	if got := len(cp.overlay.AllSeries()); got != 2 {
		t.Errorf("overlay has %d series, want the pinned and the selected", got)
	}
	m = send(t, m, runReferencesMsg{id: 1, refs: runReferences{b1: &reference.Line{ARI: 0.7, NMI: 0.6, Seeds: 5}}})
	m = press(t, m, "e")
	dir := m.c.Config.ExportDir
	if !strings.Contains(m.Status(), filepath.Join(dir, runsFile)) {
		t.Errorf("status %q lacks the export path", m.Status())
	}
	b, err := os.ReadFile(filepath.Join(dir, runsFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("runs CSV (%v):\n%s", err, b)
	}
	// Every parameter that made the run, by column name.
	want := map[string]string{
		"run": "1", "variant": "DP-DCAN paper", "method": fakeFast, "mode": "paper", "data": "builtin:toy",
		"epsilon_target": "4", "epsilon_RDP": "4", "delta": "1e-05", "sigma": "2.5", "clip": "0.1", "q": "0.1",
		"layers": "1-3", "accountant": "rdp", "epochs": "20+20", "steps": "40", "seed": "1", "secure_noise": "false",
		"guarantee": "paper-only", "guarantee_reasons": "only layers 1-3 noised", "ari": "0.8", "nmi": "0.5",
		"acc": "", "b1_ari": "0.7", "b1_nmi": "0.6", "null_ari": "", "baseline_ari": "", "baseline_method": "", "outcome": "finished", "dpscope_version": "devel", "schema": "1",
	}
	for col, v := range want {
		j := slices.Index(rows[0], col)
		if j < 0 {
			t.Errorf("runs CSV has no column %q: %v", col, rows[0])
		} else if rows[1][j] != v {
			t.Errorf("runs CSV %s = %q, want %q", col, rows[1][j], v)
		}
	}
	for _, col := range []string{"cells", "genes", "clients", "rounds", "null_ari", "seconds", "options"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("runs CSV has no column %q", col)
		}
	}
	jb, err := os.ReadFile(filepath.Join(dir, runsJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format  string           `json:"format"`
		Schema  int              `json:"schema"`
		Version string           `json:"version"`
		Runs    []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(jb, &doc); err != nil || doc.Format != "dpscope-export" || doc.Schema != exportSchema || doc.Version != "devel" || len(doc.Runs) != 2 {
		t.Fatalf("runs JSON (%v):\n%s", err, jb)
	}
	if r := doc.Runs[1]; r["run"] != 2.0 || r["sigma"] != 2.5 || r["acc"] != nil || r["guarantee_reasons"] != "only layers 1-3 noised" || r["seed"] != "1" {
		t.Errorf("runs JSON run 2: %v", r)
	}
	if !strings.Contains(m.Status(), filepath.Join(dir, runsJSONFile)) {
		t.Errorf("status %q lacks the JSON export's path", m.Status())
	}
	f, err := os.ReadFile(filepath.Join(dir, frontierFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f), "1,DP-DCAN paper,4,0.8,true") {
		t.Errorf("frontier CSV:\n%s", f)
	}
	tmp, _ := filepath.Glob(filepath.Join(dir, ".dpscope-*"))
	if len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	checkFits(t, m.View().Content, 160, 48)
}

func TestPlannerFigures(t *testing.T) {
	in := plannerInputs{Q: 0.1, Steps: 300, Delta: 1e-5, Sigma: 1.5, Target: 3}
	r := planRDP(1, in)
	want, _ := accountant.ProjectRDP(nil, in.Q, in.Sigma, in.Steps, in.Delta, accountant.DefaultOrders.Orders())
	if r.eps["RDP"] != want {
		t.Errorf("RDP ε = %v, want %v", r.eps["RDP"], want)
	}
	got, _ := accountant.ProjectRDP(nil, in.Q, r.sigmaFor["RDP"], in.Steps, in.Delta, accountant.DefaultOrders.Orders())
	if math.Abs(got-in.Target) > 1e-2 {
		t.Errorf("σ %v for ε 3 gives ε %v", r.sigmaFor["RDP"], got)
	}
	pts := r.bySteps["RDP"]
	for i := 1; i < len(pts); i++ {
		if pts[i].Y < pts[i-1].Y {
			t.Errorf("ε against steps falls at %v", pts[i].X)
		}
	}
	pts = r.bySigma["RDP"]
	for i := 1; i < len(pts); i++ {
		if pts[i].Y > pts[i-1].Y {
			t.Errorf("ε against σ rises at %v", pts[i].X)
		}
	}
}

func TestPlannerPaneUpdates(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	m = press(t, m, "4")
	if !strings.Contains(text(m), "PLD ") || strings.Contains(text(m), "PLD …") {
		t.Errorf("Planner lacks PLD figures after showing:\n%s", text(m))
	}
	pp := m.Pane(TabPlanner).(*plannerPane)
	before := pp.res.eps["RDP"]
	m = press(t, m, "j", "l") // more steps
	if after := pp.res.eps["RDP"]; !(after > before) {
		t.Errorf("ε %v after more steps, want more than %v", after, before)
	}
	checkFits(t, m.View().Content, 160, 48)
}

func TestLessonsFollowParameters(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = press(t, m, "5")
	lp := m.Pane(TabLearn).(*learnPane)
	if len(lp.lessons) < 12 {
		t.Fatalf("%d lessons, want at least 12", len(lp.lessons))
	}
	if !strings.Contains(text(m), "e^ε ≈ 54.6") {
		t.Errorf("lesson 1 at ε 4 lacks e^ε ≈ 54.6:\n%s", text(m))
	}
	// ε 2 on the Run screen: the lesson follows.
	m = press(t, m, "1", "j", "j", "enter", "backspace", "backspace", "backspace", "backspace", "2", "enter", "5")
	if !strings.Contains(text(m), "e^ε ≈ 7.389") {
		t.Errorf("lesson 1 at ε 2 lacks e^ε ≈ 7.389:\n%s", text(m))
	}
	for i := range lp.lessons {
		lp.index = i
		if l := lp.Lesson(); strings.Contains(l, "lesson:") || strings.Contains(l, "{{") {
			t.Errorf("lesson %d did not render:\n%s", i+1, l)
		}
	}
	m = press(t, m, "l")
	if lp.index != 0 {
		t.Errorf("lesson %d after wrapping, want 0", lp.index)
	}
	checkFits(t, m.View().Content, 120, 40)
}

func TestMarkdown(t *testing.T) {
	st := testModel(t, fakeFast).c.Styles
	out := renderMarkdown("# Title\n\nsome **bold** and `code`\nwraps here.\n\n- one\n  two\n- three\n", st, 20)
	plain := strings.Split(stripANSI(out), "\n")
	want := []string{"Title", "", "some bold and code", "wraps here.", "", "• one two", "• three"}
	if strings.Join(plain, "|") != strings.Join(want, "|") {
		t.Errorf("markdown =\n%q\nwant\n%q", plain, want)
	}
}

func TestChartBoundedAndMarked(t *testing.T) {
	st := testModel(t, fakeFast).c.Styles
	c := chart.New(40, 10, st.Axis, st.AxisLabel, st.Marker)
	c.SetCapacity(100)
	for i := range 10000 {
		c.Push("a", float64(i), math.Sin(float64(i)/100))
	}
	if n := c.Series("a").Len(); n > 100 || n < 50 {
		t.Errorf("%d points kept, want 50–100", n)
	}
	if p, _ := c.Series("a").Last(); p.X < 9000 {
		t.Errorf("last kept x = %v, want the recent history", p.X)
	}
	c.AddMarker(5000)
	c.Draw()
	v := c.View()
	if !strings.Contains(v, "▼") {
		t.Error("marker not drawn")
	}
	checkFits(t, v, 40, 10)
	_ = time.Second
}

// A method that sets its noise itself (no core.Method.Calibrate) gets no
// projection of the interface's own: no σ hint, and the Budget pane says
// why it has no audit.
func TestNoPreviewShowsNoProjection(t *testing.T) {
	pr := defaultParams("builtin:toy", 1, [2]int{10, 10})
	if r := audit(1, "test", pr.Delta, nil); !errors.Is(r.err, errNoReleases) {
		t.Errorf("audit of no releases: %v, want errNoReleases", r.err)
	}
	pr.Variant = -1
	for i, v := range variants() {
		if v.Family() == familyDPSGD && v.Mode != core.ModeNonPrivate && v.Desc().Calibrate == nil {
			pr.Variant = i
		}
	}
	if pr.Variant < 0 {
		t.Skip("no DP-SGD method without a preview is registered in this binary")
	}
	if _, err := pr.calibrate(true); !errors.Is(err, errNoPreview) {
		t.Errorf("calibrate: %v, want errNoPreview", err)
	}
}
