package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/keys"
)

// auditPane is the Audit screen: an empirical privacy audit of the Run
// screen's settings (the one-run audit of Steinke et al., docs/AUDIT.md),
// its cost before it starts, its progress, and its lower bound on ε
// beside the certified and the paper's ε. The audit is a run with
// core.Config.Audit set, started through the root like every run, so the
// user may switch screens while it goes; the screen also shows an audited
// run the Run screen's audit toggle started.
type auditPane struct {
	c      *Common
	params runParams // the Run screen's settings (ParamsMsg)
	in     auditInputs
	form   form
	// pendingID is the id the root gives the audit this screen asked for
	// (0: none asked): a start the root refuses leaves it unmet.
	pendingID int
	// The audited run shown: the latest run with an audit (0: none yet).
	runID  int
	cfg    core.Config
	v      Variant // the audited run's variant
	clock  runClock
	last   int // steps done
	total  int // planned steps
	result *core.AuditEvent
	guar   *core.GuaranteeEvent
	done   *core.DoneEvent
	failed string
	// timed is the wall time of the last run that ran its whole schedule,
	// by timingKey: the estimate of an audit of the same settings.
	timed map[string]time.Duration
	// timing is the key of the run going (any run: an unaudited run of the
	// same settings times an audit as well).
	timing map[int]string
	offset int // the result's scroll (pgup/pgdn)
	// ceil is the ceiling of the design ceilFor; ceilAsked is being
	// computed.
	ceil               float64
	ceilFor, ceilAsked ceilingKey
	w, h               int
}

func newAuditPane(c *Common, params runParams) *auditPane {
	p := &auditPane{c: c, params: params, in: auditInputs{Confidence: core.DefaultAuditConfidence},
		timed: map[string]time.Duration{}, timing: map[int]string{}}
	p.form = newForm(p.fields())
	p.form.running = p.going
	// The first screen's ceiling at once (shared: computed once a process),
	// so it never draws "…" before any input changed.
	k := p.ceilingKeyNow()
	p.ceilFor, p.ceil = k, ceilingCache.Get(k, func() float64 { return auditCeiling(k.m, k.c, k.delta) })
	return p
}

// runConfig is the Run screen's run with the session's data settings,
// without an audit.
func (p *auditPane) runConfig() core.Config {
	pr := p.params
	pr.Audit = false
	return p.c.Config.runConfig(pr)
}

// auditConfig is the run the screen starts: the Run screen's settings
// with this screen's audit and δ.
func (p *auditPane) auditConfig() core.Config {
	cfg := p.runConfig()
	cfg.Audit = &core.AuditSpec{Canaries: p.in.Canaries, Confidence: p.in.Confidence, Kind: p.auditKind()}
	if p.params.Private() && p.in.Delta > 0 {
		cfg.Delta = p.in.Delta
	}
	return cfg
}

// going reports whether the shown audit is the run going.
func (p *auditPane) going() bool {
	return p.runID != 0 && p.runID == p.c.RunID && p.c.RunState.Active()
}

func (p *auditPane) Title() string   { return "Audit" }
func (p *auditPane) Init() tea.Cmd   { return nil }
func (p *auditPane) Capturing() bool { return p.form.editing }

// ShortHelp returns the Audit screen's help-bar bindings.
func (p *auditPane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Audit screen's help-overlay bindings.
func (p *auditPane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *auditPane) keyHelp() keys.Help {
	k := p.c.Keys
	start := key.NewBinding(key.WithKeys(k.Start.Keys()...), key.WithHelp(k.Start.Help().Key, "start audit"))
	stop := key.NewBinding(key.WithKeys(k.Stop.Keys()...), key.WithHelp(k.Stop.Help().Key, "stop audit"))
	return keys.Help{Keys: k, Short: []key.Binding{start, stop, k.Up, k.Dec, k.Inc},
		Full: [][]key.Binding{{start, stop, k.PageUp, k.PageDown}, {k.Up, k.Down, k.Dec, k.Inc, k.Edit, k.Cancel}}}
}

// Update handles the keys and follows the runs: an audited run fills the
// screen, and every run that ends on its own times the next audit of its
// settings.
func (p *auditPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	p.follow()
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, tea.Batch(p.handleKey(msg), p.ceilingCmd())
	case ceilingMsg:
		if msg.key == p.ceilAsked {
			p.ceilAsked = ceilingKey{}
		}
		if msg.key == p.ceilingKeyNow() {
			p.ceilFor, p.ceil = msg.key, msg.ceil
		}
		return p, p.ceilingCmd()
	case ParamsMsg:
		p.params = msg.Params
		p.form.settle()
		return p, p.ceilingCmd() // δ may have changed
	case RunStartedMsg:
		p.timing[msg.ID] = timingKey(msg.Config)
		if msg.Config.Audit != nil {
			p.track(msg)
		}
	case EngineEventsMsg:
		p.observe(msg)
	case EngineClosedMsg:
		delete(p.timing, msg.ID)
		p.follow()
	}
	return p, nil
}

