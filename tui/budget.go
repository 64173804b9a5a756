package tui

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/memo"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// tradeoffPoints is the resolution of the trade-off curve.
const tradeoffPoints = 64

// pldInterval is the PLD discretisation the interface uses: coarser than
// the accountant's default, so a curve takes tens of milliseconds.
const pldInterval = 1e-3

// budgetPane is the Budget screen: the ledger by component and accountant,
// the published and audited ε, the guarantee with its reasons, RDP against
// PLD for the schedule, and the attacker's trade-off curve.
type budgetPane struct {
	c      *Common
	params runParams
	sched  schedule
	budget *core.BudgetEvent
	guar   *core.GuaranteeEvent
	attack *core.AuditEvent // the run's empirical audit (run --audit), nil without one
	audit  auditResult
	seq    int  // the latest audit asked for
	stale  bool // inputs changed since the last audit was asked for
	busy   bool
	curve  *chart.XY
	// warnings are the run's warning events, kept beside the reasons (the
	// status line shows only the latest), and notes those marked Note (its
	// plan, its rules' decisions).
	warnings, notes []string
	// vp scrolls the text when it is taller than its room (↑/↓, pgup/pgdn):
	// the reasons and warnings are never cut out of reach.
	vp    viewport.Model
	w, h  int
	dirty bool
}

// auditResult is the interface's composition of a run's releases (the
// engine's ledger and plan): ε by RDP and PLD and the PLD trade-off curve.
type auditResult struct {
	seq      int
	label    string // what schedule it is for
	spent    accountant.Spent
	curve    []accountant.TradeoffPoint
	schedule []accountant.Event
	err      error
}

func newBudgetPane(c *Common, params runParams) *budgetPane {
	st := c.Styles
	b := &budgetPane{c: c, params: params, stale: true, curve: chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker), vp: viewport.New()}
	b.curve.SetRange(0, 1, 0, 1)
	return b
}

func (b *budgetPane) Title() string   { return "Budget" }
func (b *budgetPane) Init() tea.Cmd   { return nil }
func (b *budgetPane) Capturing() bool { return false }

// ShortHelp returns the Budget pane's help-bar bindings.
func (b *budgetPane) ShortHelp() []key.Binding { return b.keyHelp().ShortHelp() }

// FullHelp returns the Budget pane's help-overlay bindings.
func (b *budgetPane) FullHelp() [][]key.Binding { return b.keyHelp().FullHelp() }

func (b *budgetPane) keyHelp() keys.Help {
	k := b.c.Keys
	scroll := key.NewBinding(key.WithKeys(append(k.Down.Keys(), k.Up.Keys()...)...), key.WithHelp("↑/↓", "scroll text"))
	return keys.Help{Keys: k, Short: []key.Binding{scroll}, Full: [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}}}
}

// scroll moves the text's viewport by a key; it reports whether the key
// was a scroll key.
func (b *budgetPane) scroll(msg tea.KeyPressMsg) bool {
	k := b.c.Keys
	switch {
	case key.Matches(msg, k.Up):
		b.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		b.vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		b.vp.PageUp()
	case key.Matches(msg, k.PageDown):
		b.vp.PageDown()
	default:
		return false
	}
	return true
}

// Update follows the parameters and the run's events; audits run in a
// command, one at a time, the newest inputs winning.
func (b *budgetPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		b.scroll(msg)
		return b, nil
	case ParamsMsg:
		b.params = msg.Params
		b.stale = true
		if !b.c.RunState.Active() && b.sched.finished {
			// Settings changed after a run ended: show the new plan, its
			// ε target and its expected guarantee, not the ended run's.
			b.sched, b.guar = schedule{}, nil
			b.dirty = true
		}
		if !b.params.dpsgd() {
			b.audit = auditResult{} // the engine accounts for itself
			b.dirty = true
		}
	case RunStartedMsg:
		b.sched = newSchedule()
		b.budget, b.guar, b.warnings, b.notes, b.attack = nil, nil, nil, nil, nil
		b.stale = true
	case EngineEventsMsg:
		for _, ev := range msg.Events {
			b.sched.observe(ev)
			switch ev := ev.(type) {
			case core.BudgetEvent:
				e := ev
				b.budget = &e
			case core.GuaranteeEvent:
				g := ev
				b.guar = &g
			case core.WarningEvent:
				if ev.Note {
					b.notes = append(b.notes, ev.Message)
				} else {
					b.warnings = append(b.warnings, ev.Message)
				}
			case core.AuditEvent:
				a := ev
				b.attack = &a
			case core.PatchEvent:
				if ev.Applied {
					b.stale = true
				}
			case core.MetricsEvent:
				b.stale = true // once an epoch: re-audit what has been spent
			}
		}
		b.dirty = true
	case EngineClosedMsg:
		b.sched.finished = true
		b.stale = true
	case auditResult:
		b.busy = false
		if msg.seq == b.seq {
			b.audit = msg
			b.dirty = true
		}
	}
	return b, b.maybeAudit()
}

