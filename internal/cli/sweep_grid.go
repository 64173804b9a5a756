package cli

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

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

// maxSeeds caps --seeds: a sweep over more seeds than this is a typo.
const maxSeeds = 10_000

// parseSeeds reads "0-4", "1,3,5" or a mix such as "0-2,7": integers in
// 0 … 2⁶³−1 (DECISIONS: seeds are the same range in flags, TOML and JSON),
// at most maxSeeds of them, each once, in the order given.
func parseSeeds(s string) ([]uint64, error) {
	parts, err := parseCSV("seeds", s)
	if err != nil {
		return nil, err
	}
	bad := func(p string) error {
		return usagef("--seeds has %q, must be integers 0 … %d or ranges FIRST-LAST", p, int64(math.MaxInt64))
	}
	var out []uint64
	seen := map[uint64]bool{}
	for _, p := range parts {
		lo, hi, isRange := strings.Cut(p, "-")
		first, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		if err != nil || first < 0 {
			return nil, bad(p)
		}
		last := first
		if isRange {
			if last, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 64); err != nil || last < 0 {
				return nil, bad(p)
			}
			if last < first {
				return nil, usagef("--seeds has %q, a range that runs backwards: write it FIRST-LAST with FIRST ≤ LAST (%d-%d)", p, last, first)
			}
		}
		if uint64(last-first) >= maxSeeds || len(seen)+int(last-first) >= maxSeeds {
			return nil, usagef("--seeds %q lists more than %d seeds", s, maxSeeds)
		}
		for v := first; ; v++ {
			if !seen[uint64(v)] {
				seen[uint64(v)] = true
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
