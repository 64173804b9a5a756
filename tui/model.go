package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// Config is what the interface shows at start.
type Config struct {
	Summary datasets.Summary // the loaded data set
	Backend string           // the BLAS backend in use, e.g. "openblas (2 threads)"
}

// Model is the root Bubble Tea model. It is not safe for concurrent use; the
// Bubble Tea runtime owns it.
type Model struct {
	cfg      Config
	keys     keys.KeyMap
	styles   styles.Styles
	help     help.Model
	body     viewport.Model
	width    int
	height   int
	showHelp bool
}

// New returns the root model for cfg, in the dark theme until the terminal
// reports its background colour.
func New(cfg Config) Model {
	m := Model{cfg: cfg, keys: keys.DefaultKeyMap(), help: help.New(), body: viewport.New()}
	m.setTheme(true)
	return m
}

// Init asks the terminal for its background colour, to pick the theme.
func (m Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.layout()
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Help):
			m.showHelp = !m.showHelp
			m.help.ShowAll = m.showHelp
			m.layout()
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.body, cmd = m.body.Update(msg)
	return m, cmd
}

func (m *Model) setTheme(isDark bool) {
	m.styles = styles.DefaultStyles(isDark)
	m.help.Styles = help.DefaultStyles(isDark)
	m.layout()
}

// layout sizes the scrolling body to what the header and help leave.
func (m *Model) layout() {
	if m.width == 0 {
		return
	}
	chrome := lipgloss.Height(m.header()) + lipgloss.Height(m.help.View(m.keys))
	frameW, frameH := m.styles.Pane.GetFrameSize()
	m.body.SetWidth(max(m.width-frameW, 1))
	m.body.SetHeight(max(m.height-chrome-frameH, 1))
	m.body.SetContent(m.summaryView(m.width - frameW))
}

func (m Model) header() string {
	title := m.styles.Title.Render("dpscope")
	return title + m.styles.Header.Render(fmt.Sprintf("%s · BLAS %s", m.cfg.Summary.Name, m.cfg.Backend))
}

// summaryView renders the data set summary for a pane of inner width w.
func (m Model) summaryView(w int) string {
	s := m.cfg.Summary
	st := m.styles
	var b strings.Builder
	field := func(name, value string) {
		b.WriteString(st.Label.Render(fmt.Sprintf("%-20s", name)) + st.Value.Render(value) + "\n")
	}
	field("data set", s.Source)
	field("cells × genes", fmt.Sprintf("%d × %d", s.Cells, s.Genes))
	field("sparsity", fmt.Sprintf("%.1f%% zeros", 100*s.Sparsity))
	field("values", s.ValueType)
	field("after preprocessing", fmt.Sprintf("%d cells × %d genes", s.KeptCells, s.SelectedGenes))
	b.WriteString("\n" + st.Label.Render(fmt.Sprintf("classes (%d)", len(s.Classes))) + "\n")
	most := 1
	for _, c := range s.Classes {
		most = max(most, c.Cells)
	}
	barW := max(w-32, 4)
	for _, c := range s.Classes {
		n := max(c.Cells*barW/most, 1)
		b.WriteString(fmt.Sprintf("  %-14.14s %6d ", c.Name, c.Cells) + st.Bar.Render(strings.Repeat("█", n)) + "\n")
	}
	b.WriteString("\n" + st.Label.Render("preprocessing") + "\n")
	for _, p := range s.Preprocessing {
		mark, detail := "✓", st.Value
		if p.Skipped {
			mark, detail = "–", st.Skipped
		}
		// The detail wraps under itself, not under the step name.
		prefix := fmt.Sprintf("  %s %-16s ", mark, p.Name)
		text := detail.Width(max(w-lipgloss.Width(prefix), 10)).Render(p.Detail)
		b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, detail.Render(prefix), text) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// View renders the screen.
func (m Model) View() tea.View {
	var content string
	if m.width == 0 {
		content = "loading…"
	} else {
		content = lipgloss.JoinVertical(lipgloss.Left,
			m.header(),
			m.styles.Pane.Render(m.body.View()),
			m.help.View(m.keys))
	}
	v := tea.NewView(content)
	v.AltScreen = true
	return v
}
