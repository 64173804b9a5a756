package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/styles"
)

// The Run pane's charts, in page order.
const (
	chartLoss = iota
	chartEpsilon
	chartMetrics
	chartScatter
	numRunCharts
)

// maxClientSeries bounds the per-client loss lines a federated run draws.
const maxClientSeries = 6

// minChartHeight is the smallest box worth drawing a chart in.
const minChartHeight = 8

// runCharts holds the Run pane's four charts and what they show. Events
// only mark it dirty; frame draws at most once per frame tick.
type runCharts struct {
	c      *Common
	xy     [numRunCharts]*chart.XY
	titles [numRunCharts]string

	guarantee  *core.GuaranteeEvent
	budget     *core.BudgetEvent
	stopped    bool          // the user stopped the run: its last ARI is no result to judge
	refs       runReferences // B1 and the null, drawn on the metrics chart
	emb        *core.EmbeddingEvent
	stage      string
	totalSteps int    // the run's planned steps: the x range of the step charts
	epochs     [2]int // the run's epochs per stage
	lastStep   int
	lastLoss   float64
	lastPatch  string
	metrics    []core.NamedValue

	// clients is a federated run's current client split, and segments
	// its client counts over the run ("round 1: K = 30, equal"), one per
	// split; the first is the initial one, each later one a change of K.
	clients  *core.ClientsEvent
	segments []string

	family  Family // the engine family of the last run (or the chosen method)
	unit    string // the privacy unit of its ε (unitCell or unitClient)
	label   string // the method's label
	started bool   // a run has started
	private bool   // the last run adds noise
	byTruth bool
	page    int
	dirty   bool

	visible      []int
	cols, rows   int
	cellW, cellH int

	areaW, areaH int    // the size layout was given
	grid         string // the boxed charts as last drawn by frame, areaW×areaH
}

func newRunCharts(c *Common) runCharts {
	rc := runCharts{c: c, dirty: true}
	st := c.Styles
	for i := range rc.xy {
		rc.xy[i] = chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker)
	}
	// The step charts write y labels at one width, so their plots start in
	// the same column and a step falls in the same column on each.
	rc.xy[chartLoss].SetYFormat(func(v float64) string { return fmt.Sprintf("%5s", chart.FormatNumber(v)) })
	rc.xy[chartEpsilon].SetYFormat(func(v float64) string { return fmt.Sprintf("%5s", chart.FormatNumber(v)) })
	rc.xy[chartMetrics].SetYFormat(func(v float64) string { return fmt.Sprintf("%5.2f", v) })
	rc.titles = [numRunCharts]string{"loss", "ε spent", "metrics", "embedding"}
	return rc
}

// verdict is the ended run's verdict on its last ARI against its null
// (reference.Verdict) and the paired comparison it rests on, if any; ""
// and nil while it runs, since an ARI on the way is not a result.
func (rc *runCharts) verdict(state RunState) (string, *reference.Learning) {
	if !rc.started || state.Active() || rc.stopped {
		return "", nil
	}
	ari := math.NaN()
	for _, v := range rc.metrics {
		if v.Name == "ARI" {
			ari = v.Value
		}
	}
	return rc.refs.verdict(rc.private, ari)
}

// reset clears the charts for a new run of cfg.
func (rc *runCharts) reset(cfg core.Config, pr runParams) {
	for _, x := range rc.xy {
		x.Reset()
	}
	rc.guarantee, rc.budget, rc.emb, rc.stopped = nil, nil, nil, false
	rc.stage, rc.lastPatch, rc.metrics = "", "", nil
	rc.clients, rc.segments, rc.refs = nil, nil, runReferences{}
	rc.lastStep, rc.lastLoss = 0, 0
	rc.totalSteps, rc.epochs = pr.plannedSteps(), pr.Epochs
	rc.started, rc.private = true, cfg.Mode != core.ModeNonPrivate
	rc.setMethod(pr)
	rc.dirty = true
}

