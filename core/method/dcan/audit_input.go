package dcan

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/audit"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// inputAuditDoc is DP-DCAN's Method.InputAudit (docs/AUDIT.md).
const inputAuditDoc = "input canaries: synthetic cells (at most 10 % of the cells), each high on 5 of the rarest kept genes of its own and at the " +
	"zero-count value elsewhere, added to the training cells after the (public) preprocessing; sound and nonprivate modes: the attacker sees the " +
	"final network and scores a canary by minus its reconstruction loss; paper mode: it sees the final encoder (what the paper releases) and " +
	"scores a canary by how far its code lies from the code of the canaries' common background"

// inputGenes is s, the size of a DP-DCAN input canary's signature: a few
// genes, so that a signature is a pattern the network must learn to
// reconstruct (one gene is a bias the decoder learns for every cell), and
// few, so that m·s of the rarest kept genes hold disjoint signatures.
const inputGenes = 5

// inputState is a DP-DCAN run's input-canary audit: the canaries, every
// canary's row (included or not) and the common background row.
type inputState struct {
	canaries *audit.InputCanaries
	g        int
	x, raw   []float32 // m × G model input and raw counts of every canary
	bg       []float32 // the background: each gene's zero-count value
}

// newInputState draws the input canaries of d for spec and returns them
// with d augmented by the included ones (labelled as none, so no score
// counts them). d is not modified. It returns an error wrapping
// core.ErrBadConfig when spec asks for more than 10 % of the cells.
func newInputState(d *datasets.Preprocessed, spec core.AuditSpec, seed uint64) (*inputState, *datasets.Preprocessed, error) {
	n, g := d.Cells, d.Genes
	if audit.MaxInputCanaries(n) < 1 {
		return nil, nil, configErr("cells for an input audit", n, "at least 10 (input canaries are at most 10 % of the cells)")
	}
	m, err := spec.CanariesFor(audit.MaxInputCanaries(n))
	if err != nil {
		return nil, nil, fmt.Errorf("dcan: audit: input canaries are at most 10 %% of the %d cells: %w", n, err)
	}
	lo, hi := make([]float32, g), make([]float32, g)
	rawHi, total := make([]float32, g), make([]float64, g)
	for j := range g {
		lo[j], hi[j] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i := range n {
		for j, v := range d.X[i*g : (i+1)*g] {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
			if d.RawCounts != nil {
				c := d.RawCounts[i*g+j]
				rawHi[j] = max(rawHi[j], c)
				total[j] += float64(c)
			} else {
				total[j] += float64(v - lo[j])
			}
		}
	}
	ic, err := audit.NewInputCanaries(audit.InputConfig{Canaries: m, Cells: n,
		Pool: audit.RarestGenes(total, m*inputGenes), GenesPer: min(inputGenes, g), Seed: seed})
	if err != nil {
		return nil, nil, fmt.Errorf("dcan: audit: %w", err)
	}
	st := &inputState{canaries: ic, g: g, x: make([]float32, m*g), bg: lo}
	if d.RawCounts != nil {
		st.raw = make([]float32, m*g)
	}
	for j := range m {
		copy(st.x[j*g:(j+1)*g], lo)
		for _, c := range ic.Genes(j) {
			st.x[j*g+c] = hi[c]
			if st.raw != nil {
				st.raw[j*g+c] = max(rawHi[c], 1)
			}
		}
	}
	out := *d
	out.X = slices.Clone(d.X)
	out.RawCounts = slices.Clone(d.RawCounts)
	out.SizeFactors = slices.Clone(d.SizeFactors)
	out.Barcodes = slices.Clone(d.Barcodes)
	if d.Labels != nil {
		out.Labels = slices.Clone(d.Labels)
	}
	for j, in := range ic.Included() {
		if !in {
			continue
		}
		out.Cells++
		out.X = append(out.X, st.x[j*g:(j+1)*g]...)
		if st.raw != nil {
			out.RawCounts = append(out.RawCounts, st.raw[j*g:(j+1)*g]...)
		}
		out.SizeFactors = append(out.SizeFactors, 1) // a cell of the median library size
		out.Barcodes = append(out.Barcodes, fmt.Sprintf("audit-canary-%d", j))
		if out.Labels != nil {
			out.Labels = append(out.Labels, -1)
		}
	}
	return st, &out, nil
}

// scores returns the attacker's score of every canary under the final
// network: with the decoder released (whole), minus the canary's
// reconstruction loss of its own row (ZINB of its counts, or MSE); with
// the encoder only, the distance of its code from the background's code.
func (st *inputState) scores(m *model, whole bool) []float64 {
	a := m.ae
	g := st.g
	k := st.canaries.Len()
	out := make([]float64, k)
	rows := a.MaxRows()
	bgRow := compute.NewMatrix(1, g, slices.Clone(st.bg))
	a.Encode(bgRow)
	zb := slices.Clone(a.Latent().RawRowView(0))
	for s := 0; s < k; s += rows {
		r := min(rows, k-s)
		in := compute.NewMatrix(r, g, st.x[s*g:(s+r)*g])
		if !whole {
			a.Encode(in)
			z := a.Latent()
			for i := range r {
				var d float64
				for c, v := range z.RawRowView(i) {
					d += float64(v-zb[c]) * float64(v-zb[c])
				}
				out[s+i] = math.Sqrt(d)
			}
			continue
		}
		a.Forward(in)
		for i := range r {
			v := func(x compute.Matrix) compute.Matrix { return x.View(i, 0, 1, g) }
			var loss float64
			if m.counts {
				tgt := compute.NewMatrix(1, g, st.raw[(s+i)*g:(s+i+1)*g])
				loss = nn.ZINB(v(a.OutputGrad(nn.HeadMu)), v(a.OutputGrad(nn.HeadTheta)), v(a.OutputGrad(nn.HeadPi)), tgt,
					v(a.Output(nn.HeadMu)), v(a.Output(nn.HeadTheta)), v(a.Output(nn.HeadPi)), []float32{1}, 1)
			} else {
				loss = nn.MSE(v(a.OutputGrad(0)), v(a.Output(0)), in.View(i, 0, 1, g), 1)
			}
			out[s+i] = -loss
		}
	}
	return out
}

// emitInputAudit scores the input canaries and reports the bound.
func (r *runState) emitInputAudit() error {
	// The paper releases the encoder (DECISIONS); sound and nonprivate
	// runs release the trained network.
	whole := r.s.cfg.Mode != core.ModePaper
	scores := r.input.scores(r.m, whole)
	for j, s := range scores {
		if math.IsNaN(s) {
			scores[j] = math.Inf(-1) // a loss the network cannot compute: guessed "out"
		}
	}
	spec := r.s.cfg.Audit.Resolved()
	delta := r.s.cfg.Delta
	if delta <= 0 || delta >= 1 {
		delta = 0
	}
	view, short := "the final encoder (layers 1-3, what the paper releases); score: the distance of the canary's code from its background's code", "final encoder"
	if r.s.cfg.Mode == core.ModePaper {
		view += fmt.Sprintf(" (layers %s noised)", r.layers)
	}
	if whole {
		view, short = "the final network (every layer); score: minus the canary's reconstruction loss", "final network"
	}
	res, err := r.input.canaries.Audit(scores, delta, 1-spec.Confidence, view)
	if err != nil {
		return fmt.Errorf("dcan: audit: %w", err)
	}
	r.ctl.Emit(core.AuditEvent{EpsilonLower: res.EpsilonLower, Ceiling: res.Ceiling, Confidence: res.Confidence,
		Delta: res.Delta, Canaries: res.Canaries, Guesses: res.Guesses, Correct: res.Correct,
		Kind: core.AuditInput, View: short,
		Setting: fmt.Sprintf("%s, after %d steps, %s mode; best of %d guessing rules (Bonferroni)", res.Setting, r.step, r.s.cfg.Mode, res.Rules)})
	return nil
}
