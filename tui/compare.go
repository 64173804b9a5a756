package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/keys"
)

// runRecord is one run of the session as Compare shows it.
type runRecord struct {
	ID        int
	Variant   string
	Method    string
	Mode      core.Mode
	Layers    string
	Unit      string              // the privacy unit of its ε (unitOf)
	Epsilon   []core.EpsilonValue // spent at the end, per accountant
	Guarantee core.Guarantee
	ARI, NMI  float64 // last reported; NaN when none
	Elapsed   time.Duration
	Outcome   string // finished, stopped, budget-exhausted, diverged (core.Outcome) or failed
	Pinned    bool
	ari       []chart.Point // ARI against step, for overlays
	refs      runReferences // B1 and the method's null, when computed
	detail    runDetail     // everything else that made the run (export.go)
}

// epsilon returns the ε of the named accountant (case-insensitive), or NaN.
func (r runRecord) epsilon(name string) float64 {
	for _, e := range r.Epsilon {
		if strings.EqualFold(e.Accountant, name) {
			return e.Epsilon
		}
	}
	return math.NaN()
}

// frontierEps is the ε the frontier uses: RDP, else the first reported.
func (r runRecord) frontierEps() float64 {
	e, _ := r.headline()
	return e
}

// axis is the ε axis of the run's headline figure: its accountant (short
// label) and privacy unit.
func (r runRecord) axis() epsAxis {
	_, by := r.headline()
	for _, e := range r.Epsilon {
		if e.Accountant == by {
			by = e.Short()
			break
		}
	}
	u := r.Unit
	if u == "" {
		u = unitCell
	}
	return epsAxis{Accountant: by, Unit: u}
}

// onFrontier reports whether the run has a place on a frontier chart: a
// private run with a finite ε and an ARI.
func (r runRecord) onFrontier() bool {
	e := r.frontierEps()
	return !math.IsNaN(e) && !math.IsInf(e, 0) && !math.IsNaN(r.ARI) && r.Mode != core.ModeNonPrivate
}

// headline returns the ε shown for the run and the accountant that gave
// it: RDP when the run reports it (DP-SGD methods), else the first one the
// run reports (zCDP for DP-MD, client-level audits for federated runs);
// NaN and "" when it reports none.
func (r runRecord) headline() (float64, string) {
	if e := r.epsilon("RDP"); !math.IsNaN(e) {
		return e, "RDP"
	}
	if len(r.Epsilon) > 0 {
		return r.Epsilon[0].Epsilon, r.Epsilon[0].Accountant
	}
	return math.NaN(), ""
}

// comparePane is the Compare screen: every finished run of the session,
// pinned overlays and the privacy–utility frontier.
type comparePane struct {
	c       *Common
	params  runParams
	current *runRecord
	records []runRecord
	cursor  int
	front   *chart.XY
	overlay *chart.XY
	w, h    int
	dirty   bool
}

func newComparePane(c *Common) *comparePane {
	st := c.Styles
	cp := &comparePane{c: c, front: chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker), overlay: chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker)}
	cp.overlay.SetYFormat(func(v float64) string { return fmt.Sprintf("%.2f", v) })
	cp.front.SetYFormat(func(v float64) string { return fmt.Sprintf("%.2f", v) })
	return cp
}

func (cp *comparePane) Title() string   { return "Compare" }
func (cp *comparePane) Init() tea.Cmd   { return nil }
func (cp *comparePane) Capturing() bool { return false }

// Records returns the finished runs, oldest first.
func (cp *comparePane) Records() []runRecord { return cp.records }

// ShortHelp returns the Compare pane's help-bar bindings.
func (cp *comparePane) ShortHelp() []key.Binding { return cp.keyHelp().ShortHelp() }

// FullHelp returns the Compare pane's help-overlay bindings.
func (cp *comparePane) FullHelp() [][]key.Binding { return cp.keyHelp().FullHelp() }

func (cp *comparePane) keyHelp() keys.Help {
	k := cp.c.Keys
	return keys.Help{Keys: k, Short: []key.Binding{k.Up, k.Pin, k.Export}, Full: [][]key.Binding{{k.Up, k.Down, k.Pin, k.Export}}}
}

