package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/tui/chart"
)

// presenterChart is the presenter's one big chart for the current lesson.
type presenterChart struct {
	xy     *chart.XY
	title  string // what is plotted, with its unit and accountant
	legend string // series by glyph, so it reads without colour
}

// blocks splits the filled lesson into the steps the presenter reveals:
// the markdown blocks separated by blank lines, the experiment line last.
func (p *learnPane) blocks() []string {
	if p.err != nil || len(p.lessons) == 0 {
		return []string{""}
	}
	src, err := p.source()
	if err != nil {
		return []string{"lesson: " + err.Error()}
	}
	var out []string
	for _, b := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	if n := strings.TrimSpace(p.basisNote()); n != "" {
		out = append(out, n)
	}
	return append(out, p.tryLine())
}

// presenterLayout returns the chart's and the text's sizes: side by side
// from 120 columns, else the chart above the text.
func (p *learnPane) presenterLayout() (cw, ch, tw, th int, side bool) {
	if p.w >= 120 {
		cw = p.w * 3 / 5
		return cw, p.h - 2, p.w - cw - 3, p.h, true
	}
	ch = max(p.h/2, 6)
	return p.w, ch, p.w - 1, max(p.h-ch-2, 1), false
}

// framePresenter redraws the chart of the current lesson.
func (p *learnPane) framePresenter() {
	if p.err != nil || len(p.lessons) == 0 {
		return
	}
	cw, ch, _, _, _ := p.presenterLayout()
	p.pchart = lessonChart(p.c, p.lessons[p.index].slug, p.params, max(cw, 10), max(ch, 4))
}

// viewPresenter renders the chart and the lesson's steps shown so far; the
// newest step stays in view when they do not all fit.
func (p *learnPane) viewPresenter() string {
	st := p.c.Styles
	cw, _, tw, th, side := p.presenterLayout()
	bl := p.blocks()
	n := min(max(p.step, 1), len(bl))
	text := renderMarkdown(strings.Join(bl[:n], "\n\n"), st, max(tw, 10))
	lines := strings.Split(text, "\n")
	more := st.Muted.Render("space next step")
	if n == len(bl) {
		more = st.Muted.Render("space next lesson")
	}
	lines = append(lines, more)
	if len(lines) > th {
		lines = lines[len(lines)-th:]
	}
	textBlock := block(strings.Join(lines, "\n"), max(tw, 1), th)
	head := st.BoxTitle.Render(truncate(p.pchart.title, cw))
	legend := st.Muted.Render(truncate(p.pchart.legend, cw))
	chartBlock := head + "\n" + p.pchart.xy.View() + "\n" + legend
	if p.pchart.xy == nil {
		chartBlock = head + "\n\n" + legend
	}
	if side {
		left := padBlock(block(chartBlock, cw, p.h), cw)
		return lipgloss.JoinHorizontal(lipgloss.Top, left, " │ ", textBlock)
	}
	return block(chartBlock+"\n"+textBlock, p.w, p.h)
}

// measuredARI are dpscope's measured mean ARI over seeds 0–4 on
// builtin:default at ε 0.5–16 (docs/RESULTS.md, "The trade-off", δ = 1e-5,
// one cell added or removed), and B1 there: figures to show, not compute.
// TestMeasuredFiguresAreResults holds them to that table's rows, so a
// re-measured default cannot leave the lessons quoting the old one.
var (
	measuredEps   = []float64{0.5, 1, 2, 4, 8, 16}
	measuredDCAN  = []float64{0.000, 0.010, 0.077, 0.412, 0.677, 0.693}
	measuredDPPCA = []float64{0.052, 0.080, 0.117, 0.412, 0.675, 0.697}
	measuredB1    = 0.687
)

// measuredAt returns the figure of series at target ε, formatted as the
// lessons quote it.
func measuredAt(series []float64, eps float64) string {
	for i, e := range measuredEps {
		if e == eps {
			return fmt.Sprintf("%.3f", series[i])
		}
	}
	return "?"
}

// presenterSamples is the number of intervals of a computed curve.
const presenterSamples = 40

