package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// The tabs, in order.
const (
	TabRun = iota
	TabBudget
	TabCompare
	TabPlanner
	TabLearn
	TabTradeoff
	TabAudit
)

// Model is the root Bubble Tea model. It is not safe for concurrent use;
// the Bubble Tea runtime owns it.
type Model struct {
	c        *Common
	panes    []Pane
	active   int
	help     help.Model
	width    int
	height   int
	showHelp bool
	confirm  bool // asking whether to quit while a run is going
	unsaved  bool // asking whether to quit with runs not saved to a file
	status   string
	errored  bool
	run      *core.Run
	restart  *core.Config // start this when the current run has closed
	ticking  bool
	isDark   bool
	tally    *sessionTally // every private release of the session, by data set
	gloss    *glossary     // the glossary overlay (g), over any screen
	sess     *sessionState // the session as saved and autosaved (sessions.go)
	picker   *dataPicker   // the data picker overlay (d), over any screen
}

// New returns the root model for cfg, in the dark theme until the terminal
// reports its background colour. It does not start a run.
func New(cfg Config) Model {
	cfg = cfg.withDefaults()
	c := &Common{Config: cfg, Styles: styles.DefaultStyles(true), Keys: keys.DefaultKeyMap()}
	params := defaultParams(cfg.Data, cfg.Seed, cfg.Epochs)
	m := Model{c: c, help: help.New(), isDark: true, tally: newSessionTally(), gloss: newGlossary(c), sess: newSessionState(cfg), picker: newDataPicker(c)}
	m.panes = []Pane{
		newRunPane(c, params),
		newBudgetPane(c, params),
		newComparePane(c),
		newPlannerPane(c, params),
		newLearnPane(c, params),
		newCurvePane(c, params),
		newAuditPane(c, params),
	}
	m.addClass(cfg.Class) // class.go: the Class tab of a served session
	m.help.Styles = help.DefaultStyles(true)
	m.status = welcome
	if cfg.BackendHint != "" {
		m.status = cfg.BackendHint
	}
	if cfg.SessionFile != "" {
		m.openSession(cfg.SessionFile)
	}
	return m
}

// Init asks the terminal for its background colour, to pick the theme, and
// runs the panes' first commands.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.sess.pending, m.pruneCmd()}
	for i, p := range m.panes {
		if i == TabRun && m.sess.reopened {
			continue // its first command tells the settings, which the replay did
		}
		cmds = append(cmds, p.Init())
	}
	return safeCmd(tea.Batch(cmds...))
}

// Active returns the index of the shown tab.
func (m Model) Active() int { return m.active }

// RunState returns where the session's run is.
func (m Model) RunState() RunState { return m.c.RunState }

// Pane returns the pane of tab i.
func (m Model) Pane(i int) Pane { return m.panes[i] }

// StartConfig returns the run the Run screen would start now (s): its
// settings with the session's data settings.
func (m Model) StartConfig() core.Config {
	return m.c.Config.runConfig(m.panes[TabRun].(*runPane).params)
}

// Status returns the status line's text.
func (m Model) Status() string { return m.status }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if _, frame := msg.(FrameMsg); !frame && !m.ticking {
		m.frame() // no tick is running: show changes now
	}
	return m, safeCmd(cmd)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.handlePicker(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.c.Styles = styles.DefaultStyles(m.isDark)
		m.help.Styles = help.DefaultStyles(m.isDark)
		m.layout()
		return nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.layout()
		return nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case StatusMsg:
		m.status, m.errored = msg.Text, msg.Err
		return nil
	case ErrorMsg:
		m.status, m.errored = msg.Err.Error(), true
		return nil
	case StartRunMsg:
		return m.startRun(msg.Config)
	case lessonExperimentMsg:
		return m.applyLesson(msg)
	case runHandleMsg:
		return m.runStarted(msg)
	case EngineEventsMsg:
		if msg.ID != m.c.RunID || m.run == nil {
			return nil
		}
		m.noteEvents(msg.Events)
		m.tally.observe(msg.Events)
		return tea.Batch(m.broadcast(msg), waitForEvents(m.run.Events(), msg.ID), m.sessionEvents(msg.Events))
	case EngineClosedMsg:
		if msg.ID != m.c.RunID {
			return nil
		}
		m.run = nil
		m.c.RunState = RunFinished
		m.tally.closeRun()
		cmds := []tea.Cmd{m.broadcast(msg), m.sessionClose()}
		if m.restart != nil {
			cfg := *m.restart
			m.restart = nil
			cmds = append(cmds, m.startRun(cfg))
		}
		return tea.Batch(cmds...)
	case PatchMsg:
		if m.run == nil {
			return nil
		}
		m.status, m.errored = "live change sent: "+msg.Patch.String(), false
		p := msg.Patch
		return controlCmd(m.run, func(r *core.Run) { r.Apply(p) })
	case RunControlMsg:
		return m.control(msg)
	case privateReleaseMsg:
		m.tally.add(msg.data, msg.unit, msg.o)
		return m.autosaveCmd(false)
	case runReferencesMsg:
		m.sessionRefs(msg)
	case ParamsMsg:
		m.sess.edited = true
	case autosavedMsg:
		return m.autosaved(msg)
	case sessionSavedMsg:
		return m.sessionSaved(msg)
	case FrameMsg:
		m.frame()
		if m.c.RunState.Active() {
			return frameTick()
		}
		m.ticking = false
		return nil
	}
	return tea.Batch(m.broadcast(msg), m.picker.observe(msg))
}

