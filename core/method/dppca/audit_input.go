package dppca

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/datasets"
)

// inputAuditDoc is dppca's Method.InputAudit.
const inputAuditDoc = "input canaries: synthetic cells (at most 10 % of the cells), each with counts on one of the data set's rarest genes only, " +
	"appended to the raw matrix before the private preprocessing; the attacker knows every real cell, sees the releases and scores a canary by " +
	"the released noisy ranking sum of its gene minus the real cells' sum (a cell moves it by at most 1)"

// InputCanaryValue is the raw value an input canary holds on each gene of
// its signature: any positive value gives the same normalised profile
// (each cell's profile enters the ranking at unit norm); 10 counts keep
// the cell's values in the range of counts and of log values alike.
const InputCanaryValue = 10

// InputCanaryGenes is the size of an input canary's signature in the
// dppca pipeline: one gene, the input-space Dirac. A cell's whole
// normalised profile has norm 1 in the ranking release (Δ = 1), so a
// canary on s genes moves the sum over its genes by √s against noise
// √s·σ: the same ratio for every s, and s = 1 keeps the signatures
// disjoint longest.
const InputCanaryGenes = 1

// InputAudit is an input-canary audit of the dppca pipeline (dppca and
// the dppca stage of dcan-sound): synthetic cells on the rarest genes,
// in the raw data before the private preprocessing, scored from the
// released gene ranking. Not safe for concurrent use.
type InputAudit struct {
	canaries *audit.InputCanaries
	cells    int       // real cells; the included canaries follow them
	known    []float64 // the ranking sums of the real cells, without noise
}

// errPublicPrep is the input audit's refusal of prep=public, whose
// preprocessing releases no ranking to score.
var errPublicPrep = errors.New("input canaries are scored from the private preprocessing's gene ranking, which prep=public does not release; use prep=private or --audit-kind gradient")

// CheckInputPrep returns an error wrapping core.ErrBadConfig when an input
// audit meets a preprocessing without a ranking release (prep=public).
func CheckInputPrep(p Prep) error {
	if p == PrepPublic {
		return fmt.Errorf("dppca: audit: %w: %w", errPublicPrep, core.ErrBadConfig)
	}
	return nil
}

// NewInputAudit draws the input canaries of d for spec (m = spec's count,
// 0: min(1,000, 10 % of the cells)) and returns d with the included ones
// appended as cells labelled as none (so no score counts them) and
// barcoded "audit-canary-j". d is not modified. It returns an error
// wrapping core.ErrBadConfig when spec asks for more canaries than 10 %
// of the cells, or ErrInput when d has too few cells for one canary.
func NewInputAudit(d *datasets.Dataset, spec core.AuditSpec, seed uint64) (*InputAudit, *datasets.Dataset, error) {
	return NewInputAuditTarget(d, spec, seed, PublicTarget)
}

// NewInputAuditTarget is NewInputAudit for releases whose cells are
// normalised to the public total target (NewSourceTarget): the known
// ranking the audit scores against is computed with the same total.
func NewInputAuditTarget(d *datasets.Dataset, spec core.AuditSpec, seed uint64, target float64) (*InputAudit, *datasets.Dataset, error) {
	if !(target > 0) || math.IsInf(target, 1) {
		return nil, nil, core.Wrapf(ErrInput, "dppca: audit: the public total is %v, must be a finite number > 0", target)
	}
	n, g := d.Cells(), d.Genes()
	if audit.MaxInputCanaries(n) < 1 {
		return nil, nil, core.Wrapf(ErrInput, "dppca: audit: %s has %d cells, too few for one input canary (at most 10 %% of the cells)", d.Name, n)
	}
	m, err := spec.CanariesFor(audit.MaxInputCanaries(n))
	if err != nil {
		return nil, nil, fmt.Errorf("dppca: audit: input canaries are at most 10 %% of the %d cells: %w", n, err)
	}
	total := make([]float64, g)
	for k, c := range d.X.Indices {
		total[c] += math.Abs(float64(d.X.Data[k]))
	}
	ic, err := audit.NewInputCanaries(audit.InputConfig{Canaries: m, Cells: n,
		Pool: audit.RarestGenes(total, m*InputCanaryGenes), GenesPer: InputCanaryGenes, Seed: seed})
	if err != nil {
		return nil, nil, fmt.Errorf("dppca: audit: %w", err)
	}
	a := &InputAudit{canaries: ic, cells: n, known: rankSums(newCellLog(d, target).x)}
	return a, a.augment(d), nil
}

// augment returns a copy of d with the included canaries appended.
func (a *InputAudit) augment(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	x := *d.X
	x.Indptr = slices.Clone(d.X.Indptr)
	x.Indices = slices.Clone(d.X.Indices)
	x.Data = slices.Clone(d.X.Data)
	out.Barcodes = slices.Clone(d.Barcodes)
	if d.Labels != nil {
		out.Labels = slices.Clone(d.Labels)
	}
	for j, in := range a.canaries.Included() {
		if !in {
			continue
		}
		for _, c := range a.canaries.Genes(j) {
			x.Indices = append(x.Indices, int32(c))
			x.Data = append(x.Data, InputCanaryValue)
		}
		x.Rows++
		x.Indptr = append(x.Indptr, int64(len(x.Data)))
		out.Barcodes = append(out.Barcodes, fmt.Sprintf("audit-canary-%d", j))
		if out.Labels != nil {
			out.Labels = append(out.Labels, -1)
		}
	}
	out.X = &x
	return &out
}

// Cells returns the number of real cells (the canaries follow them).
func (a *InputAudit) Cells() int {
	if a == nil {
		return -1
	}
	return a.cells
}

// inputView is what the input-canary attacker sees and scores.
const inputView = "the released noisy gene ranking and knows every real cell (the DP adversary); score: the released ranking sum of the canary's gene minus the real cells' exact sum"

// Event scores every canary by the released ranking sums of its genes
// (m.Rank) minus the real cells' exact sums (the attacker of the DP
// definition knows every other cell), and returns the audit's event at confidence for δ; setting
// names the release and mode. It returns an error when the release has no
// ranking (prep=public).
func (a *InputAudit) Event(m *Matrix, delta, confidence float64, setting string) (core.AuditEvent, error) {
	if m == nil || m.Rank == nil {
		return core.AuditEvent{}, fmt.Errorf("dppca: audit: %w", errPublicPrep)
	}
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	scores := make([]float64, a.canaries.Len())
	for j := range scores {
		for _, c := range a.canaries.Genes(j) {
			scores[j] += m.Rank[c] - a.known[c]
		}
	}
	res, err := a.canaries.Audit(scores, delta, 1-confidence, inputView)
	if err != nil {
		return core.AuditEvent{}, fmt.Errorf("dppca: audit: %w", err)
	}
	return core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditInput, View: "released gene ranking",
		Setting: fmt.Sprintf("%s, %s; best of %d guessing rules (Bonferroni)", res.Setting, setting, res.Rules)}, nil
}