// maybeAudit starts an audit when the inputs changed and none is running.
// It composes every release of the run's ledger and plan, as the engine's
// latest budget report lists them (every mechanism: sound DP-DCAN's
// k-means releases too); before a run, the releases of the method's plan
// at the σ set (its Calibrate).
func (b *budgetPane) maybeAudit() tea.Cmd {
	if !b.stale || b.busy || !b.params.dpsgd() {
		return nil
	}
	b.stale, b.busy = false, true
	b.seq++
	seq, pr, sched := b.seq, b.params, b.sched
	mechs, remaining := sched.mechanisms()
	label := "the planned run"
	switch {
	case sched.finished && sched.ended != "" && sched.ended != string(core.OutcomeFinished):
		label = fmt.Sprintf("the run that ended early after %d steps (%s)", sched.step, sched.ended)
	case sched.finished:
		label = fmt.Sprintf("the finished run (%d steps)", sched.step)
	case sched.active && sched.step > 0 && sched.budget != nil:
		label = fmt.Sprintf("this run: %d steps taken, %d to go at σ %.3g", sched.step, remaining, sched.budget.Sigma)
	case sched.active:
		label = "this run, as planned"
	}
	live := sched.active && sched.budget != nil
	return func() tea.Msg {
		if !live {
			c, err := pr.calibrate(true)
			if err != nil {
				return auditResult{seq: seq, label: label, err: err}
			}
			mechs = c.Planned
		}
		return audit(seq, label, pr.Delta, mechs)
	}
}

// audit accounts a run's releases by RDP (accountant.DefaultOrders) and
// PLD and draws its trade-off curve. It runs in a command (PLD costs tens
// of milliseconds).
func audit(seq int, label string, delta float64, mechs []core.Mechanism) auditResult {
	r := auditResult{seq: seq, label: label}
	for _, m := range mechs {
		if m.Steps > 0 {
			r.schedule = append(r.schedule, accountant.Event{SampleRate: m.SampleRate, NoiseMultiplier: m.NoiseMultiplier, Steps: m.Steps})
		}
	}
	if len(r.schedule) == 0 {
		r.err = errNoReleases
		return r
	}
	a := auditCache.Get(fmt.Sprintf("%v|%v", delta, r.schedule), func() auditFigures { return account(delta, r.schedule) })
	r.spent, r.curve, r.err = a.spent, a.curve, a.err
	return r
}

// auditFigures is what audit accounts: a pure function of δ and the events.
type auditFigures struct {
	spent accountant.Spent
	curve []accountant.TradeoffPoint
	err   error
}

// auditCache shares the accounting of identical schedules across the
// process (dpscope serve's sessions open the Budget tab on the same
// defaults), keyed by δ and the events printed in full (%v prints floats
// exactly). The curve is shared read-only.
var auditCache = memo.New[string, auditFigures](256)

// account is audit's RDP and PLD accounting of evs at δ.
func account(delta float64, evs []accountant.Event) auditFigures {
	var a auditFigures
	a.spent, a.err = accountant.Summarize(evs, delta, accountant.LedgerOptions{Orders: accountant.DefaultOrders.Orders(), PLDInterval: pldInterval})
	if a.err != nil {
		return a
	}
	pld, err := accountant.NewPLDSequence(evs, pldInterval)
	if err != nil {
		a.err = err
		return a
	}
	a.curve, a.err = pld.Tradeoff(tradeoffPoints)
	return a
}

// SetSize lays the pane out in w×h.
func (b *budgetPane) SetSize(w, h int) {
	b.w, b.h = w, h
	cw, ch := b.chartSize()
	b.curve.Resize(max(cw-2, 1), max(ch-3, 1))
	b.dirty = true
}

func (b *budgetPane) wide() bool { return b.w >= 110 }

func (b *budgetPane) chartSize() (w, h int) {
	if b.wide() {
		return b.w - b.w/2 - 1, b.h
	}
	return b.w, max(b.h-b.textHeight(), 0)
}

