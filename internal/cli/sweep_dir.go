package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dpscope/dpscope/core/sweep"
)

// sweepSchema is the schema number of a sweep folder's manifest and run
// files; a reader refuses a newer one.
const sweepSchema = 1

// sweepManifest identifies what a sweep folder holds (DECISIONS: a sweep
// resumes only into a folder with the same manifest).
type sweepManifest struct {
	Schema  int        `json:"schema"`
	Version string     `json:"version"`
	Hash    string     `json:"grid_hash"`
	Grid    sweep.Grid `json:"grid"`
	// Shard is set in the folder of one shard of the grid (sweep --shard);
	// sweep --merge joins such folders into one without it.
	Shard *sweep.Shard `json:"shard,omitempty"`
}

// sweepDir is a sweep's output folder: manifest.json and one JSON file per
// finished run under runs/.
type sweepDir struct{ path string }

const manifestName = "manifest.json"

// openSweepDir creates dir for m, or reopens it when it holds the same
// manifest. Any other folder with content is refused, so a sweep never
// mixes its runs with another's or overwrites a run folder.
func openSweepDir(dir string, m sweepManifest) (*sweepDir, error) {
	d := &sweepDir{path: dir}
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	switch {
	case err == nil:
		old, err := parseSweepManifest(b)
		if err != nil {
			return nil, fmt.Errorf("sweep folder %s: %w", dir, err)
		}
		if old.Hash != m.Hash || old.Version != m.Version || old.Schema != m.Schema {
			return nil, usagef("sweep folder %s holds another sweep (grid %.12s…, dpscope %s); this one is grid %.12s…, dpscope %s: choose another --out", dir, old.Hash, old.Version, m.Hash, m.Version)
		}
		if !sameShard(old.Shard, m.Shard) {
			return nil, usagef("sweep folder %s holds %s of this grid; this is %s: choose another --out", dir, shardWords(old.Shard), shardWords(m.Shard))
		}
		return d, os.MkdirAll(d.runsPath(), 0o755)
	case errors.Is(err, fs.ErrNotExist):
		entries, rerr := os.ReadDir(dir)
		if rerr == nil && !onlyEmptyRuns(dir, entries) {
			return nil, usagef("--out %s is a folder with content but no sweep manifest: choose an empty or new folder", dir)
		}
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("--out %s: %w", dir, rerr)
		}
	default:
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	if err := os.MkdirAll(d.runsPath(), 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	b, err = marshalManifest(m)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, manifestName), b); err != nil {
		return nil, err
	}
	return d, nil
}

// onlyEmptyRuns reports whether entries (of dir) are nothing, or an empty
// runs/ folder: a workflow manager such as Snakemake creates the parent of
// a declared output (DIR/runs/NAME.json) before the job runs.
func onlyEmptyRuns(dir string, entries []fs.DirEntry) bool {
	if len(entries) == 0 {
		return true
	}
	if len(entries) > 1 || entries[0].Name() != "runs" || !entries[0].IsDir() {
		return false
	}
	sub, err := os.ReadDir(filepath.Join(dir, "runs"))
	return err == nil && len(sub) == 0
}

// marshalManifest writes m as indented JSON with a final newline.
func marshalManifest(m sweepManifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

func (d *sweepDir) runsPath() string { return filepath.Join(d.path, "runs") }

// load returns the saved record of a run, or false when there is none (or
// it cannot be read: the run is then done again).
func (d *sweepDir) load(name string) (sweepRecord, bool) {
	b, err := os.ReadFile(filepath.Join(d.runsPath(), name+".json"))
	if err != nil {
		return sweepRecord{}, false
	}
	var r sweepRecord
	if json.Unmarshal(b, &r) != nil || r.runSummary == nil || r.Schema != sweepSchema {
		return sweepRecord{}, false
	}
	return r, true
}

// save writes a finished run's record atomically.
func (d *sweepDir) save(name string, r sweepRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(d.runsPath(), name+".json"), append(b, '\n'))
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so a reader sees the old file or the new one, never a
// part; the file is 0644.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(tmp, 0o644)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
