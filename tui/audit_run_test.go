package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// toAudit moves the Run form's cursor to the audit toggle.
func toAudit(t *testing.T, m Model) Model {
	t.Helper()
	for range runPaneOf(m).form.fields {
		rp := runPaneOf(m)
		if rp.form.cursor == fAudit {
			return m
		}
		m = press(t, m, "j")
	}
	t.Fatalf("the Run form shows no audit setting for %s", runPaneOf(m).Params().V().Label)
	return m
}

// TestAuditToggle: the audit setting shows for the methods with an audit
// only, says what it costs, and carries into the engine's configuration;
// off, the configuration is the one without it (no Audit: the same run).
func TestAuditToggle(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 160, 48)
	for i, v := range variants() {
		pr := runPaneOf(m).Params()
		pr.Variant, pr.Audit = i, true
		want := v.Desc().Audit != ""
		if got := pr.Auditable(); got != want {
			t.Errorf("%s: Auditable() = %v, want %v", v.Label, got, want)
		}
		if got := pr.Config("").Audit != nil; got != want {
			t.Errorf("%s with audit on: Config().Audit set = %v, want %v", v.Label, got, want)
		}
		pr.Audit = false
		if pr.Config("").Audit != nil {
			t.Errorf("%s with audit off: Config().Audit = %+v, want nil", v.Label, pr.Config("").Audit)
		}
	}
	if got := core.AuditableMethods(); len(got) == 0 {
		t.Fatal("no method has an audit")
	}
	m = toAudit(t, m) // the default variant, DP-DCAN paper, has one
	if runPaneOf(m).Params().Audit {
		t.Fatal("audit is on before it was asked for")
	}
	m = press(t, m, "l")
	if !runPaneOf(m).Params().Audit || m.StartConfig().Audit == nil {
		t.Fatalf("audit after → is %v, start config's %+v; want on", runPaneOf(m).Params().Audit, m.StartConfig().Audit)
	}
	view := text(m)
	for _, want := range []string{"audit       on time ≈1× run", "audit 1000 canaries 95% · ≈1× run"} {
		if !strings.Contains(view, want) {
			t.Errorf("Run screen with the audit on lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "h")
	if runPaneOf(m).Params().Audit || strings.Contains(text(m), "1000 canaries") {
		t.Errorf("audit still on or still described after ←:\n%s", text(m))
	}
}

// TestAuditedRunShowsBars starts a run with the audit on from the Run
// screen (the fake engine, which plays a real one-run game on one
// Gaussian release) and checks the Budget screen then draws the paper's
// figure beside the attacker's lower bound, with its ceiling; the same
// run with the audit off draws none. (A real dppca run is not started
// here: registering dppca in this test binary would put it in the
// Trade-off sweep of TestTradeoffSweep, whose data it cannot read; the
// CLI's tests run the real audits.)
func TestAuditedRunShowsBars(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "test", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1, Epochs: [2]int{1, 1}})
	m = sized(t, m, 160, 48)
	m = press(t, toAudit(t, m), "l")
	m = press(t, m, "s") // the whole run: settle follows the engine's events to its end
	bp := m.Pane(TabBudget).(*budgetPane)
	if bp.attack == nil {
		t.Fatalf("no audit reached the Budget screen; status %q", m.Status())
	}
	a := bp.attack
	if a.Canaries != core.DefaultAuditCanaries || a.Guesses == 0 || a.Ceiling <= 0 || a.EpsilonLower < 0 || a.EpsilonLower > a.Ceiling {
		t.Errorf("audit %+v: want %d canaries, guesses, and 0 ≤ bound ≤ ceiling", a, core.DefaultAuditCanaries)
	}
	// Once a run has ended, the toggle's estimate is that run's time.
	if !regexp.MustCompile(`audit +on time ≈\d+:\d\d`).MatchString(text(m)) {
		t.Errorf("Run screen after the run does not give its time as the audit's estimate:\n%s", text(m))
	}
	bp.SetSize(160, 60)
	view := stripANSI(bp.View())
	for _, want := range []string{"ε: certified · paper · attack", "certified", "attack ≥", fmtEps(a.EpsilonLower), "▲ ceiling",
		fmt.Sprintf("%d/%d right", a.Correct, a.Guesses), "fake: Dirac canaries"} {
		if !strings.Contains(view, want) {
			t.Errorf("Budget screen lacks %q:\n%s", want, view)
		}
	}
	// The same settings without the audit: a new run, and no bars.
	m = press(t, toAudit(t, m), "h")
	m = press(t, m, "s")
	if bp := m.Pane(TabBudget).(*budgetPane); bp.attack != nil || strings.Contains(stripANSI(bp.View()), "attack ≥") {
		t.Errorf("a run without the audit still shows one: %+v", bp.attack)
	}
}

