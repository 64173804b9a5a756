package reference

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// Self returns the cached line of cfg itself over seeds 0 … B1Seeds−1 (the
// run's own settings, seed aside), computing it when absent. It is what a
// run is judged with against its null seed by seed (Paired): one run
// cannot tell learning from seed noise, the same settings at the null's
// seeds can. Like every reference line it shows only an ARI and an NMI,
// which read the true labels: none of these runs' releases is shown, so
// none joins a privacy tally.
func (c Cache) Self(ctx context.Context, cfg core.Config) (Line, error) {
	return c.runs(ctx, "self", "run of "+cfg.Method+" at seeds 0–4", cfg)
}

// Learning is a method's gain over its null, paired seed by seed: the
// mean over seeds of ARI(run) − ARI(null) at the same seed, and its
// standard error (the seeds' sd of the differences over √Seeds).
type Learning struct {
	Gain  float64 `json:"gain"`
	SE    float64 `json:"se"`
	Seeds int     `json:"seeds"`
	// NoBetter is true when Gain is not above 2·SE or MinLearning
	// ("beyond seed noise": a paired difference larger than two standard
	// errors, ../shared/docs/DECISIONS.md).
	NoBetter bool `json:"no_better"`
}

// Paired compares self (a method's runs at seeds 0 … n−1) with its null at
// the same seeds. ok is false unless both lines carry the same number (at
// least 2) of per-seed ARIs.
func Paired(self, null Line) (l Learning, ok bool) {
	if len(self.SeedARI) != len(null.SeedARI) {
		return Learning{}, false
	}
	return PairedBySeed(self.BySeed(), null.BySeed())
}

// BySeed returns l's per-seed ARIs keyed by seed (SeedARI[i] is seed i),
// nil for a line without them (B1).
func (l Line) BySeed() map[uint64]float64 {
	if len(l.SeedARI) == 0 {
		return nil
	}
	m := make(map[uint64]float64, len(l.SeedARI))
	for i, a := range l.SeedARI {
		m[uint64(i)] = a
	}
	return m
}

// PairedBySeed compares a method's ARIs with its null's, both keyed by
// seed, over the seeds they share: a sweep's group run at seeds 0–2
// against a null line of seeds 0–4 is paired over seeds 0–2. ok is false
// when fewer than 2 seeds are shared: one difference has no spread.
func PairedBySeed(self, null map[uint64]float64) (l Learning, ok bool) {
	var d []float64
	for _, s := range slices.Sorted(maps.Keys(self)) { // a fixed order: the same sums every time
		if n, ok := null[s]; ok {
			d = append(d, self[s]-n)
		}
	}
	if len(d) < 2 {
		return Learning{}, false
	}
	mean, sd := sweep.Moments(d)
	se := sd / math.Sqrt(float64(len(d)))
	return Learning{Gain: mean, SE: se, Seeds: len(d), NoBetter: mean <= max(2*se, MinLearning)}, true
}

// Judge is the verdict on a group of private runs (a sweep's point: one
// method, mode and ε over seeds) against its null: self is the group's
// ARI by seed, mean and sd their moments over its n runs, nullBySeed the
// null's ARI by seed (null.BySeed() for a cached line). Where the two
// share at least 2 seeds the paired test over those seeds decides
// (PairedBySeed, DECISIONS' "beyond seed noise") and paired is returned;
// otherwise NoBetter, the unpaired test with both spreads, decides and
// paired is nil.
func Judge(self map[uint64]float64, mean, sd float64, n int, null Line, nullBySeed map[uint64]float64) (noBetter bool, paired *Learning) {
	if l, ok := PairedBySeed(self, nullBySeed); ok {
		return l.NoBetter, &l
	}
	return NoBetter(mean, sd, n, null), nil
}

// Verdict is a private run's verdict against its null: NoLearning or "".
// With self (the run's settings at the null's seeds, Cache.Self) it is the
// paired test over those seeds (Paired), the definition of "beyond seed
// noise"; without it, the one-run approximation of RunVerdict. learning is
// the paired comparison when there was one.
func Verdict(private bool, ari float64, null, self *Line) (verdict string, learning *Learning) {
	if !private || null == nil || math.IsNaN(ari) {
		return "", nil
	}
	if self != nil {
		if l, ok := Paired(*self, *null); ok {
			if l.NoBetter {
				return NoLearning, &l
			}
			return "", &l
		}
	}
	return RunVerdict(private, ari, null), nil
}

// String says the comparison in a few words, e.g. "+0.100 over its null,
// paired over seeds 0–4 (2 SE 0.025)".
func (l Learning) String() string {
	return fmt.Sprintf("%+.3f over its null, paired over seeds 0–%d (2 SE %.3f)", l.Gain, l.Seeds-1, 2*l.SE)
}
