package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// The picker's two lists.
const (
	pickBuiltin = iota // the built-in (simulated) sets
	pickFolder         // files and folders, browsed with bubbles' filepicker
)

// dataPicker is the overlay (d) that chooses the session's data set: a
// built-in set or a path browsed from the data root, peeked (shape,
// classes, preprocessing) before it is loaded, then loaded in the
// background. A loaded set becomes the data of the next runs; a failed or
// cancelled load leaves the session's data as it was.
type dataPicker struct {
	c      *Common
	open   bool
	list   int
	names  []string // built-in set names
	cursor int      // in names
	fp     filepicker.Model
	// root is Config.DataRoot with every symlink resolved, "" when the
	// picker may browse anywhere; rootErr says why the folder list is off.
	root    string
	rootErr error
	peek    *datasets.Peek
	peekErr error
	seq     int          // the latest peek or load asked for; older answers are dropped
	loading *pickerLoad  // nil when no load runs
	loaded  *pickerEvent // the last load's outcome, shown until the next peek
	// An .h5ad's labels and matrix, as the load will read them: obsCol
	// indexes peek.ObsColumns (-1: no labels), obsClasses are that
	// column's classes once read, useRaw reads raw.X (only when the file
	// has it).
	obsCol     int
	obsClasses []datasets.ClassCount
	obsErr     error
	useRaw     bool
	// vp scrolls the information column (pgup/pgdn): a long peek or
	// summary is never cut on a small screen.
	vp   viewport.Model
	w, h int
}

// pickerLoad is a load running in the background.
type pickerLoad struct {
	spec    string
	bytes   int64
	started time.Time
	frames  int                // ticks so far: drives the spinner
	cancel  context.CancelFunc // stops the load's parsing and preprocessing
}

// pickerEvent is the outcome of a load: the summary of the loaded set, or
// the error that kept the session's data as it was.
type pickerEvent struct {
	summary datasets.Summary
	err     error
	spec    string
}

// The picker's messages: a peek, a load and the loading spinner's tick,
// each tagged with the request it answers.
type (
	pickerPeekMsg struct { // the peek's answer
		seq  int
		peek datasets.Peek
		err  error
	}
	pickerLoadedMsg struct {
		seq  int
		cfg  core.Config
		prep *datasets.Prepared
		err  error
	}
	pickerTickMsg   struct{ seq int }
	pickerColumnMsg struct { // an obs column's classes
		seq, col int
		classes  []datasets.ClassCount
		err      error
	}
)

// pickerTick is the spinner's period while a load runs.
const pickerTick = 120 * time.Millisecond

func newDataPicker(c *Common) *dataPicker {
	p := &dataPicker{c: c, names: datasets.BuiltinNames(), vp: viewport.New()}
	fp := filepicker.New()
	fp.DirAllowed, fp.FileAllowed = true, true
	// Neither permissions nor sizes: a folder's size says nothing of its
	// data (the peek gives that) and varies with the file system.
	fp.ShowPermissions, fp.ShowSize = false, false
	fp.AutoHeight = false
	fp.Cursor = "▸"
	fp.Styles.EmptyDirectory = fp.Styles.EmptyDirectory.SetString("no files here")
	// esc closes the picker; going up a folder is h, ← or backspace.
	fp.KeyMap.Back = key.NewBinding(key.WithKeys("h", "left", "backspace"), key.WithHelp("←/h", "up a folder"))
	fp.KeyMap.Open = key.NewBinding(key.WithKeys("l", "right", "enter"), key.WithHelp("→/l", "open"))
	start, err := os.Getwd()
	if c.Config.DataRoot != "" {
		start, err = resolveRoot(c.Config.DataRoot)
		p.root = start
	}
	if err != nil {
		p.rootErr = err
		p.list = pickBuiltin
	} else {
		fp.CurrentDirectory = start
	}
	p.fp = fp
	for i, n := range p.names {
		if datasets.BuiltinPrefix+n == c.Config.Data {
			p.cursor = i
		}
	}
	return p
}

// Open shows the picker and reads the folder list.
func (p *dataPicker) Open() tea.Cmd {
	p.open = true
	if p.rootErr != nil {
		return nil
	}
	return p.fp.Init()
}

// SetSize fits the picker to the pane area.
func (p *dataPicker) SetSize(w, h int) {
	p.w, p.h = w, h
	p.fp.SetHeight(max(p.listHeight(), 1))
}

