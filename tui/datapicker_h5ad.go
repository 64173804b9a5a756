package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/datasets"
)

// h5ad reports whether the peeked set is an .h5ad file: it has obs
// columns to offer as labels or a raw.X to read instead of X.
func (p *dataPicker) h5ad() bool {
	return p.peek != nil && (len(p.peek.ObsColumns) > 0 || p.peek.HasRaw)
}

// peeked sets an .h5ad's labels column and raw.X from the session's
// settings when the file has them, and reads the column's classes; a file
// the session did not name starts unlabelled, reading X: which column
// holds the classes is the analyst's call (c cycles them), never a guess.
func (p *dataPicker) peeked() tea.Cmd {
	p.obsCol, p.obsClasses, p.obsErr, p.useRaw = -1, nil, nil, false
	if !p.h5ad() {
		return nil
	}
	cfg := p.c.Config
	for i, c := range p.peek.ObsColumns {
		if c.Name == cfg.LabelsColumn {
			p.obsCol = i
		}
	}
	p.useRaw = cfg.UseRaw && p.peek.HasRaw
	return p.columnCmd()
}

// nextColumn moves the labels to the next obs column, after the last one
// to none.
func (p *dataPicker) nextColumn() tea.Cmd {
	if p.loading != nil {
		return statusCmd("a load is running: wait for it or cancel it (ctrl+c) before changing its labels")
	}
	if len(p.peek.ObsColumns) == 0 {
		return statusCmd("obs has no categorical or string column: the cells load unlabelled")
	}
	p.obsCol++
	if p.obsCol >= len(p.peek.ObsColumns) {
		p.obsCol = -1
	}
	p.obsClasses, p.obsErr, p.loaded = nil, nil, nil
	return p.columnCmd()
}

// toggleRaw switches between X and raw.X.
func (p *dataPicker) toggleRaw() tea.Cmd {
	switch {
	case p.loading != nil:
		return statusCmd("a load is running: wait for it or cancel it (ctrl+c) before changing its matrix")
	case !p.peek.HasRaw:
		return statusCmd(p.peek.Name + " has no raw.X: X is read")
	}
	p.useRaw, p.loaded = !p.useRaw, nil
	return nil
}

// columnCmd reads the chosen obs column's classes in the background.
func (p *dataPicker) columnCmd() tea.Cmd {
	if p.obsCol < 0 {
		return nil
	}
	seq, col, path, name := p.seq, p.obsCol, p.peek.Spec, p.peek.ObsColumns[p.obsCol].Name
	return func() tea.Msg {
		cs, err := datasets.PeekObsClasses(path, name)
		return pickerColumnMsg{seq: seq, col: col, classes: cs, err: err}
	}
}

// h5adLines are the info column's lines on an .h5ad's labels and matrix.
func (p *dataPicker) h5adLines() []string {
	st := p.c.Styles
	pk := p.peek
	var out []string
	if len(pk.ObsColumns) > 0 {
		names := make([]string, len(pk.ObsColumns))
		for i, c := range pk.ObsColumns {
			names[i] = c.Name
			if c.Categories > 0 {
				names[i] += fmt.Sprintf(" (%d)", c.Categories)
			}
		}
		line := st.Label.Render("labels ")
		switch {
		case p.obsCol < 0:
			line += st.Warn.Render("none") + st.Muted.Render(" (ARI and NMI need labels)")
		default:
			line += st.Value.Render("obs/" + pk.ObsColumns[p.obsCol].Name)
		}
		out = append(out, line, st.Muted.Render("  c: next obs column of "+strings.Join(names, ", ")))
		switch {
		case p.obsCol < 0:
		case p.obsErr != nil:
			out = append(out, st.Error.Render("  "+p.obsErr.Error()))
		case p.obsClasses == nil:
			out = append(out, st.Label.Render("classes ")+st.Muted.Render("reading…"))
		default:
			out = append(out, st.Label.Render("classes ")+classList(p.obsClasses))
		}
	} else {
		out = append(out, st.Label.Render("labels ")+st.Warn.Render("none")+st.Muted.Render(": obs has no categorical or string column"))
	}
	if pk.HasRaw {
		m := "X"
		if p.useRaw {
			m = "raw.X (counts, as scanpy's use_raw)"
		}
		out = append(out, st.Label.Render("matrix ")+st.Value.Render(m)+st.Muted.Render(" · r: use raw.X or X"))
	}
	return out
}
