package tui

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"text/template"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/assets"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/keys"
)

// lesson is one parsed lesson.
type lesson struct {
	title string
	slug  string // the file name without number and extension: the key of its experiment
	tmpl  *template.Template
}

// lessonData are the fields a lesson may use, from the current parameters.
// Every figure is a string a formatter made finite (fmtExpOdds, fmtFinite,
// fmtEpsFinite): a lesson never shows NaN or Inf, at any ε.
type lessonData struct {
	Eps, Delta, Odds, Posterior, Sigma, Clip, NoiseStd, Q, Projected, BetaAt5, InvN string
	Steps, Cells                                                                    int
	Layers, Variant, Guarantee                                                      string

	Unit          string // the privacy unit of the current method
	EpsDeltaTenth string // ε at the same σ and δ/10
	EpsOneStep    string // ε of one sampled step
	EpsFullStep   string // ε of one step on the whole data (q = 1)
	EpsSum        string // basic composition: steps × EpsOneStep
	EpsHalf       string // ε after half the steps
	EpsDouble     string // ε after twice the steps
	EpsTen        string // ten runs at ε, by basic composition
	EpsFullEpochs string // the run's epochs as whole-data steps (q = 1), same σ
	Epochs        int    // epochs of both stages
	Batch         string // expected batch q·n
	NoiseOnMean   string // σ·C/(q·n), the noise on the averaged gradient
	DeltaMax      string // 1/(10 n)
	Statuses      string // every method's guarantee status, as markdown items
	Clients       int
	Rounds        int
	FedEps        string

	// measured figures on builtin:default at ε 8 (measuredDCAN and co.)
	MeasuredDCAN8, MeasuredDPPCA8, MeasuredB1 string
}

// learnPane is the Learn screen: short lessons tied to the current
// parameters.
type learnPane struct {
	c       *Common
	params  runParams
	lessons []lesson
	err     error
	index   int
	vp      viewport.Model
	w, h    int
	dirty   bool

	present bool // presenter mode: one big chart and the lesson, stepped
	step    int  // presenter: how many of the lesson's blocks are shown
	pchart  presenterChart
}

// listWidth is the width of the lesson list beside the text.
const listWidth = 30

func newLearnPane(c *Common, params runParams) *learnPane {
	p := &learnPane{c: c, params: params, vp: viewport.New(), dirty: true, step: 1}
	p.lessons, p.err = loadLessons(assets.Lessons)
	return p
}

// loadLessons parses every lessons/*.md file of fsys, in name order.
func loadLessons(fsys fs.FS) ([]lesson, error) {
	names, err := fs.Glob(fsys, "lessons/*.md")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []lesson
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		t, err := template.New(n).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("lesson %s: %w", n, err)
		}
		title := n
		if first, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(first, "# ") {
			title = strings.TrimPrefix(first, "# ")
		}
		out = append(out, lesson{title: title, slug: lessonSlug(n), tmpl: t})
	}
	return out, nil
}

func (p *learnPane) Title() string   { return "Learn" }
func (p *learnPane) Init() tea.Cmd   { return nil }
func (p *learnPane) Capturing() bool { return false }

// ShortHelp returns the Learn pane's help-bar bindings.
func (p *learnPane) ShortHelp() []key.Binding { return p.keyHelp().ShortHelp() }

// FullHelp returns the Learn pane's help-overlay bindings.
func (p *learnPane) FullHelp() [][]key.Binding { return p.keyHelp().FullHelp() }

func (p *learnPane) keyHelp() keys.Help {
	k := p.c.Keys
	short := []key.Binding{k.NextLesson, k.Try, k.Presenter, k.Down}
	if p.present {
		short = []key.Binding{k.Step, k.NextLesson, k.Presenter}
	}
	return keys.Help{Keys: k, Short: short, Full: [][]key.Binding{
		{k.PrevLesson, k.NextLesson, k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Try, k.Presenter, k.Step, k.Glossary},
	}}
}

// Update follows the parameters and handles lesson keys.
func (p *learnPane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ParamsMsg:
		p.params = msg.Params
		p.dirty = true
	case tea.KeyPressMsg:
		k := p.c.Keys
		switch {
		case key.Matches(msg, k.PrevLesson) && len(p.lessons) > 0:
			p.goTo(p.index + len(p.lessons) - 1)
			return p, nil
		case key.Matches(msg, k.NextLesson) && len(p.lessons) > 0:
			p.goTo(p.index + 1)
			return p, nil
		case key.Matches(msg, k.Try):
			return p, p.tryCmd()
		case key.Matches(msg, k.Presenter):
			p.present = !p.present
			p.step = 1
			p.SetSize(p.w, p.h)
			return p, nil
		case p.present && key.Matches(msg, k.Step) && len(p.lessons) > 0:
			if p.step < len(p.blocks()) {
				p.step++
			} else {
				p.goTo(p.index + 1)
			}
			p.dirty = true
			return p, nil
		}
		var cmd tea.Cmd
		p.vp, cmd = p.vp.Update(msg)
		return p, cmd
	}
	return p, nil
}

