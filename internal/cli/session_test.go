package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui/session"
)

// TestRootSession: --session reopens a session on its own data set and
// settings, a missing file starts a new one, and a damaged or newer file
// stops with a message that names it, leaving it as it was.
func TestRootSession(t *testing.T) {
	dir := t.TempDir()
	pre := datasets.DefaultPreprocessConfig()
	pre.NTopGenes = 70
	good, err := session.Encode(session.File{Version: "v-test", Data: session.DataSettings{Spec: "builtin:default", Preprocess: &pre}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodPath := write("good.json", good)
	var got *Loaded
	launch := func(_ context.Context, l *Loaded) error { got = l; return nil }
	exec := func(args ...string) (int, string) {
		got = nil
		var out, errOut strings.Builder
		code := Execute(context.Background(), args, Env{Stdout: &out, Stderr: &errOut, LaunchTUI: launch})
		return code, errOut.String()
	}

	if code, stderr := exec("--session", goodPath); code != ExitOK || got == nil {
		t.Fatalf("reopen: exit %d: %s", code, stderr)
	}
	if got.Session != goodPath || got.Config.Data != "builtin:default" || got.Prep.Genes != 70 {
		t.Errorf("reopened with session %q, data %q, %d genes; want the file's data set at 70 genes", got.Session, got.Config.Data, got.Prep.Genes)
	}
	if code, stderr := exec("--session", goodPath, "--genes", "60"); code != ExitOK || got.Prep.Genes != 60 {
		t.Errorf("a flag over the session's settings: exit %d (%s)", code, stderr)
	}
	fresh := filepath.Join(dir, "new.json")
	if code, stderr := exec("--session", fresh); code != ExitOK || got.Session != fresh {
		t.Errorf("new session: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a new session's file was created before a save")
	}

	newer := write("newer.json", []byte(strings.Replace(string(good), `"schema": 1`, `"schema": 5`, 1)))
	damaged := write("damaged.json", good[:len(good)/2])
	for _, tc := range []struct{ path, want string }{
		{newer, "schema 5"}, {damaged, "not a dpscope session file"},
	} {
		before, _ := os.ReadFile(tc.path)
		code, stderr := exec("--session", tc.path)
		if code != ExitRuntime || got != nil {
			t.Errorf("%s: exit %d, TUI started %v; want exit 1 without the TUI", tc.path, code, got != nil)
		}
		for _, w := range []string{tc.path, tc.want, "left as it was"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.path, stderr, w)
			}
		}
		if after, _ := os.ReadFile(tc.path); string(after) != string(before) {
			t.Errorf("%s was changed", tc.path)
		}
	}
}
