package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/keys"
)

// controlsWidth is the width of the Run pane's controls column.
const controlsWidth = 36

// runPane is the Run screen: the controls of the next (or running) run
// and its streaming charts.
type runPane struct {
	c      *Common
	params runParams
	form   form
	charts runCharts
	trace  runTrace // the whole run, for the figure key (F)
	w, h   int

	projected float64 // ε at the end of the plan at σ: the method's preview, or the running engine's report
	projErr   error
	solveSeq  int  // the latest σ solve asked for
	solving   bool // a σ solve is under way
	sched     schedule
	opts      []optField // the generic option fields, after fSeed
	clock     runClock   // the run's elapsed time and ETA
	// editedAfterRun: settings changed after the last run ended, so the
	// side panel's badge is the new settings' expected guarantee (the
	// ended run's was dropped as stale); a new run clears it.
	editedAfterRun bool
}

func newRunPane(c *Common, params runParams) *runPane {
	p := &runPane{c: c, params: params, opts: genericOptions()}
	p.form = newForm(append(p.runFields(), p.optionFields(p.opts)...))
	p.form.running = func() bool { return c.RunState.Active() }
	p.charts = newRunCharts(c)
	p.charts.setMethod(params)
	p.reproject()
	return p
}

// runParams returns the pane's current settings.
func (p *runPane) Params() runParams { return p.params }

// Projected returns ε projected by RDP for the current settings.
func (p *runPane) Projected() float64 { return p.projected }

func (p *runPane) Title() string   { return "Run" }
func (p *runPane) Init() tea.Cmd   { return emit(ParamsMsg{p.params}) }
func (p *runPane) Capturing() bool { return p.form.editing }

// ShortHelp returns the Run pane's help-bar bindings.
func (p *runPane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Run pane's help-overlay bindings.
func (p *runPane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *runPane) keyHelp() keys.Help {
	k := p.c.Keys
	short := []key.Binding{k.Up, k.Dec, k.Start, k.Pause, k.Stop}
	if p.form.editing {
		short = []key.Binding{k.Edit, k.Cancel}
	}
	return keys.Help{Keys: k, Short: short, Full: [][]key.Binding{
		{k.Up, k.Down, k.Dec, k.Inc, k.Edit, k.Cancel},
		{k.Start, k.Pause, k.Stop, k.Restart, k.ToggleTruth, k.Charts, k.Figure},
	}}
}

// sigmaSolvedMsg is the σ a solve found for the target ε.
type sigmaSolvedMsg struct {
	seq   int
	sigma float64
	err   error
}

// solveCmd asks the method for the σ of the target ε (its Calibrate, the
// engine's own calibration) in a command, from copies.
func (p *runPane) solveCmd() tea.Cmd {
	p.solveSeq++
	p.solving = true
	seq, pr := p.solveSeq, p.params
	return func() tea.Msg {
		c, err := pr.calibrate(false)
		return sigmaSolvedMsg{seq: seq, sigma: c.Sigma, err: err}
	}
}

// follow takes the σ an engine put in force into the σ control: the one
// it solved for a new ε target, so the form shows what runs.
func (p *runPane) follow(ev core.Event) {
	pe, ok := ev.(core.PatchEvent)
	if !ok || !pe.Applied || pe.Effective == nil || pe.Effective.Sigma == nil {
		return
	}
	// A federated σ control left at "auto" stays so: it means σ from ε.
	if p.params.V().Family() == familyDPSGD {
		p.params.Sigma = *pe.Effective.Sigma
	}
}

// reproject updates the projected ε: during a run the engine's latest
// report (its σ, its whole plan), before one the method's preview for the
// current σ (about a millisecond).
func (p *runPane) reproject() {
	if !p.params.dpsgd() {
		p.projected, p.projErr = 0, nil
		return
	}
	if p.sched.running() {
		if e, ok := p.sched.projected(); ok {
			p.projected, p.projErr = e, nil
			return
		}
	}
	c, err := p.params.calibrate(true)
	if err != nil {
		p.projected, p.projErr = 0, err
		return
	}
	p.projected, p.projErr = c.Projected[0].Epsilon, nil
}

// projLabel names the accountant of the projection: the engine's, or
// "RDP" (every method's preview projects its RDP figure first).
func (p *runPane) projLabel() string {
	if b := p.sched.budget; p.sched.running() && len(b.Projected) > 0 {
		return b.Projected[0].Short()
	}
	return "RDP"
}

func (p *runPane) epsilonHint() string {
	if p.solving {
		return "solving σ…"
	}
	return ""
}

func (p *runPane) sigmaHint() string {
	switch {
	case !p.params.dpsgd():
		return ""
	case errors.Is(p.projErr, errNoPreview):
		return ""
	case p.projErr != nil:
		return "ε ?"
	case p.projected > p.params.Epsilon*(1+1e-3):
		// Every ε names its accountant, this one too; the target's value
		// keeps the line within the side panel.
		return "→ ε " + fmtEps(p.projected) + " " + p.projLabel() + " > " + fmtEps(p.params.Epsilon)
	}
	return "→ ε " + fmtEps(p.projected) + " " + p.projLabel()
}

// Update handles keys, engine events and solve results.
func (p *runPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	p.clock.follow(p.c.RunState)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, p.handleKey(msg)
	case sigmaSolvedMsg:
		if msg.seq != p.solveSeq {
			return p, nil // a newer edit superseded it
		}
		p.solving = false
		if errors.Is(msg.err, errNoPreview) {
			// The method sets its noise itself (dcan-sound, dppca): there
			// is no σ to solve for, and a new ε is not a mistake.
			return p, nil
		}
		if msg.err != nil {
			return p, ErrorCmd(fmt.Errorf("σ for ε %s: %w", fmtEps(p.params.Epsilon), msg.err))
		}
		p.params.Sigma = msg.sigma
		p.reproject()
		return p, emit(ParamsMsg{p.params})
	case RunStartedMsg:
		p.editedAfterRun = false
		p.clock.begin()
		p.sched = newSchedule()
		p.charts.reset(msg.Config, p.params)
		p.trace.reset(msg.ID, msg.Config)
		p.reproject()
		if p.c.Config.NoReferences {
			return p, nil
		}
		return p, loadRunReferences(p.c.Config.Context, p.c.Config.Start, p.c.Config.Admit, msg.ID, msg.Config)
	case runReferencesMsg:
		if msg.id == p.c.RunID {
			p.charts.refs = msg.refs
			p.charts.dirty = true
		}
	case EngineEventsMsg:
		for _, ev := range msg.Events {
			if b, ok := ev.(core.BudgetEvent); ok && b.Sigma > 0 && p.params.dpsgd() {
				p.params.Sigma = b.Sigma // the σ the engine calibrated for its whole plan
			}
			p.sched.observe(ev)
			p.charts.observe(ev)
			p.trace.observe(ev)
			p.follow(ev)
		}
		p.reproject()
	case EngineClosedMsg:
		p.sched.finished = true
	}
	return p, nil
}