func (p *dataPicker) listHeight() int { return p.h - 3 }

// Loading reports whether a load runs.
func (p *dataPicker) Loading() bool { return p.loading != nil }

// Cancel stops the running load: its context is cancelled, so the parser
// or the preprocessing stops at its next check (a block of the file, a
// step) and the goroutine ends; its result, when it comes, is ignored, so
// the session keeps its data. An HDF5 read, done by libhdf5 in one call,
// is dropped when that call returns.
func (p *dataPicker) Cancel() string {
	if p.loading == nil {
		return ""
	}
	p.loading.cancel()
	spec := p.loading.spec
	p.seq++
	p.loading = nil
	p.loaded = &pickerEvent{spec: spec, err: fmt.Errorf("load of %s cancelled: the data is unchanged", p.label(spec))}
	return "load cancelled: " + p.label(spec) + " not loaded; the data is unchanged"
}

// label names spec for messages.
func (p *dataPicker) label(spec string) string {
	if strings.HasPrefix(spec, datasets.BuiltinPrefix) {
		return spec
	}
	return p.display(spec)
}

// Update handles a key while the picker is shown.
func (p *dataPicker) Update(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys
	switch {
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Data):
		p.open = false
		return nil
	case msg.String() == "tab" || msg.String() == "shift+tab":
		if p.rootErr == nil {
			p.list = 1 - p.list
		}
		return nil
	case msg.String() == "space":
		return p.load()
	case msg.String() == "c" && p.h5ad():
		return p.nextColumn()
	case msg.String() == "r" && p.h5ad():
		return p.toggleRaw()
	case key.Matches(msg, k.PageUp, k.PageDown):
		var cmd tea.Cmd
		p.vp, cmd = p.vp.Update(msg)
		return cmd
	}
	if p.list == pickBuiltin {
		switch {
		case key.Matches(msg, k.Up):
			p.cursor = max(p.cursor-1, 0)
			return p.peekCmd(datasets.BuiltinPrefix + p.names[p.cursor])
		case key.Matches(msg, k.Down):
			p.cursor = min(p.cursor+1, len(p.names)-1)
			return p.peekCmd(datasets.BuiltinPrefix + p.names[p.cursor])
		case msg.String() == "enter" && len(p.names) > 0:
			return p.peekCmd(datasets.BuiltinPrefix + p.names[p.cursor])
		}
		return nil
	}
	return p.folderKey(msg)
}

// folderKey passes a key to the filepicker, refusing moves out of the data
// root, and peeks what enter selects.
func (p *dataPicker) folderKey(msg tea.KeyPressMsg) tea.Cmd {
	fk := p.fp.KeyMap
	switch {
	case key.Matches(msg, fk.Back):
		if p.root != "" && (filepath.Clean(p.fp.CurrentDirectory) == p.root || !within(p.root, filepath.Dir(p.fp.CurrentDirectory))) {
			return statusCmd("already at the data root: the picker does not leave it")
		}
	case key.Matches(msg, fk.Open):
		if h := p.fp.HighlightedPath(); h != "" {
			if err := p.checkPath(h); err != nil {
				p.peek, p.peekErr, p.loaded = nil, err, nil
				return ErrorCmd(err)
			}
		}
	}
	var cmd tea.Cmd
	p.fp, cmd = p.fp.Update(msg)
	if ok, path := p.fp.DidSelectFile(msg); ok {
		return tea.Batch(cmd, p.peekCmd(path))
	}
	return cmd
}

// observe passes the filepicker its own messages (its folder reads).
func (p *dataPicker) observe(msg tea.Msg) tea.Cmd {
	if _, key := msg.(tea.KeyPressMsg); key {
		return nil
	}
	var cmd tea.Cmd
	p.fp, cmd = p.fp.Update(msg)
	return cmd
}

// peekCmd reads spec's headers in the background.
func (p *dataPicker) peekCmd(spec string) tea.Cmd {
	if !strings.HasPrefix(spec, datasets.BuiltinPrefix) {
		if err := p.checkPath(spec); err != nil {
			p.peek, p.peekErr, p.loaded = nil, err, nil
			return ErrorCmd(err)
		}
	}
	if p.loading != nil {
		return statusCmd("a load is running: wait for it or cancel it (ctrl+c) before peeking another set")
	}
	p.seq++
	seq := p.seq
	return func() tea.Msg {
		pk, err := datasets.PeekData(spec)
		return pickerPeekMsg{seq: seq, peek: pk, err: err}
	}
}

