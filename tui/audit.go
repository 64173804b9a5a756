package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	coreaudit "github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/internal/memo"
	"github.com/dpscope/dpscope/tui/keys"
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
// default. The engine takes no choice of kind yet (core.AuditSpec has
// none): every auditable method has exactly one, named after where its
// canaries go (Dirac gradients in DP-SGD's steps, Dirac shifts in the
// mechanism's released sums), with the method's own words (core.Method.
// Audit). A method that offers more (input canaries, issue 22's black-box
// setting) adds them here and the field cycles through them; none: the
// method cannot be audited.
func canaryKinds(v Variant) []canaryKind {
	doc := v.Desc().Audit
	if doc == "" {
		return nil
	}
	if v.Family() == familyDPSGD {
		return []canaryKind{{"gradient", doc}}
	}
	return []canaryKind{{"release", doc}}
}

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

// fields are the Audit screen's controls: the method and data (shown, set
// on the Run screen), m, the confidence, δ and the canary kind.
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
			set:  func(s string) error { return setCanaries(&in.Canaries, s) },
			hint: func() string { return "ceiling " + p.ceilingText() }},
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
			set: func(s string) error {
				v, err := parsePositive("δ", s)
				if err == nil && v >= 1 {
					err = fmt.Errorf("δ is %v, must be in (0, 1)", v)
				}
				if err == nil {
					in.Delta = v
				}
				return err
			},
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

// auditCeiling is the most an audit of m canaries can show at
// confidence c and δ: core/audit's own ceiling for its family of guessing
// rules (it depends on the design only, not on the scores), about
// ln(m / ln(1/β)) (docs/AUDIT.md). 0 for a bad input. It sums binomial
// terms over every guess: 55 ms for m = 1,000, seconds from 10⁵ on, so
// the screen computes it in a command (ceilingCmd) and shares it
// (ceilingCache).
func auditCeiling(m int, c, delta float64) float64 {
	if m < 1 || m > maxAuditCanaries {
		return 0
	}
	r, err := coreaudit.Score(make([]float64, m), make([]bool, m), delta, 1-c)
	if err != nil {
		return 0
	}
	return r.Ceiling
}

// exactCeilingLimit is the largest m whose ceiling the screen computes
// exactly (about half a second); above it the field shows the δ = 0 bound
// (ceilingAbove), which the exact ceiling never exceeds.
const exactCeilingLimit = 10_000

// auditRules is the number of guessing rules core/audit tries for m ≥ 200
// (7 fractions × 2 splits, all distinct), its Bonferroni factor.
const auditRules = 14

// ceilingAbove bounds the ceiling from above without the δ term, which
// only lowers it: all m guesses right at β/14, −ln(e^{ln(14/β)/m} − 1)
// (docs/AUDIT.md, Ceiling). 0 for a bad input.
func ceilingAbove(m int, c float64) float64 {
	if m < 1 || !(c > 0 && c < 1) {
		return 0
	}
	return -math.Log(math.Expm1(math.Log(auditRules/(1-c)) / float64(m)))
}

// ceilingCache shares ceilings across models (a served session each).
var ceilingCache = memo.New[ceilingKey, float64](64)

// ceilingKey is what auditCeiling depends on.
type ceilingKey struct {
	m        int
	c, delta float64
}

// ceilingMsg is a ceiling computed in a command.
type ceilingMsg struct {
	key  ceilingKey
	ceil float64
}

// ceilingKeyNow is the key of the screen's inputs.
func (p *auditPane) ceilingKeyNow() ceilingKey {
	return ceilingKey{p.canaries(), p.in.Confidence, p.delta()}
}

// ceilingCmd brings the ceiling to the inputs: nothing when it is there
// or on its way, the δ = 0 bound at once for a large m, else a command.
func (p *auditPane) ceilingCmd() tea.Cmd {
	k := p.ceilingKeyNow()
	switch {
	case k == p.ceilFor || k == p.ceilAsked:
		return nil
	case k.m > exactCeilingLimit:
		p.ceilFor, p.ceil = k, ceilingAbove(k.m, k.c)
		return nil
	}
	p.ceilAsked = k
	return func() tea.Msg {
		return ceilingMsg{key: k, ceil: ceilingCache.Get(k, func() float64 { return auditCeiling(k.m, k.c, k.delta) })}
	}
}

// ceilingText is the ceiling of the inputs as the screen writes it: "…"
// while it is computed, "≤ x" above exactCeilingLimit.
func (p *auditPane) ceilingText() string {
	k := p.ceilingKeyNow()
	switch {
	case k != p.ceilFor:
		return "…"
	case k.m > exactCeilingLimit:
		return "≤ " + fmtEps(p.ceil)
	}
	return fmtEps(p.ceil)
}

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
	cfg.Audit = &core.AuditSpec{Canaries: p.in.Canaries, Confidence: p.in.Confidence}
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
		"no run of these settings has ended yet this session to time it; the canaries add O(m) work a step (docs/AUDIT.md)"
}

// durText writes a wall time: tenths of a second under a minute (an audit
// of a small run takes seconds), m:ss or h:mm:ss above.
func durText(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return clockText(d)
}