// setMethod adapts the titles to pr's engine (DP-MD's loss is the mean
// distance of the queries to the manifold) and its privacy unit.
func (rc *runCharts) setMethod(pr runParams) {
	rc.family, rc.label, rc.unit = pr.V().Family(), pr.V().Label, pr.unit()
	rc.titles[chartLoss] = "loss"
	if rc.family == familyDenoising {
		rc.titles[chartLoss] = "mean distance to M"
		rc.titles[chartMetrics] = "distances (end of run)"
	} else {
		rc.titles[chartMetrics] = "metrics"
	}
	rc.dirty = true
}

// observe takes one engine event into the charts.
func (rc *runCharts) observe(ev core.Event) {
	st := rc.c.Styles
	switch ev := ev.(type) {
	case core.DoneEvent:
		rc.stopped = ev.Outcome == core.OutcomeStopped
	case core.StageEvent:
		rc.stage = fmt.Sprintf("stage %d %s", ev.Stage, ev.Name)
		rc.planStages(ev)
	case core.ClientsEvent:
		c := ev
		rc.clients = &c
		rc.segments = append(rc.segments, fmt.Sprintf("%s %d: K = %d, %s", stepWord(rc.family), ev.Round, ev.K, ev.Split))
	case core.StepEvent:
		rc.lastStep, rc.lastLoss = ev.Step, ev.Loss
		x := float64(ev.Step)
		rc.xy[chartLoss].AddSeries("loss", st.SeriesStyle(0)).Dots = false
		rc.xy[chartLoss].Push("loss", x, ev.Loss)
		for i, part := range ev.Parts {
			if rc.family == familyFederated && i >= maxClientSeries {
				break // thirty clients' lines hide each other
			}
			rc.xy[chartLoss].AddSeries(part.Name, st.SeriesStyle(i+1)).Pattern = chart.PatternOf(i + 1)
			rc.xy[chartLoss].Push(part.Name, x, part.Value)
		}
	case core.BudgetEvent:
		b := ev
		rc.budget = &b
		x := float64(ev.Step)
		for i, e := range ev.Spent {
			name := e.Short()
			rc.xy[chartEpsilon].AddSeries(name, st.SeriesStyle(i)).Pattern = chart.PatternOf(i)
			rc.xy[chartEpsilon].Push(name, x, e.Epsilon)
		}
	case core.MetricsEvent:
		rc.metrics = ev.Values
		if rc.family == familyDenoising {
			break // shown as a table: one release at the end
		}
		for _, v := range ev.Values {
			name := strings.ToLower(v.Name)
			if name != "ari" && name != "nmi" && !strings.HasPrefix(name, "sil") {
				continue
			}
			idx := map[bool]int{true: 0, false: 1}[name == "ari"]
			if strings.HasPrefix(name, "sil") {
				idx = 2
			}
			rc.xy[chartMetrics].AddSeries(v.Name, st.SeriesStyle(idx)).Pattern = chart.PatternOf(idx)
			rc.xy[chartMetrics].Push(v.Name, float64(ev.Step), v.Value)
		}
	case core.EmbeddingEvent:
		e := ev
		rc.emb = &e
	case core.GuaranteeEvent:
		g := ev
		rc.guarantee = &g
	case core.PatchEvent:
		if ev.Applied {
			for i := range rc.xy {
				if i != chartScatter {
					rc.xy[i].AddMarker(float64(ev.Step))
				}
			}
			rc.lastPatch = fmt.Sprintf("▼ %s @ %s %d", ev.Patch.String(), stepWord(rc.family), ev.Step)
		}
	default:
		return
	}
	rc.dirty = true
}

// planStages takes the run's length from the engine's own plan
// (plannedTotal).
func (rc *runCharts) planStages(ev core.StageEvent) {
	rc.totalSteps = plannedTotal(rc.family, rc.epochs, rc.lastStep, rc.totalSteps, ev)
}