// broadcast sends msg to every pane.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.panes))
	for i, p := range m.panes {
		var cmd tea.Cmd
		m.panes[i], cmd = p.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// frame redraws the shown pane; the others keep their changes until they
// are shown.
func (m *Model) frame() { m.panes[m.active].Frame() }

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if m.confirm || m.unsaved {
		switch {
		case key.Matches(msg, k.Yes), msg.String() == "ctrl+c":
			return m.quit()
		case m.unsaved && (msg.String() == "s" || key.Matches(msg, k.Save)):
			if err := m.saveNow(); err != nil {
				m.unsaved, m.status, m.errored = false, err.Error(), true
				return nil
			}
			return m.quit()
		case key.Matches(msg, k.No):
			m.status = "quit cancelled"
			if m.confirm {
				m.status = "quit cancelled; the run goes on"
			}
			m.confirm, m.unsaved = false, false
		}
		return nil
	}
	if msg.String() == "ctrl+c" && m.picker.Loading() {
		m.status, m.errored = m.picker.Cancel(), false // ctrl+c cancels the load, not the app
		return nil
	}
	if m.picker.open && !key.Matches(msg, k.Quit, k.Help, k.Save) {
		return m.picker.Update(msg)
	}
	pane := m.panes[m.active]
	if m.gloss.open && !isGlobalKey(k, msg) {
		return m.gloss.Update(msg)
	}
	if pane.Capturing() && msg.String() != "ctrl+c" {
		var cmd tea.Cmd
		m.panes[m.active], cmd = pane.Update(msg)
		return cmd
	}
	if cmd, ok := m.classKey(msg); ok { // class.go: L loads a pushed preset from any tab
		return cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		m.confirm = m.c.RunState.Active()
		m.unsaved = !m.confirm && m.sess.unsaved() > 0
		if m.confirm || m.unsaved {
			return nil
		}
		return m.quit()
	case key.Matches(msg, k.Save):
		return m.saveCmd()
	case key.Matches(msg, k.Data):
		m.gloss.open = false
		return m.picker.Open()
	case key.Matches(msg, k.Glossary):
		m.gloss.open = true
		m.gloss.vp.GotoTop()
		return nil
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		m.help.ShowAll = m.showHelp
		m.layout()
		return nil
	case key.Matches(msg, k.NextTab):
		return m.setTab((m.active + 1) % len(m.panes))
	case key.Matches(msg, k.PrevTab):
		return m.setTab((m.active + len(m.panes) - 1) % len(m.panes))
	}
	for i, b := range k.Tab {
		if key.Matches(msg, b) && i < len(m.panes) {
			return m.setTab(i)
		}
	}
	var cmd tea.Cmd
	m.panes[m.active], cmd = pane.Update(msg)
	return cmd
}

// quit stops the run, if any, writes the last autosave and ends the
// program.
func (m *Model) quit() tea.Cmd {
	if m.run != nil {
		m.run.Stop() // never blocks
	}
	if l := m.picker.loading; l != nil {
		l.cancel() // the load's goroutine stops with the program
	}
	m.flushAutosave()
	return tea.Quit
}

func (m *Model) setTab(i int) tea.Cmd {
	changed := m.active != i
	m.active = i
	m.layout() // the help bar (and so the pane height) may change
	if !changed {
		return nil
	}
	var cmd tea.Cmd
	m.panes[i], cmd = m.panes[i].Update(TabShownMsg{})
	return cmd
}

func (m *Model) startRun(cfg core.Config) tea.Cmd {
	if m.c.RunState.Active() {
		m.status, m.errored = "a run is going: stop it (x) or restart (r)", true
		return nil
	}
	m.c.RunID++
	m.c.RunState = RunStarting
	m.status, m.errored = fmt.Sprintf("starting run %d…", m.c.RunID), false
	return startRunCmd(m.c.Config.Start, m.c.Config.Context, m.c.RunID, cfg)
}