// Update records runs from their events and handles the table's keys.
func (cp *comparePane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ParamsMsg:
		cp.params = msg.Params
	case RunStartedMsg:
		cp.current = &runRecord{ID: msg.ID, Variant: cp.params.V().Label, Unit: unitOfConfig(msg.Config), Method: msg.Config.Method, Mode: msg.Config.Mode,
			Layers: msg.Config.Layers.String(), ARI: math.NaN(), NMI: math.NaN(), Guarantee: "—", detail: newRunDetail(msg.Config)}
		if msg.Config.Mode == core.ModeNonPrivate || !cp.params.V().Desc().Needs.Has(core.NeedsLayers) {
			cp.current.Layers = "—" // no noised layers: none shown, none exported
		}
	case EngineEventsMsg:
		if cp.current != nil {
			for _, ev := range msg.Events {
				cp.current.observe(ev)
			}
		}
	case runReferencesMsg:
		if cp.current != nil && cp.current.ID == msg.id {
			cp.current.refs = msg.refs
		}
		for i := range cp.records {
			if cp.records[i].ID == msg.id {
				cp.records[i].refs = msg.refs
				cp.dirty = true
			}
		}
	case EngineClosedMsg:
		if cp.current != nil {
			cp.records = append(cp.records, *cp.current)
			cp.current = nil
			cp.cursor = len(cp.records) - 1
			cp.dirty = true
		}
	case exportedMsg:
		if msg.err != nil {
			return cp, ErrorCmd(msg.err)
		}
		return cp, statusCmd("exported " + strings.Join(msg.paths, ", "))
	case tea.KeyPressMsg:
		return cp, cp.handleKey(msg)
	}
	return cp, nil
}

func (r *runRecord) observe(ev core.Event) {
	r.detail.observe(ev)
	switch ev := ev.(type) {
	case core.BudgetEvent:
		r.Epsilon = append(r.Epsilon[:0], ev.Spent...)
	case core.GuaranteeEvent:
		r.Guarantee = ev.Status
	case core.MetricsEvent:
		for _, v := range ev.Values {
			switch strings.ToLower(v.Name) {
			case "ari":
				r.ARI = v.Value
				r.ari = append(r.ari, chart.Point{X: float64(ev.Step), Y: v.Value})
			case "nmi":
				r.NMI = v.Value
			}
		}
	case core.DoneEvent:
		// An early end (stopped, budget exhausted, diverged) is never
		// recorded as finished.
		r.Elapsed, r.Outcome = ev.Elapsed, string(ev.Outcome)
		if r.Outcome == "" {
			r.Outcome = string(core.OutcomeFinished)
		}
	case core.ErrorEvent:
		r.Outcome = "failed"
	}
}

func (cp *comparePane) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := cp.c.Keys
	n := len(cp.records)
	switch {
	case n == 0:
		if key.Matches(msg, k.Export) {
			return ErrorCmd(fmt.Errorf("export: no finished run yet"))
		}
	case key.Matches(msg, k.Up):
		cp.cursor = (cp.cursor + n - 1) % n
		cp.dirty = true // the overlay shows the selected run
	case key.Matches(msg, k.Down):
		cp.cursor = (cp.cursor + 1) % n
		cp.dirty = true
	case key.Matches(msg, k.Pin):
		cp.records[cp.cursor].Pinned = !cp.records[cp.cursor].Pinned
		cp.dirty = true
	case key.Matches(msg, k.Export):
		return exportCmd(cp.c.Config.ExportDir, cp.c.Config.Version, append([]runRecord{}, cp.records...))
	}
	return nil
}

// pareto returns the runs on the privacy–utility frontier of their own ε
// axis: no other run with the same accountant and privacy unit has both a
// smaller or equal ε and a higher ARI (ε of different axes are not
// comparable). Sorted by axis, in order of first appearance, then by ε.
func pareto(rs []runRecord) []runRecord {
	var front []runRecord
	for _, a := range frontierAxes(rs) {
		front = append(front, paretoOn(rs, a)...)
	}
	return front
}

// frontierAxes lists the ε axes of the runs that have a frontier point, in
// order of first appearance.
func frontierAxes(rs []runRecord) []epsAxis {
	var axes []epsAxis
	seen := map[epsAxis]bool{}
	for _, r := range rs {
		if a := r.axis(); r.onFrontier() && !seen[a] {
			seen[a] = true
			axes = append(axes, a)
		}
	}
	return axes
}

