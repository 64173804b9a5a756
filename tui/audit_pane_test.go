package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpscope/dpscope/core"
	coreaudit "github.com/dpscope/dpscope/core/audit"
)

func auditPaneOf(m Model) *auditPane { return m.Pane(TabAudit).(*auditPane) }

// toAuditField moves the Audit form's cursor to the field named name.
func toAuditField(t *testing.T, m Model, name string) Model {
	t.Helper()
	for range auditPaneOf(m).form.fields {
		ap := auditPaneOf(m)
		if ap.form.fields[ap.form.cursor].name == name {
			return m
		}
		m = press(t, m, "j")
	}
	t.Fatalf("the Audit form has no field %q", name)
	return m
}

// typeAuditField types value into the field named name (enter, the text,
// enter), clearing what was there.
func typeAuditField(t *testing.T, m Model, name, value string) Model {
	t.Helper()
	m = press(t, toAuditField(t, m, name), "enter")
	for range auditPaneOf(m).form.input {
		m = press(t, m, "backspace")
	}
	for _, r := range value {
		m = press(t, m, string(r))
	}
	return press(t, m, "enter")
}

// TestAuditScreenRunsAnAudit sets m and the confidence on the Audit
// screen, starts the audit (s) and checks the engine got them and the
// screen shows the figures of the engine's result (the fake engine plays
// a real one-run game): the bound, the ceiling, the best rule, the
// attacker's view and the sentence. A second audit with other inputs must
// change what is shown, so nothing on the screen is fixed text. After the
// first run the estimate is that run's time.
func TestAuditScreenRunsAnAudit(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "test", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1, Epochs: [2]int{1, 1}})
	m = press(t, sized(t, m, 160, 48), "7")
	if m.Active() != TabAudit {
		t.Fatalf("7 shows tab %d, want the Audit screen %d", m.Active(), TabAudit)
	}
	if v := text(m); !strings.Contains(v, "time ≈1× a run, at most 2×") || !strings.Contains(v, "not timed yet") {
		t.Errorf("before any run the screen does not state the cost and its rule:\n%s", v)
	}
	m = typeAuditField(t, m, "canaries m", "400")
	m = press(t, toAuditField(t, m, "confidence"), "l") // 95 % → 99 %
	ap := auditPaneOf(m)
	if ap.in.Canaries != 400 || ap.in.Confidence != 0.99 {
		t.Fatalf("inputs m %d confidence %v, want 400 and 0.99", ap.in.Canaries, ap.in.Confidence)
	}
	wantCeil := auditCeiling(400, 0.99, ap.delta())
	if !strings.Contains(text(m), "canaries m  400 ceiling "+fmtEps(wantCeil)) {
		t.Errorf("the canaries field does not show the design's ceiling %s:\n%s", fmtEps(wantCeil), text(m))
	}
	m = press(t, m, "s") // settle follows the engine to the run's end
	ap = auditPaneOf(m)
	a := ap.result
	if a == nil {
		t.Fatalf("no audit result on the Audit screen; status %q", m.Status())
	}
	if a.Canaries != 400 || a.Confidence != 0.99 || a.Delta != runPaneOf(m).Params().Delta {
		t.Errorf("the engine audited m %d at %v, δ %v; want the screen's 400, 0.99 and the run's δ %v", a.Canaries, a.Confidence, a.Delta, runPaneOf(m).Params().Delta)
	}
	if math.Abs(a.Ceiling-wantCeil) > 1e-9 {
		t.Errorf("the field's ceiling %v differs from the audit's %v", wantCeil, a.Ceiling)
	}
	view := text(m)
	for _, want := range []string{
		"ε ≥ " + fmtEps(a.EpsilonLower), "99 % confidence", fmt.Sprintf("δ %.3g", a.Delta),
		"ceiling " + fmtEps(a.Ceiling), fmt.Sprintf("best rule %d/%d guesses right · %d canaries", a.Correct, a.Guesses, a.Canaries),
		"attacker's view fake: Dirac canaries", "an attacker shows ε ≥ " + fmtEps(a.EpsilonLower),
		"attack ≥   " + fmtEps(a.EpsilonLower), "▲ ceiling",
		fmt.Sprintf("run %d finished in %s", ap.runID, durText(ap.done.Elapsed)),
		"the last run of these settings took " + durText(ap.done.Elapsed),
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the Audit screen lacks %q:\n%s", want, view)
		}
	}
	first := *a
	// Another audit: 100 canaries at 90 %. The screen follows the result.
	m = typeAuditField(t, m, "canaries m", "100")
	m = press(t, toAuditField(t, m, "confidence"), "h", "h")
	m = press(t, m, "s")
	a = auditPaneOf(m).result
	if a == nil || a.Canaries != 100 || a.Confidence != 0.9 || reflect.DeepEqual(*a, first) {
		t.Fatalf("second audit %+v, want 100 canaries at 0.9", a)
	}
	view = text(m)
	for _, want := range []string{fmt.Sprintf("%d/%d guesses right · 100 canaries", a.Correct, a.Guesses), "90 % confidence", "ceiling " + fmtEps(a.Ceiling)} {
		if !strings.Contains(view, want) {
			t.Errorf("after the second audit the screen lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "400 canaries") {
		t.Errorf("the screen still shows the first audit:\n%s", view)
	}
	// The Budget screen drew the same result.
	if bp := m.Pane(TabBudget).(*budgetPane); bp.attack == nil || !reflect.DeepEqual(*bp.attack, *a) {
		t.Errorf("Budget's audit %+v, want the Audit screen's %+v", bp.attack, a)
	}
}

// TestAuditScreenBadInputs: a bad m, confidence or δ is refused with an
// error naming the input, the value kept; nothing panics; the ceiling of
// an impossible design is 0.
func TestAuditScreenBadInputs(t *testing.T) {
	m := press(t, sized(t, testModel(t, fakeFast), 120, 40), "7")
	for _, tc := range []struct{ field, value, errWord string }{
		{"canaries m", "-5", "canaries m"},
		{"canaries m", "abc", "canaries m"},
		{"canaries m", "2000000", "canaries m"},
		{"confidence", "1.5", "confidence"},
		{"confidence", "0", "confidence"},
		{"confidence", "100%", "confidence"},
		{"confidence", "NaN", "confidence"},
		{"confidence", "-0.5", "confidence"},
		{"δ", "2", "δ"},
		{"δ", "0", "δ"},
		{"δ", "Inf", "δ"},
	} {
		before := auditPaneOf(m).in
		m = typeAuditField(t, m, tc.field, tc.value)
		if got := auditPaneOf(m).in; got != before {
			t.Errorf("%s = %q changed the inputs %+v → %+v", tc.field, tc.value, before, got)
		}
		if !m.errored || !strings.Contains(m.Status(), tc.errWord) || !strings.Contains(m.Status(), tc.value) {
			t.Errorf("%s = %q: status %q (error %v), want an error naming the input and its value", tc.field, tc.value, m.Status(), m.errored)
		}
	}
	m = typeAuditField(t, m, "confidence", "99.9%")
	if c := auditPaneOf(m).in.Confidence; math.Abs(c-0.999) > 1e-12 {
		t.Errorf("confidence 99.9%% gives %v, want 0.999", c)
	}
	m = typeAuditField(t, m, "canaries m", "1")
	m = press(t, m, "h") // below 1
	if n := auditPaneOf(m).in.Canaries; n != 1 || !strings.Contains(m.Status(), "canaries m") {
		t.Errorf("m stepped below 1: %d, status %q", n, m.Status())
	}
	m = typeAuditField(t, m, "canaries m", "auto")
	if n := auditPaneOf(m).in.Canaries; n != 0 || !strings.Contains(text(m), fmt.Sprintf("auto (%d)", core.DefaultAuditCanaries)) {
		t.Errorf("auto gives m %d:\n%s", n, text(m))
	}
	m = press(t, toAuditField(t, m, "confidence"), "l", "l", "l", "l", "l", "l")
	if c := auditPaneOf(m).in.Confidence; c != auditConfidences[len(auditConfidences)-1] {
		t.Errorf("stepping the confidence up past its end gives %v", c)
	}
	m = press(t, toAuditField(t, m, "method"), "l")
	if !m.errored || !strings.Contains(m.Status(), "Run screen") {
		t.Errorf("changing the method on the Audit screen: status %q, want a pointer to the Run screen", m.Status())
	}
	// The method offers gradient and input canaries: the field cycles
	// through both, and the run's spec follows it.
	m = press(t, toAuditField(t, m, "canary kind"), "l")
	if p := auditPaneOf(m); p.kind().Name != "input" || p.auditConfig().Audit.Kind != core.AuditInput {
		t.Errorf("canary kind after one step %q (spec %q), want input", p.kind().Name, p.auditConfig().Audit.Kind)
	}
	m = press(t, m, "l")
	if p := auditPaneOf(m); p.kind().Name != "gradient" || p.auditConfig().Audit.Kind != core.AuditGradient {
		t.Errorf("canary kind after two steps %q (spec %q), want gradient", p.kind().Name, p.auditConfig().Audit.Kind)
	}
	for _, tc := range []struct {
		m    int
		c, d float64
	}{{0, 0.95, 0}, {-1, 0.95, 0}, {10, 1.5, 0}, {10, 0, 0}, {10, math.NaN(), 0}, {10, 0.95, 2}, {2 * maxAuditCanaries, 0.95, 0}} {
		if got := auditCeiling(tc.m, tc.c, tc.d); got != 0 {
			t.Errorf("auditCeiling(%d, %v, %v) = %v, want 0", tc.m, tc.c, tc.d, got)
		}
	}
	// The field's ceiling is core/audit's for the same design.
	r, err := coreaudit.Score(make([]float64, 1000), make([]bool, 1000), 1e-5, 0.05)
	if err != nil || auditCeiling(1000, 0.95, 1e-5) != r.Ceiling || r.Ceiling < 4 || r.Ceiling > 6 {
		t.Errorf("auditCeiling(1000, 0.95, 1e-5) = %v, core/audit %v (%v)", auditCeiling(1000, 0.95, 1e-5), r.Ceiling, err)
	}
	// Stop with no audit going says so and sends nothing.
	m = press(t, m, "x")
	if !strings.Contains(m.Status(), "no audit is going") {
		t.Errorf("x without an audit: status %q", m.Status())
	}
}

// auditEvents are a paper-mode run's guarantee and audit as an engine
// reports them: the paper claims ε = 1, the accountant certifies 7.9.
func auditEvents(lower float64) []core.Event {
	return []core.Event{
		core.GuaranteeEvent{Status: core.GuaranteePaperOnly, Reasons: []string{"layers 4-6 noise-free"},
			Published: []core.EpsilonValue{{Accountant: "paper (Theorem 1)", Epsilon: 1}},
			Audited:   []core.EpsilonValue{{Accountant: "RDP", Epsilon: 7.9}}},
		core.AuditEvent{EpsilonLower: lower, Ceiling: 5.04, Confidence: 0.95, Delta: 1e-5, Canaries: 1000, Guesses: 500, Correct: 497,
			Setting: "Dirac gradient canaries in the encoder; the attacker sees the released final encoder"},
		core.DoneEvent{Outcome: core.OutcomeFinished, Elapsed: 12 * time.Second},
	}
}

// feedAudit delivers evs as run id of the Run screen's settings with an
// audit, to its end.
func feedAudit(t *testing.T, m Model, id int, evs []core.Event) Model {
	t.Helper()
	cfg := runPaneOf(m).Params().Config(fakeFast)
	cfg.Audit = &core.AuditSpec{}
	m.c.RunID, m.c.RunState = id, RunRunning
	m = send(t, m, RunStartedMsg{ID: id, Config: cfg})
	m, _ = settle(t, m, m.broadcast(EngineEventsMsg{ID: id, Events: evs}))
	m.c.RunState = RunFinished
	return send(t, m, EngineClosedMsg{ID: id})
}

// TestAuditScreenPaperClaim: a paper-mode audit whose bound exceeds the
// paper's ε says the claim is refuted, in a sentence naming the noise-free
// layers, beside the certified ε with its accountant and unit; one below
// it says it does not refute it.
func TestAuditScreenPaperClaim(t *testing.T) {
	m := press(t, sized(t, testModel(t, fakeFast), 160, 48), "7")
	pr := runPaneOf(m).Params()
	if pr.V().Mode != core.ModePaper || pr.EffectiveLayers() != (core.LayerRange{First: 1, Last: 3}) {
		t.Fatalf("default variant %s layers %s, want DP-DCAN paper on layers 1-3", pr.V().Label, pr.EffectiveLayers())
	}
	m = feedAudit(t, m, 1, auditEvents(4.34))
	view := text(m) + "\n" + resultText(m)
	for _, want := range []string{
		"the paper claims ε = 1; with layers 4–6 noise-free an attacker shows ε ≥ 4.34 — the claim is refuted at 95 % confidence.",
		"certified ε 7.9 (RDP) · unit one cell", "paper's   ε 1 (paper (Theorem 1))", "best rule 497/500",
		"run 1 finished in 12.0 s", "≈12.0 s (at most 24.0 s)", "paper's    1 ", "the paper's ε 1 is refuted",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the Audit screen lacks %q:\n%s", want, view)
		}
	}
	m = feedAudit(t, m, 2, auditEvents(0.089))
	if v := resultText(m); !strings.Contains(v, "an attacker shows ε ≥ 0.089, which does not refute it (this audit can show at most 5.04).") || strings.Contains(v, "refuted") {
		t.Errorf("a bound below the claim:\n%s", v)
	}
}