// TestAuditLessonStartsAnAuditedRun: the audit lesson's experiment (lesson
// 12) sets DP-DCAN as published with noise on layers 4–6 only at ε = 1,
// the audit on, and starts the run at once; the Budget screen then draws
// the attack beside the paper's figure.
func TestAuditLessonStartsAnAuditedRun(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	lp := m.Pane(TabLearn).(*learnPane)
	idx := -1
	for i, l := range lp.lessons {
		if l.slug == "membership-audit" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("no membership-audit lesson")
	}
	m = press(t, m, "5")
	for range idx {
		m = press(t, m, "l")
	}
	m = press(t, m, "enter") // settle follows the started run to its end
	pr := runPaneOf(m).Params()
	if pr.V().Mode != core.ModePaper || pr.EffectiveLayers() != (core.LayerRange{First: 4, Last: 6}) || pr.Epsilon != 1 || !pr.Audit {
		t.Fatalf("lesson settings %s layers %s ε %v audit %v, want paper, 4-6, 1, on", pr.V().Label, pr.EffectiveLayers(), pr.Epsilon, pr.Audit)
	}
	if m.c.RunID == 0 {
		t.Fatalf("the lesson started no run; status %q", m.Status())
	}
	if bp := m.Pane(TabBudget).(*budgetPane); bp.attack == nil {
		t.Errorf("the lesson's run reached its end without an audit on the Budget screen; status %q", m.Status())
	}
}

// TestBudgetAuditOutside: a federated attacker on one upload is outside
// the threat model of the aggregate's ε under secure aggregation
// (AuditEvent.Outside): the bars compare it with the per-update ε and do
// not call the aggregate's smaller ε refuted.
func TestBudgetAuditOutside(t *testing.T) {
	const local, aggregate = "audited: each update, Δ = 2C (GDP, exact)", "audited: aggregate under secure aggregation, Δ = C (GDP, exact)"
	guar := core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: []string{"local noise"},
		Audited: []core.EpsilonValue{{Accountant: local, Epsilon: 1.6}, {Accountant: aggregate, Epsilon: 0.117}}}
	attack := core.AuditEvent{EpsilonLower: 0.404, Ceiling: 5.04, Confidence: 0.95, Delta: 1e-5, Canaries: 1000, Guesses: 500, Correct: 330,
		Setting: "client 1's upload", Outside: []string{aggregate}}
	m := sized(t, testModel(t, fakeFast), 160, 60)
	m = feed(t, m, 1, []core.Event{guar, attack, core.DoneEvent{Outcome: core.OutcomeFinished}})
	view := stripANSI(m.Pane(TabBudget).View())
	if !regexp.MustCompile(`certified +1\.6 `).MatchString(view) {
		t.Errorf("the bars' certified ε is not the per-update 1.6:\n%s", view)
	}
	if strings.Contains(view, "refuted") {
		t.Errorf("the aggregate's ε 0.117 is called refuted by an attacker outside its model:\n%s", view)
	}
	// Without Outside the same bound would refute 0.117: the check has teeth.
	attack.Outside = nil
	m = feed(t, m, 2, []core.Event{guar, attack, core.DoneEvent{Outcome: core.OutcomeFinished}})
	if view := stripANSI(m.Pane(TabBudget).View()); !strings.Contains(view, "refuted") {
		t.Errorf("without Outside the bound 0.404 does not refute 0.117:\n%s", view)
	}
}
