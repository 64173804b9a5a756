package tui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// sweptPane is a Trade-off pane holding a finished sweep: m sound at ε 1
// (ARI 0.4 and 0.6) and non-private (ARI 0.9), with B1 at 0.8.
func sweptPane(t *testing.T) *curvePane {
	c := &Common{Config: Config{ExportDir: t.TempDir()}, Styles: styles.DefaultStyles(true), Keys: keys.DefaultKeyMap()}
	p := newCurvePane(c, runParams{Data: "builtin:toy"})
	f := func(v float64) *float64 { return &v }
	pt := func(mode core.Mode, eps float64, seed uint64) sweep.Point {
		return sweep.Point{Config: core.Config{Method: "m", Mode: mode, Epsilon: eps, Seed: seed}}
	}
	p.sw = &curveSweep{method: "m",
		points:   []sweep.Point{pt(core.ModeSound, 1, 0), pt(core.ModeSound, 1, 1), pt(core.ModeNonPrivate, 0, 0)},
		outcomes: []*sweep.Outcome{{ARI: f(0.4), NMI: f(0.5)}, {ARI: f(0.6), NMI: f(0.7)}, {ARI: f(0.9), NMI: f(0.95)}}}
	p.ref = &reference.Line{ARI: 0.8, NMI: 0.85}
	return p
}

func TestTradeOffFigureFromSweep(t *testing.T) {
	p := sweptPane(t)
	tr, err := p.tradeOffFigure()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Curves) != 1 || len(tr.Curves[0].Points) != 1 {
		t.Fatalf("curves %+v, want one point", tr.Curves)
	}
	pt := tr.Curves[0].Points[0]
	if pt.Epsilon != 1 || pt.N != 2 || pt.Mean < 0.5-1e-12 || pt.Mean > 0.5+1e-12 {
		t.Errorf("point %+v, want ε 1, mean 0.5 of 2 runs", pt)
	}
	if len(tr.NonPrivate) != 1 || tr.NonPrivate[0].Mean != 0.9 || len(tr.References) != 1 || tr.References[0].Mean != 0.8 {
		t.Errorf("non-private %+v, references %+v", tr.NonPrivate, tr.References)
	}
	p.nmi = true
	if tr, _ := p.tradeOffFigure(); tr.Metric != "NMI" || tr.References[0].Mean != 0.85 || tr.NonPrivate[0].Mean != 0.95 {
		t.Errorf("NMI figure %+v", tr)
	}
}

func TestFigureKeyWritesFiles(t *testing.T) {
	p := sweptPane(t)
	_, cmd := p.Update(kp("F"))
	if cmd == nil {
		t.Fatal("F did nothing")
	}
	msg, ok := cmd().(StatusMsg)
	if !ok || !strings.HasPrefix(msg.Text, "figure written: ") {
		t.Fatalf("F reported %#v", msg)
	}
	dir := p.c.Config.ExportDir
	for _, f := range []string{"png", "svg", "pdf"} {
		if !strings.Contains(msg.Text, filepath.Join(dir, "dpscope-tradeoff-ari."+f)) {
			t.Errorf("status %q does not name the %s file", msg.Text, f)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "dpscope-tradeoff-ari.png"))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 1050 {
		t.Errorf("PNG %v, %v: want 1050 px wide", img.Bounds(), err)
	}
	p.sw = nil
	if _, cmd := p.Update(kp("F")); cmd == nil || !strings.Contains(cmd().(StatusMsg).Text, "no sweep yet") {
		t.Error("F before a sweep does not say to sweep first")
	}
}

