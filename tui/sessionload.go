package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"reflect"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/session"
)

// maxSessionBytes bounds the session file read: larger is not a session
// dpscope wrote (a run's events are kilobytes to a few megabytes).
const maxSessionBytes = 1 << 30

// openSession reopens the session in path, or notes that a missing file
// is where this session will save. A file that cannot be read or is not a
// session is left as it is: the session then saves elsewhere and the
// status line says why.
func (m *Model) openSession(path string) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		m.sess.file = path
		m.status = "new session: ctrl+s saves it to " + path
		return
	}
	if err == nil && st.Size() > maxSessionBytes {
		err = fmt.Errorf("%d bytes, more than a session holds", st.Size())
	}
	var f session.File
	if err == nil {
		var b []byte
		if b, err = os.ReadFile(path); err == nil {
			f, err = session.Decode(b)
		}
	}
	if err != nil {
		m.status, m.errored = fmt.Sprintf("session %s: %v — the file is left as it was; ctrl+s saves this session to a new file", path, err), true
		return
	}
	m.sess.pending, m.sess.reopened = m.replay(f), true
	m.sess.file, m.sess.savedRuns = path, len(m.sess.runs)
	m.status = fmt.Sprintf("reopened %s: %d runs (ctrl+s saves back to it)", path, len(f.Runs))
}

// replay redraws the screens from a saved session: every run is fed to the
// panes as its start, its events, its reference lines and its end were,
// without an engine. It returns the panes' commands (the Budget screen's
// audit), for Init to run.
func (m *Model) replay(f session.File) tea.Cmd {
	var cmds []tea.Cmd
	rp, _ := m.panes[TabRun].(*runPane)
	noRefs := m.c.Config.NoReferences
	m.c.Config.NoReferences = true // the saved lines, not new ones
	var last runParams
	for _, r := range f.Runs {
		last = m.restoredParams(r.Params, r.Variant, r.Config)
		cmds = append(cmds, m.setRunParams(last))
		m.c.RunID, m.c.RunState = r.ID, RunRunning
		cmds = append(cmds, m.broadcast(RunStartedMsg{ID: r.ID, Config: r.Config}))
		if len(r.Decoded) > 0 {
			cmds = append(cmds, m.broadcast(EngineEventsMsg{ID: r.ID, Events: r.Decoded}))
			m.noteEvents(r.Decoded)
		}
		if r.References.B1 != nil || r.References.Null != nil || r.References.Baseline != nil {
			cmds = append(cmds, m.broadcast(runReferencesMsg{id: r.ID, refs: refsOf(r.References)}))
		}
		m.c.RunState = RunFinished
		cmds = append(cmds, m.broadcast(EngineClosedMsg{ID: r.ID}))
		if !ended(r.Decoded) {
			// Autosaved while it went, then cut short (a crash, a dropped
			// link): say so rather than leave its outcome blank.
			r.Summary.Outcome = outcomeInterrupted
			if cp, ok := m.panes[TabCompare].(*comparePane); ok && len(cp.records) > 0 && cp.records[len(cp.records)-1].ID == r.ID {
				cp.records[len(cp.records)-1].Outcome = outcomeInterrupted
			}
		}
		if rp != nil {
			el := elapsedOf(r.Decoded)
			if r.Clock > 0 && r.Clock < 1e9 {
				el = time.Duration(r.Clock * float64(time.Second))
			}
			rp.clock.replayed(el)
		}
		r.Decoded = nil
		m.sess.runs = append(m.sess.runs, r)
	}
	m.c.Config.NoReferences = noRefs
	m.sess.edited = false // the replay's own set-ups were the runs' starts
	for data, c := range f.Tally {
		m.tally.byData[data] = &c
	}
	for data, c := range f.TallyClients {
		m.tally.clients[data] = &c
	}
	if f.Params != nil {
		// The settings as saved. Edited after the last run, they are told
		// to every pane, as the edit was; else they differ from the run's
		// start only by what the engine put in force (the σ it solved),
		// which the Run screen alone follows.
		pr := m.restoredParams(f.Params, "", core.Config{})
		var sp savedParams
		_ = session.DecodeParams(f.Params, &sp)
		switch {
		case len(f.Runs) == 0 || sp.Edited:
			cmds = append(cmds, m.setRunParams(pr))
			m.sess.edited = sp.Edited
		case rp != nil && !reflect.DeepEqual(pr, last):
			rp.params = pr // its projection stays the run's last report, as it did
			rp.form.settle()
		}
	}
	return tea.Batch(cmds...)
}

// outcomeInterrupted is the outcome of a reopened run whose events stop
// before its end: the session was autosaved while it went.
const outcomeInterrupted = "interrupted"