// textHeight is the rows the text part needs when stacked.
func (b *budgetPane) textHeight() int {
	limit := max(b.h-minChartHeight, b.h/2)
	return min(len(b.textLines(b.w, limit)), limit)
}

// Frame redraws the trade-off chart when it changed.
func (b *budgetPane) Frame() {
	if !b.dirty {
		return
	}
	b.dirty = false
	st := b.c.Styles
	// The text above the chart grows when an audit lands: size it now.
	cw, ch := b.chartSize()
	b.curve.Resize(max(cw-2, 1), max(ch-3, 1))
	b.curve.Reset()
	b.curve.SetStyles(st.Axis, st.AxisLabel, st.Marker)
	b.curve.SetYFormat(func(v float64) string { return fmt.Sprintf("%.1f", v) })
	b.curve.SetSegments(
		chart.Segment{A: chart.Point{X: 0, Y: 1}, B: chart.Point{X: 1, Y: 0}, Style: st.Good},
		chart.Segment{A: chart.Point{X: 0, Y: 0}, B: chart.Point{X: 1, Y: 0}, Style: st.Bad},
	)
	if eps := b.audit.spent.EpsilonRDP; eps > 0 {
		b.curve.SetPoints("(ε,δ) bound", st.SeriesStyle(1), epsDeltaCurve(eps, b.params.Delta, tradeoffPoints)).Pattern = chart.PatternOf(1)
	}
	if len(b.audit.curve) > 0 {
		pts := make([]chart.Point, len(b.audit.curve))
		for i, p := range b.audit.curve {
			pts[i] = chart.Point{X: p.Alpha, Y: p.Beta}
		}
		b.curve.SetPoints("PLD", st.SeriesStyle(0), pts)
	}
	b.curve.Draw()
}

// epsDeltaCurve is the trade-off curve every (ε, δ)-DP mechanism lies on or
// above: β = max(0, 1 − δ − e^ε α, e^−ε (1 − δ − α)).
func epsDeltaCurve(eps, delta float64, n int) []chart.Point {
	pts := make([]chart.Point, n)
	for i := range pts {
		a := float64(i) / float64(n-1)
		beta := math.Max(0, math.Max(1-delta-math.Exp(eps)*a, math.Exp(-eps)*(1-delta-a)))
		pts[i] = chart.Point{X: a, Y: beta}
	}
	return pts
}

// View renders the text beside (or above) the trade-off chart.
func (b *budgetPane) View() string {
	st := b.c.Styles
	cw, ch := b.chartSize()
	box := ""
	if ch >= minChartHeight {
		// α and β are the glossary's (trade-off curve); the words the
		// legend needs leave room for no longer title.
		title := st.BoxTitle.Render("attacker on "+unitTitle(b.params.unit())+": β vs α") + " " +
			st.SeriesStyle(0).Render(chart.PatternOf(0).Glyph()+"PLD") + " " + st.SeriesStyle(1).Render(chart.PatternOf(1).Glyph()+"(ε,δ)") + " " +
			st.Good.Render("━perfect privacy") + " " + st.Bad.Render("━no privacy")
		box = st.Box.Render(padBlock(block(truncate(title, cw-2)+"\n"+b.curve.View(), cw-2, ch-2), cw-2))
	}
	if b.wide() {
		tw := b.w / 2
		return lipgloss.JoinHorizontal(lipgloss.Top, padBlock(block(b.textFit(tw, b.h), tw, b.h), tw), " ", box)
	}
	return lipgloss.JoinVertical(lipgloss.Left, block(b.textFit(b.w, b.h-ch), b.w, b.h-ch), box)
}

