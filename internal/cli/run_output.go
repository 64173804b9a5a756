package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/core"
)

// resultFiles are the files a run folder may hold, all written by dpscope.
var resultFiles = []string{"config.toml", "events.jsonl", "summary.json", "embedding.tsv", "assignments.tsv", "result.h5ad", "report.html", "report.md"}

// resultDirs are the folders a run folder may hold: the result exported
// by --out-format mtx and csv, and the figures of 'plot' and 'report'.
var resultDirs = []string{"result_mtx", "result_csv", "figures"}

// runOutput writes the files of `dpscope run --out DIR`. They are written
// into a temporary folder beside DIR and the folder is renamed into place
// when the run has ended, so DIR holds all the files of one run or is left
// as it was: a failed, interrupted or killed run never mixes its files with
// an earlier run's, and a write error leaves the earlier run intact.
type runOutput struct {
	temps  *tempDirs
	dir    string // the folder asked for
	tmp    string // the temporary folder, in dir's parent
	cfg    core.Config
	events *os.File
	buf    *bufio.Writer
	werr   error
	res    *core.ResultEvent
	emb    *core.EmbeddingEvent // the last one, for methods that send no result
	// formats are the extra formats of the result (--out-format).
	formats []string
}

// checkOutDir refuses a folder dpscope must not write into: a file, or a
// folder that already holds anything, unless force is set and everything
// in it is a result file of an earlier run (force never deletes other files).
func checkOutDir(dir string, force bool) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if !st.IsDir() {
		return usagef("--out %s is a file, want a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	var foreign []string
	for _, e := range entries {
		file := slices.Contains(resultFiles, e.Name()) && e.Type().IsRegular()
		if !file && !(slices.Contains(resultDirs, e.Name()) && e.IsDir()) {
			foreign = append(foreign, e.Name())
		}
	}
	switch {
	case len(foreign) > 0:
		return usagef("--out %s holds files dpscope did not write (%s): choose an empty or new folder", dir, firstNames(foreign))
	case !force:
		return usagef("--out %s holds the results of an earlier run: add --force to replace them, or choose another folder", dir)
	}
	return nil
}

// firstNames lists up to three names.
func firstNames(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

// newRunOutput checks dir (see checkOutDir) and creates the temporary
// folder the run writes into.
func newRunOutput(temps *tempDirs, dir string, force bool, cfg core.Config) (*runOutput, error) {
	dir = filepath.Clean(dir)
	if err := checkOutDir(dir, force); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	temps.add(tmp)
	f, err := createFile(filepath.Join(tmp, "events.jsonl"))
	if err != nil {
		temps.remove(tmp, true)
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	cfg.Data = replayablePath(cfg.Data)
	return &runOutput{temps: temps, dir: dir, tmp: tmp, cfg: cfg, events: f, buf: bufio.NewWriter(f)}, nil
}

// replayablePath makes a relative data path absolute, so that config.toml
// replays on the same data from any folder (a relative path would find
// another file, or none, from elsewhere). Generated sets are left alone.
func replayablePath(data string) string {
	if strings.HasPrefix(data, "builtin:") || strings.HasPrefix(data, manifoldPrefix) || filepath.IsAbs(data) {
		return data
	}
	if abs, err := filepath.Abs(data); err == nil {
		return abs
	}
	return data
}

// createFile creates a new file readable by everyone (0644 before the
// umask): results are meant to be shared, unlike temporary files.
func createFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// event appends one JSON line to events.jsonl (not yet in place). A write
// error is kept and returned by commit, and by failed.
func (o *runOutput) event(line []byte) {
	if o.werr != nil {
		return
	}
	if _, err := o.buf.Write(line); err != nil {
		o.werr = err
		return
	}
	o.werr = o.buf.WriteByte('\n')
}

// failed returns the first write error of events.jsonl, so that a full disk
// stops the run instead of running on with nothing saved.
func (o *runOutput) failed() error {
	if o.werr != nil {
		return fmt.Errorf("--out %s: events.jsonl: %w", o.dir, o.werr)
	}
	return nil
}

// failedOrNil is failed for a possibly nil output.
func (o *runOutput) failedOrNil() error {
	if o == nil {
		return nil
	}
	return o.failed()
}

func (o *runOutput) result(r core.ResultEvent)       { o.res = &r }
func (o *runOutput) embedding(e core.EmbeddingEvent) { o.emb = &e }

// commit writes the remaining files and renames the folder into place,
// replacing an earlier run's folder (which checkOutDir allowed).
func (o *runOutput) commit(sum *runSummary) error {
	if err := errors.Join(o.werr, o.buf.Flush(), o.events.Sync(), o.events.Close()); err != nil {
		return fmt.Errorf("--out %s: events.jsonl: %w", o.dir, err)
	}
	var cfgBuf bytes.Buffer
	if err := toml.NewEncoder(&cfgBuf).Encode(o.cfg); err != nil {
		return fmt.Errorf("--out %s: config.toml: %w", o.dir, err)
	}
	sumJSON, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return fmt.Errorf("--out %s: summary.json: %w", o.dir, err)
	}
	files := []outFile{{"config.toml", cfgBuf.Bytes()}, {"summary.json", append(sumJSON, '\n')}}
	switch {
	case o.res != nil:
		files = append(files, outFile{"embedding.tsv", embeddingTSV(o.res)})
		if len(o.res.Cluster) > 0 {
			files = append(files, outFile{"assignments.tsv", assignmentsTSV(o.res.Cluster, o.res.Barcodes)})
		}
	case o.emb != nil && len(o.emb.Cluster) > 0:
		// Methods that report no final result still show their clusters
		// and a 2-D view of the embedding on every evaluation.
		files = append(files, outFile{"embedding.tsv", embedding2DTSV(o.emb)},
			outFile{"assignments.tsv", assignmentsTSV(o.emb.Cluster, nil)})
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(o.tmp, f.name), f.data); err != nil {
			return fmt.Errorf("--out %s: %s: %w", o.dir, f.name, err)
		}
	}
	if o.res != nil || (o.emb != nil && len(o.emb.Cluster) > 0) {
		if err := writeResultExports(o.tmp, o.formats, o.res, o.emb); err != nil {
			return fmt.Errorf("--out %s: %w", o.dir, err)
		}
	}
	return o.rename()
}

// rename moves the temporary folder to dir. An earlier run's folder is
// first moved aside, and moved back if the rename fails.
func (o *runOutput) rename() error {
	if err := os.Chmod(o.tmp, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", o.dir, err)
	}
	o.temps.mu.Lock()
	defer o.temps.mu.Unlock()
	if o.temps.abandoned {
		return fmt.Errorf("--out %s: not written: the command was interrupted", o.dir)
	}
	// Checked again: another process may have written there meanwhile.
	if err := checkOutDir(o.dir, true); err != nil {
		return err
	}
	old := ""
	if entries, err := os.ReadDir(o.dir); err == nil && len(entries) > 0 {
		old = o.tmp + ".old"
		if err := os.Rename(o.dir, old); err != nil {
			return fmt.Errorf("--out %s: %w", o.dir, err)
		}
	}
	if err := os.Rename(o.tmp, o.dir); err != nil {
		if old != "" {
			os.Rename(old, o.dir)
		}
		return fmt.Errorf("--out %s: %w", o.dir, err)
	}
	delete(o.temps.dirs, o.tmp)
	if old != "" {
		os.RemoveAll(old)
	}
	syncDir(filepath.Dir(o.dir))
	return nil
}

// syncDir makes a rename in dir durable; errors are ignored because some
// file systems cannot sync folders, and the rename has happened anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeFile writes a new file with data and syncs it.
func writeFile(path string, data []byte) error {
	f, err := createFile(path)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Sync(), f.Close())
}

// outFile is one file of the output folder.
type outFile struct {
	name string
	data []byte
}

// discard removes the temporary folder of a run that did not commit.
func (o *runOutput) discard() {
	o.events.Close()
	o.temps.remove(o.tmp, true)
}

// tempDirs holds the temporary folders of runs not yet committed, so that
// an interrupt that abandons a command can still remove them. One belongs
// to each Execute call.
type tempDirs struct {
	mu        sync.Mutex
	dirs      map[string]bool
	abandoned bool
}

func newTempDirs() *tempDirs { return &tempDirs{dirs: map[string]bool{}} }

func (u *tempDirs) add(dir string) {
	u.mu.Lock()
	u.dirs[dir] = true
	u.mu.Unlock()
}

// remove forgets dir, deleting it when del is set.
func (u *tempDirs) remove(dir string, del bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.dirs[dir] && del {
		os.RemoveAll(dir)
	}
	delete(u.dirs, dir)
}

// abandon deletes every temporary folder not yet committed and refuses
// later commits: the process is about to exit.
func (u *tempDirs) abandon() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for d := range u.dirs {
		os.RemoveAll(d)
	}
	clear(u.dirs)
	u.abandoned = true
}