func (m *Model) runStarted(msg runHandleMsg) tea.Cmd {
	if msg.id != m.c.RunID {
		if msg.run != nil {
			msg.run.Stop()
		}
		return nil
	}
	if msg.err != nil {
		m.c.RunState = RunFinished
		m.status, m.errored = "cannot start: "+msg.err.Error(), true
		return nil
	}
	m.run = msg.run
	m.tally.start(msg.cfg)
	m.sessionStart(msg.id, msg.cfg)
	m.c.RunState = RunRunning
	m.status, m.errored = fmt.Sprintf("run %d: %s %s on %s", msg.id, msg.cfg.Method, msg.cfg.Mode, msg.cfg.Data), false
	cmds := []tea.Cmd{m.broadcast(RunStartedMsg{ID: msg.id, Config: msg.cfg}), waitForEvents(msg.run.Events(), msg.id)}
	if !m.ticking {
		m.ticking = true
		cmds = append(cmds, frameTick())
	}
	return tea.Batch(cmds...)
}

// noteEvents puts terminal and warning events in the status line.
func (m *Model) noteEvents(evs []core.Event) {
	for _, ev := range evs {
		switch ev := ev.(type) {
		case core.DoneEvent:
			// "run finished", or the early end with its reason, e.g. "run
			// budget exhausted: ε = 4 of the target 4 spent at step 115 of
			// 200 (…)"; a stop by the user is "run stopped: …".
			m.status, m.errored = "run "+ev.Status(), false
			if ev.Early() && !ev.Stopped {
				m.status = "run ended early — " + ev.Status()
			}
		case core.ErrorEvent:
			m.status, m.errored = "run failed: "+ev.Err.Error(), true
		case core.WarningEvent:
			kind := "warning: "
			if ev.Note {
				kind = "note: "
			}
			m.status, m.errored = kind+ev.Message, false
		case core.PatchEvent:
			if ev.Applied {
				m.status, m.errored = fmt.Sprintf("live change %s took effect at step %d", ev.Patch.String(), ev.Step), false
			} else {
				m.status, m.errored = "live change rejected: "+ev.Err, true
			}
		}
	}
}

func (m *Model) control(msg RunControlMsg) tea.Cmd {
	switch msg.Action {
	case ActionPause:
		switch {
		case m.run == nil:
			return nil
		case m.c.RunState == RunPaused:
			m.c.RunState = RunRunning
			m.status = "resumed"
			return controlCmd(m.run, (*core.Run).Resume)
		default:
			m.c.RunState = RunPaused
			m.status = "paused (p resumes)"
			return controlCmd(m.run, (*core.Run).Pause)
		}
	case ActionStop:
		if m.run == nil {
			return nil
		}
		m.status = "stopping…"
		return controlCmd(m.run, (*core.Run).Stop)
	case ActionRestart:
		return m.restartRun(msg.Config)
	}
	return nil
}

// Restart stops the current run, if any, and starts cfg when it has closed.
func (m *Model) restartRun(cfg core.Config) tea.Cmd {
	if m.run == nil {
		if m.c.RunState == RunStarting {
			return nil
		}
		return m.startRun(cfg)
	}
	m.restart = &cfg
	m.status = "restarting…"
	return controlCmd(m.run, (*core.Run).Stop)
}

// layout gives the panes the space the chrome leaves.
func (m *Model) layout() {
	if m.width == 0 {
		return
	}
	h := max(m.height-m.chromeHeight(), 1)
	for _, p := range m.panes {
		p.SetSize(m.width, h)
	}
	m.gloss.SetSize(m.width, h)
	m.picker.SetSize(m.width, h)
}

func (m *Model) chromeHeight() int {
	return 2 + 1 + lipgloss.Height(m.helpView()) // header, tabs, status, help
}

// helpView is the help bar (or overlay), cut to the width. The bar always
// ends with "? help" and "q quit": when it is too narrow, the pane's own
// bindings are cut (with "…") before them.
func (m Model) helpView() string {
	if m.showHelp {
		return fit(m.help.View(m.helpKeys()), m.width, -1)
	}
	k := m.c.Keys
	always := []key.Binding{k.Help, k.Quit}
	var rest []key.Binding
	for _, b := range m.helpKeys().ShortHelp() {
		if !slices.Equal(b.Keys(), k.Help.Keys()) && !slices.Equal(b.Keys(), k.Quit.Keys()) {
			rest = append(rest, b)
		}
	}
	wide := m.help
	wide.SetWidth(0)
	tail := wide.ShortHelpView(always)
	sep := m.help.Styles.ShortSeparator.Render(m.help.ShortSeparator)
	head := m.help
	head.SetWidth(max(m.width-lipgloss.Width(tail)-lipgloss.Width(sep), 1))
	bar := head.ShortHelpView(rest)
	if bar != "" {
		bar += sep
	}
	return fit(bar+tail, m.width, -1)
}

