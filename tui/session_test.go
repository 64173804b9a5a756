package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/session"
)

var ctrlS = tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}

// sessionConfig is a test session's configuration, saving under dir.
func sessionConfig(dir string) Config {
	return Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, Epochs: [2]int{1, 1},
		ExportDir: dir, StateDir: filepath.Join(dir, "state"), Version: "v-test", NoReferences: true}
}

// screens are the model's screens of every tab without the status line
// (it says what was done last: "run finished", "reopened …").
func screens(t *testing.T, m Model) []string {
	t.Helper()
	var out []string
	for tab := range len(m.panes) {
		m = press(t, m, string(rune('1'+tab)))
		m.frame() // the frame tick a test does not run
		lines := strings.Split(text(m), "\n")
		lines = append(lines[:len(lines)-2:len(lines)-2], lines[len(lines)-1])
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// twoRuns is a session of two finished runs of the fake engine, the second
// at a lower ε target.
func twoRuns(t *testing.T, dir string, w, h int) Model {
	t.Helper()
	m := sized(t, New(sessionConfig(dir)), w, h)
	m = press(t, m, "s")
	m = press(t, m, "j", "j", "h", "k", "k") // ε target one step down; the cursor back (not saved)
	m = press(t, m, "s")
	if n := len(m.Pane(TabCompare).(*comparePane).Records()); n != 2 {
		t.Fatalf("%d runs recorded, want 2; status %q", n, m.Status())
	}
	return m
}

func TestSavedSessionReloadsToTheSameScreens(t *testing.T) {
	for _, size := range [][3]int{{80, 24, 0}, {160, 48, 0}, {80, 24, 1}} {
		dir := t.TempDir()
		m := twoRuns(t, dir, size[0], size[1])
		if size[2] == 1 {
			// Settings changed after the last run: the screens show the
			// new plan, and so must the reopened ones.
			m = press(t, m, "j", "j", "h", "k", "k")
		}
		before := screens(t, m)
		if m.sess.unsaved() != 2 {
			t.Errorf("%d unsaved runs, want 2", m.sess.unsaved())
		}
		m = send(t, m, ctrlS)
		path := m.sess.file
		if path == "" || !strings.Contains(m.Status(), "session saved to "+path) || m.sess.unsaved() != 0 {
			t.Fatalf("after ctrl+s: file %q, status %q, %d unsaved", path, m.Status(), m.sess.unsaved())
		}
		cfg := sessionConfig(dir)
		cfg.SessionFile = path
		back := sized(t, New(cfg), size[0], size[1])
		if !strings.Contains(back.Status(), "reopened "+path+": 2 runs") {
			t.Errorf("status after reopening: %q", back.Status())
		}
		after := screens(t, back)
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("%dx%d tab %d differs after reload:\n--- saved\n%s\n--- reopened\n%s", size[0], size[1], i+1, before[i], after[i])
			}
		}
		if back.sess.unsaved() != 0 {
			t.Errorf("a reopened session has %d unsaved runs, want 0", back.sess.unsaved())
		}
	}
}

func TestUnreadableSessionFileIsLeftAsItWas(t *testing.T) {
	dir := t.TempDir()
	m := twoRuns(t, dir, 80, 24)
	good, err := session.Encode(m.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"newer", bytes.Replace(good, []byte(`"schema": 1`), []byte(`"schema": 99`), 1), []string{"schema 99", "upgrade dpscope", "left as it was"}},
		{"truncated", good[:len(good)/3], []string{"not a dpscope session file", "left as it was"}},
		{"damaged event", bytes.Replace(good, []byte(`"type": "step"`), []byte(`"type": "stpe"`), 1), []string{`unknown event type "stpe"`, "left as it was"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := sessionConfig(t.TempDir())
			cfg.SessionFile = path
			m := sized(t, New(cfg), 80, 24)
			for _, w := range tc.want {
				if !strings.Contains(m.Status(), w) {
					t.Errorf("status %q lacks %q", m.Status(), w)
				}
			}
			if !m.errored {
				t.Error("the status line does not show an error")
			}
			// A run and a save go elsewhere: the file stays as it was.
			m = press(t, m, "s")
			m = send(t, m, ctrlS)
			if m.sess.file == path || m.sess.file == "" {
				t.Errorf("saved to %q, want a new file", m.sess.file)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, tc.data) {
				t.Error("the unreadable session file was changed")
			}
			if _, err := os.Stat(m.sess.file); err != nil {
				t.Errorf("the session was not saved: %v", err)
			}
		})
	}
}

