package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
	for tab := range 6 {
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
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		dir := t.TempDir()
		m := twoRuns(t, dir, size[0], size[1])
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