// lessonChart draws the chart of lesson slug at the current settings.
// Every point is finite: points an accountant cannot answer are left out.
func lessonChart(c *Common, slug string, pr runParams, w, h int) presenterChart {
	st := c.Styles
	xy := chart.New(w, h, st.Axis, st.AxisLabel, st.Marker)
	pc := presenterChart{xy: xy}
	var pts []chart.Point
	add := func(x, y float64, err error) {
		if err == nil && !math.IsNaN(y) && !math.IsInf(y, 0) {
			pts = append(pts, chart.Point{X: x, Y: y})
		}
	}
	pow10 := func(v float64) string { return fmtFinite(math.Pow(10, v)) }
	steps := pr.Steps()
	unit := " (" + privacyUnit(pr) + ")"
	// The RDP figures of the δ, composition and sampling charts are
	// DP-SGD's over cells (lessonEpsilon), whatever the method chosen.
	cells := " (one cell added or removed)"
	switch slug {
	case "delta":
		for i := 0; i <= presenterSamples; i++ {
			l := -10 + 8*float64(i)/presenterSamples
			e, err := lessonEpsilon(pr.SampleRate, pr.Sigma, steps, math.Pow(10, l))
			add(l, e, err)
		}
		xy.SetXFormat(pow10)
		pc.title = "ε (RDP) against δ, same σ" + cells
		pc.legend = "━ ε by RDP · x: δ, log axis"
	case "composition", "rdp-pld":
		for i := 0; i <= presenterSamples; i++ {
			s := max(2*steps*i/presenterSamples, 1)
			e, err := lessonEpsilon(pr.SampleRate, pr.Sigma, s, pr.Delta)
			add(float64(s), e, err)
		}
		xy.AddMarker(float64(steps))
		pc.title = "ε (RDP) against steps, same σ" + cells
		pc.legend = "━ ε by RDP · ┊ your run's steps · PLD: Budget screen"
	case "sampling":
		for i := 0; i <= presenterSamples; i++ {
			l := -3 + 3*float64(i)/presenterSamples
			e, err := lessonEpsilon(math.Pow(10, l), pr.Sigma, 1, pr.Delta)
			add(l, e, err)
		}
		xy.SetXFormat(pow10)
		xy.AddMarker(math.Log10(pr.SampleRate))
		pc.title = "ε (RDP) of one step against q, same σ" + cells
		pc.legend = "━ ε of one step · ┊ your q · x: q, log axis"
	case "clipping":
		for i := 0; i <= presenterSamples; i++ {
			r := 5 * float64(i) / presenterSamples
			add(r, math.Min(1, 1/math.Max(r, 1e-9)), nil)
		}
		pc.title = "share of a gradient kept by clipping, against its norm / C"
		pc.legend = "━ min(1, C/‖g‖) · long gradients lose most: the bias"
	case "noise-vs-batch":
		for i := 0; i <= 8; i++ {
			l := -2.3 + 2.3*float64(i)/8
			q := pr
			q.SampleRate = math.Pow(10, l)
			s, err := lessonSigma(q.Epsilon, q.Delta, q.SampleRate, q.Steps())
			add(l, s/q.SampleRate, err)
		}
		xy.SetXFormat(pow10)
		xy.AddMarker(math.Log10(pr.SampleRate))
		pc.title = "noise on the average gradient (σ/q, in units of C/n) at ε " + fmtEps(pr.Epsilon) + " by RDP" + cells
		pc.legend = "━ σ(q)/q, σ solved by RDP for the same ε and epochs · x: q, log axis"
	case "tradeoff-curve", "membership-audit", "federated":
		eps, delta := pr.Epsilon, pr.Delta
		if slug == "federated" { // the lesson is about client-level DP, whatever the method
			eps, delta = pr.Fed.Epsilon, pr.Fed.Delta
			unit = " (one client's data, client-level)"
		}
		for i := 0; i <= presenterSamples; i++ {
			a := float64(i) / presenterSamples
			add(a, betaBound(eps, delta, a), nil)
		}
		xy.SetRange(0, 1, 0, 1)
		xy.SetSegments(chart.Segment{A: chart.Point{X: 0, Y: 1}, B: chart.Point{X: 1, Y: 0}, Style: st.Reference})
		pc.title = "smallest miss rate β against false alarms α at ε " + fmtEps(eps) + unit
		pc.legend = "━ (ε, δ) bound · ╲ diagonal: perfect privacy"
	case "paper-vs-sound", "partial-layers", "live-metrics":
		var dppca []chart.Point
		for i, e := range measuredEps {
			pts = append(pts, chart.Point{X: math.Log2(e), Y: measuredDCAN[i]})
			dppca = append(dppca, chart.Point{X: math.Log2(e), Y: measuredDPPCA[i]})
		}
		xy.SetPoints("dppca", st.SeriesStyle(1), dppca)
		xy.Series("dppca").Dots = true
		xy.SetHLines(chart.HLine{Y: measuredB1, Style: st.Reference})
		xy.SetXFormat(func(v float64) string { return fmtFinite(math.Pow(2, v)) })
		pc.title = "measured mean ARI against target ε (each method's own accountant, one cell added or removed), builtin:default, seeds 0–4 (docs/RESULTS.md)"
		pc.legend = fmt.Sprintf("━ dcan-sound · ⠂ dppca (dots) · ─ B1 %.3f (non-private)", measuredB1)
	default: // "epsilon-odds", "choosing-budget" and any new lesson
		for i := 0; i <= presenterSamples; i++ {
			l := -2 + 5*float64(i)/presenterSamples
			add(l, 100/(1+math.Exp(-math.Pow(10, l))), nil)
		}
		xy.SetXFormat(pow10)
		if pr.Epsilon > 0 {
			xy.AddMarker(math.Log10(pr.Epsilon))
		}
		pc.title = "largest certainty (%) from a 50 % prior, against ε" + unit
		pc.legend = "━ 100/(1+e^−ε) · ┊ your ε · x: ε, log axis"
	}
	if len(pts) > 0 {
		xy.SetPoints("main", st.SeriesStyle(0), pts)
	}
	xy.Draw()
	return pc
}
