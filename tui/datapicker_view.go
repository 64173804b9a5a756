package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui/keys"
)

// View renders the picker in the pane area.
func (p *dataPicker) View() string {
	st := p.c.Styles
	tabs := []string{"built-in", "folder"}
	for i, t := range tabs {
		if i == p.list {
			tabs[i] = st.TabActive.Render(t)
		} else {
			tabs[i] = st.Tab.Render(t)
		}
	}
	head := st.BoxTitle.Render("Data set") + " " + strings.Join(tabs, st.Muted.Render("│"))
	listW := min(max(p.w*2/5, 24), 44)
	if p.w < 100 {
		listW = min(listW, p.w/2)
	}
	infoW := max(p.w-listW-1, 10)
	lh := max(p.listHeight(), 1)
	var list string
	switch {
	case p.list == pickBuiltin:
		list = p.builtinView(lh)
	default:
		list = p.folderView()
	}
	where := "current: " + p.label(p.c.Config.Data)
	if p.list == pickFolder {
		where = "in " + p.display(p.fp.CurrentDirectory)
	}
	if p.rootErr != nil {
		where = "folder list off (why: right)"
	}
	left := block(list, listW, lh)
	info := p.info(infoW)
	p.vp.SetWidth(infoW)
	p.vp.SetHeight(lh + 1)
	p.vp.SetContent(strings.Join(info, "\n"))
	right := p.vp.View()
	if len(info) > lh+1 && p.vp.AtTop() {
		// Say that there is more, and how to see it.
		lines := strings.Split(right, "\n")
		lines[len(lines)-1] = st.Muted.Render(truncate(fmt.Sprintf("↓ %d more lines: pgdn", len(info)-lh), infoW))
		right = strings.Join(lines, "\n")
	}
	right = block(right, infoW, lh+1)
	body := lipgloss.JoinHorizontal(lipgloss.Top, padBlock(block(st.Muted.Render(truncate(where, listW))+"\n"+left, listW, lh+1), listW), " ", right)
	return block(truncate(head, p.w)+"\n"+body, p.w, p.h)
}

// folderView is the filepicker's list with each symlink's target shown
// relative to the data root, or as outside it: a served session must not
// show the server's folders.
func (p *dataPicker) folderView() string {
	v := p.fp.View()
	if p.root == "" {
		return v
	}
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		at := strings.Index(l, " → ")
		if at < 0 {
			continue
		}
		target := strings.TrimSpace(ansi.Strip(l[at+len(" → "):]))
		shown := "outside the data root"
		if within(p.root, target) {
			shown = p.display(target)
		}
		lines[i] = l[:at] + " → " + shown + "\x1b[m"
	}
	return strings.Join(lines, "\n")
}

func (p *dataPicker) builtinView(h int) string {
	st := p.c.Styles
	first := max(0, min(p.cursor-h+1, len(p.names)-h))
	var lines []string
	for i := first; i < len(p.names) && i < first+h; i++ {
		n := datasets.BuiltinPrefix + p.names[i]
		if i == p.cursor {
			lines = append(lines, st.Cursor.Render("▸ "+n))
		} else {
			lines = append(lines, "  "+st.Value.Render(n))
		}
	}
	return strings.Join(lines, "\n")
}

// info is the right column: the load going, the last load's outcome, or
// the peek with the preprocessing a load will run.
func (p *dataPicker) info(w int) []string {
	st := p.c.Styles
	var out []string
	add := func(s string) { out = append(out, wrap(s, w)...) }
	if l := p.loading; l != nil {
		spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}[l.frames%10]
		add(st.Warn.Render(fmt.Sprintf("%s loading %s", spin, p.label(l.spec))))
		add(st.Muted.Render(fmt.Sprintf("  %.1f s · %s to read, then preprocessing (cached for the runs)", time.Since(l.started).Seconds(), fmtBytes(l.bytes))))
		add(st.Muted.Render("  ctrl+c cancels the load (not the app); the data stays " + p.label(p.c.Config.Data)))
		return out
	}
	if e := p.loaded; e != nil {
		if e.err != nil {
			add(st.Error.Render("not loaded: " + e.err.Error()))
			add(st.Muted.Render("the data is still " + p.label(p.c.Config.Data)))
			return out
		}
		return append(out, p.summaryLines(e.summary, w)...)
	}
	if p.peekErr != nil {
		add(st.Error.Render(p.peekErr.Error()))
		if p.list == pickFolder {
			add(st.Muted.Render("a data set is a 10x MatrixMarket folder, a dense CSV/TSV file, an AnnData .h5ad or a Cell Ranger .h5 file"))
		}
		return out
	}
	pk := p.peek
	if pk == nil {
		if p.rootErr != nil {
			add(st.Warn.Render("folder list off: " + p.rootErr.Error()))
		}
		add(st.Muted.Render("enter peeks at the highlighted set: its shape and classes, read from its headers; space then loads it"))
		add(st.Muted.Render("the data now: " + p.label(p.c.Config.Data)))
		return out
	}
	add(st.BoxTitle.Render(pk.Name) + st.Muted.Render(" · "+pk.Format))
	switch {
	case pk.Cells == 0:
		add(st.Label.Render("shape ") + st.Muted.Render("read at load"))
	case pk.Unoriented:
		add(st.Label.Render("shape ") + st.Value.Render(fmt.Sprintf("%d rows × %d columns", pk.Cells, pk.Genes)) + st.Muted.Render(" (cells and genes: orientation decides at load)"))
	default:
		s := fmt.Sprintf("%d cells × %d genes", pk.Cells, pk.Genes)
		if pk.NonZero > 0 {
			s += fmt.Sprintf(" · %d stored entries", pk.NonZero)
		}
		add(st.Label.Render("shape ") + st.Value.Render(s))
	}
	if pk.Bytes > 0 {
		add(st.Label.Render("on disk ") + st.Value.Render(fmtBytes(pk.Bytes)))
	}
	if p.h5ad() {
		for _, l := range p.h5adLines() {
			add(l)
		}
	} else {
		add(st.Label.Render("classes ") + classList(pk.Classes))
	}
	add(st.Label.Render("preprocessing ") + st.Muted.Render(prepPlan(p.c.Config.Preprocess)))
	add(st.Good.Render("space loads it; the next runs use it"))
	if pk.Later != "" && !p.h5ad() { // an .h5ad's labels are chosen above
		add(st.Muted.Render("at load: " + pk.Later))
	}
	if pk.Description != "" {
		add(st.Muted.Render(pk.Description))
	}
	return out
}