// goTo shows lesson i (modulo the count) from its top and first step.
func (p *learnPane) goTo(i int) {
	p.index = i % len(p.lessons)
	p.step = 1
	p.dirty = true
	p.vp.GotoTop()
}

// data fills the lesson fields from the current parameters.
func (p *learnPane) data() lessonData {
	pr := p.params
	eps := pr.Epsilon
	steps := pr.Steps()
	proj, perr := lessonEpsilon(pr.SampleRate, pr.Sigma, steps, pr.Delta)
	g, _ := expectedGuarantee(pr)
	cells := p.c.Config.Summary.KeptCells
	if cells == 0 {
		cells = p.c.Config.Summary.Cells
	}
	invN, batch, onMean, deltaMax := "—", "—", "—", "—"
	if cells > 0 {
		n := float64(cells)
		invN = fmt.Sprintf("%.2g", 1/n)
		deltaMax = fmt.Sprintf("%.2g", 1/(10*n))
		batch = fmt.Sprintf("%.0f", pr.SampleRate*n)
		onMean = fmtFinite(pr.Sigma * pr.Clip / (pr.SampleRate * n))
	}
	layers := layerLabel(pr.EffectiveLayers())
	if !pr.Private() {
		layers = "none"
	}
	if g == "" {
		g = core.GuaranteeNone
	}
	one, oneErr := lessonEpsilon(pr.SampleRate, pr.Sigma, 1, pr.Delta)
	full, fullErr := lessonEpsilon(1, pr.Sigma, 1, pr.Delta)
	tenth, tenthErr := lessonEpsilon(pr.SampleRate, pr.Sigma, steps, pr.Delta/10)
	half, halfErr := lessonEpsilon(pr.SampleRate, pr.Sigma, max(steps/2, 1), pr.Delta)
	double, doubleErr := lessonEpsilon(pr.SampleRate, pr.Sigma, 2*steps, pr.Delta)
	epochs := pr.Epochs[0] + pr.Epochs[1]
	fullEp, fullEpErr := lessonEpsilon(1, pr.Sigma, max(epochs, 1), pr.Delta)
	return lessonData{
		Eps: fmtEpsFinite(eps, nil), Delta: fmt.Sprintf("%.3g", pr.Delta), Odds: fmtExpOdds(eps),
		Posterior: fmtPosterior(eps), Sigma: fmtFinite(pr.Sigma),
		Clip: fmtFinite(pr.Clip), NoiseStd: fmtFinite(pr.Sigma * pr.Clip),
		Q: fmt.Sprintf("%.3g", pr.SampleRate), Projected: fmtEpsFinite(proj, perr),
		BetaAt5: fmt.Sprintf("%.1f %%", 100*betaBound(eps, pr.Delta, 0.05)),
		InvN:    invN, Steps: steps, Cells: cells, Layers: layers, Variant: pr.V().Label, Guarantee: string(g),

		Unit: privacyUnit(pr), EpsDeltaTenth: fmtEpsFinite(tenth, tenthErr),
		EpsOneStep: fmtEpsFinite(one, oneErr), EpsFullStep: fmtEpsFinite(full, fullErr),
		EpsSum:  fmtEpsFinite(one*float64(steps), oneErr),
		EpsHalf: fmtEpsFinite(half, halfErr), EpsDouble: fmtEpsFinite(double, doubleErr),
		EpsTen: fmtEpsFinite(10*eps, nil), Batch: batch, NoiseOnMean: onMean, DeltaMax: deltaMax,
		Statuses: variantStatuses(pr), Clients: pr.Fed.Clients, Rounds: pr.Fed.Rounds,
		FedEps: fmtEpsFinite(pr.Fed.Epsilon, nil), EpsFullEpochs: fmtEpsFinite(fullEp, fullEpErr), Epochs: epochs,

		MeasuredDCAN8: measuredAt(measuredDCAN, 8), MeasuredDPPCA8: measuredAt(measuredDPPCA, 8),
		MeasuredB1: fmt.Sprintf("%.3f", measuredB1),
	}
}

