package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/fed"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/tui/chart"
)

// mixedRecords are finished runs of three ε axes: RDP about one cell, zCDP
// about one cell and DP-FedAvg RDP about one client's data; runs 1 and 5
// have the same ε and ARI but different units.
func mixedRecords() []runRecord {
	client := func(id int, eps, ari float64) runRecord {
		r := rec(id, eps, ari)
		r.Unit = unitClient
		r.Epsilon = []core.EpsilonValue{{Accountant: fed.LabelFedSCRDP, Label: "DP-FedAvg RDP", Epsilon: eps}}
		return r
	}
	z := rec(3, 2, 0.7)
	z.Epsilon = []core.EpsilonValue{{Accountant: "zCDP", Epsilon: 2}}
	return []runRecord{rec(1, 4, 0.5), rec(2, 8, 0.6), z, client(4, 1, 0.9), client(5, 4, 0.5)}
}

// checkOneAxis fails when the points of a chart's series come from runs of
// more than one ε axis: every point is traced back to the runs it may be.
func checkOneAxis(t *testing.T, what string, s *chart.Series, recs []runRecord, want epsAxis) {
	t.Helper()
	for _, p := range s.Points() {
		found := false
		for _, r := range recs {
			if r.onFrontier() && r.frontierEps() == p.X && r.ARI == p.Y && r.axis() == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: point (%v, %v) is not a run of the shown axis %s: the chart mixes ε axes", what, p.X, p.Y, want)
		}
	}
}

// TestFrontierOneAxis selects a run of each axis in turn: the frontier
// draws only that axis's runs and Pareto front, names the accountant and
// the unit, and counts the axes left out.
func TestFrontierOneAxis(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	cp := m.Pane(TabCompare).(*comparePane)
	cp.records = mixedRecords()
	for i, r := range cp.records {
		cp.cursor, cp.dirty = i, true
		cp.Frame()
		want := r.axis()
		runs := cp.front.Series("runs")
		checkOneAxis(t, want.String()+" runs", runs, cp.records, want)
		checkOneAxis(t, want.String()+" Pareto", cp.front.Series("Pareto front"), cp.records, want)
		n := 0
		for _, o := range cp.records {
			if o.axis() == want {
				n++
			}
		}
		if runs.Len() != n {
			t.Errorf("%s: %d points, want its %d runs", want, runs.Len(), n)
		}
		title := stripANSI(cp.frontierTitle())
		if !strings.Contains(title, want.String()) || !strings.Contains(title, "2 other ε axes") {
			t.Errorf("run %d: title %q does not name its axis %q and the 2 others", r.ID, title, want)
		}
	}
	if a := cp.records[3].axis(); a.Unit != unitClient || a.Accountant != "DP-FedAvg RDP" {
		t.Errorf("a federated run's axis is %+v", a)
	}
	if cp.records[0].axis() == cp.records[4].axis() {
		t.Error("RDP about one cell and about one client share an axis")
	}
	// The Pareto fronts are per axis: on the client axis run 4 (ε 1, ARI
	// 0.9) dominates run 5; on the cell RDP axis runs 1 and 2 are both on
	// the front; zCDP's run 3 is alone on its axis.
	var ids []int
	for _, r := range pareto(cp.records) {
		ids = append(ids, r.ID)
	}
	if want := []int{1, 2, 3, 4}; !equalInts(ids, want) {
		t.Errorf("pareto = %v, want %v (fronts per axis)", ids, want)
	}
}

