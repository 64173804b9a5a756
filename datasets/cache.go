package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dpscope/dpscope/assets"
)

// cacheSchema is bumped whenever the cache's file format changes.
const cacheSchema = 1

// cacheKeep is how many entries a cache folder keeps: the least recently
// used beyond it are removed after each write, so a session of sweeps over
// a few data sets stays cached while the folder cannot grow without end.
const cacheKeep = 8

// Cache keeps loaded and preprocessed data sets in a folder, one file per
// (input, options, dpscope build), so that a sweep or a second run loads
// in the time it takes to read the file instead of parsing, simulating and
// preprocessing again. Only what is deterministic and non-private is kept
// (the parsed matrix, normalisation, log1p, gene selection, scaling);
// every private statistic is still computed by the run that releases it.
//
// The key is a content hash: of every file the load reads (the whole
// folder of an MTX set, the dense file, the labels file), of the options,
// and of the running executable, so an edited file, another setting or a
// rebuilt dpscope never reads a stale entry. Writers write a temporary file
// and rename it into place, so concurrent writers (two sweeps, two TUIs)
// never leave a torn file. A zero Cache (empty Dir) caches nothing; a cache
// that cannot be read or written only costs time, never a run.
type Cache struct{ Dir string }

// DefaultCache is the cache in the user's cache folder
// (os.UserCacheDir()/dpscope/data), or a zero Cache when the system has
// none or DPSCOPE_CACHE is "off".
func DefaultCache() Cache {
	if os.Getenv("DPSCOPE_CACHE") == "off" {
		return Cache{}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return Cache{}
	}
	return Cache{Dir: filepath.Join(dir, "dpscope", "data")}
}

// LoadPreprocessed is LoadPreprocessed through the cache.
func (c Cache) LoadPreprocessed(spec string, opts LoadOptions) (*Prepared, error) {
	return c.LoadPreprocessedContext(context.Background(), spec, opts)
}

// LoadPreprocessedContext is LoadPreprocessedContext through the cache: a
// cached entry is read whole; a load stopped by ctx writes no entry.
func (c Cache) LoadPreprocessedContext(ctx context.Context, spec string, opts LoadOptions) (*Prepared, error) {
	if err := opts.Preprocess.Validate(); err != nil {
		return nil, err
	}
	return c.load(spec, opts, true, func() (*Prepared, error) { return LoadPreprocessedContext(ctx, spec, opts) })
}

// Load is Load through the cache: the data set as read, with the report of
// its labels join.
func (c Cache) Load(spec string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	lo := LoadOptions{Labels: opts.Labels, Orientation: opts.Orientation, LabelsColumn: opts.LabelsColumn, UseRaw: opts.UseRaw}
	if opts.NoLabels || opts.Delimiter != 0 {
		// Options LoadOptions cannot carry: read directly.
		return Load(spec, opts)
	}
	p, err := c.load(spec, lo, false, func() (*Prepared, error) {
		d, rep, err := Load(spec, opts)
		if err != nil {
			return nil, err
		}
		return &Prepared{Raw: d, Labels: rep}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return p.Raw, p.Labels, nil
}

func (c Cache) load(spec string, opts LoadOptions, preprocessed bool, compute func() (*Prepared, error)) (*Prepared, error) {
	if c.Dir == "" || buildID() == "" {
		// Without a build ID an entry could outlive the code that wrote it.
		return compute()
	}
	key, err := cacheKey(spec, opts, preprocessed)
	if err != nil {
		// An input that cannot be hashed cannot be read either: let the
		// loader say what is wrong with it.
		return compute()
	}
	if p, ok := c.get(key); ok {
		return p, nil
	}
	p, err := compute()
	if err != nil {
		return nil, err
	}
	_ = c.put(key, p) // a cache that cannot be written only costs time
	return p, nil
}

func (c Cache) path(key string) string { return filepath.Join(c.Dir, key+".prep") }

func (c Cache) get(key string) (*Prepared, bool) {
	f, err := os.Open(c.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	p, err := readCacheEntry(f, st.Size(), key)
	if err != nil {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(f.Name(), now, now) // recently used: evicted last
	return p, true
}

func (c Cache) put(key string, p *Prepared) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, key+".*.tmp")
	if err != nil {
		return err
	}
	werr := writeCacheEntry(f, key, p)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("datasets: cache: %w", err)
	}
	if err := os.Rename(f.Name(), c.path(key)); err != nil {
		os.Remove(f.Name())
		return err
	}
	c.evict()
	return nil
}

// evict removes the least recently used entries beyond cacheKeep, and
// temporary files a crashed writer left more than an hour ago.
func (c Cache) evict() {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		switch {
		case strings.HasSuffix(e.Name(), ".prep"):
			files = append(files, file{e.Name(), info.ModTime()})
		case strings.HasSuffix(e.Name(), ".tmp") && time.Since(info.ModTime()) > time.Hour:
			os.Remove(filepath.Join(c.Dir, e.Name()))
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	for _, f := range files[min(len(files), cacheKeep):] {
		os.Remove(filepath.Join(c.Dir, f.name))
	}
}

// cacheKey hashes everything a load's result depends on.
func cacheKey(spec string, opts LoadOptions, preprocessed bool) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "dpscope data cache %d\x00build %s\x00", cacheSchema, buildID())
	o, err := json.Marshal(struct {
		// Spec and Labels are names the result carries (Source, the
		// labels report's File); the contents are hashed below.
		Spec, Labels string
		Preprocessed bool
		Orientation  string
		Preprocess   PreprocessConfig
		LabelsColumn string
		UseRaw       bool
	}{spec, opts.Labels, preprocessed, opts.Orientation.String(), opts.Preprocess, opts.LabelsColumn, opts.UseRaw})
	if err != nil {
		return "", err
	}
	h.Write(o)
	if name, ok := strings.CutPrefix(spec, BuiltinPrefix); ok {
		// A built-in set is its embedded specification run through the
		// simulator, whose code the build ID covers.
		b, err := fs.ReadFile(assets.Datasets, "datasets/"+name+".json")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "builtin %s\x00", name)
		h.Write(b)
	} else if err := hashInputs(h, spec); err != nil {
		return "", err
	}
	if opts.Labels != "" {
		if err := hashFile(h, opts.Labels); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashInputs hashes the files a load of path reads: every regular file of
// an MTX folder (the folder of a matrix.mtx path), or the dense file.
func hashInputs(h io.Writer, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	dir := path
	if !st.IsDir() {
		if !strings.HasPrefix(strings.ToLower(filepath.Base(path)), "matrix.mtx") {
			return hashFile(h, path)
		}
		dir = filepath.Dir(path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := hashFile(h, p); err != nil {
			return err
		}
	}
	return nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\x00", filepath.Base(path))
	n, err := io.Copy(h, f)
	fmt.Fprintf(h, "\x00%d\x00", n)
	return err
}

// BuildID identifies the running dpscope: the SHA-256 of its executable,
// computed once per process, so any change to the code invalidates what
// was cached from it (a released binary keeps its cache; a rebuilt one
// starts afresh). Unlike the module's VCS stamp it is there under `go run`
// and -buildvcs=false. "" when the executable cannot be read: then
// nothing should be cached.
func BuildID() string { return buildID() }

var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	h := sha256.New()
	if err := hashFile(h, exe); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})