func TestQuitAsksWithUnsavedRunsAndAutosaves(t *testing.T) {
	dir := t.TempDir()
	m := sized(t, New(sessionConfig(dir)), 80, 24)
	if _, cmd := m.Update(kp("q")); cmd == nil {
		t.Fatal("q without runs: no command, want tea.Quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q without runs did not quit")
	}
	m = press(t, m, "s")
	// The finished run was autosaved, and the status line says where.
	auto := m.sess.autosave
	if !strings.HasPrefix(auto, filepath.Join(dir, "state", "sessions")+string(filepath.Separator)) || !strings.Contains(m.Status(), "autosaved to "+auto) {
		t.Errorf("autosave %q, status %q", auto, m.Status())
	}
	b, err := os.ReadFile(auto)
	if err != nil {
		t.Fatal(err)
	}
	f, err := session.Decode(b)
	if err != nil || len(f.Runs) != 1 || len(f.Runs[0].Decoded) == 0 || f.Version != "v-test" || f.Data.Spec != "builtin:toy" {
		t.Fatalf("autosave holds %+v (%v), want the one run with its events", f, err)
	}
	if f.Runs[0].Summary.Outcome != "finished" || f.Runs[0].Summary.Steps == 0 || f.Tally["builtin:toy"].PrivateRuns != 1 {
		t.Errorf("autosaved summary %+v, tally %+v", f.Runs[0].Summary, f.Tally)
	}
	next, cmd := m.Update(kp("q"))
	m = next.(Model)
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("q quit at once with an unsaved run, want a question")
		}
	}
	view := text(m)
	for _, w := range []string{"1 run of this session not saved", "s  save to", "y  quit", "n  stay"} {
		if !strings.Contains(view, w) {
			t.Errorf("dialog lacks %q:\n%s", w, view)
		}
	}
	checkFits(t, m.View().Content, 80, 24)
	m = press(t, m, "n")
	if m.unsaved || strings.Contains(text(m), "not saved to a file") {
		t.Error("the question stays after n")
	}
	m = press(t, m, "q")
	next, cmd = m.Update(kp("s"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("s: no command, want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("s did not save and quit")
	}
	if b, err := os.ReadFile(m.sess.file); err != nil {
		t.Fatal(err)
	} else if f, err := session.Decode(b); err != nil || len(f.Runs) != 1 {
		t.Errorf("saved file: %d runs, %v", len(f.Runs), err)
	}
}

// FuzzReopenSession: whatever a session file holds, reopening it never
// panics, and every screen draws within the terminal.
func FuzzReopenSession(f *testing.F) {
	dir := f.TempDir()
	f.Add([]byte(`{"format":"dpscope-session","schema":1,"runs":[{"id":1,"config":{"method":"tui-fake","epochs":[1,1]},"events":[{"type":"step","data":{"step":3,"loss":"NaN"}},{"type":"budget","data":{"step":3,"spent":[{"accountant":"RDP","epsilon":"+Inf"}]}}]}]}`))
	f.Add([]byte(`{"format":"dpscope-session","schema":1,"params":{"variant":"nope","settings":{"SampleRate":0,"Epochs":[-1,2]}},"runs":[{"id":3,"variant":"x","events":[{"type":"embedding","data":{"x":[1],"y":[2],"cluster":[-5]}},{"type":"clients","data":{"k":2,"sizes":[1,2],"classes":[["a"]]}}]}]}`))
	f.Add([]byte(`{"format":"dpscope-session","schema":1,"tally":{"builtin:toy":{"private_runs":-3,"epsilon_total":"NaN"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := session.Decode(b); err != nil {
			// Refused before any screen is touched (FuzzDecode covers the
			// parser; TestUnreadableSessionFileIsLeftAsItWas the screens).
			return
		}
		path := filepath.Join(dir, "fuzz.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := sessionConfig(dir)
		cfg.SessionFile = path
		m := New(cfg)
		// Not the commands (the Budget screen's audit, the Planner's
		// curves): they take a second under the fuzzer, and read no file.
		next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		m = next.(Model)
		for _, tab := range []int{TabRun, TabBudget, TabCompare} {
			m.active = tab
			m.layout()
			m.frame()
			checkFits(t, m.View().Content, 80, 24)
		}
	})
}

// TestAutosaveDuringARunCountsItsSpend: a session saved while a run goes
// holds the run's events so far and its privacy spend in the tally, so a
// crash after it loses neither; the live tally is left as it was.
func TestAutosaveDuringARunCountsItsSpend(t *testing.T) {
	m := New(sessionConfig(t.TempDir()))
	cfg := m.StartConfig()
	m.tally.start(cfg)
	m.sessionStart(1, cfg)
	evs := []core.Event{core.BudgetEvent{Step: 3, Delta: 1e-5, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 1.5}}}, core.StepEvent{Step: 3, Loss: 0.5}}
	m.tally.observe(evs)
	m.sessionEvents(evs)
	f := m.snapshot()
	if c := f.Tally[cfg.Data]; c.PrivateRuns != 1 || c.EpsilonTotal != 1.5 || c.DeltaTotal != 1e-5 {
		t.Errorf("snapshot tally %+v, want the going run's ε 1.5", c)
	}
	if len(m.tally.byData) != 0 {
		t.Errorf("the live tally changed: %+v", m.tally.byData)
	}
	if len(f.Runs) != 1 || len(f.Runs[0].Events) != 2 || f.Runs[0].ID != 1 {
		t.Errorf("snapshot runs %+v, want the going run with its 2 events", f.Runs)
	}
	// Only the last embedding is kept: the scatter draws no other.
	m.sessionEvents([]core.Event{core.EmbeddingEvent{Step: 1, X: []float64{1}, Y: []float64{2}}, core.EmbeddingEvent{Step: 2, X: []float64{3}, Y: []float64{4}}})
	b, err := session.Encode(m.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	g, err := session.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	for _, ev := range g.Runs[0].Decoded {
		if e, ok := ev.(core.EmbeddingEvent); ok {
			steps = append(steps, e.Step)
		}
	}
	if len(steps) != 1 || steps[0] != 2 {
		t.Errorf("embeddings kept at steps %v, want only step 2", steps)
	}
	// The program dies here; the autosave reopens with the run marked
	// interrupted and its spend in the tally.
	path := filepath.Join(t.TempDir(), "crash.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg2 := sessionConfig(t.TempDir())
	cfg2.SessionFile = path
	back := sized(t, New(cfg2), 80, 24)
	recs := back.Pane(TabCompare).(*comparePane).Records()
	if len(recs) != 1 || recs[0].Outcome != outcomeInterrupted || recs[0].epsilon("RDP") != 1.5 {
		t.Errorf("reopened records %+v, want the one interrupted run at ε 1.5", recs)
	}
	if c := back.tally.byData[cfg.Data]; c == nil || c.EpsilonTotal != 1.5 {
		t.Errorf("reopened tally %+v, want ε 1.5", c)
	}
}
