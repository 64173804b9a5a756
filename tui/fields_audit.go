package tui

import (
	"fmt"

	"github.com/dpscope/dpscope/core"
)

// auditField sets the audit toggle: a method with an empirical privacy
// audit (core.AuditableMethods) can run one beside its training, and the
// Budget screen then draws the attacker's lower bound beside the certified
// and the paper's ε (docs/AUDIT.md). It is fixed during a run: the
// canaries go in from the first step.
func (p *runPane) auditField(fs []field) {
	pr := &p.params
	fs[fAudit] = field{name: "audit", value: func() string {
		if pr.Audit {
			return "on"
		}
		return "off"
	},
		step:  func(int) error { pr.Audit = !pr.Audit; return nil },
		hint:  p.auditHint,
		shown: func() bool { return pr.Auditable() }} // not the method value: it would copy *pr now
}

// auditHint says what an audit costs before it is started (issue 22: "say
// in the UI how long it will take"): the canaries add O(m) work a step,
// so an audited run takes about as long as the same run without one
// (docs/AUDIT.md, Cost); once a run has ended, its time (pauses left
// out) is the estimate.
func (p *runPane) auditHint() string {
	if !p.params.Audit {
		return "attack ε bound"
	}
	if !p.clock.start.IsZero() && !p.clock.end.IsZero() {
		return "time ≈" + clockText(p.clock.elapsed())
	}
	return "time ≈1× run"
}

// auditLine is the Run pane's summary line of an audited run: its
// canaries and confidence, and that it takes about a run's time; ""
// without an audit.
func (p *runPane) auditLine() string {
	if !p.params.Audit || !p.params.Auditable() {
		return ""
	}
	return fmt.Sprintf("audit %d canaries %.0f%% · ≈1× run", core.DefaultAuditCanaries, 100*core.DefaultAuditConfidence)
}
