package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// writeMTXFolder writes a 60-cell × 40-gene count matrix of three classes
// as a 10x folder with a labels.tsv, and returns the folder.
func writeMTXFolder(t testing.TB) string {
	t.Helper()
	const cells, genes = 60, 40
	var mtx, feat, bc, lab strings.Builder
	var entries []string
	for c := range cells {
		for g := range genes {
			// Class c%3 expresses its own third of the genes more.
			v := (c*7+g*3)%5 + 1
			if g%3 == c%3 {
				v += 6
			}
			if (c+g)%4 != 0 {
				entries = append(entries, fmt.Sprintf("%d %d %d", g+1, c+1, v))
			}
		}
		fmt.Fprintf(&bc, "CELL%02d-1\n", c)
		fmt.Fprintf(&lab, "CELL%02d-1\ttype%d\n", c, c%3)
	}
	for g := range genes {
		fmt.Fprintf(&feat, "ENSG%02d\tG%02d\tGene Expression\n", g, g)
	}
	fmt.Fprintf(&mtx, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n%s\n", genes, cells, len(entries), strings.Join(entries, "\n"))
	dir := filepath.Join(t.TempDir(), "small10x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"matrix.mtx": mtx.String(), "features.tsv": feat.String(), "barcodes.tsv": bc.String(), "labels.tsv": lab.String()})
	return dir
}

// cachedLoad loads spec through a cache in a fresh folder twice and returns
// the computed and the cached results.
func cachedLoad(t *testing.T, c Cache, spec string, opts LoadOptions) (fresh, cached *Prepared) {
	t.Helper()
	fresh, err := c.LoadPreprocessed(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := cacheEntries(t, c); n != 1 {
		t.Fatalf("after one load the cache holds %d entries, want 1", n)
	}
	cached, err = c.LoadPreprocessed(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return fresh, cached
}

func cacheEntries(t *testing.T, c Cache) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(c.Dir, "*.prep"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// equalPrepared compares two loads field by field; the classes of the
// fresh result share one slice between Raw and Data, the cached ones are
// copies, which DeepEqual does not distinguish.
func equalPrepared(t *testing.T, got, want *Prepared) {
	t.Helper()
	if !reflect.DeepEqual(got.Raw, want.Raw) {
		t.Errorf("cached Raw differs from the fresh load")
	}
	if !reflect.DeepEqual(got.Data, want.Data) {
		t.Errorf("cached Data differs from the fresh load")
	}
	if !reflect.DeepEqual(got.Labels, want.Labels) {
		t.Errorf("cached labels report %+v, fresh %+v", got.Labels, want.Labels)
	}
}

func TestCacheRoundTripsAnMTXFolderWithLabels(t *testing.T) {
	dir := writeMTXFolder(t)
	c := Cache{Dir: t.TempDir()}
	fresh, cached := cachedLoad(t, c, dir, DefaultLoadOptions())
	if fresh.Labels == nil {
		t.Fatal("the folder's labels were not joined")
	}
	equalPrepared(t, cached, fresh)

	// The raw path keeps its own entry and returns the same data set.
	raw, rep, err := c.Load(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw2, rep2, err := c.Load(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := cacheEntries(t, c); n != 2 {
		t.Errorf("cache holds %d entries after a raw load, want 2", n)
	}
	if !reflect.DeepEqual(raw2, raw) || !reflect.DeepEqual(rep2, rep) || !reflect.DeepEqual(raw, fresh.Raw) {
		t.Errorf("cached raw load differs from the fresh one")
	}
}

func TestCacheRoundTripsABuiltinSet(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	fresh, cached := cachedLoad(t, c, "builtin:default", DefaultLoadOptions())
	equalPrepared(t, cached, fresh)
}

// TestCacheKeyFollowsInputsAndOptions: an edited file or another setting
// never reads the entry of the old one.
func TestCacheKeyFollowsInputsAndOptions(t *testing.T) {
	dir := writeMTXFolder(t)
	opts := DefaultLoadOptions()
	k0, err := cacheKey(dir, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := cacheKey(dir, opts, true); k != k0 {
		t.Fatal("the key is not deterministic")
	}
	other := opts
	other.Preprocess.NTopGenes++
	if k, _ := cacheKey(dir, other, true); k == k0 {
		t.Error("another gene count gives the same key")
	}
	if k, _ := cacheKey(dir, opts, false); k == k0 {
		t.Error("a raw load shares the preprocessed load's key")
	}
	col, raw := opts, opts
	col.LabelsColumn, raw.UseRaw = "cell_type", true
	kc, _ := cacheKey(dir, col, true)
	kr, _ := cacheKey(dir, raw, true)
	if kc == k0 || kr == k0 || kc == kr {
		t.Error("a labels column or use-raw shares another load's key")
	}
	labels := filepath.Join(dir, "labels.tsv")
	b, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labels, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if k, _ := cacheKey(dir, opts, true); k == k0 {
		t.Error("an edited labels.tsv gives the same key")
	}
}

func TestCacheConcurrentWritersLeaveOneGoodEntry(t *testing.T) {
	dir := writeMTXFolder(t)
	c := Cache{Dir: t.TempDir()}
	want, err := LoadPreprocessed(dir, DefaultLoadOptions())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.LoadPreprocessed(dir, DefaultLoadOptions()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := cacheEntries(t, c); n != 1 {
		t.Fatalf("cache holds %d entries, want 1", n)
	}
	key, _ := cacheKey(dir, DefaultLoadOptions(), true)
	got, ok := c.get(key)
	if !ok {
		t.Fatal("the entry does not read back")
	}
	equalPrepared(t, got, want)
	if tmp, _ := filepath.Glob(filepath.Join(c.Dir, "*.tmp")); len(tmp) != 0 {
		t.Errorf("writers left %v", tmp)
	}
}

// TestCacheCorruptEntryIsRecomputed: a damaged file is never returned; the
// load recomputes and repairs it.
func TestCacheCorruptEntryIsRecomputed(t *testing.T) {
	dir := writeMTXFolder(t)
	c := Cache{Dir: t.TempDir()}
	fresh, err := c.LoadPreprocessed(dir, DefaultLoadOptions())
	if err != nil {
		t.Fatal(err)
	}
	key, _ := cacheKey(dir, DefaultLoadOptions(), true)
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{b[:len(b)/2], append(bytes.Clone(b), 0), []byte("DPSCPREP")} {
		if err := os.WriteFile(c.path(key), bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.get(key); ok {
			t.Errorf("a damaged entry of %d bytes was read", len(bad))
		}
		got, err := c.LoadPreprocessed(dir, DefaultLoadOptions())
		if err != nil {
			t.Fatal(err)
		}
		equalPrepared(t, got, fresh)
		if _, ok := c.get(key); !ok {
			t.Error("the load did not repair the entry")
		}
	}
}

func TestCacheEvictsBeyondItsSize(t *testing.T) {
	dir := writeMTXFolder(t)
	c := Cache{Dir: t.TempDir()}
	opts := DefaultLoadOptions()
	for i := range cacheKeep + 3 {
		opts.Preprocess.NTopGenes = 2 + i
		if _, err := c.LoadPreprocessed(dir, opts); err != nil {
			t.Fatal(err)
		}
	}
	if n := cacheEntries(t, c); n != cacheKeep {
		t.Errorf("cache holds %d entries, want %d", n, cacheKeep)
	}
}

func TestCacheOffAndErrors(t *testing.T) {
	t.Setenv("DPSCOPE_CACHE", "off")
	if c := DefaultCache(); c.Dir != "" {
		t.Errorf("DPSCOPE_CACHE=off gives a cache in %q", c.Dir)
	}
	c := Cache{Dir: t.TempDir()}
	_, err := c.LoadPreprocessed(filepath.Join(t.TempDir(), "missing"), DefaultLoadOptions())
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing input: %v, want the loader's not-exist error", err)
	}
	if n := cacheEntries(t, c); n != 0 {
		t.Errorf("a failed load left %d entries", n)
	}
}

// FuzzCacheEntry: whatever bytes sit in a cache file, reading it returns an
// entry that passes checkCached or an error, never a panic.
func FuzzCacheEntry(f *testing.F) {
	p, err := LoadPreprocessed(writeMTXFolder(f), DefaultLoadOptions())
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeCacheEntry(&buf, "k", p); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:100])
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := readCacheEntry(bytes.NewReader(b), int64(len(b)), "k")
		if err == nil {
			if cerr := checkCached(got); cerr != nil {
				t.Fatalf("read an entry that fails its own check: %v", cerr)
			}
		}
	})
}

// TestCacheValueByValuePath runs the round trip through the value-by-value
// path a big-endian host takes: the same bytes, the same data.
func TestCacheValueByValuePath(t *testing.T) {
	p, err := LoadPreprocessed(writeMTXFolder(t), DefaultLoadOptions())
	if err != nil {
		t.Fatal(err)
	}
	var fast, slow bytes.Buffer
	if err := writeCacheEntry(&fast, "k", p); err != nil {
		t.Fatal(err)
	}
	host := littleEndian
	littleEndian = false
	defer func() { littleEndian = host }()
	if err := writeCacheEntry(&slow, "k", p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
		t.Fatal("the value-by-value writer gives other bytes")
	}
	got, err := readCacheEntry(bytes.NewReader(slow.Bytes()), int64(slow.Len()), "k")
	if err != nil {
		t.Fatal(err)
	}
	equalPrepared(t, got, p)
}
