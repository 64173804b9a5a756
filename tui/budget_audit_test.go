package tui

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestBudgetDrawsTheAudit: a run with an audit shows the certified ε, the
// paper's ε and the attacker's lower bound side by side, and says which
// figure the attack refutes; a run without one shows no such block.
func TestBudgetDrawsTheAudit(t *testing.T) {
	guar := core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: []string{"all layers noised"},
		Published: []core.EpsilonValue{{Accountant: "paper (Theorem 1)", Epsilon: 0.5}},
		Audited:   []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4}, {Accountant: "PLD", Epsilon: 3.7}}}
	attack := core.AuditEvent{EpsilonLower: 1.25, Ceiling: 5.04, Confidence: 0.95, Delta: 1e-5, Canaries: 1000, Guesses: 50, Correct: 47,
		Setting: "Dirac gradient canaries; the attacker sees every noisy gradient"}
	m := sized(t, testModel(t, fakeFast), 160, 60)
	m = feed(t, m, 1, []core.Event{guar, attack, core.DoneEvent{Outcome: core.OutcomeFinished}})
	m.Pane(TabBudget).(*budgetPane).Frame()
	view := m.Pane(TabBudget).View()
	for _, want := range []string{"ε: certified · paper · attack", "certified", "3.7", "paper's", "attack ≥", "1.25", "47/50 right", "ceiling 5.04", "the paper's ε 0.5 is refuted"} {
		if !strings.Contains(view, want) {
			t.Errorf("Budget view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "the certified ε") {
		t.Errorf("Budget view says the certified ε 3.7 is refuted by a bound of 1.25:\n%s", view)
	}
	m = feed(t, m, 2, []core.Event{guar, core.DoneEvent{Outcome: core.OutcomeFinished}})
	if view := m.Pane(TabBudget).View(); strings.Contains(view, "attack ≥") {
		t.Errorf("Budget view of a run without an audit shows one:\n%s", view)
	}
}
