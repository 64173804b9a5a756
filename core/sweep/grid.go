package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// MaxRuns caps a grid, so that a typo (seeds 0-100000000) is an error, not
// a sweep that never ends.
const MaxRuns = 100_000

// Grid is every method × mode × ε × option value × seed on one base
// config. Nonprivate modes ignore ε and run once per seed and option value.
type Grid struct {
	Base     core.Config         `json:"base"`
	Methods  []string            `json:"methods"`
	Modes    []core.Mode         `json:"modes"`
	Epsilons []float64           `json:"epsilons"`
	Seeds    []uint64            `json:"seeds"`
	Options  map[string][]string `json:"options,omitempty"` // one axis per key
}

// Point is one run of a grid.
type Point struct {
	Config core.Config
	// Name is a readable file-name stem, unique in the grid, e.g.
	// "dppca_sound_eps8_p=10_seed3".
	Name string
}

// Points expands the grid in a stable order: method, mode, option values,
// ε, seed. Every config is validated, so a bad grid fails before any run;
// the error wraps core.ErrBadConfig.
func (g Grid) Points() ([]Point, error) {
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
	var out []Point
	for _, method := range g.Methods {
		for _, mode := range g.Modes {
			eps := g.Epsilons
			if mode == core.ModeNonPrivate {
				eps = []float64{0}
			}
			for _, opts := range combos {
				for _, e := range eps {
					for _, seed := range g.Seeds {
						if len(out) >= MaxRuns {
							return nil, fmt.Errorf("%w: the grid has more than %d runs", core.ErrBadConfig, MaxRuns)
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
							return nil, fmt.Errorf("sweep point %s %s ε=%g seed %d: %w", method, mode, e, seed, err)
						}
						out = append(out, Point{Config: cfg, Name: pointName(cfg, keys)})
					}
				}
			}
		}
	}
	return out, nil
}

// pointName writes method, mode, ε, option values and seed; characters a
// file name should not hold become '-'.
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

// Hash identifies the grid: a sweep folder resumes only the grid it was
// made for.
func (g Grid) Hash() string {
	b, _ := json.Marshal(g) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