// source fills the current lesson's template: its markdown, before
// rendering.
func (p *learnPane) source() (string, error) {
	var buf bytes.Buffer
	if err := p.lessons[p.index].tmpl.Execute(&buf, p.data()); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// tryLine says what the lesson's experiment key does.
func (p *learnPane) tryLine() string {
	ex, ok := experiments[p.lessons[p.index].slug]
	if !ok {
		return ""
	}
	return "**Try it** (" + p.c.Keys.Try.Help().Key + "): " + ex.desc + "."
}

// accountingLessons are the lessons whose figures come from the DP-SGD
// settings σ, q, C and the planned steps.
var accountingLessons = map[string]bool{"delta": true, "composition": true, "sampling": true, "clipping": true, "noise-vs-batch": true, "rdp-pld": true}

// basisNote warns, in an accounting lesson, when the current method does
// not read σ, q and C (the redesigned DP-DCAN trains full batch): the
// figures then describe a Poisson-sampled DP-SGD run at those settings,
// not the current method, and the experiment key picks such a method.
func (p *learnPane) basisNote() string {
	if !accountingLessons[p.lessons[p.index].slug] || usesPoisson(p.params) {
		return ""
	}
	return "**Note:** " + p.params.V().Label + " does not use σ, q and C; these figures are for Poisson-sampled DP-SGD at the Run screen's settings.\n\n"
}

// render fills and renders the current lesson, with its experiment line.
func (p *learnPane) render(w int) string {
	if p.err != nil {
		return p.c.Styles.Error.Render("lessons: " + p.err.Error())
	}
	if len(p.lessons) == 0 {
		return p.c.Styles.Muted.Render("no lessons embedded")
	}
	src, err := p.source()
	if err != nil {
		return p.c.Styles.Error.Render("lesson: " + err.Error())
	}
	return renderMarkdown(src+"\n\n"+p.basisNote()+p.tryLine(), p.c.Styles, w)
}

// Lesson returns the current lesson rendered at the pane's width, for tests.
func (p *learnPane) Lesson() string { return p.render(p.textWidth()) }

func (p *learnPane) showList() bool { return p.w >= 90 }

func (p *learnPane) textWidth() int {
	if p.showList() {
		return min(p.w-listWidth-3, 90)
	}
	return min(p.w-2, 90)
}

// SetSize sizes the list and the text.
func (p *learnPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.vp.SetWidth(max(p.textWidth(), 1))
	vh := h
	if !p.showList() {
		vh--
	}
	p.vp.SetHeight(max(vh, 1))
	p.dirty = true
}

// Frame re-renders the lesson when the parameters or the size changed.
func (p *learnPane) Frame() {
	if !p.dirty || p.w == 0 {
		return
	}
	p.dirty = false
	if p.present {
		p.framePresenter()
		return
	}
	p.vp.SetContent(p.render(p.textWidth()))
}

// View renders the lesson list and the current lesson.
func (p *learnPane) View() string {
	st := p.c.Styles
	if p.present {
		return p.viewPresenter()
	}
	if !p.showList() {
		head := st.Muted.Render(fmt.Sprintf("lesson %d/%d · ←/→ lessons · enter try · P presenter · g glossary", p.index+1, len(p.lessons)))
		return block(truncate(head, p.w)+"\n"+p.vp.View(), p.w, p.h)
	}
	var list []string
	list = append(list, st.BoxTitle.Render("lessons"))
	for i, l := range p.lessons {
		line := fmt.Sprintf("%d %s", i+1, l.title)
		if i == p.index {
			list = append(list, st.Cursor.Render(truncate("▸ "+line, listWidth)))
		} else {
			list = append(list, st.Label.Render(truncate("  "+line, listWidth)))
		}
	}
	list = append(list, "", st.Muted.Render("←/→ lesson · ↑/↓ scroll"), st.Muted.Render("enter try it · P presenter"), st.Muted.Render("g glossary"), st.Muted.Render("figures follow the Run settings"))
	left := padBlock(block(strings.Join(list, "\n"), listWidth, p.h), listWidth)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, " │ ", p.vp.View())
}

// lessonEpsilon is ε by RDP (dpscope's default orders) of steps
// Poisson-subsampled Gaussian steps at rate q and noise multiplier σ: the
// lessons' what-if figures, computed from the settings on screen, not a
// run's (a run's σ and ε come from its method).
func lessonEpsilon(q, sigma float64, steps int, delta float64) (float64, error) {
	return accountant.ProjectRDP(nil, q, sigma, steps, delta, accountant.DefaultOrders.Orders())
}

// lessonSigma is the smallest σ whose lessonEpsilon stays within eps: the
// σ(q) curve of the noise-versus-batch lesson.
func lessonSigma(eps, delta, q float64, steps int) (float64, error) {
	cost := func(z float64) (float64, error) { return lessonEpsilon(q, z, steps, delta) }
	return accountant.SolveSigma(eps, cost, 1e-2, 1e4, 1e-6)
}
