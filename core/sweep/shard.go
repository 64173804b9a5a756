package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard names one of N disjoint parts of a grid: Index is 1 … Count, as
// `--shard 2/4` writes it (1-based like Jest's and Playwright's --shard,
// and like a Slurm array running --array=1-N).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String writes the shard as "INDEX/COUNT".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Holds reports whether the k-th point of a grid (0-based, in Points'
// order) belongs to the shard. The partition is round-robin: point k goes
// to shard k mod Count + 1. Round-robin rather than contiguous blocks
// because Points orders by method, mode and ε first: blocks would give one
// shard every slow run of a method and another every fast one, while
// round-robin spreads each method's runs over all shards. Shard sizes
// differ by at most one, and every point is in exactly one shard.
func (s Shard) Holds(k int) bool { return k%s.Count == s.Index-1 }

// Select returns the indices, in grid order, of the points of a grid of
// total points that belong to the shard.
func (s Shard) Select(total int) []int {
	var out []int
	for k := s.Index - 1; k < total; k += s.Count {
		out = append(out, k)
	}
	return out
}

// ParseShard reads "INDEX/COUNT" with 1 ≤ INDEX ≤ COUNT ≤ MaxRuns
// (a grid has at most MaxRuns points, so more shards than that is a typo).
func ParseShard(s string) (Shard, error) {
	bad := fmt.Errorf("shard is %q, must be INDEX/COUNT with 1 ≤ INDEX ≤ COUNT ≤ %d, e.g. 2/4", s, MaxRuns)
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, bad
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	sh := Shard{Index: index, Count: count}
	if err1 != nil || err2 != nil || sh.Validate() != nil {
		return Shard{}, bad
	}
	return sh, nil
}

// Validate checks 1 ≤ Index ≤ Count ≤ MaxRuns.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Count > MaxRuns || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: must be INDEX/COUNT with 1 ≤ INDEX ≤ COUNT ≤ %d", s.Index, s.Count, MaxRuns)
	}
	return nil
}
