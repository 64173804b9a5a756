package class

import (
	"cmp"
	"math"
	"slices"
)

// Entry is one line of the leaderboard: a participant's best run.
type Entry struct {
	Name string
	Best Run
	// Runs counts the participant's runs that qualified (same data set,
	// ε ≤ the target).
	Runs int
}

// Leaderboard ranks the participants by their best ARI among their runs on
// data with ε ≤ target: higher ARI first, a tie going to the lower ε, then
// to the earlier run, then by name. One entry a participant; a participant
// with no qualifying run is not listed.
func Leaderboard(runs []Run, data string, target float64) []Entry {
	best := map[string]*Entry{}
	for _, r := range runs {
		if r.Data != data || math.IsNaN(r.ARI) || math.IsNaN(r.Epsilon) || r.Epsilon > target {
			continue
		}
		e, ok := best[r.Member]
		if !ok {
			best[r.Member] = &Entry{Name: r.Name, Best: r, Runs: 1}
			continue
		}
		e.Runs++
		if better(r, e.Best) {
			e.Best = r
		}
	}
	out := make([]Entry, 0, len(best))
	for _, e := range best {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		switch {
		case better(a.Best, b.Best):
			return -1
		case better(b.Best, a.Best):
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// better reports whether a ranks above b: higher ARI, then lower ε, then
// earlier.
func better(a, b Run) bool {
	if a.ARI != b.ARI {
		return a.ARI > b.ARI
	}
	if a.Epsilon != b.Epsilon {
		return a.Epsilon < b.Epsilon
	}
	return a.At.Before(b.At)
}

// DataSets lists the data sets of runs, the most used first (then by
// name): the board's choices, its default the first.
func DataSets(runs []Run) []string {
	n := map[string]int{}
	for _, r := range runs {
		n[r.Data]++
	}
	out := make([]string, 0, len(n))
	for d := range n {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(n[b], n[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}
