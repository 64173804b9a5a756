package tui

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/session"
)

// userStateDir is the user data dir's dpscope folder: $XDG_DATA_HOME/dpscope,
// else os.UserConfigDir()/dpscope, else one in the temporary folder (no
// home at all: a container), so that autosave always has somewhere to go.
func userStateDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dpscope")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "dpscope")
	}
	return filepath.Join(os.TempDir(), "dpscope")
}

// autosaveEvery bounds how often a going run is autosaved: a run's events
// arrive many times a second, and a session of long runs is megabytes. A
// finished run is autosaved at once.
const autosaveEvery = 10 * time.Second

// sessionState is the session as it is saved: every finished run as the
// file holds it, the going one, and where the session saves.
type sessionState struct {
	runs      []session.Run // finished, oldest first
	current   *session.Run  // the going run, nil between runs
	autosave  string        // the autosave file, StateDir/sessions/…
	file      string        // where ctrl+s saves; "" until the first save
	savedRuns int           // len(runs) at the last save to file
	lastAuto  time.Time     // when the last autosave started
	saving    bool          // an autosave is being written
	again     bool          // the session changed while it was written
	told      bool          // the status line has said where it autosaves
	pending   tea.Cmd       // the reopened session's commands, run by Init
	edited    bool          // the settings changed since the last run started
	reopened  bool          // replayed from a file: the panes know the settings
	started   time.Time
}

func newSessionState(cfg Config) *sessionState {
	now := time.Now()
	name := fmt.Sprintf("autosave-%s-%d.json", now.UTC().Format("20060102-150405"), os.Getpid())
	return &sessionState{autosave: filepath.Join(cfg.StateDir, "sessions", name), started: now}
}

// unsaved is the number of finished runs not yet saved to a file.
func (s *sessionState) unsaved() int { return len(s.runs) - s.savedRuns }

// savedParams are the Run screen's settings as a session stores them: the
// method control by its label (its index depends on the methods this
// build registers).
type savedParams struct {
	Variant  string    `json:"variant"`
	FedOf    string    `json:"fed_of,omitempty"`
	Settings runParams `json:"settings"`
	// Edited: the settings were changed after the last run started (the
	// screens then show the new plan, not the run's).
	Edited bool `json:"edited,omitempty"`
}

func saveParams(pr runParams) savedParams {
	pr.Opts = maps.Clone(pr.Opts) // the command writing the file reads it later
	sp := savedParams{Variant: pr.V().Label, Settings: pr}
	if vs := variants(); pr.Fed.of >= 0 && pr.Fed.of < len(vs) {
		sp.FedOf = vs[pr.Fed.of].Label
	}
	return sp
}

// sessionStart begins recording run id of cfg.
func (m *Model) sessionStart(id int, cfg core.Config) {
	r := &session.Run{ID: id, Config: cfg}
	if rp, ok := m.panes[TabRun].(*runPane); ok {
		r.Variant, r.Params = rp.params.V().Label, saveParams(rp.params)
	}
	m.sess.current, m.sess.edited = r, false
}

// sessionEvents records the going run's events, and autosaves it now and
// then.
func (m *Model) sessionEvents(evs []core.Event) tea.Cmd {
	if m.sess.current == nil {
		return nil
	}
	for _, ev := range evs {
		if e, ok := session.EncodeEvent(ev); ok {
			if e.Type == "embedding" {
				// Only the last embedding is drawn: keep one.
				m.sess.current.Events = dropType(m.sess.current.Events, "embedding")
			}
			m.sess.current.Events = append(m.sess.current.Events, e)
		}
	}
	return m.autosaveCmd(false)
}

// dropType removes the events of kind typ, without touching the array an
// earlier snapshot may be writing.
func dropType(evs []session.Event, typ string) []session.Event {
	for i, e := range evs {
		if e.Type == typ {
			out := make([]session.Event, 0, len(evs))
			out = append(out, evs[:i]...)
			for _, e := range evs[i+1:] {
				if e.Type != typ {
					out = append(out, e)
				}
			}
			return out
		}
	}
	return evs
}

// sessionRefs records a run's reference lines.
func (m *Model) sessionRefs(msg runReferencesMsg) {
	refs := msg.refs.session()
	if c := m.sess.current; c != nil && c.ID == msg.id {
		c.References = refs
	}
	for i := range m.sess.runs {
		if m.sess.runs[i].ID == msg.id {
			m.sess.runs[i].References = refs
		}
	}
}

// sessionClose files the going run with Compare's summary of it and
// autosaves.
func (m *Model) sessionClose() tea.Cmd {
	c := m.sess.current
	if c == nil {
		return nil
	}
	m.sess.current = nil
	if rp, ok := m.panes[TabRun].(*runPane); ok {
		c.Clock = rp.clock.elapsed().Seconds()
	}
	if cp, ok := m.panes[TabCompare].(*comparePane); ok {
		if recs := cp.Records(); len(recs) > 0 && recs[len(recs)-1].ID == c.ID {
			c.Summary = recs[len(recs)-1].summary()
		}
	}
	m.sess.runs = append(m.sess.runs, *c)
	return m.autosaveCmd(true)
}

