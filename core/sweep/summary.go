package sweep

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/dpscope/dpscope/core"
)

// Group is one point of the trade-off curve: a method, mode, ε and option
// values, over seeds.
type Group struct {
	Method     string            `json:"method"`
	Mode       core.Mode         `json:"mode"`
	Epsilon    float64           `json:"epsilon"` // the target; 0 for nonprivate
	Options    map[string]string `json:"options,omitempty"`
	N          int               `json:"n"` // finished runs
	ARIMean    *float64          `json:"ari_mean"`
	ARISD      *float64          `json:"ari_sd"`
	NMIMean    *float64          `json:"nmi_mean"`
	NMISD      *float64          `json:"nmi_sd"`
	SpentMax   float64           `json:"epsilon_spent_max"` // the largest finite ε reported for one run
	Unbounded  int               `json:"epsilon_unbounded"` // runs for which an accountant reported ε = ∞
	Guarantees []core.Guarantee  `json:"guarantees"`        // the statuses the runs reported
	ari, nmi   []float64
	seeds      []uint64 // the seed of each ARI in ari
}

// SeedARI returns the ARI of each finished run of g by its seed (nil when
// none reported one), so that g can be judged against a null run at the
// same seeds (reference.Judge): seed noise shared by both cancels in
// their difference.
func (g Group) SeedARI() map[uint64]float64 {
	if len(g.ari) == 0 {
		return nil
	}
	m := make(map[uint64]float64, len(g.ari))
	for i, a := range g.ari {
		m[g.seeds[i]] = a
	}
	return m
}

// Cost is what a set of runs on the same data cost in privacy together.
type Cost struct {
	PrivateRuns  int     `json:"private_runs"`
	Unbounded    int     `json:"unbounded_runs"` // private runs with ε = ∞: then no total bound holds
	EpsilonTotal float64 `json:"epsilon_total"`
	DeltaTotal   float64 `json:"delta_total"`
	Composition  string  `json:"composition"`
}

// CostComposition says how Cost composes.
const CostComposition = "basic: the sum of every private run's ε and δ on this data (an upper bound; a tighter one needs the runs' RDP curves)"

// Summarise groups the finished runs (outcomes[i] non-nil, not stopped, no
// error) by method, mode, options and ε, in grid order, and adds up their
// privacy cost. Unfinished points still get their group, with N = 0.
func Summarise(points []Point, outcomes []*Outcome) ([]Group, Cost) {
	var groups []Group
	cost := Cost{Composition: CostComposition}
	index := map[string]int{}
	for i, p := range points {
		cfg := p.Config
		key := fmt.Sprintf("%s\x00%s\x00%v\x00%v", cfg.Method, cfg.Mode, cfg.Epsilon, optionKey(cfg.Options))
		gi, ok := index[key]
		if !ok {
			gi = len(groups)
			index[key] = gi
			groups = append(groups, Group{Method: cfg.Method, Mode: cfg.Mode, Epsilon: cfg.Epsilon, Options: cfg.Options, Guarantees: []core.Guarantee{}})
		}
		o := outcomes[i]
		if o == nil || o.Stopped || o.Err != nil {
			continue
		}
		g := &groups[gi]
		g.N++
		if o.ARI != nil {
			g.ari, g.seeds = append(g.ari, *o.ARI), append(g.seeds, cfg.Seed)
		}
		if o.NMI != nil {
			g.nmi = append(g.nmi, *o.NMI)
		}
		g.SpentMax = max(g.SpentMax, o.Spent)
		if o.Unbounded {
			g.Unbounded++
		}
		if !slices.Contains(g.Guarantees, o.Guarantee) {
			g.Guarantees = append(g.Guarantees, o.Guarantee)
		}
		if cfg.Mode != core.ModeNonPrivate {
			cost.PrivateRuns++
			if o.Unbounded {
				cost.Unbounded++
			}
			cost.EpsilonTotal += o.Spent
			cost.DeltaTotal += o.Delta
		}
	}
	for gi := range groups {
		g := &groups[gi]
		g.ARIMean, g.ARISD = MeanSD(g.ari)
		g.NMIMean, g.NMISD = MeanSD(g.nmi)
	}
	return groups, cost
}

func optionKey(m map[string]string) string {
	var s string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s += k + "=" + m[k] + "\x00"
	}
	return s
}

// MeanSD returns the mean and sample standard deviation, nil when there
// are no values (and a zero sd for one).
func MeanSD(v []float64) (mean, sd *float64) {
	if len(v) == 0 {
		return nil, nil
	}
	m, s := Moments(v)
	return &m, &s
}

// Moments returns the mean and the sample standard deviation of v: sd 0
// for one value, both NaN for none. Every mean ± sd dpscope prints (sweep
// rows, reference lines, the tests' seed tables) comes from here.
func Moments(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0 * mean // 0, or NaN with the mean when v is empty
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}
