package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/class"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/keys"
)

// classTargets are the ε targets the instructor steps through: the
// trade-off view's grid, so the board and a swept curve speak of the same
// ε. The default, 4, is the grid's middle and dpscope's default target.
var classTargets = curveEpsilons

const classDefaultTarget = 5 // classTargets[5] == 4

// classTop is how many participants the chart draws in their own colour
// and names in its legend: the leaderboard's first five. With 40
// participants, 40 colours would tell nobody apart; the others are dots.
const classTop = 5

// classKeys are the Class tab's own keys.
var classKeys = struct {
	Name, Load, PushPreset, PushMessage, PrevData, NextData, Target key.Binding
}{
	Target:      key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "target ε")),
	Name:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "my name")),
	Load:        key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "load pushed preset")),
	PushPreset:  key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "push my settings")),
	PushMessage: key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "push a message")),
	PrevData:    key.NewBinding(key.WithKeys("["), key.WithHelp("[/]", "data set")),
	NextData:    key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next data set")),
}

// What the Class tab is typing into.
const (
	classTypingNone = iota
	classTypingName
	classTypingMessage
)

// classPane is the Class tab of a served session (Config.Class): the
// participant's display name, the last push of the instructor with its
// preset, and, on an instructor's key, the class board: every
// participant's runs on one ε–ARI chart and the leaderboard at ε ≤ a
// target.
type classPane struct {
	c       *Common
	seat    *class.Seat
	records func() []runRecord // Compare's finished runs, to report them
	params  runParams          // the Run screen's, for a pushed preset
	// The board (instructor only).
	runs   []class.Run
	sets   []string
	set    string // the data set shown
	target int    // index into classTargets
	chart  *chart.XY
	// Pushes.
	push     *class.Push // the last one received
	loaded   int         // the Seq of the last preset loaded
	reported int         // this session's runs on the board
	// Typing a name or a message.
	typing int
	input  []rune
	note   string // the answer to the last name change or push
	w, h   int
	dirty  bool
}

func newClassPane(c *Common, seat *class.Seat, params runParams, records func() []runRecord) *classPane {
	st := c.Styles
	x := chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker)
	x.SetYFormat(func(v float64) string { return fmt.Sprintf("%.2f", v) })
	return &classPane{c: c, seat: seat, params: params, records: records, target: classDefaultTarget, chart: x, dirty: true}
}

func (p *classPane) Title() string   { return "Class" }
func (p *classPane) Capturing() bool { return p.typing != classTypingNone }

// Init reads the board once, for an instructor; it tells a participant
// the name the board shows.
func (p *classPane) Init() tea.Cmd {
	if !p.seat.Instructor() {
		return statusCmd("the class board shows you as " + p.seat.Name() + ": the Class tab (tab key) changes it")
	}
	return func() tea.Msg { return class.Changed{} }
}

// ShortHelp returns the Class tab's help-bar bindings.
func (p *classPane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Class tab's help-overlay bindings.
func (p *classPane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *classPane) keyHelp() keys.Help {
	k := classKeys
	short := []key.Binding{k.Name, k.Load}
	if p.seat.Instructor() {
		short = []key.Binding{k.PushPreset, k.PushMessage, k.Target, k.PrevData, k.Name}
	}
	return keys.Help{Keys: p.c.Keys, Short: short, Full: [][]key.Binding{short}}
}

// Update reports finished runs, takes pushes and board changes, and
// handles the tab's keys.
func (p *classPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ParamsMsg:
		p.params = msg.Params
	case EngineClosedMsg:
		// Compare filed the run before this pane (it comes earlier in
		// the tabs), so the last record is the run that closed.
		return p, p.report(msg.ID)
	case class.Changed:
		p.refresh()
	case TabShownMsg:
		p.refresh()
	case class.Push:
		if p.push != nil && p.push.Seq > msg.Seq {
			return p, nil // an older push delivered late
		}
		m := msg
		p.push = &m
		p.dirty = true
		return p, statusCmd(p.banner())
	case tea.KeyPressMsg:
		return p, p.handleKey(msg)
	}
	return p, nil
}

