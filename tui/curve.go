package tui

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/keys"
)

// The trade-off view's grid: the ε axis spans 0.1–16 (DECISIONS), three
// seeds a point, so a band of ± one sd can be drawn.
var (
	curveEpsilons = []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16}
	curveSeeds    = []uint64{0, 1, 2}
)

// curveNonPrivateX is where the non-private point sits: right of the
// largest ε, on the log axis.
var curveNonPrivateX = math.Log10(32)

// curvePane is the Trade-off screen: ARI (or NMI) against ε on a log axis,
// one series per mode with a mean ± sd band, the non-private point at the
// right and the non-private reference B1. One key sweeps the current
// settings in the background; points appear as runs finish.
type curvePane struct {
	c      *Common
	params runParams
	nmi    bool // plot NMI instead of ARI
	chart  *chart.XY
	sw     *curveSweep // the latest sweep; nil before the first
	seq    int
	ref    *reference.Line
	refErr error
	refFor string          // the data set ref is for ("" before the first)
	null   *reference.Line // the swept method's null run (no learning)
	w, h   int
	dirty  bool
}

// curveSweep is one background sweep and what has come back of it.
type curveSweep struct {
	seq    int
	label  string
	method string // the swept method; other points are the baseline's
	unit   string // the privacy unit of the swept method's ε
	// nullOpts are the options of the method's null points, when its null
	// follows ε and is swept beside it (nil: none).
	nullOpts map[string]string
	points   []sweep.Point
	outcomes []*sweep.Outcome
	failures []string
	finished int // runs that ended (done, stopped or failed)
	running  bool
	cancel   context.CancelFunc
	results  chan curveRunMsg
}

// isNull reports whether g is the group of the method's own null points.
func (sw *curveSweep) isNull(g sweep.Group) bool {
	return sw.nullOpts != nil && g.Method == sw.method && maps.Equal(g.Options, sw.nullOpts)
}

// curveRunMsg is one run of sweep seq that ended.
type curveRunMsg struct {
	seq, i int
	o      sweep.Outcome
}

// curveEndMsg says sweep seq is over.
type curveEndMsg struct{ seq int }

// curveNullMsg carries the null line of sweep seq's method.
type curveNullMsg struct {
	seq  int
	line *reference.Line
}

// curveRefMsg carries B1 for a data set.
type curveRefMsg struct {
	data string
	line reference.Line
	err  error
}

func newCurvePane(c *Common, params runParams) *curvePane {
	st := c.Styles
	x := chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker)
	// Ticks at the grid's own ε, so every label is a value the sweep ran,
	// and "∞" (no privacy) under the non-private point.
	ticks := make([]chart.Tick, 0, len(curveEpsilons)+1)
	for _, e := range curveEpsilons {
		ticks = append(ticks, chart.Tick{X: math.Log10(e), Label: strconv.FormatFloat(e, 'g', -1, 64)})
	}
	x.SetXTicks(append(ticks, chart.Tick{X: curveNonPrivateX, Label: "∞"}))
	x.SetRange(math.Log10(curveEpsilons[0])-0.05, curveNonPrivateX+0.05, 0, 1)
	return &curvePane{c: c, params: params, chart: x, dirty: true}
}

func (p *curvePane) Title() string   { return "Trade-off" }
func (p *curvePane) Init() tea.Cmd   { return nil }
func (p *curvePane) Capturing() bool { return false }

