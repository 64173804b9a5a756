package core

import (
	"cmp"
	"slices"
)

// DefaultAuditCanaries is the number of canaries of an audit whose
// AuditSpec.Canaries is 0: the ceiling of the one-run bound grows as
// ln(r), and 1,000 gradient canaries cost nothing measurable per step
// (docs/AUDIT.md).
const DefaultAuditCanaries = 1000

// DefaultAuditConfidence is the confidence of an audit whose
// AuditSpec.Confidence is 0 (Steinke et al. report 95 %).
const DefaultAuditConfidence = 0.95

// AuditKind names the canaries of an audit (docs/AUDIT.md).
type AuditKind string

const (
	// AuditGradient: the white-box canaries each method has (Dirac
	// gradient canaries, or Dirac canaries in a released sum); the default.
	AuditGradient AuditKind = "gradient"
	// AuditInput: the black-box setting, synthetic cells (at most 10 % of
	// the cells) in the training data, scored from what the method
	// releases (Method.InputAudit).
	AuditInput AuditKind = "input"
)

// AuditSpec asks a run for an empirical privacy audit. Not safe for
// concurrent use.
type AuditSpec struct {
	// Canaries is the number m of canaries; 0 means DefaultAuditCanaries,
	// or as many as the audited release can hold when it holds fewer
	// (CanariesFor).
	Canaries int `json:"canaries,omitempty" toml:"canaries,omitempty"`
	// Confidence is 1 − β of the lower bound, in (0, 1); 0 means
	// DefaultAuditConfidence.
	Confidence float64 `json:"confidence,omitempty" toml:"confidence,omitempty"`
	// Kind is the canaries' kind; "" means AuditGradient.
	Kind AuditKind `json:"kind,omitempty" toml:"kind,omitempty"`
}

// Input reports whether the spec asks for input canaries.
func (a AuditSpec) Input() bool { return a.Kind == AuditInput }

// Validate returns an error wrapping ErrBadConfig for a negative canary
// count or a confidence outside (0, 1) other than 0.
func (a AuditSpec) Validate() error {
	if a.Canaries < 0 || a.Canaries > 1_000_000 {
		return badf("audit canaries is %d, must be in [0, 1000000] (0: %d)", a.Canaries, DefaultAuditCanaries)
	}
	if c := a.Confidence; c != 0 && (!finite(c) || c <= 0 || c >= 1) {
		return badf("audit confidence is %v, must be in (0, 1) (0: %g)", c, DefaultAuditConfidence)
	}
	if a.Kind != "" && a.Kind != AuditGradient && a.Kind != AuditInput {
		return badf("audit kind is %q, must be %q or %q", a.Kind, AuditGradient, AuditInput)
	}
	return nil
}

// Resolved returns the spec with its defaults filled in.
func (a AuditSpec) Resolved() AuditSpec {
	a.Canaries = cmp.Or(a.Canaries, DefaultAuditCanaries)
	a.Confidence = cmp.Or(a.Confidence, DefaultAuditConfidence)
	a.Kind = cmp.Or(a.Kind, AuditGradient)
	return a
}

// CanariesFor returns the number of canaries for a release that can hold
// available of them: Canaries, or for 0 the default capped at available.
// It returns an error wrapping ErrBadConfig when an explicit Canaries
// exceeds available (never silently fewer than asked).
func (a AuditSpec) CanariesFor(available int) (int, error) {
	if a.Canaries == 0 {
		return min(DefaultAuditCanaries, available), nil
	}
	if a.Canaries > available {
		return 0, badf("audit canaries is %d, but the audited release has room for %d", a.Canaries, available)
	}
	return a.Canaries, nil
}

// AuditableMethods returns the names of the methods that can run an audit
// (Method.Audit set), in Methods order.
func AuditableMethods() []string {
	var out []string
	for _, m := range Methods() {
		if m.Audit != "" {
			out = append(out, m.Name)
		}
	}
	return slices.Clip(out)
}

// InputAuditableMethods returns the names of the methods that can run an
// audit with input canaries (Method.InputAudit set), in Methods order.
func InputAuditableMethods() []string {
	var out []string
	for _, m := range Methods() {
		if m.InputAudit != "" {
			out = append(out, m.Name)
		}
	}
	return slices.Clip(out)
}

// AuditEvent reports an empirical privacy audit, once, at the end of a
// run: the lower bound on ε that the attacker's guesses on the canaries
// establish at Confidence (Steinke, Nasr & Jagielski 2023), beside the
// Ceiling that no outcome of the design could exceed. It is a lower bound:
// a certified ε below it would be refuted.
type AuditEvent struct {
	EpsilonLower float64 `json:"epsilon_lower"`
	Ceiling      float64 `json:"ceiling"`
	Confidence   float64 `json:"confidence"`
	Delta        float64 `json:"delta"`
	Canaries     int     `json:"canaries"`
	Guesses      int     `json:"guesses"`
	Correct      int     `json:"correct"`
	// Setting says which canaries and what the attacker saw.
	Setting string `json:"setting"`
	// Kind is the canaries' kind ("gradient" or "input"; empty in events
	// of older runs: gradient).
	Kind AuditKind `json:"kind,omitempty"`
	// View says in a few words what the attacker saw (the release it
	// scored), e.g. "the final encoder".
	View string `json:"view,omitempty"`
	// Outside lists the accountants (GuaranteeEvent.Audited labels) whose
	// threat model this attacker lies outside: it sees more than they
	// allow (a client's own upload, against an ε for the aggregate under
	// secure aggregation), so a bound above them refutes nothing. Empty:
	// the attack is within every accountant's model.
	Outside []string `json:"outside,omitempty"`
}

func (AuditEvent) coalesces() bool { return false }
