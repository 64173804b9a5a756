package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/internal/class"
)

// TestNoPreviewEpsilonEditIsNotAnError: changing ε of a method that sets
// its noise itself (dcan-sound, the default) is an ordinary edit. The
// status line showed "σ for ε 3.2: tui: DP-DCAN sound (redesigned): the
// method sets its noise itself and offers no preview" as an error.
func TestNoPreviewEpsilonEditIsNotAnError(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	rp := runPaneOf(m)
	rp.solveSeq = 41
	m = send(t, m, sigmaSolvedMsg{seq: 41, err: fmt.Errorf("tui: some method: %w", errNoPreview)})
	if m.errored || strings.Contains(m.Status(), "no preview") {
		t.Errorf("status %q (error %v); want no error for a method without a σ preview", m.Status(), m.errored)
	}
	// A real solve failure is still reported.
	rp.solveSeq = 42
	m = send(t, m, sigmaSolvedMsg{seq: 42, err: fmt.Errorf("no σ reaches it")})
	if !m.errored || !strings.Contains(m.Status(), "σ for ε") {
		t.Errorf("status %q (error %v); want the solve's failure shown", m.Status(), m.errored)
	}
}

// TestEditAfterRunShowsExpectedGuarantee: once a run has ended, changing a
// setting drops that run's guarantee badge as stale (edited); the side
// panel then showed no guarantee at all. It shows the new settings'
// expected one, as before the first run.
func TestEditAfterRunShowsExpectedGuarantee(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = feed(t, m, 1, fakeRun(1))
	if !runPaneOf(m).sched.finished {
		t.Fatal("fake run did not finish")
	}
	m = cursorTo(t, m, "ε target")
	m = press(t, m, "l")
	side := runPaneOf(m).summary(36, 20)
	if !strings.Contains(stripANSI(side), "expected") {
		t.Errorf("side panel after an edit:\n%s\nwant the settings' expected guarantee", stripANSI(side))
	}
}

// TestCompareWideWindowShowsWholeNames: on a wide window Compare gives its
// spare width to the method and accountant columns, which were cut at
// their fixed widths ("GDP exact (o…") even at 200 columns; at 80 the
// table keeps its fixed widths and fits.
func TestCompareWideWindowShowsWholeNames(t *testing.T) {
	const acct = "GDP exact (one cell added/removed)"
	evs := fakeRun(1)
	for i, ev := range evs {
		if b, ok := ev.(core.BudgetEvent); ok {
			b.Spent = []core.EpsilonValue{{Accountant: acct, Epsilon: b.Spent[0].Epsilon}}
			b.Projected = []core.EpsilonValue{{Accountant: acct, Epsilon: 4}}
			evs[i] = b
		}
	}
	m := sized(t, testModel(t, fakeFast), 200, 50)
	m = feed(t, m, 1, evs)
	m = press(t, m, "3")
	v := text(m)
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "▸ 1 ") {
			row = l
		}
	}
	if !strings.Contains(row, acct) || strings.Contains(row, "…") {
		t.Errorf("200-column Compare row %q: want the whole accountant %q, nothing cut\n%s", row, acct, v)
	}
	checkFits(t, m.View().Content, 200, 50)
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	checkFits(t, m.View().Content, 80, 24)
	for _, l := range strings.Split(text(m), "\n") {
		if strings.HasPrefix(l, "▸ 1 ") && !strings.Contains(l, "GDP exact (o") {
			t.Errorf("80-column row %q lost its accountant", l)
		}
	}
}