// plannedTotal is a run's planned steps after stage event ev, given the
// steps so far (last) and the total planned before it: a stage event
// gives the stage's steps, which need not be round(1/q) per epoch (DCAN
// without noise steps through the cells in fixed batches). The Run
// charts' x range and the Audit screen's progress both follow it.
func plannedTotal(f Family, epochs [2]int, last, total int, ev core.StageEvent) int {
	switch {
	case ev.Steps <= 0:
	case f != familyDPSGD:
		// a federated stage runs the rounds left (a new one starts when K
		// changes); DP-MD's denoise stage runs T iterations
		return last + ev.Steps
	case ev.Stage == 1 && epochs[0] > 0:
		return ev.Steps + epochs[1]*(ev.Steps/epochs[0])
	case ev.Stage > 1:
		return last + ev.Steps
	}
	return total
}

// stepRange is the x range shared by the charts drawn against the step
// (loss, ε, metrics): from 0 to the planned end, so one step falls in the
// same column on each, and a live-change marker lines up across them.
func (rc *runCharts) stepRange() float64 {
	return float64(max(rc.totalSteps, rc.lastStep, 1))
}

// minTwoColumnWidth is the chart area's width from which the charts sit two
// abreast: at 40 columns a chart still shows a readable curve, and it puts
// the ARI chart on the first page of a 120×40 terminal (the area beside
// the settings is 83 wide there), where the loss, ε and clustering of a
// training run belong together.
const minTwoColumnWidth = 80

// layout fits as many charts as the area holds; the rest are on later
// pages (the v key).
func (rc *runCharts) layout(w, h int) {
	rc.areaW, rc.areaH, rc.grid = w, h, ""
	rc.cols, rc.rows = 1, 1
	if w >= minTwoColumnWidth {
		rc.cols = 2
	}
	if h >= 2*minChartHeight {
		rc.rows = 2
	}
	if h < minChartHeight || w < 20 {
		rc.visible = nil
		return
	}
	per := rc.cols * rc.rows
	pages := (numRunCharts + per - 1) / per
	rc.page %= pages
	rc.visible = rc.visible[:0]
	for i := rc.page * per; i < min((rc.page+1)*per, numRunCharts); i++ {
		rc.visible = append(rc.visible, i)
	}
	rc.cellW, rc.cellH = w/rc.cols, h/rc.rows
	for _, i := range rc.visible {
		rc.xy[i].Resize(max(rc.cellW-2, 1), max(rc.cellH-2-headerLines(i), 1))
	}
	rc.dirty = true
}

// frame redraws the visible charts when something changed.
func (rc *runCharts) frame() {
	if !rc.dirty {
		return
	}
	rc.dirty = false
	st := rc.c.Styles
	rc.decorate()
	for _, i := range rc.visible {
		rc.xy[i].SetStyles(st.Axis, st.AxisLabel, st.Marker)
		rc.xy[i].Draw()
	}
	rc.grid = rc.render(rc.areaW, rc.areaH)
}

// decorate sets the lines derived from the latest events: the ε target,
// the projected end and the scatter groups.
func (rc *runCharts) decorate() {
	st := rc.c.Styles
	end := rc.stepRange()
	rc.xy[chartLoss].SetXRange(0, end)
	rc.xy[chartEpsilon].SetXRange(0, end)
	rc.xy[chartMetrics].SetRange(0, end, -0.2, 1)
	rc.xy[chartMetrics].SetHLines(rc.refs.lines(st)...)
	eps := rc.xy[chartEpsilon]
	if b := rc.budget; b != nil {
		var lines []chart.HLine
		if b.Target > 0 {
			lines = append(lines, chart.HLine{Y: b.Target, Style: st.Target, Pattern: chart.Dashed})
		}
		eps.SetHLines(lines...)
		if len(b.Projected) > 0 && len(b.Spent) > 0 && end > float64(b.Step) {
			eps.SetSegments(chart.Segment{
				A:     chart.Point{X: float64(b.Step), Y: b.Spent[0].Epsilon},
				B:     chart.Point{X: end, Y: b.Projected[0].Epsilon},
				Style: st.Reference,
			})
		} else {
			eps.SetSegments()
		}
	}
	if e := rc.emb; e != nil {
		sc := rc.xy[chartScatter]
		sc.Reset()
		labels := e.Cluster
		if rc.byTruth && len(e.Truth) == len(e.X) {
			labels = e.Truth
		}
		groups := map[int][]chart.Point{}
		for i := range e.X {
			if i >= len(e.Y) {
				break
			}
			l := -1
			if i < len(labels) {
				l = labels[i]
			}
			groups[l] = append(groups[l], chart.Point{X: e.X[i], Y: e.Y[i]})
		}
		for l := -1; l < len(e.X); l++ {
			pts, ok := groups[l]
			if !ok {
				continue
			}
			style := st.Muted
			if l >= 0 {
				style = st.SeriesStyle(l)
			}
			sc.SetPoints(fmt.Sprintf("%d", l), style, pts)
			sc.Series(fmt.Sprintf("%d", l)).Dots = true
			delete(groups, l)
			if len(groups) == 0 {
				break
			}
		}
	}
}