// resultText is the Audit screen's result without styles, on lines wide
// enough that no sentence wraps.
func resultText(m Model) string {
	return stripANSI(strings.Join(auditPaneOf(m).resultLines(1000), "\n"))
}

// TestAuditSentence: the plain sentence for the paper's claim, a sound
// certificate kept or broken, and a run without noise.
func TestAuditSentence(t *testing.T) {
	var dcan Variant
	for _, v := range variants() {
		if v.Family() == familyDPSGD {
			dcan = v
			break
		}
	}
	a := func(l float64) *core.AuditEvent {
		return &core.AuditEvent{EpsilonLower: l, Ceiling: 3.5, Confidence: 0.99}
	}
	paper := &core.GuaranteeEvent{Published: []core.EpsilonValue{{Accountant: "paper", Epsilon: 8}}}
	sound := &core.GuaranteeEvent{Audited: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 2}, {Accountant: "PLD", Epsilon: 1.5}}}
	cfg := func(mode core.Mode, first, last int) core.Config {
		return core.Config{Mode: mode, Layers: core.LayerRange{First: first, Last: last}}
	}
	for _, tc := range []struct {
		cfg  core.Config
		guar *core.GuaranteeEvent
		a    *core.AuditEvent
		want string
	}{
		{cfg(core.ModePaper, 4, 6), paper, a(3.2), "the paper claims ε = 8; with layers 1–3 noise-free an attacker shows ε ≥ 3.2, which does not refute it (this audit can show at most 3.5)."},
		{cfg(core.ModePaper, 2, 5), paper, a(9), "the paper claims ε = 8; with layer 1 and layer 6 noise-free an attacker shows ε ≥ 9 — the claim is refuted at 99 % confidence."},
		{cfg(core.ModePaper, 1, 6), paper, a(1), "the paper claims ε = 8; with every layer noised an attacker shows ε ≥ 1,"},
		{cfg(core.ModeSound, 1, 6), sound, a(0.4), "dpscope certifies ε = 1.5 (PLD); an attacker shows ε ≥ 0.4, within it as a sound run must"},
		{cfg(core.ModeSound, 1, 6), sound, a(1.6), "above the certificate: at 99 % confidence the run does not keep it."},
		{cfg(core.ModeNonPrivate, 1, 6), nil, a(3.4), "the run certifies no ε; an attacker shows ε ≥ 3.4, of at most 3.5 this audit can show."},
	} {
		if got := auditSentence(dcan, tc.cfg, tc.guar, tc.a); !strings.Contains(got, tc.want) {
			t.Errorf("sentence %q, want it to contain %q", got, tc.want)
		}
	}
}