// snapshot is the session as a file, from copies the writing command may
// read while the model goes on.
func (m *Model) snapshot() session.File {
	cfg := m.c.Config
	f := session.File{
		Version: cfg.Version, Saved: time.Now().UTC().Format(time.RFC3339),
		Data: session.DataSettings{Spec: cfg.Data, Labels: cfg.Labels, LabelsColumn: cfg.LabelsColumn, UseRaw: cfg.UseRaw, Orientation: cfg.Orientation, Preprocess: cfg.Preprocess},
		Runs: append([]session.Run(nil), m.sess.runs...),
	}
	if c := m.sess.current; c != nil {
		r := *c
		r.Events = r.Events[:len(r.Events):len(r.Events)]
		f.Runs = append(f.Runs, r)
	}
	if rp, ok := m.panes[TabRun].(*runPane); ok {
		sp := saveParams(rp.params)
		sp.Edited = m.sess.edited
		f.Params = sp
	}
	if c := m.tally.costs(unitCell); len(c) > 0 {
		f.Tally = c
	}
	if c := m.tally.costs(unitClient); len(c) > 0 {
		f.TallyClients = c
	}
	return f
}

// writeSession writes f to path, through a temporary file renamed into
// place: a crash mid-write leaves the previous file whole.
func writeSession(path string, f session.File) error {
	b, err := session.Encode(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, b)
}

// autosavedMsg reports an autosave.
type autosavedMsg struct {
	path string
	err  error
}

// autosaveCmd writes the session to its autosave file in a command: at
// once when force, else at most every autosaveEvery. One write at a time;
// a change during it is written after it.
func (m *Model) autosaveCmd(force bool) tea.Cmd {
	s := m.sess
	if m.sessionEmpty() {
		return nil
	}
	if s.saving {
		s.again = s.again || force
		return nil
	}
	if !force && time.Since(s.lastAuto) < autosaveEvery {
		return nil
	}
	s.saving, s.lastAuto = true, time.Now()
	f, path := m.snapshot(), s.autosave
	return func() tea.Msg { return autosavedMsg{path: path, err: writeSession(path, f)} }
}

// autosaved takes an autosave's report: the first says where it went.
func (m *Model) autosaved(msg autosavedMsg) tea.Cmd {
	s := m.sess
	s.saving = false
	if msg.err != nil {
		m.status, m.errored = "autosave failed: "+msg.err.Error()+" (ctrl+s saves to a file)", true
		return nil
	}
	if !s.told {
		s.told = true
		m.status += " · session autosaved to " + msg.path
	}
	if s.again {
		s.again = false
		return m.autosaveCmd(true)
	}
	return nil
}

// flushAutosave writes the session to its autosave file now, at quit.
func (m *Model) flushAutosave() {
	if !m.sessionEmpty() {
		_ = writeSession(m.sess.autosave, m.snapshot()) // best effort: the program is ending
	}
}

// sessionEmpty reports whether there is nothing to save: no run and no
// private release (a Trade-off sweep's runs are in the tally alone).
func (m *Model) sessionEmpty() bool {
	return len(m.sess.runs) == 0 && m.sess.current == nil && len(m.tally.byData) == 0 && len(m.tally.clients) == 0
}

// sessionPath is where ctrl+s saves: the session's file, else a new one in
// the export folder named after the session's start.
func (m *Model) sessionPath() string {
	if m.sess.file != "" {
		return m.sess.file
	}
	return filepath.Join(m.c.Config.ExportDir, "dpscope-session-"+m.sess.started.Format("20060102-150405")+".json")
}

// sessionSavedMsg reports a save to file.
type sessionSavedMsg struct {
	path string
	runs int // finished runs the file holds
	err  error
}

// saveCmd saves the session to its file in a command.
func (m *Model) saveCmd() tea.Cmd {
	f, path, n := m.snapshot(), m.sessionPath(), len(m.sess.runs)
	f.Named = true
	return func() tea.Msg { return sessionSavedMsg{path: path, runs: n, err: writeSession(path, f)} }
}

// saveNow saves the session to its file before quitting.
func (m *Model) saveNow() error {
	path := m.sessionPath()
	f := m.snapshot()
	f.Named = true
	if err := writeSession(path, f); err != nil {
		return fmt.Errorf("save session to %s: %w", path, err)
	}
	m.sess.file, m.sess.savedRuns = path, len(m.sess.runs)
	return nil
}

// sessionSaved takes a save's report.
func (m *Model) sessionSaved(msg sessionSavedMsg) tea.Cmd {
	if msg.err != nil {
		m.status, m.errored = fmt.Sprintf("save session to %s: %v", msg.path, msg.err), true
		return nil
	}
	m.sess.file, m.sess.savedRuns = msg.path, max(m.sess.savedRuns, msg.runs)
	m.status, m.errored = fmt.Sprintf("session saved to %s (%d runs)", msg.path, msg.runs), false
	return nil
}

// runsWord is "1 run" or "N runs".
func runsWord(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// unsavedDialog asks whether to quit with runs not saved to a file, and
// says where they were autosaved and where s saves them.
func (m *Model) unsavedDialog() string {
	w := max(min(m.width-8, 70), 20)
	wrap := func(s string) string { return lipgloss.NewStyle().Width(w).Render(s) }
	return strings.Join([]string{
		wrap(fmt.Sprintf("%s of this session not saved to a file.", runsWord(m.sess.unsaved()))),
		wrap("Autosaved to " + m.sess.autosave),
		"",
		wrap("s  save to " + m.sessionPath() + " and quit"),
		"y  quit    n  stay",
	}, "\n")
}