// text is the guarantee, the ledger and the RDP/PLD comparison, then the
// guarantee's reasons: they can run to twenty lines, so they come last and
// are what textFit cuts.
func (b *budgetPane) text(w int) string {
	st := b.c.Styles
	var out []string
	add := func(s string) { out = append(out, wrap(s, w)...) }
	status, reasons := expectedGuarantee(b.params)
	head := "expected guarantee (before a run): "
	if b.guar != nil {
		status, reasons, head = b.guar.Status, b.guar.Reasons, "guarantee: "
	}
	add(st.Label.Render(head) + guaranteeBadge(st, status))
	// Each figure on its own line, and only when the run reports it: a
	// method with no paper (dcan-sound, dppca) showed "as published —".
	if b.guar != nil && len(b.guar.Published) > 0 {
		add(st.Label.Render("as published ") + epsList(b.guar.Published))
	}
	if b.guar != nil && len(b.guar.Audited) > 0 {
		add(st.Label.Render("audited ") + epsList(b.guar.Audited))
	}
	if b.attack != nil {
		out = append(out, "")
		out = append(out, b.attackBars(w)...)
	}
	out = append(out, "")
	if bg := b.budget; bg != nil {
		names := make([]string, len(bg.Spent))
		for i, e := range bg.Spent {
			names[i] = e.Accountant
		}
		step := "step"
		if f := b.params.V().Family(); f != familyDPSGD {
			step = stepWord(f)
		}
		add(st.BoxTitle.Render(fmt.Sprintf("ledger at %s %d (δ %.3g, unit %s)", step, bg.Step, bg.Delta, unitTitle(b.params.unit()))))
		if longest(names) > 10 {
			// the engine's accountants have long names: one a line, spent
			// then projected end, then the name
			const lead = 4 + 8 + 11
			for i, e := range bg.Spent {
				end := ""
				if i < len(bg.Projected) && bg.Projected[i].Accountant == e.Accountant {
					end = "end " + fmtEps(bg.Projected[i].Epsilon)
				}
				head := st.SeriesStyle(i).Render("  "+chart.PatternOf(i).Glyph()+" ") + st.Value.Render(pad(fmtEps(e.Epsilon), 8)) + st.Muted.Render(pad(end, 11))
				for j, l := range wrap(e.Accountant, max(w-lead, 8)) {
					if j > 0 {
						head = strings.Repeat(" ", lead)
					}
					out = append(out, head+st.Label.Render(l))
				}
			}
			if bg.Target > 0 {
				add(st.Label.Render("  target ") + st.Target.Render(fmtEps(bg.Target)))
			}
		} else {
			add(st.Label.Render(fmt.Sprintf("  %-18s", "component")) + st.Label.Render(strings.Join(padAll(names, 10), "")))
			for _, c := range bg.Components {
				first := ""
				if len(names) > 0 {
					first = pad(fmtEps(c.Value), 10)
				}
				add(fmt.Sprintf("  %-18.18s", c.Name) + st.Value.Render(first))
			}
			add(st.Emph.Render(fmt.Sprintf("  %-18s", "total spent")) + st.Value.Render(epsRow(bg.Spent)))
			add(st.Label.Render(fmt.Sprintf("  %-18s", "projected end")) + st.Value.Render(epsRow(bg.Projected)))
			if bg.Target > 0 {
				add(st.Label.Render(fmt.Sprintf("  %-18s", "target")) + st.Target.Render(fmtEps(bg.Target)))
			}
		}
	} else {
		add(st.Muted.Render("no run yet: the ledger fills when a run starts"))
	}
	out = append(out, "")
	a := b.audit
	switch {
	case !b.params.Private():
		add(st.Muted.Render(b.params.V().Label + " adds no noise: no ε to account"))
	case !b.params.dpsgd():
		add(st.Muted.Render(b.params.V().Method + " accounts for itself: the ledger above lists its accountants, as published and audited"))
	case errors.Is(a.err, errNoPreview):
		add(st.Muted.Render(b.params.V().Label + " sets its noise itself: the ledger above lists its accountants when it runs"))
	case errors.Is(a.err, errNoReleases):
		// The run's ledger (above) is its accountants' own, e.g. dcan-sound's
		// exact GDP composition: there is no subsampled schedule to
		// compare RDP and PLD on. "nothing to compose" read as if no ε
		// had been spent.
		add(st.Muted.Render("RDP vs PLD: the run reports no subsampled schedule (q, σ, steps) to compare them on; its ledger above is its accountants' own"))
	case a.err != nil:
		add(st.Error.Render("audit: " + a.err.Error()))
	case len(a.schedule) == 0:
		add(st.Muted.Render("accounting…"))
	default:
		add(st.BoxTitle.Render("RDP vs PLD") + st.Muted.Render(" · "+a.label+" · unit "+unitTitle(unitCell)))
		for _, ev := range a.schedule {
			add(st.Muted.Render(fmt.Sprintf("  q %.3g · σ %.3g · %d steps", ev.SampleRate, ev.NoiseMultiplier, ev.Steps)))
		}
		add(fmt.Sprintf("  RDP %s (order %.3g) · RDP classic %s · PLD %s",
			st.Value.Render(fmtEps(a.spent.EpsilonRDP)), a.spent.BestOrder,
			st.Value.Render(fmtEps(a.spent.EpsilonRDPClassic)), st.Value.Render(fmtEps(a.spent.EpsilonPLD))))
		if a.spent.EpsilonPLD > 0 {
			add(st.Muted.Render(fmt.Sprintf("  PLD is tighter by %.0f%%: same noise, smaller certified ε", 100*(1-a.spent.EpsilonPLD/a.spent.EpsilonRDP))))
		}
	}
	out = append(out, "")
	add(st.Label.Render("why"))
	for _, r := range reasons {
		out = append(out, hang("  · ", r, w, st.Muted)...)
	}
	if len(b.notes) > 0 {
		add(st.Label.Render("notes of the run"))
		for _, n := range b.notes {
			out = append(out, hang("  · ", n, w, st.Muted)...)
		}
	}
	if len(b.warnings) > 0 {
		add(st.Label.Render("warnings of the run"))
		for _, wn := range b.warnings {
			out = append(out, hang("  ⚠ ", wn, w, st.Warn)...)
		}
	}
	return strings.Join(out, "\n")
}