// report files run id with the class when it finished (or spent its
// budget) with a finite ε and an ARI: a stopped, failed or non-private run
// has no place on the board.
func (p *classPane) report(id int) tea.Cmd {
	recs := p.records()
	if len(recs) == 0 || recs[len(recs)-1].ID != id {
		return nil
	}
	r := recs[len(recs)-1]
	if !r.onFrontier() || (r.Outcome != string(core.OutcomeFinished) && r.Outcome != string(core.OutcomeBudgetExhausted)) {
		return nil
	}
	ax := r.axis()
	err := p.seat.Report(class.Run{
		Method: r.Method, Mode: string(r.Mode), Epsilon: r.frontierEps(), Accountant: ax.Accountant, Unit: ax.Unit,
		Delta: r.detail.delta, ARI: r.ARI, NMI: r.NMI, Seed: r.detail.cfg.Seed, Data: r.detail.cfg.Data,
	})
	if err != nil {
		return ErrorCmd(fmt.Errorf("class board: %w", err))
	}
	p.reported++
	p.dirty = true
	return nil
}

// refresh reads the board again (instructor only).
func (p *classPane) refresh() {
	runs, err := p.seat.Runs()
	if err != nil {
		return
	}
	p.runs = runs
	p.sets = class.DataSets(runs)
	if p.set == "" || !slices.Contains(p.sets, p.set) {
		p.set = ""
		if len(p.sets) > 0 {
			p.set = p.sets[0]
		}
	}
	p.dirty = true
}

func (p *classPane) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if p.typing != classTypingNone {
		return p.typeKey(msg)
	}
	k := classKeys
	switch {
	case key.Matches(msg, k.Name):
		p.typing, p.input = classTypingName, []rune(p.seat.Name())
	case !p.seat.Instructor():
		return nil
	case key.Matches(msg, k.PushMessage):
		p.typing, p.input = classTypingMessage, nil
	case key.Matches(msg, k.PushPreset):
		pre := &class.Preset{Summary: presetSummary(p.params), Settings: saveParams(p.params)}
		return p.pushed(p.seat.Push(class.Push{Preset: pre}))
	case key.Matches(msg, p.c.Keys.Dec):
		p.target = max(p.target-1, 0)
	case key.Matches(msg, p.c.Keys.Inc):
		p.target = min(p.target+1, len(classTargets)-1)
	case key.Matches(msg, k.PrevData, k.NextData) && len(p.sets) > 1:
		i := p.setIndex()
		step := 1
		if key.Matches(msg, k.PrevData) {
			step = len(p.sets) - 1
		}
		p.set = p.sets[(i+step)%len(p.sets)]
	default:
		return nil
	}
	p.dirty = true
	return nil
}

// setIndex is the place of the data set shown among p.sets, 0 when it is
// not among them (no runs yet), so the view and ] [ start from the first.
func (p *classPane) setIndex() int { return max(slices.Index(p.sets, p.set), 0) }

// typeKey edits the name or the message being typed; enter sends it, esc
// drops it.
func (p *classPane) typeKey(msg tea.KeyPressMsg) tea.Cmd {
	limit := class.MaxNameLen
	if p.typing == classTypingMessage {
		limit = class.MaxMessageLen
	}
	switch {
	case key.Matches(msg, p.c.Keys.Cancel):
		p.typing, p.input = classTypingNone, nil
	case key.Matches(msg, p.c.Keys.Edit):
		text, what := string(p.input), p.typing
		p.typing, p.input = classTypingNone, nil
		if what == classTypingMessage {
			return p.pushed(p.seat.Push(class.Push{Message: text}))
		}
		name, err := p.seat.Rename(text)
		if err != nil {
			p.note = "name not changed: " + err.Error()
			return ErrorCmd(fmt.Errorf("name not changed: %w", err))
		}
		p.note = ""
		return statusCmd("the class board shows you as " + name)
	case msg.Code == tea.KeyBackspace:
		if len(p.input) > 0 {
			p.input = p.input[:len(p.input)-1]
		}
	case msg.Text != "" && len(p.input) < limit:
		p.input = append(p.input, []rune(msg.Text)...)
	}
	p.dirty = true
	return nil
}

