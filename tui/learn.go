package tui

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"text/template"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/assets"
	"github.com/dpscope/dpscope/tui/keys"
)

// lesson is one parsed lesson.
type lesson struct {
	title string
	tmpl  *template.Template
}

// lessonData are the fields a lesson may use, from the current parameters.
type lessonData struct {
	Eps, Delta, Odds, Posterior, Sigma, Clip, NoiseStd, Q, Projected, BetaAt5, InvN string
	Steps, Cells                                                                    int
	Layers, Variant, Guarantee                                                      string
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
}

// listWidth is the width of the lesson list beside the text.
const listWidth = 30

func newLearnPane(c *Common, params runParams) *learnPane {
	p := &learnPane{c: c, params: params, vp: viewport.New(), dirty: true}
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
		out = append(out, lesson{title: title, tmpl: t})
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
	return keys.Help{Keys: k, Short: []key.Binding{k.NextLesson, k.Down}, Full: [][]key.Binding{{k.PrevLesson, k.NextLesson, k.Up, k.Down, k.PageUp, k.PageDown}}}
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
			p.index = (p.index + len(p.lessons) - 1) % len(p.lessons)
			p.dirty = true
			p.vp.GotoTop()
			return p, nil
		case key.Matches(msg, k.NextLesson) && len(p.lessons) > 0:
			p.index = (p.index + 1) % len(p.lessons)
			p.dirty = true
			p.vp.GotoTop()
			return p, nil
		}
		var cmd tea.Cmd
		p.vp, cmd = p.vp.Update(msg)
		return p, cmd
	}
	return p, nil
}

// data fills the lesson fields from the current parameters.
func (p *learnPane) data() lessonData {
	pr := p.params
	eps := pr.Epsilon
	odds := math.Exp(eps)
	proj := 0.0
	if c, err := pr.calibrate(true); err == nil {
		proj = c.Projected[0].Epsilon
	}
	g, _ := expectedGuarantee(pr)
	cells := p.c.Config.Summary.KeptCells
	if cells == 0 {
		cells = p.c.Config.Summary.Cells
	}
	invN := "—"
	if cells > 0 {
		invN = fmt.Sprintf("%.2g", 1/float64(cells))
	}
	beta := math.Max(0, math.Max(1-pr.Delta-odds*0.05, (1-pr.Delta-0.05)/odds))
	layers := layerLabel(pr.EffectiveLayers())
	if !pr.Private() {
		layers = "none"
	}
	return lessonData{
		Eps: fmtEps(eps), Delta: fmt.Sprintf("%.3g", pr.Delta), Odds: fmtOdds(odds),
		Posterior: fmt.Sprintf("%.4g %%", 100*odds/(1+odds)), Sigma: fmt.Sprintf("%.3g", pr.Sigma),
		Clip: fmt.Sprintf("%.3g", pr.Clip), NoiseStd: fmt.Sprintf("%.3g", pr.Sigma*pr.Clip),
		Q: fmt.Sprintf("%.3g", pr.SampleRate), Projected: fmtEps(proj), BetaAt5: fmt.Sprintf("%.1f %%", 100*beta),
		InvN: invN, Steps: pr.Steps(), Cells: cells, Layers: layers, Variant: pr.V().Label, Guarantee: string(g),
	}
}

func fmtOdds(v float64) string {
	if v >= 1e4 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// render fills and renders the current lesson.
func (p *learnPane) render(w int) string {
	if p.err != nil {
		return p.c.Styles.Error.Render("lessons: " + p.err.Error())
	}
	if len(p.lessons) == 0 {
		return p.c.Styles.Muted.Render("no lessons embedded")
	}
	var buf bytes.Buffer
	if err := p.lessons[p.index].tmpl.Execute(&buf, p.data()); err != nil {
		return p.c.Styles.Error.Render("lesson: " + err.Error())
	}
	return renderMarkdown(buf.String(), p.c.Styles, w)
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
	p.vp.SetContent(p.render(p.textWidth()))
}

// View renders the lesson list and the current lesson.
func (p *learnPane) View() string {
	st := p.c.Styles
	if !p.showList() {
		head := st.Muted.Render(fmt.Sprintf("lesson %d/%d · ←/→ other lessons · ↑/↓ scroll", p.index+1, len(p.lessons)))
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
	list = append(list, "", st.Muted.Render("←/→ lesson · ↑/↓ scroll"), st.Muted.Render("figures follow the Run settings"))
	left := padBlock(block(strings.Join(list, "\n"), listWidth, p.h), listWidth)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, " │ ", p.vp.View())
}