func (m Model) header() string {
	st := m.c.Styles
	state := m.c.RunState.String()
	if m.c.RunID > 0 {
		state = fmt.Sprintf("run %d %s", m.c.RunID, state)
	}
	s := st.Title.Render("dpscope") + st.Header.Render(fmt.Sprintf("%s · %s · BLAS %s", m.c.Config.Summary.Name, state, m.c.Config.Backend))
	if t := m.tally.line(m.c.Config.Data); t != "" {
		s += st.Warn.Render(" · " + t)
	}
	return truncate(s, m.width)
}

func (m Model) tabs() string {
	st := m.c.Styles
	row := func(active, other lipgloss.Style) string {
		parts := make([]string, len(m.panes))
		for i, p := range m.panes {
			label := fmt.Sprintf("%d %s", i+1, p.Title())
			if i == m.active {
				parts[i] = active.Render(label)
			} else {
				parts[i] = other.Render(label)
			}
		}
		return strings.Join(parts, st.Muted.Render("│"))
	}
	out := row(st.TabActive, st.Tab)
	if lipgloss.Width(out) > m.width {
		// Eight tabs (a served session's Class) do not fit 80 columns
		// with their padding: "7 Audit │ 8…" hid the tab the status line
		// sends a participant to. Without the padding they fit.
		out = row(st.TabActive.Padding(0), st.Tab.Padding(0))
	}
	return truncate(out, m.width)
}

// welcome is the first status line: the Run screen's first keys. The
// other screens have keys of their own (s starts the audit on Audit, ←/→
// turn the lessons on Learn, w sweeps on Trade-off), so there the line
// points at the help instead of naming keys that do something else.
const (
	welcome          = "s start a run · ←/→ change the selected setting · ? help"
	welcomeElsewhere = "? help lists this screen's keys · 1 the Run screen"
)

func (m Model) statusLine() string {
	st := m.c.Styles
	if m.status == welcome && !m.errored && m.active != TabRun {
		return truncate(st.Status.Render(welcomeElsewhere), m.width)
	}
	if m.confirm {
		return truncate(st.Warn.Render(" a run is going — stop it and quit? y / n"), m.width)
	}
	if m.unsaved {
		return truncate(st.Warn.Render(fmt.Sprintf(" %s not saved — s save and quit · y quit · n stay", runsWord(m.sess.unsaved()))), m.width)
	}
	if m.errored {
		return truncate(st.Error.Render(m.status), m.width)
	}
	return truncate(st.Status.Render(m.status), m.width)
}

// MinWidth and MinHeight are the smallest terminal the interface draws in;
// below them it shows what size it needs.
const (
	MinWidth  = 60
	MinHeight = 20
)

// View renders the screen.
func (m Model) View() tea.View {
	var content string
	switch {
	case m.width == 0:
		content = "loading…"
	case m.width < MinWidth || m.height < MinHeight:
		// Below this the panes would cut labels and charts without a way
		// to see them; say so rather than draw a broken screen. Keys still
		// work (q quits), and the screen comes back with a larger window.
		msg := fmt.Sprintf("terminal too small: %d×%d\nneed %d×%d\n\nenlarge the window\nor q to quit", m.width, m.height, MinWidth, MinHeight)
		content = block(lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, m.c.Styles.Warn.Render(msg)), m.width, m.height)
	default:
		h := max(m.height-m.chromeHeight(), 1)
		body := m.panes[m.active].View()
		if m.gloss.open {
			body = m.gloss.View()
		}
		if m.picker.open {
			body = m.picker.View()
		}
		if m.confirm {
			dialog := m.c.Styles.Dialog.Render("A run is going.\nStop it and quit?\n\ny  yes    n  no")
			body = lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, dialog)
		}
		if m.unsaved {
			body = lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.c.Styles.Dialog.Render(m.unsavedDialog()))
		}
		body = block(body, m.width, h)
		content = strings.Join([]string{m.header(), m.tabs(), body, m.statusLine(), m.helpView()}, "\n")
	}
	v := tea.NewView(content)
	v.AltScreen = true
	return v
}