// summaryLines describe a loaded set: what `dpscope data inspect` prints.
func (p *dataPicker) summaryLines(s datasets.Summary, w int) []string {
	st := p.c.Styles
	var out []string
	add := func(x string) { out = append(out, wrap(x, w)...) }
	add(st.Good.Render("✔ loaded ") + st.BoxTitle.Render(s.Name) + st.Muted.Render(" · the next runs use it"))
	add(st.Label.Render("shape ") + st.Value.Render(fmt.Sprintf("%d cells × %d genes, %s, sparsity %.1f%%", s.Cells, s.Genes, s.ValueType, 100*s.Sparsity)))
	add(st.Label.Render("after preprocessing ") + st.Value.Render(fmt.Sprintf("%d cells × %d genes", s.KeptCells, s.SelectedGenes)))
	c := classList(s.Classes)
	if s.Unlabelled > 0 {
		c += st.Warn.Render(fmt.Sprintf(" · %d unlabelled", s.Unlabelled))
	}
	add(st.Label.Render("classes ") + c)
	for _, step := range s.Preprocessing {
		mark, style := "✓ ", st.Muted
		if step.Skipped {
			mark, style = "– ", st.Skipped
		}
		out = append(out, hang("  "+mark, step.Name+": "+step.Detail, w, style)...)
	}
	for _, wn := range s.Warnings {
		out = append(out, hang("  ⚠ ", wn, w, st.Warn)...)
	}
	return out
}

// classList writes classes as "n: name 12 · name 30", or says none are
// known.
func classList(cs []datasets.ClassCount) string {
	if cs == nil {
		return "known at load"
	}
	if len(cs) == 0 {
		return "none (unlabelled)"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.Name, c.Cells)
	}
	return fmt.Sprintf("%d: %s", len(cs), strings.Join(parts, " · "))
}

// prepPlan says what preprocessing a load runs, from the session's
// settings (the defaults when nil).
func prepPlan(c *datasets.PreprocessConfig) string {
	pc := datasets.DefaultPreprocessConfig()
	if c != nil {
		pc = *c
	}
	parts := []string{}
	if pc.MinGenes > 0 {
		parts = append(parts, fmt.Sprintf("cells with ≥ %d genes", pc.MinGenes))
	}
	if pc.MinCells > 0 {
		parts = append(parts, fmt.Sprintf("genes in ≥ %d cells", pc.MinCells))
	}
	parts = append(parts, "normalise, log1p", fmt.Sprintf("%d genes by %s", pc.NTopGenes, pc.Selection))
	if pc.Scale {
		s := "scale"
		if pc.MaxValue > 0 {
			s += fmt.Sprintf(" (clip ±%g)", pc.MaxValue)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " → ")
}

// fmtBytes writes a size in B, kB, MB or GB.
func fmtBytes(n int64) string {
	switch {
	case n <= 0:
		return "nothing"
	case n < 1e3:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// ShortHelp returns the picker's help-bar bindings. Tab switches the
// picker's lists, not the screen, so the global tab binding is left out.
func (p *dataPicker) ShortHelp() []key.Binding {
	h := p.keyHelp()
	return append(h.Short, h.Keys.Help, h.Keys.Quit)
}

// FullHelp returns the picker's help-overlay bindings.
func (p *dataPicker) FullHelp() [][]key.Binding {
	h := p.keyHelp()
	return append(h.Full, []key.Binding{h.Keys.Help, h.Keys.Quit})
}

func (p *dataPicker) keyHelp() keys.Help {
	k := p.c.Keys
	peek := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "peek"))
	load := key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "load"))
	sw := key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "built-in/folder"))
	closeKey := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))
	short := []key.Binding{peek, load, sw, closeKey}
	full := []key.Binding{k.Up, k.Down, p.fp.KeyMap.Open, p.fp.KeyMap.Back, peek, load, sw, k.PageUp, k.PageDown, closeKey}
	if p.h5ad() {
		col := key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "labels column"))
		raw := key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "raw.X/X"))
		short = append([]key.Binding{col, raw}, short...)
		full = append(full, col, raw)
	}
	if p.loading != nil {
		short = append([]key.Binding{key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel load"))}, short...)
	}
	return keys.Help{Keys: k, Short: short, Full: [][]key.Binding{full}}
}