// ShortHelp returns the Trade-off pane's help-bar bindings.
func (p *curvePane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Trade-off pane's help-overlay bindings.
func (p *curvePane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *curvePane) keyHelp() keys.Help {
	k := p.c.Keys
	// F stays out of the one-line bar, which is full; ? lists it.
	return keys.Help{Short: []key.Binding{k.Sweep, k.Metric}, Full: [][]key.Binding{{k.Sweep, k.Metric, k.Figure}}, Keys: k}
}

// Update follows the parameters, the keys and the sweep's results.
func (p *curvePane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ParamsMsg:
		p.params = msg.Params
	case TabShownMsg:
		return p, p.loadReference(p.c.Config.runConfig(p.params))
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.c.Keys.Sweep):
			if p.sw != nil && p.sw.running {
				p.sw.cancel()
				return p, statusCmd("stopping the sweep: finished runs stay on the curve")
			}
			return p, tea.Batch(p.startSweep(), p.loadReference(p.c.Config.runConfig(p.params)))
		case key.Matches(msg, p.c.Keys.Metric):
			p.nmi = !p.nmi
			p.dirty = true
		case key.Matches(msg, p.c.Keys.Figure):
			return p, p.figureCmd() // plotkey.go
		}
	case curveRunMsg:
		if p.sw == nil || msg.seq != p.sw.seq {
			return p, nil
		}
		p.sw.finished++
		switch {
		case msg.o.Err != nil:
			p.sw.failures = append(p.sw.failures, fmt.Sprintf("%s: %v", p.sw.points[msg.i].Name, msg.o.Err))
		case !msg.o.Stopped:
			o := msg.o
			p.sw.outcomes[msg.i] = &o
		}
		p.dirty = true
		cmds := []tea.Cmd{waitCurve(p.sw.results, p.sw.seq)}
		if cfg := p.sw.points[msg.i].Config; cfg.Mode != core.ModeNonPrivate {
			o := msg.o
			o.Settle()
			cmds = append(cmds, releaseCmd(cfg, o))
		}
		return p, tea.Batch(cmds...)
	case curveEndMsg:
		if p.sw != nil && msg.seq == p.sw.seq {
			p.sw.running = false
			p.dirty = true
			return p, statusCmd(fmt.Sprintf("sweep over: %d of %d runs finished", p.sw.finished, len(p.sw.points)))
		}
	case curveNullMsg:
		if msg.seq == p.seq {
			p.null = msg.line
			p.dirty = true
		}
	case curveRefMsg:
		if msg.data == p.params.Data {
			p.ref, p.refErr = nil, msg.err
			if msg.err == nil {
				l := msg.line
				p.ref = &l
			}
			p.dirty = true
		}
	}
	return p, nil
}

// startSweep runs the current settings over the ε grid × three seeds, and
// the same method without privacy, one run at a time beside the user's own
// run.
func (p *curvePane) startSweep() tea.Cmd {
	base := p.c.Config.runConfig(p.params)
	base.Sigma = 0 // each ε solves its own σ
	if base.Delta == 0 {
		base.Delta = p.params.Delta
	}
	if base.Clip == 0 {
		base.Clip = p.params.Clip
	}
	modes := []core.Mode{core.ModeNonPrivate}
	if base.Mode != core.ModeNonPrivate {
		modes = []core.Mode{base.Mode, core.ModeNonPrivate}
	}
	g := sweep.Grid{Base: base, Methods: []string{base.Method}, Modes: modes, Epsilons: curveEpsilons, Seeds: curveSeeds}
	points, err := g.Points()
	if err != nil {
		return ErrorCmd(fmt.Errorf("cannot sweep these settings: %w", err))
	}
	// The private baseline's sound curve, drawn as the method's reference,
	// with its own defaults on the same data.
	for _, b := range core.Baselines() {
		if b.Name == base.Method || base.Mode == core.ModeNonPrivate {
			continue
		}
		bb := base
		bb.Method, bb.Options = b.Name, nil
		if unitOfConfig(bb) != unitOfConfig(base) {
			// One ε axis, one unit: a client-level curve gets no
			// cell-level baseline beside it (the legend says why).
			continue
		}
		bg := sweep.Grid{Base: bb, Methods: []string{b.Name}, Modes: []core.Mode{core.ModeSound}, Epsilons: curveEpsilons, Seeds: curveSeeds}
		if more, err := bg.Points(); err == nil {
			points = append(points, more...)
		}
	}
	// A null that follows ε (dcan-sound's start alone) is no horizontal
	// line: it is swept at the same ε and seeds and drawn as its own curve.
	var nullOpts map[string]string
	if m, err := core.LookupMethod(base.Method); err == nil && base.Mode != core.ModeNonPrivate && m.NullFollowsEpsilon(base) {
		nb := m.Null(base)
		if maps.Equal(nb.Options, base.Options) {
			nb.Method = "" // the swept settings are the null already
		}
		ng := sweep.Grid{Base: nb, Methods: []string{base.Method}, Modes: []core.Mode{nb.Mode}, Epsilons: curveEpsilons, Seeds: curveSeeds}
		if more, err := ng.Points(); err == nil && nb.Method != "" {
			points, nullOpts = append(points, more...), nb.Options
		}
	}
	p.seq++
	ctx, cancel := context.WithCancel(p.c.Config.Context)
	sw := &curveSweep{
		seq: p.seq, label: fmt.Sprintf("%s %s", base.Method, base.Mode), method: base.Method, unit: unitOfConfig(base), nullOpts: nullOpts, points: points,
		outcomes: make([]*sweep.Outcome, len(points)), running: true, cancel: cancel,
		results: make(chan curveRunMsg),
	}
	if p.sw != nil && p.sw.running {
		p.sw.cancel()
	}
	p.sw, p.null = sw, nil
	p.dirty = true
	todo := make([]int, len(points))
	for i := range todo {
		todo[i] = i
	}
	go func() {
		defer close(sw.results)
		defer cancel()
		// Under dpscope serve p.c.Config.Start is the server's queue: the sweep's runs
		// count against --workers and --max-runs like the user's own.
		sweep.ExecuteWith(ctx, p.c.Config.Start, points, todo, 1, nil, func(i int, o sweep.Outcome) {
			select {
			case sw.results <- curveRunMsg{seq: sw.seq, i: i, o: o}:
			case <-ctx.Done():
			}
		})
	}()
	return tea.Batch(waitCurve(sw.results, sw.seq), loadNull(ctx, p.c.Config.Start, sw.seq, base),
		statusCmd(fmt.Sprintf("sweeping %s over %d ε × %d seeds in the background (w stops)", sw.label, len(curveEpsilons), len(curveSeeds))))
}