// TestAuditScreenProgress starts an audit on the slow fake engine: the
// screen shows its progress with an ETA, the user can switch screens and
// come back while it goes, and x stops it.
func TestAuditScreenProgress(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "test", Method: fakeSlow, ExportDir: t.TempDir()})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
	typeKeys(tm, "7", "s")
	waitText(t, tm, "ETA")
	typeKeys(tm, "1", "7") // away and back: the audit goes on
	waitText(t, tm, "ETA")
	typeKeys(tm, "x")
	waitText(t, tm, "stopped")
	typeKeys(tm, "q", "y")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(hangGuard)).(Model)
	ap := auditPaneOf(final)
	if ap.runID != 1 || ap.done == nil || ap.done.Outcome != core.OutcomeStopped || ap.last == 0 || ap.total <= ap.last {
		t.Errorf("audit run %d done %+v at step %d of %d, want run 1 stopped part-way", ap.runID, ap.done, ap.last, ap.total)
	}
	if _, ok := ap.timed[timingKey(ap.runConfig())]; ok {
		t.Error("a stopped run timed the next audit: only a run that ran its whole schedule may")
	}
}

// TestAuditGoldenScreens is the Audit screen with a paper-mode result at
// 80×24 and 160×48, with and without NO_COLOR, drawn from a settled model
// fed the events (the run's wall time is the events', not the clock's).
func TestAuditGoldenScreens(t *testing.T) {
	goldenScreens(t, []string{"result"}, func(t *testing.T, size [2]int, _ string) {
		m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1})
		m = press(t, sized(t, m, size[0], size[1]), "7")
		m = feedAudit(t, m, 1, auditEvents(4.34))
		m.status = "run finished" // not the autosave's path, which holds a temporary folder
		checkFits(t, m.View().Content, size[0], size[1])
		teatest.RequireEqualOutput(t, []byte(stripANSI(m.View().Content)))
	})
}

