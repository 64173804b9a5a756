package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
)

// auditWide is the width from which the Audit screen puts its result
// beside its controls rather than under them.
const auditWide = 100

// auditControlsWidth is the controls' column when the result sits beside.
const auditControlsWidth = 44

// SetSize sets the room the screen draws in.
func (p *auditPane) SetSize(w, h int) { p.w, p.h = w, h }

// Frame keeps the shown audit's clock with the run (the text is cheap and
// drawn in View).
func (p *auditPane) Frame() { p.follow() }

// View renders the controls and the cost, then the progress and result:
// beside each other when wide, stacked otherwise. What does not fit
// scrolls (pgup/pgdn), and a last line says how much more there is.
func (p *auditPane) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	if p.w >= auditWide {
		lw := auditControlsWidth
		rw := p.w - lw - 2
		left := block(strings.Join(p.controlLines(lw, true), "\n"), lw, p.h)
		right := p.scrolled(p.resultLines(rw), rw)
		return lipgloss.JoinHorizontal(lipgloss.Top, padBlock(left, lw), "  ", right)
	}
	// Stacked, the result comes before the cost's reasoning once there is
	// one: it is what the screen is for.
	lines := p.controlLines(p.w, p.result == nil)
	lines = append(lines, "")
	lines = append(lines, p.resultLines(p.w)...)
	return p.scrolled(lines, p.w)
}

// scrolled is lines in the pane's height from the scroll offset, the last
// line saying how many more there are below.
func (p *auditPane) scrolled(lines []string, w int) string {
	h := p.h
	p.offset = max(min(p.offset, len(lines)-h), 0)
	shown := lines[p.offset:]
	if len(shown) > h {
		more := len(shown) - h + 1
		shown = append(shown[:h-1:h-1], p.c.Styles.Muted.Render(fmt.Sprintf("  ↓ %d more lines: pgdn scrolls", more)))
	}
	return block(strings.Join(shown, "\n"), w, h)
}

// controlLines are the form, what the audit will cost (with the rule of
// the estimate when why is set) and where the audit is.
func (p *auditPane) controlLines(w int, why bool) []string {
	st := p.c.Styles
	out := []string{st.BoxTitle.Render("empirical privacy audit") + st.Muted.Render(" · one run")}
	out = append(out, strings.Split(p.form.view(st, w), "\n")...)
	head, rule := p.estimate()
	out = append(out, truncate(st.Label.Render("time ")+st.Value.Render(head), w))
	if why {
		out = append(out, hang("  ", rule, w, st.Muted)...)
	}
	if s := p.stateLine(w); s != "" {
		out = append(out, s)
	}
	return out
}

// stateLine says where the shown audit is: starting, its progress, its
// end; "" before the first.
func (p *auditPane) stateLine(w int) string {
	st := p.c.Styles
	if p.pendingID != 0 && p.runID != p.pendingID {
		if p.c.RunID >= p.pendingID && !p.c.RunState.Active() {
			return truncate(st.Error.Render("the audit could not start: the status line says why"), w)
		}
		return truncate(st.Muted.Render("starting the audit…"), w)
	}
	if p.runID == 0 {
		return truncate(st.Muted.Render("s starts the audit; you may switch screens while it runs"), w)
	}
	lead := fmt.Sprintf("run %d ", p.runID)
	switch {
	case p.going():
		return truncate(st.Label.Render(lead)+p.clock.line(p.last, max(p.total, p.last), p.c.RunState, max(w-lipgloss.Width(lead), 8)), w)
	case p.failed != "":
		return truncate(st.Error.Render(lead+"failed: "+p.failed), w)
	case p.done != nil:
		return truncate(st.Muted.Render(lead+p.done.Status()+" in "+durText(p.done.Elapsed)), w)
	}
	return truncate(st.Muted.Render(lead+"ended"), w)
}