// load starts loading the peeked set in the background.
func (p *dataPicker) load() tea.Cmd {
	switch {
	case p.loading != nil:
		return statusCmd("loading " + p.label(p.loading.spec) + "… (ctrl+c cancels)")
	case p.peek == nil:
		return statusCmd("nothing to load: pick a data set with enter first")
	}
	spec := p.peek.Spec
	if !strings.HasPrefix(spec, datasets.BuiltinPrefix) {
		if err := p.checkPath(spec); err != nil {
			return ErrorCmd(err)
		}
	}
	// A picked set is read with the session's preprocessing and the
	// loader's defaults for the rest: a labels file and the orientation
	// belong to the set the command line named…
	cfg := core.Config{Data: spec, Preprocess: p.c.Config.Preprocess}
	if p.h5ad() {
		// …except an .h5ad's labels column and raw.X, chosen here.
		if p.obsCol >= 0 {
			cfg.LabelsColumn = p.peek.ObsColumns[p.obsCol].Name
		}
		cfg.UseRaw = p.useRaw && p.peek.HasRaw
	}
	p.seq++
	seq := p.seq
	ctx, cancel := context.WithCancel(context.Background())
	p.loading = &pickerLoad{spec: spec, bytes: p.peek.Bytes, started: time.Now(), cancel: cancel}
	p.loaded = nil
	return tea.Batch(
		func() tea.Msg {
			defer cancel()
			prep, err := cfg.LoadDataContext(ctx)
			return pickerLoadedMsg{seq: seq, cfg: cfg, prep: prep, err: err}
		},
		pickerTickCmd(seq))
}

func pickerTickCmd(seq int) tea.Cmd {
	return tea.Tick(pickerTick, func(time.Time) tea.Msg { return pickerTickMsg{seq} })
}

// handle takes the picker's own messages; ok is false for any other.
func (m *Model) handlePicker(msg tea.Msg) (tea.Cmd, bool) {
	p := m.picker
	switch msg := msg.(type) {
	case pickerPeekMsg:
		if msg.seq == p.seq {
			pk := msg.peek
			p.peek, p.peekErr, p.loaded = &pk, msg.err, nil
			if msg.err != nil {
				p.peek = nil
			}
			return p.peeked(), true
		}
		return nil, true
	case pickerColumnMsg:
		if msg.seq == p.seq && msg.col == p.obsCol {
			p.obsClasses, p.obsErr = msg.classes, msg.err
		}
		return nil, true
	case pickerTickMsg:
		if p.loading == nil || msg.seq != p.seq {
			return nil, true
		}
		p.loading.frames++
		return pickerTickCmd(msg.seq), true
	case pickerLoadedMsg:
		if msg.seq != p.seq || p.loading == nil {
			return nil, true // cancelled, or superseded
		}
		p.loading.cancel()
		p.loading = nil
		if msg.err != nil {
			p.loaded = &pickerEvent{spec: msg.cfg.Data, err: msg.err}
			m.status, m.errored = "cannot load "+p.label(msg.cfg.Data)+": "+msg.err.Error()+" (the data is unchanged)", true
			return nil, true
		}
		s := msg.prep.Summary()
		p.loaded = &pickerEvent{spec: msg.cfg.Data, summary: s}
		return m.adoptData(msg.cfg, s), true
	}
	return nil, false
}

// adoptData makes cfg's data set the data of the next runs: the session's
// configuration, the header and every pane's parameters follow. A run
// going keeps the data it started with.
func (m *Model) adoptData(cfg core.Config, s datasets.Summary) tea.Cmd {
	c := &m.c.Config
	c.Data, c.Summary = cfg.Data, s
	c.Labels, c.LabelsColumn, c.UseRaw, c.Orientation = cfg.Labels, cfg.LabelsColumn, cfg.UseRaw, cfg.Orientation
	m.status, m.errored = fmt.Sprintf("data: %s, %d cells × %d genes after preprocessing; the next runs use it", s.Name, s.KeptCells, s.SelectedGenes), false
	rp, ok := m.panes[TabRun].(*runPane)
	if !ok {
		return nil
	}
	rp.params.Data = cfg.Data
	rp.reproject()
	return m.broadcast(ParamsMsg{rp.params})
}
