package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// maxSweepRuns caps a grid so that a typo (--seeds 0-100000000) is an error,
// not a sweep that never ends.
const maxSweepRuns = 100_000

// sweepGrid is what `dpscope sweep` runs: every method × mode × ε × option
// value × seed, on one base config. Nonprivate modes ignore ε and run once
// per seed and option value.
type sweepGrid struct {
	Base     core.Config         `json:"base"`
	Methods  []string            `json:"methods"`
	Modes    []core.Mode         `json:"modes"`
	Epsilons []float64           `json:"epsilons"`
	Seeds    []uint64            `json:"seeds"`
	Options  map[string][]string `json:"options,omitempty"` // --opt KEY=V1,V2: a grid axis
}

// sweepPoint is one run of the grid.
type sweepPoint struct {
	cfg  core.Config
	name string // file name stem in the sweep folder, unique in the grid
}

// parseCSV splits a comma-separated flag value, trimming spaces and
// refusing empty items.
func parseCSV(flag, s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, usagef("--%s is %q, must be a comma-separated list without empty items", flag, s)
		}
		out = append(out, part)
	}
	return out, nil
}

// parseEpsilons reads "0.5,1,2": each finite and > 0, no duplicates.
func parseEpsilons(s string) ([]float64, error) {
	parts, err := parseCSV("epsilon", s)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, usagef("--epsilon has %q, each ε must be a finite number > 0", p)
		}
		if slices.Contains(out, v) {
			return nil, usagef("--epsilon lists %v twice", v)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

// parseSeeds reads "0-4", "1,3,5" or a mix such as "0-2,7": integers in
// 0 … 2⁶³−1 (DECISIONS: seeds are the same range in flags, TOML and JSON).
func parseSeeds(s string) ([]uint64, error) {
	parts, err := parseCSV("seeds", s)
	if err != nil {
		return nil, err
	}
	bad := func(p string) error {
		return usagef("--seeds has %q, must be integers 0 … %d or ranges FIRST-LAST", p, int64(math.MaxInt64))
	}
	var out []uint64
	for _, p := range parts {
		lo, hi, isRange := strings.Cut(p, "-")
		first, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		if err != nil || first < 0 {
			return nil, bad(p)
		}
		last := first
		if isRange {
			if last, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 64); err != nil || last < first {
				return nil, bad(p)
			}
		}
		if last-first >= maxSweepRuns || len(out)+int(last-first) >= maxSweepRuns {
			return nil, usagef("--seeds %q lists more than %d seeds", s, maxSweepRuns)
		}
		for v := first; ; v++ {
			if !slices.Contains(out, uint64(v)) {
				out = append(out, uint64(v))
			}
			if v == last {
				break
			}
		}
	}
	return out, nil
}

// parseOptionAxes reads repeated --opt KEY=V1,V2 into one axis per key.
func parseOptionAxes(opts []string) (map[string][]string, error) {
	axes := map[string][]string{}
	for _, kv := range opts {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("--opt is %q, must be KEY=VALUE or KEY=V1,V2,…", kv)
		}
		if _, dup := axes[k]; dup {
			return nil, usagef("--opt sets %q twice; list its values once, comma-separated", k)
		}
		vals, err := parseCSV("opt "+k, v)
		if err != nil {
			return nil, err
		}
		axes[k] = vals
	}
	return axes, nil
}

// points expands the grid in a stable order: method, mode, option values,
// ε, seed. Every config is validated, so a bad grid fails before any run.
func (g sweepGrid) points() ([]sweepPoint, error) {
	keys := slices.Sorted(maps.Keys(g.Options))
	combos := []map[string]string{{}}
	for _, k := range keys {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range g.Options[k] {
				m := maps.Clone(c)
				m[k] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	var out []sweepPoint
	for _, method := range g.Methods {
		for _, mode := range g.Modes {
			eps := g.Epsilons
			if mode == core.ModeNonPrivate {
				eps = []float64{0}
			}
			for _, opts := range combos {
				for _, e := range eps {
					for _, seed := range g.Seeds {
						if len(out) >= maxSweepRuns {
							return nil, usagef("the grid has more than %d runs", maxSweepRuns)
						}
						cfg := g.Base
						cfg.Method, cfg.Mode, cfg.Epsilon, cfg.Seed = method, mode, e, seed
						if mode == core.ModeNonPrivate {
							cfg.Sigma = 0
						}
						cfg.Options = maps.Clone(g.Base.Options)
						if len(opts) > 0 && cfg.Options == nil {
							cfg.Options = map[string]string{}
						}
						maps.Copy(cfg.Options, opts)
						if err := cfg.Validate(); err != nil {
							return nil, usageError{fmt.Errorf("sweep point %s %s ε=%g seed %d: %w", method, mode, e, seed, err)}
						}
						out = append(out, sweepPoint{cfg: cfg, name: pointName(cfg, keys)})
					}
				}
			}
		}
	}
	return out, nil
}

// pointName is a readable file name stem for a run, e.g.
// "dppca_sound_eps8_p=10_seed3"; characters a file name should not hold
// become '-'.
func pointName(cfg core.Config, optKeys []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s_%s", cfg.Method, cfg.Mode)
	if cfg.Mode != core.ModeNonPrivate {
		fmt.Fprintf(&b, "_eps%s", strconv.FormatFloat(cfg.Epsilon, 'g', -1, 64))
	}
	for _, k := range optKeys {
		fmt.Fprintf(&b, "_%s=%s", k, cfg.Options[k])
	}
	fmt.Fprintf(&b, "_seed%d", cfg.Seed)
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._=+-", r):
			return r
		}
		return '-'
	}, b.String())
}

// hash identifies the grid: a sweep folder resumes only the grid it was
// made for.
func (g sweepGrid) hash() string {
	b, _ := json.Marshal(g) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