// TestAuditCeilingAbove: without δ the closed form is core/audit's
// ceiling; with δ it bounds it from above. A large m shows the bound with
// "≤" at once, not after seconds of binomial sums.
func TestAuditCeilingAbove(t *testing.T) {
	for _, tc := range []struct {
		m int
		c float64
	}{{1000, 0.95}, {500, 0.999}, {2000, 0.9}} {
		exact, above := auditCeiling(tc.m, tc.c, 0), ceilingAbove(tc.m, tc.c)
		if math.Abs(exact-above) > 1e-6 {
			t.Errorf("m %d at %v, δ 0: exact %v, closed form %v", tc.m, tc.c, exact, above)
		}
		if d := auditCeiling(tc.m, tc.c, 1e-5); d > above+1e-9 || d <= 0 {
			t.Errorf("m %d at %v, δ 1e-5: exact %v, want in (0, %v]", tc.m, tc.c, d, above)
		}
	}
	for _, tc := range []struct {
		m int
		c float64
	}{{0, 0.95}, {10, 1}, {10, math.NaN()}} {
		if got := ceilingAbove(tc.m, tc.c); got != 0 {
			t.Errorf("ceilingAbove(%d, %v) = %v, want 0", tc.m, tc.c, got)
		}
	}
	m := press(t, sized(t, testModel(t, fakeFast), 120, 40), "7")
	m = typeAuditField(t, m, "canaries m", "200000")
	if want := "canaries m  200000 ceiling ≤ " + fmtEps(ceilingAbove(200000, 0.95)); !strings.Contains(text(m), want) {
		t.Errorf("a large m: screen lacks %q:\n%s", want, text(m))
	}
}