// headerLines is the number of lines above chart i: its title, and for
// the metrics chart the legend of its reference lines.
func headerLines(i int) int {
	if i == chartMetrics {
		return 2
	}
	return 1
}

// title returns chart i's title line with its legend and latest values.
func (rc *runCharts) title(i, w int) string {
	st := rc.c.Styles
	t := st.BoxTitle.Render(rc.titles[i])
	switch i {
	case chartLoss:
		if rc.lastStep > 0 {
			// The step and loss first, then the legend of the loss's
			// parts (when the engine reports them): a long stage name is
			// what gets cut.
			t += st.Muted.Render(fmt.Sprintf(" %s %d/%d: %.4g", stepWord(rc.family), rc.lastStep, rc.totalSteps, rc.lastLoss))
			if all := rc.xy[i].AllSeries(); len(all) > 1 {
				// The title word is the total's legend entry: its glyph
				// goes in front, the parts' after the figures.
				t = all[0].Style.Render(all[0].Pattern.Glyph()) + t
				for _, s := range all[1:] {
					t += " " + s.Style.Render(s.Pattern.Glyph()+s.Name)
				}
			}
			t += st.Muted.Render(" · " + rc.stage)
		}
	case chartEpsilon:
		// Each accountant is its own series; the unit is the run's.
		t += st.Muted.Render(" (" + unitTitle(rc.unit) + ")")
		if b := rc.budget; b != nil {
			for j, e := range b.Spent {
				t += " " + st.SeriesStyle(j).Render(chart.PatternOf(j).Glyph()+e.Short()+" "+fmtEps(e.Epsilon))
			}
			if b.Target > 0 {
				t += " " + st.Target.Render(chart.Dashed.Glyph()+"target "+fmtEps(b.Target))
			}
			if len(b.Projected) > 0 {
				t += " " + st.Reference.Render("╌end "+b.Projected[0].Short()+" "+fmtEps(b.Projected[0].Epsilon))
			}
		}
	case chartMetrics:
		t = st.Warn.Render("⚠ ") + t
		for _, s := range rc.xy[i].AllSeries() {
			if p, ok := s.Last(); ok {
				t += " " + s.Style.Render(fmt.Sprintf("%s%s %.2f", s.Pattern.Glyph(), s.Name, p.Y))
			}
		}
	case chartScatter:
		if rc.byTruth {
			t += st.Muted.Render(" by true label (t)")
		} else {
			t += st.Muted.Render(" by cluster (t)")
		}
		if rc.emb != nil {
			t += st.Muted.Render(fmt.Sprintf(" step %d", rc.emb.Step))
		}
		if rc.lastPatch != "" {
			t += " " + st.Marker.Render(rc.lastPatch)
		}
	}
	return truncate(t, w)
}

// view returns the visible charts in their grid, in w×h: the frame's
// drawing when it is of that size (View then only joins strings).
func (rc *runCharts) view(w, h int) string {
	if rc.grid != "" && w == rc.areaW && h == rc.areaH {
		return rc.grid
	}
	return rc.render(w, h)
}