// TestEpsilonChartsNameUnit checks that every chart or panel showing ε
// names the privacy unit, and that the Run pane's ε chart draws each
// accountant as its own labelled series.
func TestEpsilonChartsNameUnit(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	rp := runPaneOf(m)
	rc := &rp.charts
	rc.observe(core.BudgetEvent{Step: 3, Delta: 1e-5, Target: 4,
		Spent:     []core.EpsilonValue{{Accountant: "RDP", Epsilon: 1}, {Accountant: "PLD", Epsilon: 0.8}},
		Projected: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 3.5}}})
	if s := rc.xy[chartEpsilon].AllSeries(); len(s) != 2 || s[0].Name != "RDP" || s[1].Name != "PLD" {
		t.Errorf("Run ε chart series %v, want RDP and PLD apart", s)
	}
	for _, fam := range []Family{familyDPSGD, familyFederated} {
		rc.family, rc.unit = fam, core.FamilyUnit(fam)
		title := stripANSI(rc.title(chartEpsilon, 200))
		if !strings.Contains(title, unitTitle(core.FamilyUnit(fam))) || !strings.Contains(title, "RDP 1") || !strings.Contains(title, "PLD 0.8") || !strings.Contains(title, "end RDP 3.5") {
			t.Errorf("Run ε title %q: want the unit of %v and each accountant named", title, fam)
		}
	}
	views := map[string]func(Model) string{
		"Budget":    func(m Model) string { return stripANSI(m.Pane(TabBudget).View()) },
		"Planner":   func(m Model) string { p := m.Pane(TabPlanner); p.Frame(); return stripANSI(p.View()) },
		"Trade-off": func(m Model) string { return stripANSI(m.Pane(TabTradeoff).View()) },
	}
	for name, view := range views {
		if v := view(m); !strings.Contains(v, "one cell") {
			t.Errorf("%s names no privacy unit:\n%s", name, v)
		}
	}
	// A federated method: the Trade-off and Budget panes say one client.
	pr := runPaneOf(m).Params()
	pr.Variant = variantIndex(familyFederated)
	m = send(t, m, ParamsMsg{pr})
	for _, name := range []string{"Budget", "Trade-off"} {
		if v := views[name](m); !strings.Contains(v, "one client") {
			t.Errorf("%s with %s names no client unit:\n%s", name, pr.V().Label, v)
		}
	}
	// The cell-level option of FL-DP and PPML-Omics (unit=record): its ε
	// is about one cell, and the private baseline may share its axis.
	pr.Fed.Unit = "record"
	m = send(t, m, ParamsMsg{pr})
	for _, name := range []string{"Budget", "Trade-off"} {
		if v := views[name](m); !strings.Contains(v, "one cell") || strings.Contains(v, "one client") {
			t.Errorf("%s with %s and unit=record names no cell unit:\n%s", name, pr.V().Label, v)
		}
	}
	if u := unitOfConfig(pr.fedConfig(pr.V().Method)); u != unitCell {
		t.Errorf("unit of a unit=record run %q, want %q", u, unitCell)
	}
	pr.Fed.Unit = ""
	if u := unitOfConfig(pr.fedConfig(pr.V().Method)); u != unitClient {
		t.Errorf("unit of a client-level run %q, want %q", u, unitClient)
	}
	// Every lesson names the unit, and every lesson chart that plots or
	// states an ε names its unit.
	lp := m.Pane(TabLearn).(*learnPane)
	for i := range lp.lessons {
		lp.goTo(i)
		src, err := lp.source()
		if err != nil || (!strings.Contains(src, "one cell") && !strings.Contains(src, "one client")) {
			t.Errorf("lesson %s names no privacy unit (%v)", lp.lessons[i].slug, err)
		}
	}
	for _, l := range lp.lessons {
		pc := lessonChart(m.c, l.slug, pr, 60, 12)
		if strings.Contains(pc.title, "ε") && !strings.Contains(pc.title, "one cell") && !strings.Contains(pc.title, "one client") {
			t.Errorf("lesson %s: chart %q shows ε without its unit", l.slug, pc.title)
		}
	}
}

// TestTallySeparatesUnits adds a cell-level and a client-level release on
// one data set: the header gives one total per unit, never their sum.
func TestTallySeparatesUnits(t *testing.T) {
	tl := newSessionTally()
	fedName := variants()[variantIndex(familyFederated)].Method
	tl.add("d", unitOfConfig(core.Config{Method: "dcan"}), sweepOutcome(2))
	tl.add("d", unitOfConfig(core.Config{Method: fedName}), sweepOutcome(3))
	line := tl.line("d")
	if !strings.Contains(line, "ε ≤ 2 (sum, one cell)") || !strings.Contains(line, "ε ≤ 3 (sum, one client)") || strings.Contains(line, "ε ≤ 5") {
		t.Errorf("tally %q: want 2 about one cell and 3 about one client, apart", line)
	}
	if !math.IsNaN(rec(1, math.NaN(), 0.5).frontierEps()) {
		t.Error("NaN ε kept")
	}
}

func sweepOutcome(eps float64) sweep.Outcome { return sweep.Outcome{Spent: eps, Delta: 1e-5} }

// TestNullLegendNamesWhatTheNullIs checks that the Trade-off legend says
// what the swept method's null run is: a method's own words where it gives
// them (DP-MD's queries not denoised), "untrained" otherwise.
func TestNullLegendNamesWhatTheNullIs(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	cp := m.Pane(TabTradeoff).(*curvePane)
	for method, want := range map[string]string{"dpmd": "null (queries not denoised) 0.300", "dcan": "null (untrained, no learning) 0.300"} {
		cp.sw = &curveSweep{method: method, unit: unitCell}
		cp.null = &reference.Line{ARI: 0.3, NMI: 0.4}
		if got := stripANSI(strings.Join(cp.text(300), " ")); !strings.Contains(got, want) {
			t.Errorf("%s: legend %q lacks %q", method, got, want)
		}
	}
}