// TestAuditStartRefused: a start the engine (or serve's queue) refuses
// leaves the screen saying so, not "starting…" forever.
func TestAuditStartRefused(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "test", Method: fakeFast, ExportDir: t.TempDir(),
		Start: func(context.Context, core.Config) (*core.Run, error) { return nil, errors.New("the run queue is full") }})
	m = press(t, sized(t, m, 120, 40), "7", "s")
	if v := text(m); !strings.Contains(v, "the audit could not start") || !strings.Contains(m.Status(), "the run queue is full") {
		t.Errorf("refused start: status %q, screen:\n%s", m.Status(), v)
	}
}

// FuzzAuditInputs: the typed canaries and confidence either set a valid
// value or return an error naming the input; they never panic.
func FuzzAuditInputs(f *testing.F) {
	for _, s := range []string{"1000", "auto", "0", "-1", "1e3", "95%", "0.95", "100%", "NaN", "+Inf", "%", " 99.9 % ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := 7
		if err := setCanaries(&m, s); err != nil {
			if m != 7 || !strings.Contains(err.Error(), "canaries m") {
				t.Errorf("setCanaries(%q): m %d, error %v", s, m, err)
			}
		} else if m < 0 || m > maxAuditCanaries {
			t.Errorf("setCanaries(%q) accepted %d", s, m)
		}
		c := 0.5
		if err := setConfidence(&c, s); err != nil {
			if c != 0.5 || !strings.Contains(err.Error(), "confidence") {
				t.Errorf("setConfidence(%q): c %v, error %v", s, c, err)
			}
		} else if !(c > 0 && c < 1) {
			t.Errorf("setConfidence(%q) accepted %v", s, c)
		}
	})
}

// TestAuditSessionReloads: a session whose second run is an audit started
// on the Audit screen reopens to the same screens, the audit's result on
// the Audit and Budget screens included (the session keeps AuditEvent).
func TestAuditSessionReloads(t *testing.T) {
	dir := t.TempDir()
	m := sized(t, New(sessionConfig(dir)), 160, 48)
	m = press(t, m, "s")      // a run without an audit, which times the next
	m = press(t, m, "7", "s") // the audit
	if auditPaneOf(m).result == nil {
		t.Fatalf("no audit result; status %q", m.Status())
	}
	before := screens(t, m)
	m = send(t, m, ctrlS)
	cfg := sessionConfig(dir)
	cfg.SessionFile = m.sess.file
	back := sized(t, New(cfg), 160, 48)
	if a := auditPaneOf(back).result; a == nil || !reflect.DeepEqual(*a, *auditPaneOf(m).result) {
		t.Fatalf("reopened audit %+v, want %+v", a, auditPaneOf(m).result)
	}
	after := screens(t, back)
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("tab %d differs after reload:\n--- saved\n%s\n--- reopened\n%s", i+1, before[i], after[i])
		}
	}
}
