package audit

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// MaxInputCanaries returns how many input canaries a data set of cells
// real cells may hold: ⌊cells/10⌋ (DECISIONS "Audit": at most 10 % of the
// cells, so that the synthetic cells change the run they audit little).
func MaxInputCanaries(cells int) int { return max(0, cells/10) }

// InputConfig configures input canaries: m synthetic cells, each on a
// small gene set of its own (its signature), included in the training data
// with probability ½ each.
type InputConfig struct {
	// Canaries is m ≥ 1, at most MaxInputCanaries(Cells). Required.
	Canaries int
	// Cells is the number of real cells of the data set. Required.
	Cells int
	// Pool lists the genes the signatures are drawn from (the rarest of
	// the data set: RarestGenes), at least GenesPer of them. Required.
	Pool []int
	// GenesPer is the size s ≥ 1 of each canary's signature. Required.
	GenesPer int
	// Seed seeds the canaries' own stream (inclusion and signatures),
	// apart from the run's.
	Seed uint64
}

// Validate returns an error wrapping ErrInput for the first invalid field.
func (c InputConfig) Validate() error {
	switch {
	case c.Canaries < 1:
		return bad("input canaries", c.Canaries, "at least 1")
	case c.Canaries > MaxInputCanaries(c.Cells):
		return bad("input canaries", c.Canaries, fmt.Sprintf("at most 10 %% of the %d cells (%d)", c.Cells, MaxInputCanaries(c.Cells)))
	case c.GenesPer < 1:
		return bad("genes per canary", c.GenesPer, "at least 1")
	case len(c.Pool) < c.GenesPer:
		return bad("gene pool", len(c.Pool), fmt.Sprintf("at least the %d genes of one signature", c.GenesPer))
	}
	return nil
}

// InputCanaries are m synthetic cells for a black-box audit. Canary j's
// profile is its signature, GenesPer genes of the pool: disjoint from
// every other canary's when the pool holds m·s genes, else drawn
// independently (signatures may then overlap, which weakens the attack but
// never its validity: the bound holds for any canary design). The method
// builds the cells in its own representation, appends the included ones
// to its training data, and after the run scores every canary from what
// it releases (higher: more likely included). Not safe for concurrent use.
type InputCanaries struct {
	in    []bool
	genes [][]int
}

// NewInputCanaries draws the canaries' inclusion and signatures. It
// returns an error wrapping ErrInput if cfg is invalid.
func NewInputCanaries(cfg InputConfig) (*InputCanaries, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("audit: NewInputCanaries: %w", err)
	}
	m, s := cfg.Canaries, cfg.GenesPer
	c := &InputCanaries{in: make([]bool, m), genes: make([][]int, m)}
	rng := rand.New(rand.NewPCG(cfg.Seed, 4))
	for j := range c.in {
		c.in[j] = rng.IntN(2) == 1
	}
	pool := slices.Clone(cfg.Pool)
	if len(pool) >= m*s {
		rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
		for j := range m {
			c.genes[j] = slices.Sorted(slices.Values(pool[j*s : (j+1)*s]))
		}
		return c, nil
	}
	for j := range m {
		for t := range s { // partial Fisher–Yates: s distinct genes
			k := t + rng.IntN(len(pool)-t)
			pool[t], pool[k] = pool[k], pool[t]
		}
		c.genes[j] = slices.Sorted(slices.Values(pool[:s]))
	}
	return c, nil
}

// Len returns m, the number of canaries.
func (c *InputCanaries) Len() int { return len(c.in) }

// Included reports which canaries were included (the truth of the game).
func (c *InputCanaries) Included() []bool { return slices.Clone(c.in) }

// Genes returns canary j's signature, in increasing order.
func (c *InputCanaries) Genes(j int) []int { return slices.Clone(c.genes[j]) }

// Disjoint reports whether no two signatures share a gene.
func (c *InputCanaries) Disjoint() bool {
	seen := map[int]bool{}
	for _, g := range c.genes {
		for _, x := range g {
			if seen[x] {
				return false
			}
			seen[x] = true
		}
	}
	return true
}

// Audit scores the canaries (scores[j]: the attacker's score of canary j,
// higher for "in") into a Result at confidence 1 − β for δ (Score), with
// Setting saying the canaries are input canaries and view what the
// attacker saw. Errors as Score.
func (c *InputCanaries) Audit(scores []float64, delta, beta float64, view string) (Result, error) {
	res, err := Score(scores, c.in, delta, beta)
	genes := fmt.Sprintf("%d rare genes", len(c.genes[0]))
	if len(c.genes[0]) == 1 {
		genes = "1 rare gene"
	}
	res.Setting = fmt.Sprintf("input canaries (%d synthetic cells, each on %s of its own%s, each in the training data with probability ½); the attacker sees %s",
		len(c.in), genes, map[bool]string{true: "", false: ", some shared"}[c.Disjoint()], view)
	return res, err
}

// RarestGenes returns the k genes of smallest total (ties to the lower
// index), in increasing order of total: the pool of input canaries'
// signatures, where a canary stands out of the real cells most.
func RarestGenes(total []float64, k int) []int {
	idx := make([]int, len(total))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(total[a], total[b]) })
	return idx[:min(max(k, 0), len(idx))]
}
