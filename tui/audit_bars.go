package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/styles"
)

// certifiedWithin is the smallest certified ε of guar whose threat model
// holds the attacker of a (AuditEvent.Outside): an ε for the aggregate
// under secure aggregation says nothing of an attacker who sees one
// upload. ok is false when the run certifies none (no noise, or every
// certificate is outside the attack's model).
func certifiedWithin(guar *core.GuaranteeEvent, a *core.AuditEvent) (c core.EpsilonValue, ok bool) {
	if guar == nil {
		return c, false
	}
	for _, v := range guar.Audited {
		if a != nil && slices.Contains(a.Outside, v.Accountant) {
			continue
		}
		if !ok || v.Epsilon < c.Epsilon {
			c, ok = v, true
		}
	}
	return c, ok
}

// attackBarLines draws the certified ε, the paper's ε and the empirical
// lower bound of an audit side by side, as bars on one scale, with the
// bound's ceiling marked: the attacker's figure is a lower bound, so a
// certified ε to its left would be refuted. The Budget screen and the
// Audit screen draw the same bars.
func attackBarLines(st styles.Styles, guar *core.GuaranteeEvent, a *core.AuditEvent, w int) []string {
	type row struct {
		name  string
		eps   float64
		style lipgloss.Style
		note  string
	}
	var rows []row
	if guar != nil {
		if c, ok := certifiedWithin(guar, a); ok {
			rows = append(rows, row{"certified", c.Epsilon, st.SeriesStyle(0), c.Short()})
		} else {
			rows = append(rows, row{"certified", 0, st.Bad, "none: no valid guarantee"})
		}
		if len(guar.Published) > 0 {
			rows = append(rows, row{"paper's", guar.Published[0].Epsilon, st.SeriesStyle(1), guar.Published[0].Short()})
		}
	}
	rows = append(rows, row{"attack ≥", a.EpsilonLower, st.Warn,
		fmt.Sprintf("%d/%d right, %.0f%%, ceiling %s", a.Correct, a.Guesses, 100*a.Confidence, fmtEps(a.Ceiling))})
	scale := a.Ceiling
	for _, r := range rows {
		if finiteEps(r.eps) {
			scale = max(scale, r.eps)
		}
	}
	const lead = 11 + 8
	bar := max(min(w-lead-2, 30), 4)
	out := []string{st.BoxTitle.Render("ε: certified · paper · attack") + st.Muted.Render(fmt.Sprintf(" (δ %.3g)", a.Delta))}
	for _, r := range rows {
		n := 0
		switch {
		case math.IsInf(r.eps, 1):
			n = bar // an unbounded ε fills its bar
		case finiteEps(scale) && scale > 0 && finiteEps(r.eps) && r.eps > 0:
			n = min(int(math.Round(r.eps/scale*float64(bar))), bar)
		}
		line := st.Label.Render(pad(r.name, 11)) + st.Value.Render(pad(fmtEps(r.eps), 8)) + r.style.Render(strings.Repeat("█", n)) + strings.Repeat(" ", bar-n)
		out = append(out, line)
		out = append(out, hang(strings.Repeat(" ", lead), r.note, w, st.Muted)...)
	}
	if finiteEps(scale) && scale > 0 && finiteEps(a.Ceiling) {
		c := int(math.Round(a.Ceiling / scale * float64(bar)))
		out = append(out, strings.Repeat(" ", lead+min(c, bar-1))+st.Muted.Render("▲ ceiling"))
	}
	refuted := ""
	for _, r := range rows[:len(rows)-1] {
		if r.eps > 0 && a.EpsilonLower > r.eps {
			refuted += fmt.Sprintf(" the %s ε %s is refuted.", r.name, fmtEps(r.eps))
		}
	}
	if refuted != "" {
		out = append(out, wrap(st.Bad.Render("the attacker shows ε ≥ "+fmtEps(a.EpsilonLower)+":"+refuted), w)...)
	}
	out = append(out, hang("  ", a.Setting, w, st.Muted)...)
	return out
}

// finiteEps reports whether v is a number a bar can be drawn to (an ε
// from a file or an engine may be NaN or infinite).
func finiteEps(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
