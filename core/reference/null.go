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

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// ErrNoNull says a method declares no null run.
var ErrNoNull = fmt.Errorf("reference: the method has no null run")

// ErrNoBaseline says a run has no private baseline to be drawn against
// (BaselineConfig).
var ErrNoBaseline = fmt.Errorf("reference: no private baseline for this run")

// BaselineConfig is the run of the private baseline b (core.Method.Baseline:
// dppca) that a sound run cfg is drawn against: b's sound mode with its own
// defaults, on cfg's data at cfg's target ε and δ, as the Trade-off view
// sweeps it. ok is false when cfg is not a sound run at a target ε, is b's
// own, or counts another privacy unit than b (one ε axis, one unit:
// client-level FL-DP gets no cell-level baseline).
func BaselineConfig(b core.Method, cfg core.Config) (bc core.Config, ok bool) {
	if cfg.Mode != core.ModeSound || cfg.Epsilon <= 0 || cfg.Method == b.Name || !b.AcceptsMode(core.ModeSound) {
		return core.Config{}, false
	}
	bc = cfg
	bc.Method, bc.Options, bc.Sigma = b.Name, nil, 0
	if core.UnitOf(bc) != core.UnitOf(cfg) {
		return core.Config{}, false
	}
	return bc, true
}

// BaselineOf returns the first of baselines (core.Baselines(): the
// registered ones) that a run of cfg is drawn against (BaselineConfig).
func BaselineOf(cfg core.Config, baselines []core.Method) (core.Method, bool) {
	for _, b := range baselines {
		if _, ok := BaselineConfig(b, cfg); ok {
			return b, true
		}
	}
	return core.Method{}, false
}

// Baseline returns the cached line of the private baseline b at cfg's ε
// (BaselineConfig), computing it over seeds 0 … B1Seeds−1 when absent.
// Like every reference line it shows an ARI and an NMI only, which read
// the true labels: none of these runs' releases is shown, so none joins a
// privacy tally.
func (c Cache) Baseline(ctx context.Context, b core.Method, cfg core.Config) (Line, error) {
	bc, ok := BaselineConfig(b, cfg)
	if !ok {
		return Line{}, ErrNoBaseline
	}
	return c.runs(ctx, "baseline", "baseline "+b.Name, bc)
}

// runsLine runs cfg for seeds 0 … B1Seeds−1 (started by start, nil:
// core.Start) and returns the mean and sd of their ARI and NMI; what names
// the runs in errors.
func runsLine(ctx context.Context, start sweep.StartFunc, what string, cfg core.Config) (Line, error) {
	var ari, nmi []float64
	for seed := range uint64(B1Seeds) {
		c := cfg
		c.Seed, c.Audit = seed, nil // a reference line is never audited
		o := sweep.RunOneWith(ctx, start, c, nil)
		switch {
		case o.Err != nil:
			return Line{}, fmt.Errorf("reference: %s: %w", what, o.Err)
		case ctx.Err() != nil:
			return Line{}, ctx.Err()
		case o.ARI == nil || o.NMI == nil:
			return Line{}, fmt.Errorf("reference: the %s reports no ARI", what)
		}
		ari, nmi = append(ari, *o.ARI), append(nmi, *o.NMI)
	}
	l := Line{Seeds: B1Seeds, SeedARI: ari}
	l.ARI, l.ARISD = sweep.Moments(ari)
	l.NMI, l.NMISD = sweep.Moments(nmi)
	return l, nil
}

// Null returns the cached null line of m for cfg, computing and storing it
// when absent. The key is the null configuration (seed aside), the data's
// files (their sizes and times) and the build (datasets.BuildID), so a new
// build or changed files recompute it.
func (c Cache) Null(ctx context.Context, m core.Method, cfg core.Config) (Line, error) {
	if m.Null == nil {
		return Line{}, ErrNoNull
	}
	return c.runs(ctx, "null", "null run of "+m.Name, m.Null(cfg))
}

// runs returns the cached runsLine of cfg under the key kind-hash, where
// the hash covers cfg (seed aside), the data's files and the build.
func (c Cache) runs(ctx context.Context, kind, what string, cfg core.Config) (Line, error) {
	cfg.Seed, cfg.Audit = 0, nil // the same line (and key) with or without --audit
	b, err := json.Marshal(cfg)
	if err != nil {
		return Line{}, err
	}
	// The build is the executable's hash: a null depends on the method's
	// code, not only on the data, and the module's VCS stamp is missing
	// under `go run` (a stale null would have been read back after an
	// update). Without it nothing is cached.
	build := buildID()
	if build == "" {
		return runsLine(ctx, c.Start, what, cfg)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %d\x00%s\x00%s\x00", kind, schema, build, b)
	fingerprint(h, cfg.Data)
	key := kind + "-" + hex.EncodeToString(h.Sum(nil))
	// A line cached before SeedARI existed is computed again: Paired needs it.
	if l, ok := c.get(key); ok && len(l.SeedARI) == l.Seeds {
		return l, nil
	}
	l, err := runsLine(ctx, c.Start, what, cfg)
	if err != nil {
		return Line{}, err
	}
	c.put(key, l)
	return l, nil
}

// buildID is datasets.BuildID, a variable so that tests can play two
// builds.
var buildID = datasets.BuildID

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

// RunVerdict is one run's verdict on its ARI against its method's null:
// NoLearning when the run is private and not above the null beyond seed
// noise (NoBetter, the run judged with the null's spread), else "". A
// non-private run, an ARI that is NaN and a missing null have none.
func RunVerdict(private bool, ari float64, null *Line) string {
	if !private || null == nil || math.IsNaN(ari) || !NoBetter(ari, 0, 1, *null) {
		return ""
	}
	return NoLearning
}

// NoLearning is the verdict on a private result that is not above its
// method's null beyond seed noise (NoBetter): every face says it in these
// words instead of presenting the number bare (issue 16 point 1).
const NoLearning = "no better than no learning"

// MinLearning is the smallest ARI gain over the null that NoBetter counts
// as learning.
const MinLearning = 0.02
