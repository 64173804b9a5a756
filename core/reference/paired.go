package reference

import (
	"context"
	"fmt"
	"math"

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
	n := len(self.SeedARI)
	if n < 2 || len(null.SeedARI) != n {
		return Learning{}, false
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = self.SeedARI[i] - null.SeedARI[i]
	}
	mean, sd := sweep.Moments(d)
	se := sd / math.Sqrt(float64(n))
	return Learning{Gain: mean, SE: se, Seeds: n, NoBetter: mean <= max(2*se, MinLearning)}, true
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