// TestBudgetOfSelfAccountedRun: a run that reports its accountants'
// figures but no paper's and no subsampled schedule (dcan-sound) showed
// "as published —" and "no release reported: nothing to compose" beside a
// ledger that had spent ε 4. It shows what it has: the audited figures,
// and why there is no RDP-vs-PLD comparison.
func TestBudgetOfSelfAccountedRun(t *testing.T) {
	const acct = "GDP exact (one cell added/removed)"
	evs := []core.Event{
		core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: []string{"every release in one GDP ledger"},
			Audited: []core.EpsilonValue{{Accountant: acct, Epsilon: 4}}},
		core.StageEvent{Stage: 1, Name: "network", Steps: 2},
	}
	for s := 1; s <= 2; s++ {
		evs = append(evs, core.StepEvent{Stage: 1, Epoch: 1, Step: s, Loss: 1},
			core.BudgetEvent{Step: s, Delta: 1e-5, Target: 4, Spent: []core.EpsilonValue{{Accountant: acct, Epsilon: 2 * float64(s)}}})
	}
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = feed(t, m, 1, append(evs, core.DoneEvent{}))
	m = press(t, m, "2")
	v := text(m)
	for _, bad := range []string{"as published —", "nothing to compose"} {
		if strings.Contains(v, bad) {
			t.Errorf("Budget shows %q:\n%s", bad, v)
		}
	}
	for _, want := range []string{"audited ε 4 (GDP exact", "no subsampled schedule"} {
		if !strings.Contains(v, want) {
			t.Errorf("Budget lacks %q:\n%s", want, v)
		}
	}
	checkFits(t, m.View().Content, 120, 40)
}

// TestWelcomeHintOnlyOnRun: the first status line names the Run screen's
// keys; on Learn (where ←/→ turn the lessons), Audit (s starts the audit)
// or Trade-off it pointed at keys that do something else there.
func TestWelcomeHintOnlyOnRun(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	if !strings.Contains(text(m), "←/→ change the selected setting") {
		t.Fatalf("Run screen lacks the welcome hint:\n%s", text(m))
	}
	for _, tab := range []string{"2", "3", "5", "6", "7"} {
		m = press(t, m, tab)
		if v := text(m); strings.Contains(v, "change the selected setting") || !strings.Contains(v, welcomeElsewhere) {
			t.Errorf("tab %s status line:\n%s\nwant %q", tab, v, welcomeElsewhere)
		}
	}
	m = press(t, m, "1")
	if !strings.Contains(text(m), "←/→ change the selected setting") {
		t.Errorf("back on Run the hint is gone:\n%s", text(m))
	}
}

// TestStartedRunNeverSaysPressS: once a run has started and before its
// first report (a federated round can take seconds), the ε chart said
// "press s to start a run" beside a running progress bar.
func TestStartedRunNeverSaysPressS(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	if !strings.Contains(text(m), "press s to start a run") {
		t.Fatalf("idle Run screen lacks its invitation:\n%s", text(m))
	}
	m.c.RunID, m.c.RunState = 1, RunRunning
	m = send(t, m, RunStartedMsg{ID: 1, Config: runPaneOf(m).Params().Config(fakeFast)})
	m.frame()
	v := text(m)
	if strings.Contains(v, "press s to start a run") || !strings.Contains(v, "ε appears with the first step's report") {
		t.Errorf("a started run's screen:\n%s", v)
	}
}

// TestSigmaHintOverTargetNamesAccountant: "σ noise 1 → ε 15.9 > target"
// was an ε without its accountant; the hint within the target said "RDP".
func TestSigmaHintOverTargetNamesAccountant(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	rp := runPaneOf(m)
	rp.projected, rp.projErr = rp.params.Epsilon*4, nil
	h := rp.sigmaHint()
	if !strings.Contains(h, rp.projLabel()) || !strings.Contains(h, "> "+fmtEps(rp.params.Epsilon)) {
		t.Errorf("σ hint over the target %q; want the accountant %q and the target %s", h, rp.projLabel(), fmtEps(rp.params.Epsilon))
	}
}