// TestCurveNullFollowsEpsilon: a null swept beside the curve (it follows
// ε) is its own series and figure curve, named in the points line, and the
// verdict at each ε reads the null at that ε.
func TestCurveNullFollowsEpsilon(t *testing.T) {
	c := &Common{Config: Config{ExportDir: t.TempDir()}, Styles: styles.DefaultStyles(true), Keys: keys.DefaultKeyMap()}
	p := newCurvePane(c, runParams{Data: "builtin:toy"})
	f := func(v float64) *float64 { return &v }
	null := map[string]string{"steps": "0"}
	pt := func(eps float64, seed uint64, opts map[string]string) sweep.Point {
		return sweep.Point{Config: core.Config{Method: "m", Mode: core.ModeSound, Epsilon: eps, Seed: seed, Options: opts}}
	}
	// ε 1: the run 0.41/0.43 against its null 0.40/0.42 (no better);
	// ε 8: 0.70/0.72 against 0.40/0.42 (learnt).
	p.sw = &curveSweep{method: "m", nullOpts: null,
		points: []sweep.Point{pt(1, 0, nil), pt(1, 1, nil), pt(8, 0, nil), pt(8, 1, nil),
			pt(1, 0, null), pt(1, 1, null), pt(8, 0, null), pt(8, 1, null)},
		outcomes: []*sweep.Outcome{{ARI: f(0.41), NMI: f(0.5)}, {ARI: f(0.43), NMI: f(0.5)}, {ARI: f(0.70), NMI: f(0.8)}, {ARI: f(0.72), NMI: f(0.8)},
			{ARI: f(0.40), NMI: f(0.5)}, {ARI: f(0.42), NMI: f(0.5)}, {ARI: f(0.40), NMI: f(0.5)}, {ARI: f(0.42), NMI: f(0.5)}}}
	line := p.summaryLine()
	for _, want := range []string{"ε 1: 0.42 (n 2) no better than no learning", "ε 8: 0.71 (n 2) ·", "null ε 1: 0.41 (n 2)", "null ε 8: 0.41 (n 2)"} {
		if !strings.Contains(line, want) {
			t.Errorf("points line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "null ε 1: 0.41 (n 2) no better") {
		t.Error("the null is judged against itself")
	}
	p.SetSize(100, 30)
	p.Frame()
	if s := p.chart.Series("null"); s == nil || len(s.Points()) != 2 {
		t.Errorf("null series %v, want its two ε", s)
	}
	if s := p.chart.Series("mean"); s == nil || len(s.Points()) != 2 {
		t.Errorf("mean series %v, want the run's two ε only", s)
	}
	tr, err := p.tradeOffFigure()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Curves) != 2 || tr.Curves[1].Label != "m null (no learning)" {
		t.Errorf("figure curves %+v, want the run and its null apart", tr.Curves)
	}
}

// TestCurveVerdictPaired: the sweep's seeds 0–2 are among the null line's
// seeds 0–4, so each point is judged by the paired test over those three
// seeds: a gain of 0.08 at every seed is learning although the seeds'
// spread (sd 0.15) hides it from the unpaired test, and no gain is none.
func TestCurveVerdictPaired(t *testing.T) {
	c := &Common{Config: Config{ExportDir: t.TempDir()}, Styles: styles.DefaultStyles(true), Keys: keys.DefaultKeyMap()}
	p := newCurvePane(c, runParams{Data: "builtin:toy"})
	spread := []float64{0.10, 0.40, 0.20, 0.35, 0.15}
	null := reference.Line{Seeds: 5, SeedARI: spread}
	null.ARI, null.ARISD = sweep.Moments(spread)
	p.null = &null
	f := func(v float64) *float64 { return &v }
	var pts []sweep.Point
	var outs []*sweep.Outcome
	for _, eps := range []float64{0.5, 1} {
		for _, seed := range curveSeeds {
			ari := spread[seed]
			if eps == 1 {
				ari += 0.08 + 0.002*float64(seed%2)
			}
			pts = append(pts, sweep.Point{Config: core.Config{Method: "m", Mode: core.ModeSound, Epsilon: eps, Seed: seed}})
			outs = append(outs, &sweep.Outcome{ARI: f(ari), NMI: f(ari)})
		}
	}
	p.sw = &curveSweep{method: "m", points: pts, outcomes: outs}
	groups, _ := sweep.Summarise(pts, outs)
	if g := groups[1]; !reference.NoBetter(*g.ARIMean, *g.ARISD, g.N, null) {
		t.Fatal("the unpaired test sees the gain: the test's premise fails")
	}
	line := p.summaryLine()
	if !strings.Contains(line, "ε 0.5: 0.23 (n 3) "+reference.NoLearning) {
		t.Errorf("points line %q: ε 0.5 (no gain) is not said to be no better", line)
	}
	if !strings.Contains(line, "ε 1: 0.31 (n 3)") || strings.Contains(line, "ε 1: 0.31 (n 3) no better") {
		t.Errorf("points line %q: ε 1 (0.08 above the null at each seed) is not learning", line)
	}
}