// track starts showing the audited run of msg.
func (p *auditPane) track(msg RunStartedMsg) {
	p.runID, p.cfg, p.v = msg.ID, msg.Config, p.params.V()
	p.pendingID = 0
	p.result, p.guar, p.done, p.failed = nil, nil, nil, ""
	p.last, p.total = 0, p.params.plannedSteps()
	p.clock.begin()
}

// observe takes the events of a run: the shown audit's progress and
// result, and any run's time.
func (p *auditPane) observe(msg EngineEventsMsg) {
	for _, ev := range msg.Events {
		if d, ok := ev.(core.DoneEvent); ok && d.Outcome == core.OutcomeFinished {
			if k, ok := p.timing[msg.ID]; ok {
				p.timed[k] = d.Elapsed
			}
		}
		if msg.ID != p.runID {
			continue
		}
		switch ev := ev.(type) {
		case core.StageEvent:
			p.total = plannedTotal(p.params.V().Family(), p.params.Epochs, p.last, p.total, ev)
		case core.StepEvent:
			p.last = ev.Step
		case core.AuditEvent:
			a := ev
			p.result = &a
		case core.GuaranteeEvent:
			g := ev
			p.guar = &g
		case core.DoneEvent:
			d := ev
			p.done = &d
		case core.ErrorEvent:
			p.failed = ev.Err.Error()
		}
	}
}

// follow brings the shown audit's clock to the root's run state.
func (p *auditPane) follow() {
	if p.runID != 0 && p.runID == p.c.RunID {
		p.clock.follow(p.c.RunState)
	}
}

// timingKey names what a run's wall time depends on: the method, mode,
// data and schedule (not the seed, ε or δ, which change the noise but not
// the work).
func timingKey(cfg core.Config) string {
	return fmt.Sprintf("%s|%s|%s|%v|%v|%v", cfg.Method, cfg.Mode, cfg.Data, cfg.Epochs, cfg.SampleRate, cfg.Options)
}

func (p *auditPane) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys
	if !p.form.editing {
		switch {
		case key.Matches(msg, k.Start):
			return p.start()
		case key.Matches(msg, k.PageDown):
			p.offset += max(p.h-1, 1)
			return nil
		case key.Matches(msg, k.PageUp):
			p.offset = max(p.offset-max(p.h-1, 1), 0)
			return nil
		case key.Matches(msg, k.Stop):
			if !p.going() {
				return statusCmd("no audit is going (a run without an audit stops on the Run screen)")
			}
			return emit(RunControlMsg{Action: ActionStop})
		}
	}
	ed, cmd := p.form.update(msg, k)
	if ed.err != nil {
		return ErrorCmd(ed.err)
	}
	return cmd
}

// start asks the root for the audit, or says why it cannot start.
func (p *auditPane) start() tea.Cmd {
	switch {
	case p.c.RunState.Active():
		return statusCmd("a run is going: wait for it or stop it (x) before an audit")
	case !p.params.Auditable():
		return ErrorCmd(fmt.Errorf("audit: %s has no audit (methods with one: %s)", p.params.V().Label, strings.Join(core.AuditableMethods(), ", ")))
	}
	cfg := p.auditConfig()
	if err := cfg.Audit.Validate(); err != nil {
		return ErrorCmd(err)
	}
	p.pendingID = p.c.RunID + 1 // the root's next id (startRun)
	return emit(StartRunMsg{Config: cfg})
}

// estimate is what an audit of the current settings will take, and the
// rule it follows: the canaries ride in the run's own steps (O(m) work a
// step, docs/AUDIT.md "Cost"), so an audit takes about one run (1×) and
// never more than two. The run's time is the wall time of the last run of
// the same method, mode, data and schedule that ran to its end in this
// session (timingKey); without one, the screen says so rather than guess.
func (p *auditPane) estimate() (head, rule string) {
	if d, ok := p.timed[timingKey(p.runConfig())]; ok {
		return "≈" + durText(d) + " (at most " + durText(2*d) + ")",
			"the last run of these settings took " + durText(d) + "; the canaries add O(m) work a step, so an audit takes ≈1× a run, at most 2×"
	}
	return "≈1× a run, at most 2×",
		"not timed yet: no run of these settings has ended in this session; the canaries add O(m) work a step (docs/AUDIT.md)"
}

// durText writes a wall time: tenths of a second under a minute (an audit
// of a small run takes seconds), m:ss or h:mm:ss above.
func durText(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return clockText(d)
}
