package tui

import (
	"math"

	tea "charm.land/bubbletea/v2"

	coreaudit "github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/internal/memo"
)

// auditCeiling is the most an audit of m canaries can show at
// confidence c and δ: core/audit's own ceiling for its family of guessing
// rules (it depends on the design only, not on the scores), about
// ln(m / ln(1/β)) (docs/AUDIT.md). 0 for a bad input. It sums binomial
// terms over every guess: 55 ms for m = 1,000, seconds from 10⁵ on, so
// the screen computes it in a command (ceilingCmd) and shares it
// (ceilingCache).
func auditCeiling(m int, c, delta float64) float64 {
	if m < 1 || m > maxAuditCanaries {
		return 0
	}
	r, err := coreaudit.Score(make([]float64, m), make([]bool, m), delta, 1-c)
	if err != nil {
		return 0
	}
	return r.Ceiling
}

// exactCeilingLimit is the largest m whose ceiling the screen computes
// exactly (about half a second); above it the field shows the δ = 0 bound
// (ceilingAbove), which the exact ceiling never exceeds.
const exactCeilingLimit = 10_000

// auditRules is the number of guessing rules core/audit tries for m ≥ 200
// (7 fractions × 2 splits, all distinct), its Bonferroni factor.
const auditRules = 14

// ceilingAbove bounds the ceiling from above without the δ term, which
// only lowers it: all m guesses right at β/14, −ln(e^{ln(14/β)/m} − 1)
// (docs/AUDIT.md, Ceiling). 0 for a bad input.
func ceilingAbove(m int, c float64) float64 {
	if m < 1 || !(c > 0 && c < 1) {
		return 0
	}
	return -math.Log(math.Expm1(math.Log(auditRules/(1-c)) / float64(m)))
}

// ceilingCache shares ceilings across models (a served session each).
var ceilingCache = memo.New[ceilingKey, float64](64)

// ceilingKey is what auditCeiling depends on.
type ceilingKey struct {
	m        int
	c, delta float64
}

// ceilingMsg is a ceiling computed in a command.
type ceilingMsg struct {
	key  ceilingKey
	ceil float64
}

// ceilingKeyNow is the key of the screen's inputs.
func (p *auditPane) ceilingKeyNow() ceilingKey {
	return ceilingKey{p.canaries(), p.in.Confidence, p.delta()}
}

// ceilingCmd brings the ceiling to the inputs: nothing when it is there
// or on its way, the δ = 0 bound at once for a large m, else a command.
func (p *auditPane) ceilingCmd() tea.Cmd {
	k := p.ceilingKeyNow()
	switch {
	case k == p.ceilFor || k == p.ceilAsked:
		return nil
	case k.m > exactCeilingLimit:
		p.ceilFor, p.ceil = k, ceilingAbove(k.m, k.c)
		return nil
	}
	p.ceilAsked = k
	return func() tea.Msg {
		return ceilingMsg{key: k, ceil: ceilingCache.Get(k, func() float64 { return auditCeiling(k.m, k.c, k.delta) })}
	}
}

// ceilingText is the ceiling of the inputs as the screen writes it: "…"
// while it is computed, "≤ x" above exactCeilingLimit.
func (p *auditPane) ceilingText() string {
	k := p.ceilingKeyNow()
	switch {
	case k != p.ceilFor:
		return "…"
	case k.m > exactCeilingLimit:
		return "≤ " + fmtEps(p.ceil)
	}
	return fmtEps(p.ceil)
}