// ended reports whether a run's events include its end (done or failed).
func ended(evs []core.Event) bool {
	return slices.ContainsFunc(evs, func(ev core.Event) bool {
		switch ev.(type) {
		case core.DoneEvent, core.ErrorEvent:
			return true
		}
		return false
	})
}

// elapsedOf is a run's time as its end event reports it.
func elapsedOf(evs []core.Event) time.Duration {
	for _, ev := range slices.Backward(evs) {
		if d, ok := ev.(core.DoneEvent); ok {
			return d.Elapsed
		}
	}
	return 0
}

// setRunParams gives the Run screen pr as if typed (its form, method
// charts and projection follow) and tells every pane.
func (m *Model) setRunParams(pr runParams) tea.Cmd {
	if rp, ok := m.panes[TabRun].(*runPane); ok {
		rp.params = pr
		rp.sched = schedule{}
		rp.charts.guarantee = nil
		rp.editedAfterRun = true // the badge is the new settings' expected one
		rp.form.settle()
		if !rp.charts.started {
			rp.charts.setMethod(pr)
		}
		rp.reproject()
	}
	m.sess.edited = true // a lesson's set-up is an edit too
	return m.broadcast(ParamsMsg{pr})
}

// restoredParams are the settings a session saved (t, a tree), on the Run
// screen's current ones. The method control is found by its label, else by
// the run's method and mode; settings out of range (a file edited by
// hand) are left at the current ones.
func (m *Model) restoredParams(t any, label string, cfg core.Config) runParams {
	var sp savedParams
	ok := t != nil && session.DecodeParams(t, &sp) == nil
	return m.paramsOf(sp, ok, label, cfg)
}

// paramsOf is restoredParams once the tree is read (ok: sp holds it); a
// pushed preset (class.go) comes here as it is.
func (m *Model) paramsOf(sp savedParams, ok bool, label string, cfg core.Config) runParams {
	var base runParams
	if rp, ok := m.panes[TabRun].(*runPane); ok {
		base = rp.params
	} else {
		base = defaultParams(m.c.Config.Data, m.c.Config.Seed, m.c.Config.Epochs)
	}
	pr := base
	if ok && checkParams(sp.Settings) == nil {
		pr = sp.Settings
		if sp.Variant != "" {
			label = sp.Variant
		}
	}
	vs := variants()
	pr.Variant = base.Variant
	if i := slices.IndexFunc(vs, func(v Variant) bool { return v.Label == label }); i >= 0 {
		pr.Variant = i
	} else if i := slices.IndexFunc(vs, func(v Variant) bool { return v.Method == cfg.Method && v.Mode == cfg.Mode }); i >= 0 {
		pr.Variant = i
	}
	pr.Fed.of = base.Fed.of
	if i := slices.IndexFunc(vs, func(v Variant) bool { return v.Label == sp.FedOf }); i >= 0 {
		pr.Fed.of = i
	}
	if pr.Opts == nil {
		pr.Opts = map[string]string{}
	}
	return pr
}

// checkParams refuses settings the Run screen's controls cannot hold.
func checkParams(p runParams) error {
	finite := func(vs ...float64) bool {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e9 {
				return false
			}
		}
		return true
	}
	mf, fd := p.Manifold, p.Fed
	ints := []int{p.Epochs[0], p.Epochs[1], mf.D, mf.N, mf.Queries, mf.T, mf.Dim, fd.Clients, fd.Rounds, fd.LocalEpochs}
	switch {
	case !finite(p.Epsilon, p.Delta, p.Sigma, p.Clip, p.SampleRate, mf.Noise, mf.Theta, mf.H, mf.Epsilon, mf.Delta, fd.Epsilon, fd.Delta, fd.Clip, fd.Sigma):
		return errors.New("a setting is not a finite non-negative number")
	case p.SampleRate <= 0 || p.SampleRate > 1:
		return fmt.Errorf("q %v is not in (0, 1]", p.SampleRate)
	case slices.ContainsFunc(ints, func(n int) bool { return n < 0 || n > 1_000_000 }):
		return errors.New("a count is out of range")
	case p.Layers.First < 1 || p.Layers.Last > numLayers || p.Layers.First > p.Layers.Last:
		return fmt.Errorf("layers %s are not within 1-%d", p.Layers, numLayers)
	case p.Accountant != "rdp" && p.Accountant != "pld":
		return fmt.Errorf("accountant %q", p.Accountant)
	case !slices.Contains(splits, fd.Split):
		return fmt.Errorf("client split %q", fd.Split)
	}
	return nil
}
