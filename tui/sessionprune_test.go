package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dpscope/dpscope/tui/session"
)

// TestPruneAutosaves fills a sessions folder with 5 autosaves of today and
// 25 of 8 to 32 days ago, a session file the user named, an old autosave
// reopened with --session and one saved back to with ctrl+s earlier: the
// newest 20 stay, the other 10 old ones go except those two, and the
// user's file stays.
func TestPruneAutosaves(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var all []string // newest first
	for i := range 5 {
		all = append(all, write(fmt.Sprintf("autosave-20261126-%06d-%d.json", 100000-i, 10+i), time.Duration(i+1)*time.Hour))
	}
	for i := range 25 {
		all = append(all, write(fmt.Sprintf("autosave-202610%02d-120000-%d.json", 1+i, 100+i), time.Duration(8+i)*24*time.Hour))
	}
	user := write("my-analysis.json", 400*24*time.Hour)
	reopened := all[27]
	// An old autosave the user saved back to in an earlier session, as the
	// TUI writes it (session.File.Named).
	b, err := session.Encode(session.File{Version: "test", Named: true, Runs: make([]session.Run, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(all[22], b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(all[22], now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour))
	removed := pruneAutosaves(dir, autosaveKeep, autosaveMaxAge, now, reopened, filepath.Join(dir, "autosave-new.json"))
	want := slices.Concat(all[20:22], all[23:27], all[28:])
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v\nwant %v", removed, want)
	}
	for _, p := range append(all[:20], reopened, user, all[22]) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	// Young files stay beyond the newest 20.
	dir2 := t.TempDir()
	dir = dir2
	for i := range 25 {
		write(fmt.Sprintf("autosave-20261126-%06d-%d.json", i, i), time.Duration(i)*time.Hour)
	}
	if r := pruneAutosaves(dir2, autosaveKeep, autosaveMaxAge, now); len(r) != 0 {
		t.Errorf("removed %d files younger than a week", len(r))
	}
	if r := pruneAutosaves(filepath.Join(dir2, "missing"), autosaveKeep, autosaveMaxAge, now); r != nil {
		t.Errorf("a missing folder: removed %v", r)
	}
}

// TestStartPrunesAutosaves starts a TUI whose sessions folder holds 25
// autosaves a month old, one of them (not a session: it cannot be read)
// named with --session: the start
// prunes the oldest 5 but not the reopened one, even though it is among
// the oldest.
func TestStartPrunesAutosaves(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	var paths []string // newest first
	for i := range 25 {
		p := filepath.Join(dir, fmt.Sprintf("autosave-202610%02d-120000-%d.json", 25-i, i))
		if err := os.WriteFile(p, []byte("not a session"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := old.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	reopened := paths[24]
	m := New(Config{Summary: testSummary(), Backend: "gonum", Method: fakeFast, StateDir: state, ExportDir: t.TempDir(), SessionFile: reopened})
	sized(t, m, 120, 40)
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i >= 20 && p != reopened) {
			t.Errorf("autosave %d of 25 (newest first): removed %v", i+1, gone)
		}
	}
}
