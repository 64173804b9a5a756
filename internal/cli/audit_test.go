package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// audited is a fake engine with an audit: it reports a budget and, when
// the config asks for an audit, an AuditEvent carrying the config's spec
// (so a test sees the flags arrive).
type audited struct{ cfg core.Config }

func (a audited) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: []string{"test"},
		Published: []core.EpsilonValue{{Accountant: "paper", Epsilon: 0.5}},
		Audited:   []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4}}})
	ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: 1})
	if a.cfg.Audit != nil {
		s := a.cfg.Audit.Resolved()
		ctl.Emit(core.AuditEvent{EpsilonLower: 1.5, Ceiling: 5, Confidence: s.Confidence, Delta: a.cfg.Delta,
			Canaries: s.Canaries, Guesses: 50, Correct: 48, Setting: "test canaries", Kind: s.Kind, View: "test view"})
	}
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-audited", Family: core.FamilyDPSGD, Audit: "test canaries", InputAudit: "test input canaries",
		New: func(cfg core.Config) (core.Engine, error) { return audited{cfg: cfg}, nil }})
}

// auditSummaryOf returns the last JSON line of stdout decoded.
func auditSummaryOf(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	return sum
}

func TestRunAuditAddsToSummary(t *testing.T) {
	code, stdout, stderr := run(t, "run", "--method", "test-audited", "--json", "--audit", "--audit-canaries", "200", "--audit-confidence", "0.9")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a, ok := auditSummaryOf(t, stdout)["audit"].(map[string]any)
	if !ok {
		t.Fatalf("summary has no audit object: %s", stdout)
	}
	for _, k := range []string{"epsilon_lower", "ceiling", "confidence", "delta", "canaries", "guesses", "correct", "setting"} {
		if _, ok := a[k]; !ok {
			t.Errorf("summary.audit lacks %q: %v", k, a)
		}
	}
	if a["canaries"] != 200.0 || a["confidence"] != 0.9 || a["epsilon_lower"] != 1.5 {
		t.Errorf("summary.audit = %v, want canaries 200, confidence 0.9, epsilon_lower 1.5", a)
	}
	if !strings.Contains(stdout, `"type":"audit"`) {
		t.Errorf("no audit event line in --json output")
	}
	// Without --audit: no audit key at all (summaries stay as they were).
	code, stdout, stderr = run(t, "run", "--method", "test-audited", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, ok := auditSummaryOf(t, stdout)["audit"]; ok {
		t.Errorf("summary without --audit has an audit key: %s", stdout)
	}
}

func TestAuditCommand(t *testing.T) {
	code, stdout, stderr := run(t, "audit", "--method", "test-audited")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ε empirical ≥", "1.5", "48 of 50", "ceiling 5", "refutes ε = 0.5 (paper)", "test canaries"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("audit output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "4 (RDP)") {
		t.Errorf("audit output says the certified ε 4 is refuted by 1.5:\n%s", stdout)
	}
	if !strings.Contains(stderr, "expected duration") {
		t.Errorf("audit does not announce its duration on stderr: %q", stderr)
	}
}

func TestAuditBadInputs(t *testing.T) {
	for _, tc := range []struct {
		desc string
		args []string
		want string
	}{
		{"canaries without --audit", []string{"run", "--method", "test-audited", "--audit-canaries", "5"}, "need --audit"},
		{"negative canaries", []string{"audit", "--method", "test-audited", "--audit-canaries", "-1"}, "audit canaries is -1"},
		{"confidence 1", []string{"audit", "--method", "test-audited", "--audit-confidence", "1"}, "audit confidence is 1"},
		{"confidence NaN", []string{"audit", "--method", "test-audited", "--audit-confidence", "NaN"}, "audit confidence is NaN"},
		{"method without an audit", []string{"audit", "--method", "test-scripted"}, "cannot be audited"},
		{"kind without --audit", []string{"run", "--method", "test-audited", "--audit-kind", "input"}, "need --audit"},
		{"unknown kind", []string{"audit", "--method", "test-audited", "--audit-kind", "output"}, `--audit-kind is "output"`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code == ExitOK || !strings.Contains(stderr, tc.want) {
				t.Errorf("dpscope %s: exit %d, stderr %q; want a failure naming %q", strings.Join(tc.args, " "), code, stderr, tc.want)
			}
		})
	}
}

// TestAuditKindInSummary: --audit-kind reaches the method, and the summary
// JSON says the canaries' kind and the attacker's view; gradient is the
// default.
func TestAuditKindInSummary(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--method", "test-audited", "--json", "--audit-kind", "input"}, "input"},
		{[]string{"run", "--method", "test-audited", "--json", "--audit"}, "gradient"},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != ExitOK {
			t.Fatalf("dpscope %v: exit %d: %s", tc.args, code, stderr)
		}
		a, _ := auditSummaryOf(t, stdout)["audit"].(map[string]any)
		if a["kind"] != tc.want || a["view"] != "test view" {
			t.Errorf("dpscope %v: summary.audit = %v, want kind %q and view", tc.args, a, tc.want)
		}
	}
	code, stdout, _ := run(t, "audit", "--method", "test-audited", "--audit-kind", "input")
	if code != ExitOK || !strings.Contains(stdout, "canaries: input; the attacker sees: test view") {
		t.Errorf("human summary lacks the kind and view:\n%s", stdout)
	}
}