func (p *runPane) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys
	if !p.form.editing {
		switch {
		case key.Matches(msg, k.Start):
			if p.c.RunState.Active() {
				return statusCmd("a run is going: x stops it, r restarts it")
			}
			return emit(StartRunMsg{p.c.Config.runConfig(p.params)})
		case key.Matches(msg, k.Pause):
			return emit(RunControlMsg{Action: ActionPause})
		case key.Matches(msg, k.Stop):
			return emit(RunControlMsg{Action: ActionStop})
		case key.Matches(msg, k.Restart):
			return emit(RunControlMsg{Action: ActionRestart, Config: p.c.Config.runConfig(p.params)})
		case key.Matches(msg, k.ToggleTruth):
			p.charts.byTruth = !p.charts.byTruth
			p.charts.dirty = true
			return nil
		case key.Matches(msg, k.Charts):
			p.charts.page++
			p.layout()
			return nil
		case key.Matches(msg, k.Figure):
			return p.trace.figureCmd(p.c.Config.ExportDir)
		}
	}
	ed, cmd := p.form.update(msg, k)
	if ed.err != nil {
		return ErrorCmd(ed.err)
	}
	if !ed.changed {
		return cmd
	}
	return tea.Batch(cmd, p.edited(ed.index))
}

// edited keeps ε and σ consistent after field i changed and, during a run,
// sends the change as a patch.
func (p *runPane) edited(i int) tea.Cmd {
	running := p.c.RunState.Active()
	if !running && p.sched.finished {
		// Settings changed after a run ended: σ is solved for, and ε
		// projected over, the new plan from its first step (not the ended
		// run's remainder), and the guarantee badge is the new settings'
		// (the ended run's is stale).
		p.sched = schedule{}
		p.charts.guarantee = nil
		p.editedAfterRun = true
	}
	var cmds []tea.Cmd
	switch i {
	case fEpsilon, fDelta, fRate, fEpochs1, fEpochs2:
		// Before a run the interface plans σ for the target; during one the
		// engine solves it and reports it (PatchEvent.Effective, follow).
		if p.params.dpsgd() && !running {
			cmds = append(cmds, p.solveCmd())
		}
	case fSigma:
		p.solveSeq++ // a pending solve must not overwrite the typed σ
		p.solving = false
		p.reproject()
		if !running && p.projErr == nil {
			p.params.Epsilon = round3(p.projected)
		}
	case fMethod, fManifold:
		p.form.settle() // the method's controls changed
		if !p.charts.started {
			p.charts.setMethod(p.params)
		}
	}
	p.reproject()
	if f := p.form.fields[i]; running && f.live {
		cmds = append(cmds, emit(PatchMsg{f.patch()}))
	}
	cmds = append(cmds, emit(ParamsMsg{p.params}))
	return tea.Batch(cmds...)
}

