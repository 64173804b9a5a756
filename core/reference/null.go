package reference

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// Null runs m's null configuration of cfg (core.Method.Null: what the
// method gives without learning from the data) for seeds 0 … B1Seeds−1 and
// returns the mean and sd of its ARI and NMI. It returns ErrNoNull when the
// method declares none, and an error when a run fails or reports no ARI.
func Null(ctx context.Context, m core.Method, cfg core.Config) (Line, error) {
	return nullWith(ctx, nil, m, cfg)
}

// nullWith is Null with its runs started by start (nil: core.Start).
func nullWith(ctx context.Context, start sweep.StartFunc, m core.Method, cfg core.Config) (Line, error) {
	if m.Null == nil {
		return Line{}, ErrNoNull
	}
	var ari, nmi []float64
	for seed := range uint64(B1Seeds) {
		c := m.Null(cfg)
		c.Seed, c.Audit = seed, nil // a reference line is never audited
		o := sweep.RunOneWith(ctx, start, c, nil)
		switch {
		case o.Err != nil:
			return Line{}, fmt.Errorf("reference: null run of %s: %w", m.Name, o.Err)
		case ctx.Err() != nil:
			return Line{}, ctx.Err()
		case o.ARI == nil || o.NMI == nil:
			return Line{}, fmt.Errorf("reference: the null run of %s reports no ARI", m.Name)
		}
		ari, nmi = append(ari, *o.ARI), append(nmi, *o.NMI)
	}
	l := Line{Seeds: B1Seeds}
	l.ARI, l.ARISD = sweep.Moments(ari)
	l.NMI, l.NMISD = sweep.Moments(nmi)
	return l, nil
}

// ErrNoNull says a method declares no null run.
var ErrNoNull = fmt.Errorf("reference: the method has no null run")

// Null returns the cached null line of m for cfg, computing and storing it
// when absent. The key is the null configuration (seed aside), the data's
// files (their sizes and times) and the build, so a new build or changed
// files recompute it.
func (c Cache) Null(ctx context.Context, m core.Method, cfg core.Config) (Line, error) {
	if m.Null == nil {
		return Line{}, ErrNoNull
	}
	nc := m.Null(cfg)
	nc.Seed, nc.Audit = 0, nil // the same line (and key) with or without --audit
	b, err := json.Marshal(nc)
	if err != nil {
		return Line{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "null %d\x00%s\x00%s\x00", schema, build(), b)
	fingerprint(h, nc.Data)
	key := "null-" + hex.EncodeToString(h.Sum(nil))
	if l, ok := c.get(key); ok {
		return l, nil
	}
	l, err := nullWith(ctx, c.Start, m, cfg)
	if err != nil {
		return Line{}, err
	}
	c.put(key, l)
	return l, nil
}

// build names the running binary's build, so that a cached null (which
// depends on the method's code, not only on the data) is never read back
// by another build.
func build() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var b strings.Builder
	b.WriteString(info.Main.Version)
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" || s.Key == "vcs.time" {
			b.WriteString(" " + s.Value)
		}
	}
	return b.String()
}

// fingerprint writes what identifies the data named by spec: the spec
// itself, and for a file or folder the names, sizes and times of its
// files.
func fingerprint(w interface{ Write([]byte) (int, error) }, spec string) {
	fmt.Fprintf(w, "%s\x00", spec)
	st, err := os.Stat(spec)
	if err != nil {
		return // builtin:, manifold: or unreadable: the spec and the build say it all
	}
	note := func(path string, fi os.FileInfo) {
		fmt.Fprintf(w, "%s %d %d\x00", filepath.Base(path), fi.Size(), fi.ModTime().UnixNano())
	}
	if !st.IsDir() {
		note(spec, st)
		return
	}
	entries, _ := os.ReadDir(spec)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !fi.IsDir() {
			note(e.Name(), fi)
		}
	}
}

// NoBetter reports whether results with mean ARI mean over n runs (sample
// sd sd, 0 for one run) are no better than the null: their excess over it
// is within two standard errors of the difference, or below 0.02 ARI,
// which no reader would call learning. A single run borrows the null's sd
// for its own seed noise.
func NoBetter(mean, sd float64, n int, null Line) bool {
	if n < 1 || null.Seeds < 1 {
		return false
	}
	if n == 1 {
		sd = null.ARISD
	}
	se := math.Sqrt(sd*sd/float64(n) + null.ARISD*null.ARISD/float64(null.Seeds))
	return mean-null.ARI <= max(2*se, MinLearning)
}

// MinLearning is the smallest ARI gain over the null that NoBetter counts
// as learning.
const MinLearning = 0.02