// render lays the visible charts out in their grid, in w×h.
func (rc *runCharts) render(w, h int) string {
	st := rc.c.Styles
	if len(rc.visible) == 0 {
		return block(st.Muted.Render("(enlarge the terminal for charts)"), w, h)
	}
	var rows []string
	for r := 0; r < rc.rows; r++ {
		var cells []string
		for c := 0; c < rc.cols; c++ {
			k := r*rc.cols + c
			if k >= len(rc.visible) {
				break
			}
			i := rc.visible[k]
			iw, ih := rc.cellW-2, rc.cellH-2
			body := rc.title(i, iw) + "\n"
			if l := strings.TrimSpace(rc.refs.legend(st)); l != "" && headerLines(i) > 1 {
				// The reference lines' legend has a line of its own: in a
				// quarter of the screen it does not fit beside the metrics'.
				body += truncate(l, iw) + "\n"
			}
			if i == chartMetrics && rc.family == familyDenoising && len(rc.metrics) > 0 {
				body += distanceTable(st, rc.metrics, iw)
			} else if rc.xy[i].Empty() || rc.xy[i].View() == "" {
				body += st.Muted.Render(rc.waitingText(i))
			} else {
				body += rc.xy[i].View()
			}
			cells = append(cells, st.Box.Render(padBlock(block(body, iw, ih), iw)))
		}
		if len(cells) > 0 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, cells...))
		}
	}
	more := ""
	if per := rc.cols * rc.rows; per < numRunCharts {
		more = st.Muted.Render(fmt.Sprintf("v: more charts (%d/%d)", rc.page+1, (numRunCharts+per-1)/per))
	}
	out := strings.Join(rows, "\n")
	if more != "" && lipgloss.Height(out) < h {
		out += "\n" + more
	}
	return block(out, w, h)
}

func (rc *runCharts) waitingText(i int) string {
	switch {
	case rc.started && i == chartEpsilon && !rc.private:
		return rc.label + " adds no noise: no ε to spend"
	case rc.started && i == chartLoss:
		return "waiting for the first step…"
	case rc.started && i == chartEpsilon:
		// A run is going (a federated round can take seconds before its
		// first report): "press s" read as if none had started.
		return "ε appears with the first " + stepWord(rc.family) + "'s report"
	}
	switch {
	case i == chartScatter && rc.family == familyDenoising:
		return "the queries (2-D projection) appear after the first iteration"
	case i == chartMetrics && rc.family == familyDenoising:
		return "distances before, non-private and DP appear at the end"
	case i == chartScatter && rc.family == familyFederated:
		return "the server model's embedding appears after the first round"
	case i == chartMetrics && rc.family == familyFederated:
		return "metrics appear once per round"
	case i == chartScatter:
		return "the embedding appears after the first epoch"
	case i == chartMetrics:
		return "metrics appear once per epoch"
	}
	return "press s to start a run"
}

// distanceTable lays DP-MD's end-of-run metrics out as rows per measure
// and columns per track ("before", "nonprivate (…)", "paper"), in width w.
func distanceTable(st styles.Styles, vals []core.NamedValue, w int) string {
	var tracks, measures []string
	cell := map[[2]string]float64{}
	for _, v := range vals {
		track, measure := v.Group, v.Measure
		if measure == "" {
			measure = v.Name
		}
		if !slices.Contains(tracks, track) {
			tracks = append(tracks, track)
		}
		if !slices.Contains(measures, measure) {
			measures = append(measures, measure)
		}
		cell[[2]string{track, measure}] = v.Value
	}
	const mw = 23
	cw := min(max((w-mw)/max(len(tracks), 1), 8), 12)
	lines := []string{st.Label.Render(pad("", mw) + strings.Join(padAll(tracks, cw), ""))}
	for _, m := range measures {
		row := pad(m, mw)
		for _, t := range tracks {
			if v, ok := cell[[2]string{t, m}]; ok {
				row += pad(fmt.Sprintf("%.4g", v), cw)
			} else {
				row += pad("—", cw)
			}
		}
		lines = append(lines, truncate(row, w))
	}
	for i := range lines {
		lines[i] = truncate(lines[i], w)
	}
	return strings.Join(lines, "\n")
}