// TestMethodLabelKeepsQualifier: two method choices whose labels differ
// only after the cut looked the same in the side panel.
func TestMethodLabelKeepsQualifier(t *testing.T) {
	for _, tc := range []struct {
		v    string
		w    int
		want string
	}{
		{"DP-DCAN sound (redesigned), no noise", 25, "DP-DCAN sound …, no noise"},
		{"DP-DCAN sound (redesigned), no noise", 40, "DP-DCAN sound (redesigned), no noise"},
		{"DP-DCAN sound (redesigned)", 25, "DP-DCAN sound (redesigne…"},
		{"a, b", 3, "a,…"},
	} {
		got := keepQualifier(tc.v, tc.w)
		if tc.w < lipgloss.Width(tc.v) && lipgloss.Width(got) > tc.w {
			t.Errorf("keepQualifier(%q, %d) = %q, wider than %d", tc.v, tc.w, got, tc.w)
		}
		if tc.w >= lipgloss.Width(tc.v) {
			got = tc.v // fitted leaves a value that fits alone
		}
		if got != tc.want {
			t.Errorf("keepQualifier(%q, %d) = %q, want %q", tc.v, tc.w, got, tc.want)
		}
	}
	// In a form: the method field's value keeps its qualifier at the side
	// panel's width, and the row still fits.
	label := "DP-DCAN sound (redesigned), no noise"
	f := newForm([]field{{name: "method", value: func() string { return label }, fit: keepQualifier}, {name: "ε target", value: func() string { return "4" }}})
	view := stripANSI(f.view(sized(t, testModel(t, fakeFast), 80, 24).c.Styles, 36))
	first := strings.Split(view, "\n")[0]
	if !strings.Contains(first, ", no noise") || lipgloss.Width(first) > 36 {
		t.Errorf("method row %q: want the qualifier within 36 cells", first)
	}
	if runPaneOf(sized(t, testModel(t, fakeFast), 80, 24)).form.fields[fMethod].fit == nil {
		t.Error("the Run form's method field cuts its label at the end")
	}
}

// TestTradeoffTextLeavesRoomForCurve: at 80×24 a finished sweep's list of
// every point's mean ran to eleven lines, squeezed the curve to one row
// and pushed the sweep's privacy total off the screen. The list gives way;
// the curve keeps minCurveRows rows and the total stays.
func TestTradeoffTextLeavesRoomForCurve(t *testing.T) {
	p := sweptPane(t)
	f := func(v float64) *float64 { return &v }
	p.sw.points, p.sw.outcomes = nil, nil
	for i := range 24 {
		eps := 0.1 * float64(i+1)
		for seed := range uint64(3) {
			p.sw.points = append(p.sw.points, sweep.Point{Config: core.Config{Method: "m", Mode: core.ModeSound, Epsilon: eps, Seed: seed}})
			p.sw.outcomes = append(p.sw.outcomes, &sweep.Outcome{ARI: f(0.3), NMI: f(0.4), Spent: eps, Delta: 1e-5, Guarantee: core.GuaranteeFormal})
		}
	}
	p.sw.finished = len(p.sw.points)
	for _, size := range [][2]int{{78, 20}, {118, 36}} {
		p.SetSize(size[0], size[1])
		p.Frame()
		v := stripANSI(p.View())
		if !strings.Contains(v, "private runs on this data") || !strings.Contains(v, "exploration only") {
			t.Errorf("%v: the privacy total or the caveat is cut:\n%s", size, v)
		}
		if _, h := p.chart.Size(); h < minCurveRows {
			t.Errorf("%v: the curve has %d rows, want at least %d:\n%s", size, h, minCurveRows, v)
		}
		if n := lipgloss.Height(p.View()); n > size[1] {
			t.Errorf("%v: the pane is %d rows high", size, n)
		}
	}
}

