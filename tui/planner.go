package tui

import (
	"fmt"
	"math"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/internal/memo"
	"github.com/dpscope/dpscope/tui/chart"
	"github.com/dpscope/dpscope/tui/keys"
)

// plannerInputs are the Planner's knobs. A value.
type plannerInputs struct {
	Q      float64
	Steps  int
	Delta  float64
	Sigma  float64
	Target float64
}

// planResult is what one planning pass computed; PLD is filled by a second,
// slower pass.
type planResult struct {
	seq      int
	pld      bool
	bySigma  map[string][]chart.Point // accountant → ε against σ
	bySteps  map[string][]chart.Point // accountant → ε against steps
	eps      map[string]float64       // ε at the inputs
	sigmaFor map[string]float64       // σ for the target ε
	err      error
}

// plannerPane is the Planner screen: no training, only accounting.
type plannerPane struct {
	c       *Common
	in      plannerInputs
	form    form
	seq     int
	shown   bool       // planned at least once (on first showing)
	res     planResult // RDP
	pld     planResult // PLD (slower)
	pldBusy bool
	sigma   *chart.XY
	steps   *chart.XY
	w, h    int
	dirty   bool
}

func newPlannerPane(c *Common, pr runParams) *plannerPane {
	st := c.Styles
	p := &plannerPane{c: c, in: plannerInputs{Q: pr.SampleRate, Steps: pr.Steps(), Delta: pr.Delta, Sigma: pr.Sigma, Target: pr.Epsilon},
		sigma: chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker), steps: chart.New(10, 5, st.Axis, st.AxisLabel, st.Marker)}
	in := &p.in
	num := func(name string, v *float64, factor, limit float64) field {
		return field{name: name, value: func() string { return strconv.FormatFloat(*v, 'g', 4, 64) },
			step: func(d int) error {
				n := round3(scaleStep(*v, factor, d))
				if limit > 0 && n > limit {
					return fmt.Errorf("%s must stay ≤ %g", name, limit)
				}
				*v = n
				return nil
			},
			set: func(s string) error {
				n, err := parsePositive(name, s)
				if err == nil && limit > 0 && n > limit {
					err = fmt.Errorf("%s is %v, must be ≤ %g", name, n, limit)
				}
				if err == nil {
					*v = n
				}
				return err
			}}
	}
	p.form = newForm([]field{
		num("q sampling", &in.Q, 1.25, 1),
		{name: "steps", value: func() string { return strconv.Itoa(in.Steps) },
			step: func(d int) error {
				in.Steps = max(int(math.Round(scaleStep(float64(in.Steps), 1.25, d))), 1)
				return nil
			},
			set: func(s string) error {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 {
					return fmt.Errorf("steps is %q, must be a whole number ≥ 1", s)
				}
				in.Steps = n
				return nil
			}},
		num("δ", &in.Delta, 10, 0.5),
		num("σ noise", &in.Sigma, 1.1, 0),
		num("ε target", &in.Target, 1.25, 0),
	})
	return p
}

func (p *plannerPane) Title() string   { return "Planner" }
func (p *plannerPane) Init() tea.Cmd   { return nil }
func (p *plannerPane) Capturing() bool { return p.form.editing }

// ShortHelp returns the Planner's help-bar bindings.
func (p *plannerPane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Planner's help-overlay bindings.
func (p *plannerPane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *plannerPane) keyHelp() keys.Help {
	k := p.c.Keys
	return keys.Help{Keys: k, Short: []key.Binding{k.Up, k.Dec, k.Inc, k.Edit}, Full: [][]key.Binding{{k.Up, k.Down, k.Dec, k.Inc, k.Edit, k.Cancel}}}
}

// Update handles the form and the planning results.
func (p *plannerPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		ed, cmd := p.form.update(msg, p.c.Keys)
		if ed.err != nil {
			return p, ErrorCmd(ed.err)
		}
		if ed.changed {
			return p, tea.Batch(cmd, p.plan())
		}
		return p, cmd
	case TabShownMsg:
		if !p.shown {
			p.shown = true
			return p, p.plan()
		}
	case planResult:
		if msg.pld {
			p.pldBusy = false
			if msg.seq == p.seq {
				p.pld = msg
			} else {
				return p, p.planPLD() // inputs moved on: account the newest
			}
		} else if msg.seq == p.seq {
			p.res = msg
		}
		p.dirty = true
	}
	return p, nil
}

// plan asks for the RDP pass now and a PLD pass when none is running.
func (p *plannerPane) plan() tea.Cmd {
	p.seq++
	seq, in := p.seq, p.in
	rdp := func() tea.Msg { return cachedPlan(seq, in, false) }
	return tea.Batch(rdp, p.planPLD())
}

