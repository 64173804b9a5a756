package reference

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/sync/singleflight"

	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// schema is bumped whenever B1's definition changes, so that no cached
// figure of an older definition is ever read back.
const schema = 1

// Key is the content hash of a preprocessed matrix and its labels: two
// matrices with the same key give the same B1.
func Key(d *datasets.Preprocessed) string {
	h := sha256.New()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	put(schema)
	put(uint64(d.Cells))
	put(uint64(d.Genes))
	b := make([]byte, 4*4096)
	for i := 0; i < len(d.X); {
		n := 0
		for ; n < len(b) && i < len(d.X); i, n = i+1, n+4 {
			binary.LittleEndian.PutUint32(b[n:], math.Float32bits(d.X[i]))
		}
		h.Write(b[:n])
	}
	put(uint64(len(d.Labels)))
	for _, l := range d.Labels {
		put(uint64(int64(l)))
	}
	for _, c := range d.Classes {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Cache keeps B1 lines in a folder, one small JSON file per key. Writers
// write a temporary file and rename it into place, so concurrent writers
// (two sweeps, two TUIs) never leave a torn file: the last rename wins and
// both wrote the same value. A zero Cache (empty Dir) caches nothing.
type Cache struct {
	Dir string
	// Start, when set, starts the null runs instead of core.Start: under
	// dpscope serve, the session's place in the server's queue, so that
	// reference runs count against --workers and --max-runs.
	Start sweep.StartFunc
	// Admit, when set, waits for a worker before a B1 that is not cached
	// is computed, and frees it after: under dpscope serve, a place in the
	// server's queue, so that B1 lines count against --workers.
	Admit func(ctx context.Context) (release func(), err error)
}

// flight makes concurrent requests for the same B1 in this process wait
// for one computation (and one worker of Admit), whichever cache asked.
var flight singleflight.Group

// DefaultCache is the cache in the user's cache folder
// (os.UserCacheDir()/dpscope/reference), or a zero Cache when the system
// has none.
func DefaultCache() Cache {
	dir, err := os.UserCacheDir()
	if err != nil {
		return Cache{}
	}
	return Cache{Dir: filepath.Join(dir, "dpscope", "reference")}
}

type entry struct {
	Schema int  `json:"schema"`
	B1     Line `json:"pca_kmeans"`
}

// B1 returns the cached B1 of d, computing and storing it when absent. A
// cache that cannot be read or written is skipped: the line is computed and
// returned all the same.
func (c Cache) B1(ctx context.Context, d *datasets.Preprocessed) (Line, error) {
	if d == nil {
		return Line{}, ErrNoLabels
	}
	key := Key(d)
	if l, ok := c.get(key); ok {
		return l, nil
	}
	for {
		v, err, _ := flight.Do(c.Dir+"\x00"+key, func() (any, error) {
			if l, ok := c.get(key); ok {
				return l, nil // written while this one waited
			}
			if c.Admit != nil {
				release, err := c.Admit(ctx)
				if err != nil {
					return Line{}, err
				}
				defer release()
			}
			l, err := B1(ctx, d)
			if err != nil {
				return Line{}, err
			}
			c.put(key, l)
			return l, nil
		})
		if err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			continue // the computation ended with another caller's context: not ours
		}
		if err != nil {
			return Line{}, err
		}
		return v.(Line), nil
	}
}

func (c Cache) path(key string) string { return filepath.Join(c.Dir, key+".json") }

func (c Cache) get(key string) (Line, bool) {
	if c.Dir == "" {
		return Line{}, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return Line{}, false
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || e.Schema != schema || e.B1.Seeds == 0 {
		return Line{}, false
	}
	return e.B1, true
}

func (c Cache) put(key string, l Line) {
	if c.Dir == "" {
		return
	}
	_ = c.write(key, l) // a cache that cannot be written only costs time
}

func (c Cache) write(key string, l Line) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(entry{Schema: schema, B1: l})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, key+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("reference cache: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), c.path(key)); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