// waitCurve delivers the next finished run of a sweep, or its end.
func waitCurve(ch <-chan curveRunMsg, seq int) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return curveEndMsg{seq: seq}
		}
		return msg
	}
}

// loadReference computes B1 for the data set of cfg, as cfg preprocesses
// it, in a command, once per data set (the reference cache makes later
// sessions instant).
func (p *curvePane) loadReference(cfg core.Config) tea.Cmd {
	if p.refFor == cfg.Data {
		return nil
	}
	p.refFor = cfg.Data
	ctx, admit := p.c.Config.Context, p.c.Config.Admit
	return func() tea.Msg {
		prep, err := cfg.LoadData()
		if err != nil {
			return curveRefMsg{data: cfg.Data, err: err}
		}
		cache := reference.DefaultCache()
		cache.Admit = admit // under serve, a worker of the server's queue
		l, err := cache.B1(ctx, prep.Data)
		return curveRefMsg{data: cfg.Data, line: l, err: err}
	}
}

// loadNull computes the null line of the swept method, when it has one,
// its runs started by start (nil: core.Start; under serve, the queue).
func loadNull(ctx context.Context, start sweep.StartFunc, seq int, cfg core.Config) tea.Cmd {
	return func() tea.Msg {
		m, err := core.LookupMethod(cfg.Method)
		if err != nil || m.Null == nil || m.NullFollowsEpsilon(cfg) {
			// A null at each ε is no horizontal line on an ε axis.
			return curveNullMsg{seq: seq}
		}
		cache := reference.DefaultCache()
		cache.Start = start
		l, err := cache.Null(ctx, m, cfg)
		if err != nil {
			return curveNullMsg{seq: seq}
		}
		return curveNullMsg{seq: seq, line: &l}
	}
}

// SetSize sets the pane's inner size.
func (p *curvePane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.dirty = true
}

// Frame redraws the curve when something changed.
func (p *curvePane) Frame() {
	if !p.dirty {
		return
	}
	p.dirty = false
	st := p.c.Styles
	p.chart.SetStyles(st.Axis, st.AxisLabel, st.Marker)
	w := max(p.w-2, 10)
	p.chart.Resize(w, max(p.h-len(p.text(w))-len(p.hint(w))-3, 3)) // box borders and title
	p.chart.Reset()
	var lines []chart.HLine
	if p.ref != nil {
		lines = append(lines, chart.HLine{Y: p.metricOf(p.ref.ARI, p.ref.NMI), Style: st.Reference})
	}
	if p.null != nil {
		lines = append(lines, chart.HLine{Y: p.metricOf(p.null.ARI, p.null.NMI), Style: st.Muted, Pattern: chart.Dotted})
	}
	p.chart.SetHLines(lines...)
	if p.sw != nil {
		groups, _ := sweep.Summarise(p.sw.points, p.sw.outcomes)
		var mean, lo, hi, np, base, null []chart.Point
		for _, g := range groups {
			m, sd := g.ARIMean, g.ARISD
			if p.nmi {
				m, sd = g.NMIMean, g.NMISD
			}
			if m == nil {
				continue
			}
			x := math.Log10(g.Epsilon)
			switch {
			case g.Method != p.sw.method:
				base = append(base, chart.Point{X: x, Y: *m})
			case p.sw.isNull(g):
				null = append(null, chart.Point{X: x, Y: *m})
			case g.Mode == core.ModeNonPrivate:
				np = append(np, chart.Point{X: curveNonPrivateX, Y: *m})
			default:
				mean = append(mean, chart.Point{X: x, Y: *m})
				lo = append(lo, chart.Point{X: x, Y: *m - *sd})
				hi = append(hi, chart.Point{X: x, Y: *m + *sd})
			}
		}
		band := st.SeriesStyle(0).Faint(true)
		p.chart.SetPoints("−sd", band, lo)
		p.chart.SetPoints("+sd", band, hi)
		p.chart.Series("−sd").Dots = true
		p.chart.Series("+sd").Dots = true
		p.chart.SetPoints("baseline", st.SeriesStyle(2), base).Pattern = chart.Dashed
		p.chart.SetPoints("null", st.Muted, null).Pattern = chart.Dotted
		p.chart.SetPoints("mean", st.SeriesStyle(0), mean)
		p.chart.SetPoints("non-private", st.SeriesStyle(1), np)
		p.chart.Series("non-private").Mark = '●'
	}
	p.chart.Draw()
}