// SetSize lays the controls and charts out in w×h.
func (p *runPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.layout()
}

func (p *runPane) layout() {
	cw, ch := p.chartArea()
	p.charts.layout(cw, ch)
}

// stacked reports whether the controls sit above the charts (narrow
// terminals) rather than beside them.
func (p *runPane) stacked() bool { return p.w < 70 }

func (p *runPane) chartArea() (w, h int) {
	if p.stacked() {
		return p.w, max(p.h-p.form.shownCount()-4, 0)
	}
	return max(p.w-p.controlsW()-1, 0), p.h
}

// controlsW is the controls column's width at this pane width:
// controlsWidth up to 160 columns, then a quarter of the extra columns,
// up to 48, so that a wide terminal reads the method's label and the
// summary whole ("DP-DCAN sound (paper network)") instead of cut at 36.
func (p *runPane) controlsW() int {
	return min(controlsWidth+max(p.w-160, 0)/4, 48)
}

// Frame redraws the charts if something changed.
func (p *runPane) Frame() {
	p.clock.follow(p.c.RunState)
	p.charts.frame()
}

// View renders the controls beside (or above) the charts.
func (p *runPane) View() string {
	st := p.c.Styles
	cw := min(p.controlsW(), p.w)
	cwid, chgt := p.chartArea()
	ctlH := p.h // the controls' rows: beside the charts, the pane's height
	if p.stacked() {
		ctlH = p.h - chgt
	}
	controls := p.form.view(st, cw)
	controls += "\n" + p.summary(cw, ctlH-strings.Count(controls, "\n")-1)
	if p.stacked() {
		if chgt == 0 { // no row left for the charts: an empty one would overflow
			return block(controls, p.w, ctlH)
		}
		return lipgloss.JoinVertical(lipgloss.Left, block(controls, p.w, ctlH), p.charts.view(cwid, chgt))
	}
	left := block(controls, cw, ctlH)
	return lipgloss.JoinHorizontal(lipgloss.Top, padBlock(left, cw), " ", p.charts.view(cwid, chgt))
}

