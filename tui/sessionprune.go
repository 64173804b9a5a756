package tui

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The autosave folder's retention, fixed before any measurement: a
// session's autosave matters until its user has looked at it, so every
// file younger than a week stays whatever their number, and the newest 20
// stay whatever their age (a user back from holidays still finds the last
// sessions).
const (
	autosaveKeep   = 20
	autosaveMaxAge = 7 * 24 * time.Hour
)

// autosaveName matches the names newSessionState gives autosaves; any
// other file in the folder is the user's and never pruned.
var autosaveName = regexp.MustCompile(`^autosave-\d{8}-\d{6}-\d+\.json$`)

// pruneAutosaves removes from dir the autosaves beyond the newest keep
// that are older than maxAge at now, never one of protect (the session's
// own file, named with --session or saved with ctrl+s, and its autosave)
// nor a file whose name is not an autosave's. It returns what it removed;
// a file it cannot look at or remove is left, as pruning only saves space.
func pruneAutosaves(dir string, keep int, maxAge time.Duration, now time.Time, protect ...string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type auto struct {
		path string
		mod  time.Time
	}
	var autos []auto
	for _, e := range entries {
		if !e.Type().IsRegular() || !autosaveName.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		autos = append(autos, auto{filepath.Join(dir, e.Name()), info.ModTime()})
	}
	slices.SortFunc(autos, func(a, b auto) int { return b.mod.Compare(a.mod) }) // newest first
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	protected := map[string]bool{}
	for _, p := range protect {
		if p != "" {
			protected[abs(p)] = true
		}
	}
	var removed []string
	for i, a := range autos {
		if i < keep || now.Sub(a.mod) < maxAge || protected[abs(a.path)] || namedSession(a.path) {
			continue
		}
		if os.Remove(a.path) == nil {
			removed = append(removed, a.path)
		}
	}
	return removed
}

// namedHead is how much of a session file namedSession reads: the fields
// before the runs (format, schema, version, saved, named) fit many times.
const namedHead = 4096

var namedMark = regexp.MustCompile(`"named"\s*:\s*true`)

// namedSession reports whether the session file at path says the user
// saved it (session.File.Named): an autosave reopened with --session and
// saved back in an earlier session is theirs, though named as an
// autosave. A file that cannot be read counts as named: pruning only
// removes what it knows to be an autosave.
func namedSession(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	b := make([]byte, namedHead)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return true
	}
	return namedMark.Match(b[:n])
}

// pruneCmd prunes the session's autosave folder in the background. The
// file named with --session is protected even when it could not be read
// (the session then saves elsewhere, but the file is the user's).
func (m *Model) pruneCmd() tea.Cmd {
	dir, named, file, auto := filepath.Dir(m.sess.autosave), m.c.Config.SessionFile, m.sess.file, m.sess.autosave
	return func() tea.Msg {
		pruneAutosaves(dir, autosaveKeep, autosaveMaxAge, time.Now(), named, file, auto)
		return nil
	}
}
