package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// auditInputs are the Audit screen's own settings; the method, mode and
// data come from the Run screen's. A value.
type auditInputs struct {
	// Canaries is m; 0 is the engine's default (core.AuditSpec.Canaries:
	// 1,000, or as many as the audited release holds).
	Canaries int
	// Confidence is 1 − β of the bound, in (0, 1).
	Confidence float64
	// Delta is the δ the run is certified and audited at; 0 is the Run
	// screen's δ. One δ for both, so the bound and the certified ε it is
	// read against are about the same (ε, δ).
	Delta float64
	// Kind is the canary kind (canaryKinds).
	Kind string
}

// auditConfidences are the confidence control's steps.
var auditConfidences = []float64{0.8, 0.9, 0.95, 0.99, 0.999}

// maxAuditCanaries is core.AuditSpec's upper limit on m.
const maxAuditCanaries = 1_000_000

// canaryKind is a kind of audit canary a method offers, with what the
// attacker sees of it.
type canaryKind struct{ Name, Doc string }

// canaryKinds are the canary kinds v's method offers, the first its
// default, with the method's own words: the white-box kind every auditable
// method has (core.Method.Audit), named after where its canaries go (Dirac
// gradients in DP-SGD's steps, Dirac shifts in the mechanism's released
// sums), then "input" where the method also has synthetic-cell canaries
// (core.Method.InputAudit, issue 22's black-box setting). None: the method
// cannot be audited.
func canaryKinds(v Variant) []canaryKind {
	doc := v.Desc().Audit
	if doc == "" {
		return nil
	}
	ks := []canaryKind{{"release", doc}}
	if v.Family() == familyDPSGD {
		ks[0].Name = "gradient"
	}
	if in := v.Desc().InputAudit; in != "" {
		ks = append(ks, canaryKind{string(core.AuditInput), in})
	}
	return ks
}

// auditKind is the engine's name of the chosen kind: input, or the
// default white-box kind.
func (p *auditPane) auditKind() core.AuditKind {
	if p.kind().Name == string(core.AuditInput) {
		return core.AuditInput
	}
	return core.AuditGradient
}

func (p *auditPane) fields() []field {
	in := &p.in
	onRun := func(name string) func(int) error {
		return func(int) error {
			return fmt.Errorf("%s: set it on the Run screen (1); the audit runs its settings", name)
		}
	}
	return []field{
		{name: "method", value: func() string { return p.params.V().Label }, step: onRun("method")},
		{name: "data", value: func() string { return p.runConfig().Data }, step: onRun("data")},
		{name: "canaries m", value: func() string {
			if in.Canaries == 0 && p.auditKind() == core.AuditInput {
				// Input canaries are capped at a tenth of the cells.
				return fmt.Sprintf("auto (≤ %d, 10 %% of the cells)", core.DefaultAuditCanaries)
			}
			if in.Canaries == 0 {
				return fmt.Sprintf("auto (%d)", core.DefaultAuditCanaries)
			}
			return strconv.Itoa(in.Canaries)
		},
			step: func(d int) error {
				m := in.Canaries
				if m == 0 {
					m = core.DefaultAuditCanaries
				}
				return scaleInt("canaries m", &m, 2, d, 1, maxAuditCanaries)
			},
			set: func(s string) error { return setCanaries(&in.Canaries, s) },
			hint: func() string {
				if in.Canaries == 0 && p.auditKind() == core.AuditInput {
					return "ceiling ≤ " + p.ceilingText()
				}
				return "ceiling " + p.ceilingText()
			}},
		{name: "confidence", value: func() string { return pct(in.Confidence) },
			step: func(d int) error { in.Confidence = stepConfidence(in.Confidence, d); return nil },
			set:  func(s string) error { return setConfidence(&in.Confidence, s) }},
		{name: "δ", value: func() string { return strconv.FormatFloat(p.delta(), 'g', 3, 64) },
			step: func(d int) error {
				v := scaleStep(p.delta(), 10, d)
				if !(v > 0 && v < 1) {
					return fmt.Errorf("δ must stay in (0, 1)")
				}
				in.Delta = v
				return nil
			},
			set: func(s string) error { return setFraction("δ", &in.Delta, s) },
			locked: func() string {
				if !p.params.Private() {
					return "the run adds no noise: its audit is at δ = 0"
				}
				return ""
			},
			hint: func() string {
				if in.Delta == 0 || !p.params.Private() {
					return "the run's"
				}
				return "run and audit"
			}},
		{name: "canary kind", value: func() string { return p.kind().Name },
			step: func(d int) error {
				ks := canaryKinds(p.params.V())
				if len(ks) < 2 {
					return fmt.Errorf("canary kind: %s offers only %q canaries", p.params.V().Label, p.kind().Name)
				}
				names := make([]string, len(ks))
				for i, k := range ks {
					names[i] = k.Name
				}
				in.Kind = cycle(names, p.kind().Name, d)
				return nil
			}},
	}
}

// setCanaries sets *m from a typed value: "auto" or 0 for the engine's
// default, else a whole number in [1, maxAuditCanaries].
func setCanaries(m *int, s string) error {
	if s == "auto" {
		*m = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxAuditCanaries {
		return fmt.Errorf("canaries m is %q, must be a whole number in 1..%d (or auto)", s, maxAuditCanaries)
	}
	*m = n
	return nil
}

// setConfidence sets *c from a typed value: a fraction in (0, 1) ("0.95")
// or a percentage ("95%").
func setConfidence(c *float64, s string) error {
	t, percent := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if percent {
		v = math.Round(v*1e10) / 1e12 // 99.9% is 0.999, not 0.9990000000000001
	}
	if err != nil || !(v > 0 && v < 1) {
		return fmt.Errorf("confidence is %q, must be in (0, 1), e.g. 0.95 or 95%%", s)
	}
	*c = v
	return nil
}

// stepConfidence is the next of auditConfidences above (d > 0) or below
// c, staying at the ends.
func stepConfidence(c float64, d int) float64 {
	if d > 0 {
		for _, v := range auditConfidences {
			if v > c+1e-12 {
				return v
			}
		}
		return c
	}
	for i := len(auditConfidences) - 1; i >= 0; i-- {
		if v := auditConfidences[i]; v < c-1e-12 {
			return v
		}
	}
	return c
}

// pct writes a confidence as a percentage: 95 %, 99.9 %.
func pct(c float64) string { return strconv.FormatFloat(100*c, 'g', 4, 64) + " %" }

// canaries is m as the engine will take it before it knows the release's
// room: the typed one, else the default.
func (p *auditPane) canaries() int {
	if p.in.Canaries == 0 {
		return core.DefaultAuditCanaries
	}
	return p.in.Canaries
}

// delta is the δ the audit runs at: the screen's, else the Run screen's
// (0 without noise).
func (p *auditPane) delta() float64 {
	if !p.params.Private() {
		return 0
	}
	if p.in.Delta > 0 {
		return p.in.Delta
	}
	return p.runConfig().Delta
}

// kind is the chosen canary kind, the method's first when the choice is
// not one of its kinds (the method changed).
func (p *auditPane) kind() canaryKind {
	ks := canaryKinds(p.params.V())
	for _, k := range ks {
		if k.Name == p.in.Kind {
			return k
		}
	}
	if len(ks) == 0 {
		return canaryKind{Name: "none"}
	}
	return ks[0]
}
