package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestSaveFromOverlays presses ctrl+s with the glossary open, then with
// the data picker open: each saves the session (the file says the user
// saved it) and the overlay stays open.
func TestSaveFromOverlays(t *testing.T) {
	dir := t.TempDir()
	m := twoRuns(t, dir, 120, 40)
	m = press(t, m, "g")
	m = send(t, m, ctrlS)
	path := m.sess.file
	if !m.gloss.open || path == "" || m.sess.unsaved() != 0 || !strings.Contains(m.Status(), "session saved to "+path) {
		t.Fatalf("ctrl+s over the glossary: open %v, file %q, %d unsaved, status %q", m.gloss.open, path, m.sess.unsaved(), m.Status())
	}
	if b, err := os.ReadFile(path); err != nil || !namedMark.Match(b) || !namedSession(path) {
		t.Errorf("the saved file does not say the user saved it (%v):\n%.300s", err, b)
	}
	m = press(t, m, "esc", "d")
	m.status = ""
	m = send(t, m, ctrlS)
	if !m.picker.open || !strings.Contains(m.Status(), "session saved to "+path) {
		t.Errorf("ctrl+s over the picker: open %v, status %q", m.picker.open, m.Status())
	}
}

// TestOverlayGoldenScreens compares the overlays that have no golden
// elsewhere — the help overlay (?), the quit dialog with unsaved runs and
// the one with a run going — without styles, at 80×24 and 160×48, with
// colour and under NO_COLOR (go test -update rewrites them). The glossary
// and presenter are in TestLearnGoldenScreens, the data picker in
// TestDataPickerGoldenScreens. The unsaved dialog names the autosave file
// and the file s saves to, which hold a temporary folder, a time and a
// process id: the session's paths are set to fixed masks before it is
// drawn (masking the drawn text would not do, as the dialog wraps a long
// path at a width that depends on it).
func TestOverlayGoldenScreens(t *testing.T) {
	screens := []string{"help", "unsaved", "running"}
	goldenScreens(t, screens, func(t *testing.T, size [2]int, name string) {
		cfg := Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), StateDir: t.TempDir(), Seed: 1}
		var view string
		switch name {
		case "help":
			// Through the program, as the user meets it.
			tm := teatest.NewTestModel(t, New(cfg), teatest.WithInitialTermSize(size[0], size[1]))
			typeKeys(tm, "?")
			waitText(t, tm, "prev screen") // the full help's bindings
			typeKeys(tm, "q")
			final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
			if !final.showHelp {
				t.Fatal("? did not open the help")
			}
			view = final.View().Content
		case "unsaved":
			m := sized(t, New(sessionConfig(t.TempDir())), size[0], size[1])
			m = press(t, m, "s")
			if m.sess.unsaved() != 1 {
				t.Fatalf("%d unsaved runs, want 1", m.sess.unsaved())
			}
			m.sess.autosave = filepath.Join("<state>", "sessions", "autosave-<time>-<pid>.json")
			m.c.Config.ExportDir = "<export>"
			m.sess.started = time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
			m = press(t, m, "q")
			if !m.unsaved {
				t.Fatal("q with an unsaved run did not ask")
			}
			view = m.View().Content
			for _, want := range []string{"autosave-<time>-<pid>.json", "dpscope-session-20260102-030405.json", "1 run of this session not saved"} {
				if !strings.Contains(stripANSI(strings.ReplaceAll(view, "\n", "")), want) && !strings.Contains(stripANSI(view), want) {
					t.Errorf("the dialog lacks %q", want)
				}
			}
		case "running":
			m := sized(t, New(cfg), size[0], size[1])
			m.c.RunState = RunRunning
			m = press(t, m, "q")
			if !m.confirm {
				t.Fatal("q during a run did not ask")
			}
			view = m.View().Content
		}
		checkFits(t, view, size[0], size[1])
		teatest.RequireEqualOutput(t, []byte(stripANSI(view)))
	})
}