// attackBars draws the run's audit beside its certified and paper's ε
// (attackBarLines, shared with the Audit screen).
func (b *budgetPane) attackBars(w int) []string {
	return attackBarLines(b.c.Styles, b.guar, b.attack, w)
}

// textLines is the text's lines for a room of h lines: short of room,
// the blank separators go first.
func (b *budgetPane) textLines(w, h int) []string {
	lines := strings.Split(b.text(w), "\n")
	if h <= 0 || len(lines) <= h {
		return lines
	}
	kept := lines[:0:0]
	for _, l := range lines {
		if l != "" {
			kept = append(kept, l)
		}
	}
	return kept
}

// textFit is the text in h lines: what does not fit scrolls in a viewport
// (↑/↓, pgup/pgdn), and a last line says how much more there is.
func (b *budgetPane) textFit(w, h int) string {
	lines := b.textLines(w, h)
	if h <= 0 || len(lines) <= h {
		b.vp.SetYOffset(0)
		return strings.Join(lines, "\n")
	}
	b.vp.SetWidth(w)
	b.vp.SetHeight(h)
	b.vp.SetContentLines(lines)
	shown := strings.Split(b.vp.View(), "\n")
	if below := len(lines) - b.vp.YOffset() - h; below > 0 && len(shown) == h {
		shown[h-1] = b.c.Styles.Muted.Render(fmt.Sprintf("  ↓ %d more lines: ↓/pgdn scrolls", below+1))
	}
	return strings.Join(shown, "\n")
}

// Audit returns the latest audit's ε by RDP and PLD (0 before one).
func (b *budgetPane) Audit() (rdp, pld float64) {
	return b.audit.spent.EpsilonRDP, b.audit.spent.EpsilonPLD
}

// expectedGuarantee is the guarantee a variant can carry before the engine
// states it: what its method's Expect says of the run's config (nothing
// when the method has no Expect).
func expectedGuarantee(pr runParams) (core.Guarantee, []string) {
	if e := pr.V().Desc().Expect; e != nil {
		return e(pr.Config(""))
	}
	return "", nil
}

// guaranteeBadge renders a guarantee status with a glyph (it reads without
// colour too).
func guaranteeBadge(st styles.Styles, g core.Guarantee) string {
	switch g {
	case core.GuaranteeFormal:
		return st.Good.Render("✔ formal")
	case core.GuaranteeConditional:
		return st.Warn.Render("◐ conditional")
	case core.GuaranteePaperOnly:
		return st.Bad.Render("✘ paper accounting only")
	case core.GuaranteeNone:
		return st.Bad.Render("✘ no guarantee")
	}
	return st.Muted.Render(string(g))
}

func epsList(vs []core.EpsilonValue) string {
	if len(vs) == 0 {
		return "—"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("ε %s (%s)", fmtEps(v.Epsilon), v.Accountant)
	}
	return strings.Join(parts, ", ")
}

func epsRow(vs []core.EpsilonValue) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(pad(fmtEps(v.Epsilon), 10))
	}
	return b.String()
}

func longest(ss []string) int {
	n := 0
	for _, s := range ss {
		n = max(n, lipgloss.Width(s))
	}
	return n
}

func padAll(ss []string, n int) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = pad(s, n)
	}
	return out
}