func (p *curvePane) metricOf(ari, nmi float64) float64 {
	if p.nmi {
		return nmi
	}
	return ari
}

func (p *curvePane) metricName() string {
	if p.nmi {
		return "NMI"
	}
	return "ARI"
}

// View renders the chart with its legend, the points so far and the
// privacy cost of the sweep, wrapped to the pane's width.
func (p *curvePane) View() string {
	st := p.c.Styles
	w := max(p.w-2, 10)
	title := st.BoxTitle.Render(p.metricName()+" against target ε (log axis, "+privacyUnit(p.params)+")") + " "
	if p.sw != nil {
		title += st.Muted.Render(p.sw.label)
	}
	lines := append([]string{truncate(title, w)}, p.hint(w)...)
	lines = append(lines, p.chart.View())
	lines = append(lines, p.text(w)...)
	return st.Box.Render(padBlock(block(strings.Join(lines, "\n"), w, max(p.h-2, 1)), w))
}

// hint says how to fill the chart until a sweep has started; the axes
// and the reference lines are drawn from the start, so the screen a
// teacher opens already shows where the curve will go.
func (p *curvePane) hint(w int) []string {
	if p.sw != nil {
		return nil
	}
	return wrap(p.c.Styles.Muted.Render("press w to sweep the current settings over ε = 0.1 … 16 × 3 seeds, and without privacy; points appear as runs finish"), w)
}

// text is what goes under the chart: the legend, the points so far, the
// sweep's privacy cost and the caveat on labels, wrapped to w.
func (p *curvePane) text(w int) []string {
	st := p.c.Styles
	legend := st.SeriesStyle(0).Render("━ mean") + " " + st.SeriesStyle(0).Faint(true).Render("⠒ ± sd") + "  " +
		st.SeriesStyle(1).Render("● non-private (at the right)")
	if p.sw != nil && len(core.Baselines()) > 0 {
		for _, b := range core.Baselines() {
			if b.Name == p.sw.method {
				continue
			}
			if p.sw.unit != unitCell {
				legend += "  " + st.Muted.Render(b.Label()+" (private baseline) not drawn: its ε is about one cell, this curve's about one "+p.sw.unit)
			} else {
				legend += "  " + st.SeriesStyle(2).Render(chart.Dashed.Glyph()+" "+b.Label()+" sound (private baseline)")
			}
			break
		}
	}
	switch {
	case p.ref != nil:
		legend += "  " + st.Reference.Render(fmt.Sprintf("━ B1 PCA(50)+k-means %.3f", p.metricOf(p.ref.ARI, p.ref.NMI))) +
			st.Muted.Render(" (non-private reference, not a release)")
	case p.refErr != nil:
		legend += "  " + st.Muted.Render("no B1: "+p.refErr.Error())
	}
	if p.sw != nil && p.sw.nullOpts != nil {
		what := "no learning"
		if m, err := core.LookupMethod(p.sw.method); err == nil && m.NullLabel != "" {
			what = m.NullLabel
		}
		legend += "  " + st.Muted.Render(chart.Dotted.Glyph()+" null at each ε: "+what)
	}
	if p.null != nil {
		what := "untrained, no learning"
		if p.sw != nil {
			if m, err := core.LookupMethod(p.sw.method); err == nil && m.NullLabel != "" {
				what = m.NullLabel
			}
		}
		legend += "  " + st.Muted.Render(fmt.Sprintf(chart.Dotted.Glyph()+" null (%s) %.3f", what, p.metricOf(p.null.ARI, p.null.NMI)))
	}
	var out []string
	var summary []string
	if sl := p.summaryLine(); sl != "" {
		summary = wrap(sl, w)
	}
	var rest []string // the privacy cost and the caveat: never cut
	for _, s := range []string{p.costLine(), st.Muted.Render("ARI and NMI use the true labels: exploration only, not covered by any guarantee")} {
		if s != "" {
			rest = append(rest, wrap(s, w)...)
		}
	}
	out = append(out, wrap(legend, w)...)
	// The list of every point's mean runs to eleven lines at 80 columns
	// once a sweep is done: it squeezed the curve to one row and pushed
	// the sweep's privacy total off the screen. It gives way first, to
	// what leaves the curve minCurveRows rows; the curve shows the points.
	if room := p.h - 3 - len(p.hint(w)) - minCurveRows - len(out) - len(rest); len(summary) > max(room, 1) {
		summary = summary[:max(room, 1)]
		last := len(summary) - 1
		summary[last] = truncate(summary[last]+" …", w)
	}
	out = append(out, summary...)
	return append(out, rest...)
}

