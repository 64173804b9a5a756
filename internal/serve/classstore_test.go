package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/class"
)

// TestClassSurvivesRestart: runs reported to the class are saved at the
// drain into the state folder, and a new server on the same folder shows
// them on an instructor's board under the same names.
func TestClassSurvivesRestart(t *testing.T) {
	h1 := startHarness(t, func(c *Config) { c.UI = stubUI(); c.Version = "v0.test" })
	for i, who := range []string{"ada", "bo"} {
		seat, err := h1.srv.class.reg.Join("key-0"+string(rune('1'+i)), who, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := seat.Report(class.Run{Method: "dpsgd", Mode: "private", Epsilon: float64(2 + i), ARI: 0.4 + 0.1*float64(i), Data: "builtin:default"}); err != nil {
			t.Fatal(err)
		}
	}
	h1.stop(t)
	raw, err := os.ReadFile(filepath.Join(h1.stateDir, "class.json"))
	if err != nil || !strings.Contains(string(raw), `"dpscope_version": "v0.test"`) {
		t.Fatalf("class.json after the drain: %v\n%s", err, raw)
	}
	h2 := startHarness(t, func(c *Config) { c.UI = stubUI(); c.StateDir = h1.stateDir })
	board, err := h2.srv.class.reg.Join("key-teacher", "teacher", true)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := board.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Name != "ada" || runs[0].Epsilon != 2 || runs[1].Name != "bo" || runs[1].ARI != 0.5 {
		t.Errorf("board after the restart: %+v, want ada's and bo's runs", runs)
	}
}

// TestClassFileNewerOrCorrupt: a class saved by a newer schema stops the
// start with a message that says so; an unreadable one is moved aside,
// reported, and the class starts empty.
func TestClassFileNewerOrCorrupt(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI() })
	h.stop(t)
	path := filepath.Join(h.stateDir, "class.json")
	cfg := func() Config {
		return Config{HostKeyPath: filepath.Join(t.TempDir(), "hk"), PassphraseFile: h.srv.cfg.PassphraseFile,
			StateDir: h.stateDir, UI: stubUI(), Logger: h.srv.log}
	}
	if err := os.WriteFile(path, []byte(`{"schema": 99, "dpscope_version": "v9"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg()); err == nil || !strings.Contains(err.Error(), "newer dpscope") {
		t.Errorf("newer schema: New gave %v, want a refusal naming a newer dpscope", err)
	}
	if err := os.WriteFile(path, []byte(`{"schema": 1, "members": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg())
	if err != nil {
		t.Fatalf("corrupt class file stopped the start: %v", err)
	}
	if seat, err := s.class.reg.Join("key-teacher", "teacher", true); err != nil {
		t.Fatal(err)
	} else if runs, _ := seat.Runs(); len(runs) != 0 {
		t.Errorf("a class read from a corrupt file has runs %+v", runs)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the corrupt file is still in place: %v", err)
	}
	aside, _ := filepath.Glob(path + ".unreadable-*")
	if len(aside) != 1 {
		t.Errorf("moved-aside files %v, want one", aside)
	}
	if !strings.Contains(h.logs.String(), "could not be read: moved aside") {
		t.Error("the corrupt class file was not reported in the log")
	}
}