// resultLines are the shown audit's figures, its plain sentence and the
// bars; before a result, what the attacker will see and how to read the
// bound.
func (p *auditPane) resultLines(w int) []string {
	st := p.c.Styles
	var out []string
	add := func(s string) { out = append(out, wrap(s, w)...) }
	a := p.result
	if a == nil {
		k := p.kind()
		if !p.params.Auditable() {
			add(st.Warn.Render(p.params.V().Label+" has no audit") + st.Muted.Render(" (methods with one: "+strings.Join(core.AuditableMethods(), ", ")+")"))
			return out
		}
		add(st.BoxTitle.Render("what the audit does"))
		out = append(out, hang("  ", fmt.Sprintf("plants %d canaries, each in the run with probability ½, trains once, and lets an attacker guess which were in; its right guesses give a lower bound on ε at %s confidence (Steinke, Nasr & Jagielski 2023)", p.canaries(), pct(p.in.Confidence)), w, st.Muted)...)
		add(st.Label.Render("attacker's view ") + truncate(st.Muted.Render(k.Name+": "+k.Doc), max(w-16, 8)))
		out = append(out, hang("  ", "a certified ε below the bound is refuted; a bound far below it proves nothing: one run can show at most the ceiling ("+p.ceilingText()+" here)", w, st.Muted)...)
		return out
	}
	unit := unitTitle(p.params.unit())
	add(st.Warn.Render("ε ≥ "+fmtEps(a.EpsilonLower)) + st.Muted.Render(fmt.Sprintf("  empirical lower bound · %s confidence · δ %.3g", pct(a.Confidence), a.Delta)))
	add(st.Label.Render("ceiling ") + st.Value.Render(fmtEps(a.Ceiling)) + st.Muted.Render(": no outcome of this audit could show more"))
	if c, ok := certifiedWithin(p.guar, a); ok {
		add(st.Label.Render("certified ") + st.Value.Render("ε "+fmtEps(c.Epsilon)) + st.Muted.Render(" ("+c.Accountant+") · unit "+unit))
	} else {
		add(st.Label.Render("certified ") + st.Bad.Render("none") + st.Muted.Render(" · unit "+unit))
	}
	if p.guar != nil && len(p.guar.Published) > 0 {
		pub := p.guar.Published[0]
		add(st.Label.Render("paper's   ") + st.Value.Render("ε "+fmtEps(pub.Epsilon)) + st.Muted.Render(" ("+pub.Accountant+")"))
	}
	add(st.Label.Render("best rule ") + st.Value.Render(fmt.Sprintf("%d/%d", a.Correct, a.Guesses)) + st.Muted.Render(fmt.Sprintf(" guesses right · %d canaries", a.Canaries)))
	out = append(out, truncate(st.Label.Render("attacker's view ")+st.Muted.Render(a.Setting), w))
	out = append(out, "")
	add(st.Emph.Render(auditSentence(p.variant(), p.cfg, p.guar, a)))
	out = append(out, "")
	out = append(out, attackBarLines(st, p.guar, a, w)...)
	return out
}

// variant is the shown audit's variant as the Run screen had it when the
// audit started (its family names the unit and the layers), else the Run
// screen's.
func (p *auditPane) variant() Variant {
	if p.runID != 0 {
		return p.v
	}
	return p.params.V()
}

// auditSentence says in one plain sentence what the audit shows against
// the paper's claim or the certificate: "the paper claims ε = 1; with
// layers 4–6 noise-free an attacker shows ε ≥ 4.34 — the claim is
// refuted at 95 % confidence."
func auditSentence(v Variant, cfg core.Config, guar *core.GuaranteeEvent, a *core.AuditEvent) string {
	lower, ceil, conf := fmtEps(a.EpsilonLower), fmtEps(a.Ceiling), pct(a.Confidence)
	if guar != nil && len(guar.Published) > 0 {
		claim := guar.Published[0].Epsilon
		s := fmt.Sprintf("the paper claims ε = %s; %san attacker shows ε ≥ %s", fmtEps(claim), noiseFreeClause(v, cfg), lower)
		if a.EpsilonLower > claim {
			return s + " — the claim is refuted at " + conf + " confidence."
		}
		return s + ", which does not refute it (this audit can show at most " + ceil + ")."
	}
	if c, ok := certifiedWithin(guar, a); ok {
		s := fmt.Sprintf("dpscope certifies ε = %s (%s); an attacker shows ε ≥ %s", fmtEps(c.Epsilon), c.Short(), lower)
		if a.EpsilonLower > c.Epsilon {
			return s + " — above the certificate: at " + conf + " confidence the run does not keep it."
		}
		return s + ", within it as a sound run must (this audit can show at most " + ceil + ")."
	}
	return "the run certifies no ε; an attacker shows ε ≥ " + lower + ", of at most " + ceil + " this audit can show."
}

// noiseFreeClause names the layers a DP-SGD paper-mode run leaves
// noise-free ("with layers 4–6 noise-free "), "" for other runs.
func noiseFreeClause(v Variant, cfg core.Config) string {
	if v.Family() != familyDPSGD || cfg.Mode != core.ModePaper || cfg.Layers.First < 1 || cfg.Layers.Last > numLayers || cfg.Layers.First > cfg.Layers.Last {
		return ""
	}
	var free []string
	span := func(a, b int) {
		switch {
		case a > b:
		case a == b:
			free = append(free, fmt.Sprintf("layer %d", a))
		default:
			free = append(free, fmt.Sprintf("layers %d–%d", a, b))
		}
	}
	span(1, cfg.Layers.First-1)
	span(cfg.Layers.Last+1, numLayers)
	if len(free) == 0 {
		return "with every layer noised "
	}
	return "with " + strings.Join(free, " and ") + " noise-free "
}