// paretoOn is the frontier of the runs on axis a, sorted by ε.
func paretoOn(rs []runRecord, a epsAxis) []runRecord {
	var pts []runRecord
	for _, r := range rs {
		if r.onFrontier() && r.axis() == a {
			pts = append(pts, r)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool {
		ei, ej := pts[i].frontierEps(), pts[j].frontierEps()
		if ei != ej {
			return ei < ej
		}
		return pts[i].ARI > pts[j].ARI
	})
	var front []runRecord
	best := math.Inf(-1)
	for _, r := range pts {
		if r.ARI > best {
			front = append(front, r)
			best = r.ARI
		}
	}
	return front
}

// frontierAxis is the axis the frontier chart shows: the selected run's,
// or else the first run's that has a point; ok is false when no run has.
func (cp *comparePane) frontierAxis() (epsAxis, bool) {
	if cp.cursor >= 0 && cp.cursor < len(cp.records) && cp.records[cp.cursor].onFrontier() {
		return cp.records[cp.cursor].axis(), true
	}
	axes := frontierAxes(cp.records)
	if len(axes) == 0 {
		return epsAxis{}, false
	}
	return axes[0], true
}

// SetSize lays the table above the two charts.
func (cp *comparePane) SetSize(w, h int) {
	cp.w, cp.h = w, h
	cw, ch := cp.chartSize()
	cp.front.Resize(max(cw-2, 1), max(ch-3, 1))
	cp.overlay.Resize(max(cw-2, 1), max(ch-3, 1))
	cp.dirty = true
}

func (cp *comparePane) tableHeight() int {
	extra := 0
	if cp.referenceLine() != "" {
		extra = 1
	}
	if len(cp.records) > 0 && cp.hiddenLine() != "" {
		extra++
	}
	return min(len(cp.records)+2+extra, max(cp.h/2, 3))
}

// chartSize is the size of each chart box (side by side when wide).
func (cp *comparePane) chartSize() (w, h int) {
	h = cp.h - cp.tableHeight()
	if cp.w >= 100 {
		return cp.w / 2, h
	}
	return cp.w, h
}

// Frame redraws the frontier and the overlay.
func (cp *comparePane) Frame() {
	if !cp.dirty {
		return
	}
	cp.dirty = false
	st := cp.c.Styles
	cp.front.Reset()
	cp.overlay.Reset()
	for _, x := range []*chart.XY{cp.front, cp.overlay} {
		x.SetStyles(st.Axis, st.AxisLabel, st.Marker)
	}
	// One ε axis: the runs of the shown axis only (frontierAxis); the
	// others are counted in the title.
	axis, _ := cp.frontierAxis()
	var all []chart.Point
	for _, r := range cp.records {
		if r.Mode == core.ModeNonPrivate && !math.IsNaN(r.ARI) {
			cp.front.SetHLines(chart.HLine{Y: r.ARI, Style: st.Reference})
		}
		if r.onFrontier() && r.axis() == axis {
			all = append(all, chart.Point{X: r.frontierEps(), Y: r.ARI})
		}
	}
	cp.front.SetPoints("runs", st.SeriesStyle(0), all)
	cp.front.Series("runs").Dots = true
	var fr []chart.Point
	for _, r := range paretoOn(cp.records, axis) {
		fr = append(fr, chart.Point{X: r.frontierEps(), Y: r.ARI})
	}
	cp.front.SetPoints("Pareto front", st.SeriesStyle(1), fr).Pattern = chart.PatternOf(1)
	cp.front.Draw()
	for i, r := range cp.records {
		if r.Pinned || i == cp.cursor {
			cp.overlay.SetPoints(fmt.Sprintf("run %d", r.ID), st.SeriesStyle(i), r.ari).Pattern = chart.PatternOf(i)
		}
	}
	cp.overlay.Draw()
}

// View renders the table and the charts.
func (cp *comparePane) View() string {
	st := cp.c.Styles
	table := cp.table()
	cw, ch := cp.chartSize()
	if ch < minChartHeight {
		return block(table, cp.w, cp.h)
	}
	fTitle := cp.frontierTitle()
	oTitle := st.BoxTitle.Render("ARI by step") + st.Muted.Render(" (pinned + selected)")
	for _, s := range cp.overlay.AllSeries() {
		oTitle += " " + s.Style.Render(s.Pattern.Glyph()+s.Name)
	}
	box := func(title string, x *chart.XY) string {
		body := truncate(title, cw-2) + "\n"
		if len(cp.records) == 0 {
			body += st.Muted.Render("finished runs appear here")
		} else {
			body += x.View()
		}
		return st.Box.Render(padBlock(block(body, cw-2, ch-2), cw-2))
	}
	var charts string
	if cp.w >= 100 {
		charts = lipgloss.JoinHorizontal(lipgloss.Top, box(fTitle, cp.front), box(oTitle, cp.overlay))
	} else {
		charts = box(fTitle, cp.front)
	}
	return block(table+"\n"+charts, cp.w, cp.h)
}

// frontierTitle names the frontier's one ε axis (accountant and privacy
// unit), its legend, and how many runs of other axes it leaves out.
func (cp *comparePane) frontierTitle() string {
	st := cp.c.Styles
	axis, ok := cp.frontierAxis()
	if !ok {
		return st.BoxTitle.Render("frontier: ε vs ARI") + st.Muted.Render(" (no private run with an ε and an ARI yet)")
	}
	t := st.BoxTitle.Render("frontier: "+axis.String()+" vs ARI") + " " + st.SeriesStyle(0).Render("⠂runs") + " " +
		st.SeriesStyle(1).Render(chart.PatternOf(1).Glyph()+"Pareto") + " " + st.Reference.Render("━non-private")
	if other := len(frontierAxes(cp.records)) - 1; other > 0 {
		t += st.Warn.Render(fmt.Sprintf(" · %d other ε axes: select a run of one", other))
	}
	return t
}

// compareColumns are the table's columns, widths and priorities: when
// the screen is too narrow for all, the columns of the largest prio are
// dropped first, and a line under the table names them with the selected
// run's values, so nothing is cut out of reach (the CSV export has all).
var compareColumns = []struct {
	name string
	w    int
	prio int // 0 is never dropped
}{{"run", 4, 0}, {"method", 14, 0}, {"mode", 11, 6}, {"layers", 7, 7}, {"ε", 7, 0}, {"accountant", 14, 1}, {"unit", 7, 2},
	{"guarantee", 12, 3}, {"ARI", 7, 0}, {"NMI", 6, 5}, {"time", 8, 8}, {"", 3, 4}}

// shownColumns are the indices of the columns that fit in w cells (the
// table's two-cell cursor gutter included), in table order.
func shownColumns(w int) []int {
	drop := map[int]bool{}
	width := 2
	for _, c := range compareColumns {
		width += c.w
	}
	for width > w {
		worst := -1
		for j, c := range compareColumns {
			if !drop[j] && c.prio > 0 && (worst < 0 || c.prio > compareColumns[worst].prio) {
				worst = j
			}
		}
		if worst < 0 {
			break // only the essential columns are left: the line is cut
		}
		drop[worst] = true
		width -= compareColumns[worst].w
	}
	var shown []int
	for j := range compareColumns {
		if !drop[j] {
			shown = append(shown, j)
		}
	}
	return shown
}

// grownColumns are the columns that take the width a window has beyond
// the fixed widths, up to their longest cell: the method's label and the
// accountant's name ("GDP exact (one cell added/removed)") are the cells
// cut at the fixed widths, even on a 200-column screen.
var grownColumns = []int{1, 5}

// columnWidths are the widths of the shown columns at w cells: their fixed
// widths, then what w leaves goes to grownColumns in turn, each up to its
// longest cell among rs (and its header) plus a space.
func columnWidths(w int, shown []int, rs []runRecord) map[int]int {
	width := make(map[int]int, len(shown))
	spare := w - 2
	for _, j := range shown {
		width[j] = compareColumns[j].w
		spare -= width[j]
	}
	for _, j := range grownColumns {
		if _, ok := width[j]; !ok || spare <= 0 {
			continue
		}
		need := lipgloss.Width(compareColumns[j].name) + 1
		for _, r := range rs {
			need = max(need, lipgloss.Width(r.cells()[j])+1)
		}
		grow := min(max(need-width[j], 0), spare)
		width[j] += grow
		spare -= grow
	}
	return width
}

// cells are the record's values, one per compareColumns entry; the unit
// column says whose data one ε protects: one cell or one client's.
func (r runRecord) cells() []string {
	eps, _ := r.headline()
	a := r.axis()
	if math.IsNaN(eps) {
		a.Accountant = "—"
	}
	return []string{fmt.Sprint(r.ID), r.Variant, string(r.Mode), r.Layers, num(eps, "%.3g"), a.Accountant, a.Unit,
		string(r.Guarantee), r.ariCell(), num(r.NMI, "%.3f"), r.Elapsed.Round(100 * time.Millisecond).String(), map[bool]string{true: "●", false: ""}[r.Pinned]}
}

// verdict is the run's verdict against its null (reference.Verdict).
func (r runRecord) verdict() string {
	if r.Outcome == string(core.OutcomeStopped) {
		return "" // stopped by the user: its last ARI is no result to judge
	}
	v, _ := r.refs.verdict(r.Mode != core.ModeNonPrivate, r.ARI)
	return v
}

// ariCell is the ARI as the table shows it: starred when the run is no
// better than no learning, as `dpscope sweep` stars it, so the number is
// never read bare (the line under the table says what the star means).
func (r runRecord) ariCell() string {
	if r.verdict() != "" {
		return "*" + num(r.ARI, "%.3f")
	}
	return num(r.ARI, "%.3f")
}

// hiddenLine names the columns dropped at this width with the selected
// run's values, or is "" when every column is shown.
func (cp *comparePane) hiddenLine() string {
	shown := shownColumns(cp.w)
	if len(shown) == len(compareColumns) {
		return ""
	}
	on := map[int]bool{}
	for _, j := range shown {
		on[j] = true
	}
	var parts []string
	var cells []string
	if cp.cursor >= 0 && cp.cursor < len(cp.records) {
		cells = cp.records[cp.cursor].cells()
	}
	for j, c := range compareColumns {
		if on[j] {
			continue
		}
		name := c.name
		if name == "" {
			name = "pinned"
		}
		if cells != nil {
			v := cells[j]
			if j == len(compareColumns)-1 {
				v = map[bool]string{true: "yes", false: "no"}[cp.records[cp.cursor].Pinned]
			}
			name += " " + v
		}
		parts = append(parts, name)
	}
	head := "› hidden columns (a wider window shows them): "
	if cells != nil {
		head = fmt.Sprintf("› run %d, hidden columns: ", cp.records[cp.cursor].ID)
	}
	return cp.c.Styles.Muted.Render(truncate(head+strings.Join(parts, " · "), cp.w))
}

func (cp *comparePane) table() string {
	st := cp.c.Styles
	shown := shownColumns(cp.w)
	width := columnWidths(cp.w, shown, cp.records)
	var head strings.Builder
	head.WriteString("  ")
	for _, j := range shown {
		head.WriteString(pad(compareColumns[j].name, width[j]))
	}
	lines := []string{st.Label.Render(truncate(head.String(), cp.w))}
	if len(cp.records) == 0 {
		lines = append(lines, st.Muted.Render("no finished run yet: start one on the Run screen (1, then s)"))
	}
	rows := cp.tableHeight() - 1
	if cp.referenceLine() != "" {
		rows--
	}
	hidden := cp.hiddenLine()
	if hidden != "" && len(cp.records) > 0 {
		rows--
	}
	rows = max(rows, 1)
	first := max(0, min(cp.cursor-rows+1, len(cp.records)-rows))
	for i := first; i < len(cp.records) && i < first+rows; i++ {
		cells := cp.records[i].cells()
		var b strings.Builder
		for _, j := range shown {
			b.WriteString(pad(truncate(cells[j], width[j]-1), width[j]))
		}
		line := truncate(b.String(), cp.w-2)
		if i == cp.cursor {
			line = st.Cursor.Render("▸ " + line)
		} else {
			line = "  " + st.Value.Render(line)
		}
		lines = append(lines, line)
	}
	if hidden != "" && len(cp.records) > 0 {
		lines = append(lines, hidden)
	}
	if l := cp.referenceLine(); l != "" {
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// referenceLine names the selected run's reference lines, or "" when it
// has none.
func (cp *comparePane) referenceLine() string {
	if cp.cursor < 0 || cp.cursor >= len(cp.records) {
		return ""
	}
	r := cp.records[cp.cursor]
	if r.refs.b1 == nil && r.refs.null == nil && r.refs.baseline == nil {
		return ""
	}
	st := cp.c.Styles
	s := fmt.Sprintf("  run %d, references (not releases):", r.ID)
	if r.refs.b1 != nil {
		s += fmt.Sprintf(" B1 PCA + k-means ARI %.3f NMI %.3f", r.refs.b1.ARI, r.refs.b1.NMI)
	}
	if r.refs.null != nil {
		s += fmt.Sprintf(" · null (no learning) ARI %.3f NMI %.3f", r.refs.null.ARI, r.refs.null.NMI)
	}
	if r.refs.baseline != nil {
		s += fmt.Sprintf(" · %s at the same ε ARI %.3f NMI %.3f", r.refs.baselineOf, r.refs.baseline.ARI, r.refs.baseline.NMI)
	}
	if v := r.verdict(); v != "" {
		// The verdict first: a narrow window cuts the line's end.
		return st.Warn.Render(truncate(fmt.Sprintf("  run %d: *ARI %s (not above its null beyond seed noise) ·%s", r.ID, v, strings.TrimPrefix(s, fmt.Sprintf("  run %d,", r.ID))), cp.w))
	}
	return st.Muted.Render(truncate(s, cp.w))
}

func num(v float64, f string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(f, v)
}