// minCurveRows is the height the trade-off curve keeps when the text
// under it would take more (the per-point list is cut first).
const minCurveRows = 8

// summaryLine lists each ε's mean as it stands.
func (p *curvePane) summaryLine() string {
	if p.sw == nil {
		return ""
	}
	groups, _ := sweep.Summarise(p.sw.points, p.sw.outcomes)
	// The null each point is judged against, with its ARI by seed: a null
	// that follows ε is swept at the same seeds, by ε; else the cached
	// line of seeds 0–4. The sweep's seeds (curveSeeds) are among them, so
	// the verdict is the paired test over the seeds both have
	// (reference.Judge).
	type nullRuns struct {
		line   reference.Line
		bySeed map[uint64]float64
	}
	nullAt := map[float64]nullRuns{}
	for _, g := range groups {
		if p.sw.isNull(g) && g.ARIMean != nil && g.ARISD != nil {
			nullAt[g.Epsilon] = nullRuns{reference.Line{ARI: *g.ARIMean, ARISD: *g.ARISD, Seeds: g.N}, g.SeedARI()}
		}
	}
	var parts []string
	for _, g := range groups {
		m := g.ARIMean
		if p.nmi {
			m = g.NMIMean
		}
		if m == nil {
			continue
		}
		eps := "ε " + fmtEps(g.Epsilon)
		if g.Mode == core.ModeNonPrivate {
			eps = "no privacy"
		}
		switch {
		case g.Method != p.sw.method:
			eps = g.Method + " " + eps
		case p.sw.isNull(g):
			eps = "null " + eps
		}
		part := fmt.Sprintf("%s: %.2f (n %d)", eps, *m, g.N)
		null, ok := nullAt[g.Epsilon]
		if !ok && p.null != nil {
			null, ok = nullRuns{*p.null, p.null.BySeed()}, true
		}
		if ok && !p.nmi && g.Method == p.sw.method && !p.sw.isNull(g) && g.Mode != core.ModeNonPrivate {
			if noBetter, _ := reference.Judge(g.SeedARI(), *g.ARIMean, *g.ARISD, g.N, null.line, null.bySeed); noBetter {
				part += " " + reference.NoLearning
			}
		}
		parts = append(parts, part)
	}
	state := "done"
	if p.sw.running {
		state = "running"
	}
	s := fmt.Sprintf("%s, %d/%d runs", state, p.sw.finished, len(p.sw.points))
	if n := len(p.sw.failures); n > 0 {
		s += fmt.Sprintf(", %d failed (first: %s)", n, p.sw.failures[0])
	}
	if len(parts) > 0 {
		s += " · " + strings.Join(parts, " · ")
	}
	return s
}

// costLine says what the sweep cost: every run touched the same data.
func (p *curvePane) costLine() string {
	if p.sw == nil {
		return ""
	}
	_, cost := sweep.Summarise(p.sw.points, p.sw.outcomes)
	switch {
	case cost.PrivateRuns == 0:
		return ""
	case cost.Unbounded > 0:
		return p.c.Styles.Warn.Render(fmt.Sprintf("this sweep made %d private runs on this data, %d of them with no finite ε (no formal guarantee): together they have no privacy bound",
			cost.PrivateRuns, cost.Unbounded))
	}
	return p.c.Styles.Warn.Render(fmt.Sprintf("this sweep made %d private runs on this data: together ε ≤ %.3g, δ ≤ %.2g (basic composition); an ε picked from the curve is covered only by that total",
		cost.PrivateRuns, cost.EpsilonTotal, cost.DeltaTotal))
}