func (p *plannerPane) planPLD() tea.Cmd {
	if p.pldBusy {
		return nil
	}
	p.pldBusy = true
	seq, in := p.seq, p.in
	return func() tea.Msg { return cachedPlan(seq, in, true) }
}

// planKey is everything a planning pass depends on: the inputs and the
// accountant (RDP at plannerOrders, or PLD at pldInterval, both fixed); the
// σ and steps grids follow from the inputs.
type planKey struct {
	in  plannerInputs
	pld bool
}

// planCache holds the planning passes of the whole process: under dpscope
// serve every session's Planner opens on the same defaults, and the PLD pass
// costs hundreds of milliseconds of CPU, so 40 sessions computing it each
// held every key press behind them. 256 results are a few hundred KiB.
var planCache = memo.New[planKey, planResult](256)

// cachedPlan is planRDP or planPLD for in, computed once per process for
// the same inputs and returned under seq. The result's maps and slices are
// shared between sessions: nothing writes to them after the pass.
func cachedPlan(seq int, in plannerInputs, pld bool) planResult {
	compute := func() planResult {
		if pld {
			return planPLD(seq, in)
		}
		return planRDP(seq, in)
	}
	for _, v := range []float64{in.Q, in.Delta, in.Sigma, in.Target} {
		if math.IsNaN(v) { // NaN ≠ NaN: such a key could never be found again
			return compute()
		}
	}
	r := planCache.Get(planKey{in: in, pld: pld}, compute)
	r.seq = seq
	return r
}

// sigmaGrid is the σ axis of the ε-against-σ chart around σ.
func sigmaGrid(sigma float64, n int) []float64 {
	lo, hi := math.Max(sigma/2.5, 0.3), sigma*2.5
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// stepsGrid is the steps axis of the ε-against-steps chart, up to 2×steps.
func stepsGrid(steps, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = max(int(math.Round(float64(2*steps)*float64(i+1)/float64(n))), 1)
	}
	return out
}

// plannerOrders are the calculator's RDP orders: dpscope's, as every
// audited figure uses.
var plannerOrders = accountant.DefaultOrders.Orders()

// planRDP computes the RDP curves and figures (milliseconds).
func planRDP(seq int, in plannerInputs) planResult {
	r := newPlanResult(seq, false)
	eps := func(sigma float64, steps int) float64 {
		e, err := accountant.ProjectRDP(nil, in.Q, sigma, steps, in.Delta, plannerOrders)
		if err != nil {
			r.err = err
			return math.NaN()
		}
		return e
	}
	for _, s := range sigmaGrid(in.Sigma, 24) {
		r.bySigma["RDP"] = append(r.bySigma["RDP"], chart.Point{X: s, Y: eps(s, in.Steps)})
	}
	for _, n := range stepsGrid(in.Steps, 24) {
		r.bySteps["RDP"] = append(r.bySteps["RDP"], chart.Point{X: float64(n), Y: eps(in.Sigma, n)})
	}
	r.eps["RDP"] = eps(in.Sigma, in.Steps)
	plan := accountant.Plan{{SampleRate: in.Q, NoiseRatio: 1, Steps: in.Steps}}
	if c, err := accountant.CalibrateAfter(nil, accountant.Budget{Epsilon: in.Target, Delta: in.Delta}, plan, accountant.DefaultOrders); err == nil {
		r.sigmaFor["RDP"] = c.Sigma
	} else {
		r.sigmaFor["RDP"] = math.NaN()
	}
	return r
}

// planPLD computes the PLD curves and figures (hundreds of milliseconds).
func planPLD(seq int, in plannerInputs) planResult {
	r := newPlanResult(seq, true)
	eps := func(sigma float64, steps int) float64 {
		ev, err := accountant.SampledGaussianEvent(in.Q, sigma, steps)
		if err != nil {
			r.err = err
			return math.NaN()
		}
		e, err := accountant.EpsilonPLD([]accountant.Event{ev}, in.Delta, pldInterval)
		if err != nil {
			return math.NaN()
		}
		return e
	}
	for _, s := range sigmaGrid(in.Sigma, 6) {
		r.bySigma["PLD"] = append(r.bySigma["PLD"], chart.Point{X: s, Y: eps(s, in.Steps)})
	}
	for _, n := range stepsGrid(in.Steps, 6) {
		r.bySteps["PLD"] = append(r.bySteps["PLD"], chart.Point{X: float64(n), Y: eps(in.Sigma, n)})
	}
	r.eps["PLD"] = eps(in.Sigma, in.Steps)
	if s, err := accountant.CalibratePLD(accountant.Budget{Epsilon: in.Target, Delta: in.Delta}, in.Q, in.Steps, pldInterval, 5e-3); err == nil {
		r.sigmaFor["PLD"] = s
	} else {
		r.sigmaFor["PLD"] = math.NaN()
	}
	return r
}