// summary is the few lines under the controls: layers, guarantee, state,
// and a federated run's clients in what is left of rows, the rows the
// summary (its leading blank line included) may fill.
func (p *runPane) summary(w, rows int) string {
	st := p.c.Styles
	var lines []string
	pr := p.params
	v := pr.V()
	switch {
	case v.Family() == familyDenoising:
		what := fmt.Sprintf("%d queries", pr.Manifold.Queries)
		if !pr.Manifold.Synthetic() {
			what = "queries from the data"
		}
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s %s · %s · T %d", v.Method, v.Mode, what, pr.Manifold.T)))
	case v.Family() == familyFederated:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s %s · K %d · %d rounds", v.Method, v.Mode, pr.Fed.Clients, pr.Fed.Rounds)))
	case !v.Desc().Needs.Has(core.NeedsEpochs | core.NeedsLayers):
		// The method sets its own schedule and noise (a one-shot pipeline,
		// the redesigned sound DCAN): its run reports them.
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s %s · schedule and noise set by the method", v.Method, v.Mode)))
	case pr.Private():
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s · %d steps · σ·C %.3g", layerLabel(pr.EffectiveLayers()), pr.Steps(), pr.Sigma*pr.Clip)))
	default:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("no noise · %d steps", pr.Steps())))
	}
	if g := p.charts.guarantee; g != nil {
		lines = append(lines, guaranteeBadge(st, g.Status))
	} else if g, _ := expectedGuarantee(pr); g != "" && (!p.charts.started || p.editedAfterRun) {
		// Before the first run, or after settings changed once a run
		// ended (edited drops that run's badge as stale): what the
		// settings will carry (the Budget screen gives the reasons); a
		// run states its own.
		lines = append(lines, guaranteeBadge(st, g)+st.Muted.Render(" expected"))
	}
	if l := p.auditLine(); l != "" {
		lines = append(lines, st.Muted.Render(l))
	}

	if v.Family() == familyDenoising && pr.Manifold.Synthetic() {
		lines = append(lines, st.Warn.Render("⚠ distances: clean points, simulated"))
	} else {
		lines = append(lines, st.Warn.Render("⚠ metrics: true labels, not covered"))
	}
	switch v, l := p.charts.verdict(p.c.RunState); {
	case v != "":
		lines = append(lines, st.Warn.Render("⚠ ARI "+v))
	case l != nil:
		// Learning, judged as DECISIONS defines it: paired over the
		// null's seeds, beyond two standard errors.
		lines = append(lines, st.Good.Render(fmt.Sprintf("✔ ARI %+.2f over null, seeds 0–%d", l.Gain, l.Seeds-1)))
	}
	// Once a run has started its progress takes the key reminder's row
	// (the help bar keeps the keys), so the clients below keep theirs.
	if l := p.clock.line(p.charts.lastStep, p.charts.totalSteps, p.c.RunState, w); l != "" {
		lines = append(lines, st.Muted.Render(l))
	} else {
		lines = append(lines, st.Muted.Render("s start  p pause  x stop  r restart"))
	}
	if v.Family() == familyFederated {
		lines = append(lines, p.clientLines(rows-1-len(lines))...)
	}
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return "\n" + strings.Join(lines, "\n")
}

// clientLines shows a federated run's client split in at most rows lines
// under the controls: its client counts over the run, a change of K marked
// ▼, then cells and classes per client. The counts are never cut for the
// clients; when not every client fits, as many as do are listed and a last
// line says how many more there are ("… 18 more clients (3–4 cells
// each)"). Lines past rows (a pane too short even for the counts) are
// left for the caller's block to cut.
func (p *runPane) clientLines(rows int) []string {
	st := p.c.Styles
	rc := &p.charts
	if len(rc.segments) == 0 {
		return nil
	}
	lines := []string{"", st.Label.Render("clients")}
	for i, seg := range rc.segments {
		if i == 0 {
			lines = append(lines, st.Muted.Render(seg))
		} else {
			lines = append(lines, st.Marker.Render("▼ "+seg))
		}
	}
	c := rc.clients
	if c == nil {
		return lines
	}
	shown := len(c.Sizes)
	if free := rows - len(lines); free < shown {
		shown = max(free-1, 0) // one row for the "more" line
	}
	for k := range shown {
		lines = append(lines, st.Muted.Render(clientLine(c, k)))
	}
	if shown < len(c.Sizes) {
		lines = append(lines, st.Muted.Render(moreClients(c.Sizes[shown:])))
	}
	return lines
}

// clientLine describes client k of the split: "3: 250 cells, 2 classes
// (B, T)".
func clientLine(c *core.ClientsEvent, k int) string {
	line := fmt.Sprintf("%d: %d cells", k+1, c.Sizes[k])
	if k < len(c.Classes) {
		line += fmt.Sprintf(", %d classes", len(c.Classes[k]))
		if len(c.Classes[k]) > 0 {
			line += " (" + strings.Join(c.Classes[k], ", ") + ")"
		}
	}
	return line
}

// moreClients says how many clients were left out, with the range of
// their sizes: "… 18 more clients (3–4 cells each)".
func moreClients(sizes []int) string {
	s := fmt.Sprintf("… %d more clients", len(sizes))
	if len(sizes) == 1 {
		return fmt.Sprintf("… 1 more client (%d cells)", sizes[0])
	}
	lo, hi := slices.Min(sizes), slices.Max(sizes)
	switch {
	case lo == 1 && hi == 1:
		return s + " (1 cell each)"
	case lo == hi:
		return fmt.Sprintf("%s (%d cells each)", s, lo)
	}
	return fmt.Sprintf("%s (%d–%d cells each)", s, lo, hi)
}