// TestWideRunControlsReadWhole: on a 200-column terminal the controls
// column stayed 36 cells, cutting "DP-DCAN sound (paper network)" and
// the run's summary line while the charts had 160 columns.
func TestWideRunControlsReadWhole(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 200, 50)
	const label = "DP-DCAN sound (paper network)"
	f := newForm([]field{{name: "method", value: func() string { return label }}, {name: "epochs st.1", value: func() string { return "20" }}})
	row := strings.Split(stripANSI(f.view(m.c.Styles, runPaneOf(m).controlsW())), "\n")[0]
	if !strings.Contains(row, label) {
		t.Errorf("method row %q at 200 columns; want the whole label %q", row, label)
	}
	checkFits(t, m.View().Content, 200, 50)
	for _, w := range []int{80, 120, 160} {
		m = send(t, m, tea.WindowSizeMsg{Width: w, Height: 40})
		if got := runPaneOf(m).controlsW(); got != controlsWidth {
			t.Errorf("controls %d cells at %d columns, want %d (goldens and README screens)", got, w, controlsWidth)
		}
	}
}

// TestEightTabsFit80: a served session has eight tabs; at 80 columns the
// bar read "… │ 7 Audit │ 8…", hiding the Class tab the status line
// sends a participant to. Seven tabs keep their padded look.
func TestEightTabsFit80(t *testing.T) {
	reg := class.NewRegistry()
	classFixture(t, reg)
	m, _ := classModel(t, reg, "p", "pat", false)
	m = sized(t, m, 80, 24)
	if bar := stripANSI(m.tabs()); !strings.Contains(bar, "8 Class") || lipgloss.Width(bar) > 80 {
		t.Errorf("tab bar %q at 80 columns; want 8 Class whole", bar)
	}
	m = sized(t, testModel(t, fakeFast), 80, 24)
	if bar := stripANSI(m.tabs()); !strings.Contains(bar, " 1 Run │ 2 Budget ") {
		t.Errorf("seven tabs lost their padding: %q", bar)
	}
}

// TestClassCountReads: "1 of your runs are on the board" read wrong.
func TestClassCountReads(t *testing.T) {
	reg := class.NewRegistry()
	classFixture(t, reg)
	m, _ := classModel(t, reg, "p1", "pat", false)
	m = sized(t, m, 120, 40)
	m = press(t, m, "8")
	if v := text(m); !strings.Contains(v, "your runs on the board: 0.") {
		t.Errorf("Class tab:\n%s\nwant the count as \"your runs on the board: 0.\"", v)
	}
}

// TestStoppedRunHasNoVerdict: a run the user stopped at 7 % was judged
// "no better than no learning" on the ARI it had reached; a finished one
// still is.
func TestStoppedRunHasNoVerdict(t *testing.T) {
	for _, stop := range []bool{false, true} {
		m := sized(t, testModel(t, fakeFast), 120, 40)
		evs := fakeRun(1)
		if stop {
			evs[len(evs)-1] = core.DoneEvent{Outcome: core.OutcomeStopped, Stopped: true}
		}
		m = feed(t, m, 1, evs)
		rc := &runPaneOf(m).charts
		rc.refs.null = &reference.Line{ARI: 0.95, ARISD: 0.01, Seeds: 5}
		if got, _ := rc.verdict(m.c.RunState); (got == "") != stop {
			t.Errorf("stopped %v: verdict %q", stop, got)
		}
	}
}

// TestStoppedRunNotStarredInCompare: Compare starred a stopped run's ARI
// as "no better than no learning", as the Run screen did.
func TestStoppedRunNotStarredInCompare(t *testing.T) {
	null := &reference.Line{ARI: 0.95, ARISD: 0.01, Seeds: 5}
	r := runRecord{Mode: core.ModeSound, ARI: 0.3, Outcome: string(core.OutcomeFinished)}
	r.refs.null = null
	if r.verdict() == "" {
		t.Fatal("a finished run below its null has no verdict")
	}
	r.Outcome = string(core.OutcomeStopped)
	if v, cell := r.verdict(), r.ariCell(); v != "" || strings.HasPrefix(cell, "*") {
		t.Errorf("stopped run: verdict %q, ARI cell %q; want neither", v, cell)
	}
}