// pushed reports a push's result.
func (p *classPane) pushed(n int, err error) tea.Cmd {
	if err != nil {
		p.note = "not pushed: " + err.Error()
		return ErrorCmd(fmt.Errorf("not pushed: %w", err))
	}
	p.note = fmt.Sprintf("pushed to %d sessions", n)
	return statusCmd(p.note)
}

// banner is the status line that announces a push.
func (p *classPane) banner() string {
	var parts []string
	if p.push.Message != "" {
		parts = append(parts, fmt.Sprintf("%s says: %s", p.push.From, p.push.Message))
	}
	if p.push.Preset != nil {
		parts = append(parts, fmt.Sprintf("%s pushed settings (%s): L loads them", p.push.From, p.push.Preset.Summary))
	}
	return strings.Join(parts, " · ")
}

// presetSummary says in one line what a preset sets.
func presetSummary(pr runParams) string {
	s := fmt.Sprintf("%s · ε %s · δ %g · seed %d", pr.V().Label, fmtEps(pr.Epsilon), pr.Delta, pr.Seed)
	if !pr.Private() {
		s = fmt.Sprintf("%s · seed %d", pr.V().Label, pr.Seed)
	}
	return s
}

// pendingPreset returns the settings of the last pushed preset not loaded
// yet.
func (p *classPane) pendingPreset() (savedParams, bool) {
	if p.push == nil || p.push.Preset == nil || p.push.Seq == p.loaded {
		return savedParams{}, false
	}
	sp, ok := p.push.Preset.Settings.(savedParams)
	return sp, ok
}

// classKey loads the pushed preset on L, from any tab: the participant's
// settings change only on this key. It reports whether it took the key.
func (m *Model) classKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !key.Matches(msg, classKeys.Load) {
		return nil, false
	}
	cp := m.classPane()
	if cp == nil {
		return nil, false
	}
	sp, ok := cp.pendingPreset()
	if !ok {
		return nil, false
	}
	if m.c.RunState.Active() {
		m.status, m.errored = "a run is going: stop it (x on the Run screen), then L loads the pushed settings", true
		return nil, true
	}
	if err := checkParams(sp.Settings); err != nil {
		m.status, m.errored = "the pushed settings cannot be loaded: "+err.Error(), true
		return nil, true
	}
	cur := m.panes[TabRun].(*runPane).params
	pr := m.paramsOf(sp, true, sp.Variant, core.Config{})
	// The participant's own data set stays: the preset sets how to learn,
	// not what from (each session loaded its data through its picker).
	pr.Data = cur.Data
	// Every session got the same value: the map must be this session's.
	pr.Opts = maps.Clone(pr.Opts)
	if pr.Opts == nil {
		pr.Opts = map[string]string{}
	}
	cp.loaded = cp.push.Seq
	cp.dirty = true
	cmd := m.setRunParams(pr)
	m.status, m.errored = "loaded the pushed settings: "+cp.push.Preset.Summary+" (s starts a run)", false
	return tea.Batch(cmd, m.setTab(TabRun)), true
}

// classPane returns the Class tab, or nil when the session has no class.
func (m *Model) classPane() *classPane {
	for _, p := range m.panes {
		if cp, ok := p.(*classPane); ok {
			return cp
		}
	}
	return nil
}

// SetSize sets the pane's inner size.
func (p *classPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.dirty = true
}

// addClass adds the Class tab for seat, last; an instructor opens on it.
func (m *Model) addClass(seat *class.Seat) {
	if seat == nil {
		return
	}
	cp := m.panes[TabCompare].(*comparePane)
	m.panes = append(m.panes, newClassPane(m.c, seat, m.panes[TabRun].(*runPane).params, cp.Records))
	if seat.Instructor() {
		m.active = len(m.panes) - 1
	}
}