func newPlanResult(seq int, pld bool) planResult {
	return planResult{seq: seq, pld: pld, bySigma: map[string][]chart.Point{}, bySteps: map[string][]chart.Point{},
		eps: map[string]float64{}, sigmaFor: map[string]float64{}}
}

// SetSize lays the form beside the two charts.
func (p *plannerPane) SetSize(w, h int) {
	p.w, p.h = w, h
	cw, ch := p.chartSize()
	p.sigma.Resize(max(cw-2, 1), max(ch-3, 1))
	p.steps.Resize(max(cw-2, 1), max(ch-3, 1))
	p.dirty = true
}

// chartSize is each chart box's size: two stacked right of the form.
func (p *plannerPane) chartSize() (w, h int) {
	w = max(p.w-controlsWidth-1, 0)
	if w >= 90 {
		return w / 2, p.h
	}
	return w, p.h / 2
}

// Frame redraws the charts when results arrived.
func (p *plannerPane) Frame() {
	if !p.dirty {
		return
	}
	p.dirty = false
	st := p.c.Styles
	for i, x := range []*chart.XY{p.sigma, p.steps} {
		x.Reset()
		x.SetStyles(st.Axis, st.AxisLabel, st.Marker)
		x.SetHLines(chart.HLine{Y: p.in.Target, Style: st.Target, Pattern: chart.Dashed})
		src := []map[string][]chart.Point{p.res.bySigma, p.pld.bySigma}
		if i == 1 {
			src = []map[string][]chart.Point{p.res.bySteps, p.pld.bySteps}
			x.AddMarker(float64(p.in.Steps))
		} else {
			x.AddMarker(p.in.Sigma)
		}
		x.SetPoints("RDP", st.SeriesStyle(0), src[0]["RDP"]).Pattern = chart.PatternOf(0)
		if p.pld.seq == p.seq {
			x.SetPoints("PLD", st.SeriesStyle(1), src[1]["PLD"]).Pattern = chart.PatternOf(1)
		}
		x.Draw()
	}
}

// View renders the form, the figures and the charts.
func (p *plannerPane) View() string {
	st := p.c.Styles
	cw := min(controlsWidth, p.w)
	text := p.form.view(st, cw) + "\n\n" + p.figures(cw)
	chW, chH := p.chartSize()
	if chW < 20 || chH < minChartHeight {
		return block(text, p.w, p.h)
	}
	legend := " " + st.SeriesStyle(0).Render(chart.PatternOf(0).Glyph()+"RDP") + " " + st.SeriesStyle(1).Render(chart.PatternOf(1).Glyph()+"PLD") + " " + st.Target.Render(chart.Dashed.Glyph()+"target")
	box := func(title string, x *chart.XY) string {
		return st.Box.Render(padBlock(block(truncate(st.BoxTitle.Render(title)+legend, chW-2)+"\n"+x.View(), chW-2, chH-2), chW-2))
	}
	// The planner accounts DP-SGD over cells: its unit is one cell.
	a, b := box("ε against σ ("+unitTitle(unitCell)+")", p.sigma), box("ε against steps ("+unitTitle(unitCell)+")", p.steps)
	var charts string
	if p.w-controlsWidth-1 >= 90 {
		charts = lipgloss.JoinHorizontal(lipgloss.Top, a, b)
	} else {
		charts = lipgloss.JoinVertical(lipgloss.Left, a, b)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, padBlock(block(text, cw, p.h), cw), " ", charts)
}

// figures is ε at the inputs and σ for the target, by accountant.
func (p *plannerPane) figures(w int) string {
	st := p.c.Styles
	pldEps, pldSigma := "…", "…"
	if p.pld.seq == p.seq {
		pldEps, pldSigma = num(p.pld.eps["PLD"], "%.3g"), num(p.pld.sigmaFor["PLD"], "%.3g")
	}
	lines := []string{
		st.BoxTitle.Render("at these settings"),
		fmt.Sprintf("ε RDP %s · PLD %s", st.Value.Render(num(p.res.eps["RDP"], "%.3g")), st.Value.Render(pldEps)),
		st.BoxTitle.Render(fmt.Sprintf("σ for ε %s", fmtEps(p.in.Target))),
		fmt.Sprintf("σ RDP %s · PLD %s", st.Value.Render(num(p.res.sigmaFor["RDP"], "%.3g")), st.Value.Render(pldSigma)),
		st.Muted.Render(fmt.Sprintf("q %.3g, %d steps, δ %.3g", p.in.Q, p.in.Steps, p.in.Delta)),
	}
	if p.res.err != nil {
		lines = append(lines, st.Error.Render(p.res.err.Error()))
	}
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return lipgloss.JoinVertical(lipgloss.Left, lines...)
}
