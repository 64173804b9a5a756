package tui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFigureKey presses F on the Run screen of a long run and checks the
// training and embedding figures land in the export folder in every
// format, the PNGs decode at column width, and the trace holds every step
// (the charts keep a thinned window; the figure must not).
func TestRunFigureKey(t *testing.T) {
	m := fullModel(t, 160, 48)
	rp := runPaneOf(m)
	if got := len(rp.trace.loss.X); got != 4000 {
		t.Fatalf("trace holds %d loss points, want all 4000 steps", got)
	}
	if len(rp.trace.eps) != 2 || rp.trace.eps[0].Label == rp.trace.eps[1].Label {
		t.Fatalf("trace ε series %+v, want one per accountant (RDP, PLD)", rp.trace.eps)
	}
	cmd := rp.handleKey(kp("F"))
	if cmd == nil {
		t.Fatal("F gave no command")
	}
	msg, ok := cmd().(StatusMsg)
	if !ok {
		t.Fatalf("F wrote no figures: %#v", msg)
	}
	dir := m.c.Config.ExportDir
	for _, stem := range []string{"dpscope-run1-training", "dpscope-run1-embedding"} {
		for _, ext := range []string{"png", "svg", "pdf"} {
			path := filepath.Join(dir, stem+"."+ext)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: %v (status %q)", path, err, msg.Text)
			}
			if !strings.Contains(msg.Text, path) {
				t.Errorf("status %q does not name %s", msg.Text, path)
			}
			switch ext {
			case "png":
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if w := img.Bounds().Dx(); w != 1050 {
					t.Errorf("%s is %d px wide, want 1050 (3.5 in at 300 dpi)", path, w)
				}
			case "pdf":
				if !bytes.HasPrefix(b, []byte("%PDF")) {
					t.Errorf("%s is not a PDF", path)
				}
			case "svg":
				if !bytes.Contains(b, []byte("<svg")) {
					t.Errorf("%s is not an SVG", path)
				}
			}
		}
	}
}

// TestRunFigureKeyBeforeARun says what to do instead of writing empty
// figures.
func TestRunFigureKeyBeforeARun(t *testing.T) {
	m := New(Config{Summary: testSummary(), Backend: "test", Method: fakeFast, ExportDir: t.TempDir()})
	msg, ok := runPaneOf(m).handleKey(kp("F"))().(StatusMsg)
	if !ok || !strings.Contains(msg.Text, "press s") {
		t.Fatalf("F before a run: %#v, want a status that says to start a run", msg)
	}
	if entries, _ := os.ReadDir(m.c.Config.ExportDir); len(entries) != 0 {
		t.Errorf("F before a run wrote %d files", len(entries))
	}
}
