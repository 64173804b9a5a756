package fed

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Unit is the privacy unit of fl-dp and ppml-omics in sound mode.
type Unit int

const (
	// UnitClient protects one client's whole data (replace-one): each
	// client clips its update to C and adds N(0, σ²C²) locally, the
	// paper's mechanism and DECISIONS' federated unit. The default.
	UnitClient Unit = iota
	// UnitRecord protects one cell (added or removed), the unit of the
	// central methods: every client trains by DP-SGD on its own cells
	// (full batch, each cell's gradient clipped to C, N(0, σ²C²) on the
	// sum, one step per round), and uploads the result as is. dpscope's
	// labelled design; sound mode only.
	UnitRecord
)

// String returns "client" or "record".
func (u Unit) String() string {
	switch u {
	case UnitClient:
		return "client"
	case UnitRecord:
		return "record"
	}
	return fmt.Sprintf("Unit(%d)", int(u))
}

// ParseUnit reads "client" or "record".
func ParseUnit(s string) (Unit, error) {
	for _, u := range []Unit{UnitClient, UnitRecord} {
		if u.String() == s {
			return u, nil
		}
	}
	return 0, configErr("privacy unit", fmt.Sprintf("%q", s), "client or record")
}

// DefaultRoundsRecord is the number of rounds of UnitRecord: one DP-SGD
// step per client per round, so 20 noisy full-batch gradients of every
// client (about 20 s on pbmc_4k with the paper's network on one core).
const DefaultRoundsRecord = 20

// UnitRecord's network G→DefaultRecordHidden→DefaultRecordLatent→…→G,
// the paper's shape at an eighth of its widths (package doc,
// "Record-level sound mode": the rule that sets it).
const (
	DefaultRecordHidden = 128
	DefaultRecordLatent = 16
)

// Accountant labels of UnitRecord.
const (
	LabelRecordGDP = "audited: each cell, add/remove, local DP-SGD (GDP, exact)"
	LabelRecordRDP = "audited: each cell, add/remove, local DP-SGD (RDP)"
	LabelRecordPLD = "audited: each cell, add/remove, local DP-SGD (PLD)"
)

func init() {
	shortLabels[LabelRecordGDP] = "cell GDP"
	shortLabels[LabelRecordRDP] = "cell RDP"
	shortLabels[LabelRecordPLD] = "cell PLD"
}

// recPrivacy is the bookkeeping of UnitRecord. A cell is held by exactly
// one client and touches only that client's DP-SGD steps; every upload, the
// server's aggregate, the shuffle and every later round are functions of
// those noisy steps and of public state. So each cell's privacy loss is
// that of its client's steps: R full-batch (q = 1) Gaussian steps with
// noise multiplier z at add/remove sensitivity C, μ-GDP with μ = √R/z,
// exactly, whatever the number of clients.
type recPrivacy struct {
	delta   float64
	target  float64 // ε target, 0 when σ was given
	clip    float64
	z       float64
	planned int
	done    int
	ledger  *accountant.Ledger
	secure  bool
}

// newRecPrivacy solves z from the ε target (or takes cfg.Sigma).
func newRecPrivacy(cfg core.Config, rounds int) (*recPrivacy, error) {
	rp := &recPrivacy{delta: cfg.Delta, target: cfg.Epsilon, clip: cfg.Clip, z: cfg.Sigma, planned: rounds,
		ledger: accountant.NewLedger(), secure: cfg.SecureNoise}
	if rp.z == 0 {
		cost := func(z float64) (float64, error) { return accountant.GDPEpsilon(math.Sqrt(float64(rounds))/z, rp.delta) }
		z, err := accountant.SolveSigma(rp.target, cost, 1e-3, 1e6, 1e-9)
		if err != nil {
			return nil, fmt.Errorf("fed: noise for ε = %g per cell over %d rounds: %w", rp.target, rounds, err)
		}
		rp.z = z
	}
	return rp, nil
}

// epsAfter returns the exact GDP ε after n steps.
func (rp *recPrivacy) epsAfter(n int) float64 {
	if n == 0 {
		return 0
	}
	e, err := accountant.GDPEpsilon(math.Sqrt(float64(n))/rp.z, rp.delta)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// fits reports whether one more round stays within the target.
func (rp *recPrivacy) fits() bool {
	return rp.target == 0 || rp.epsAfter(rp.done+1) <= rp.target*(1+1e-9)
}

// record adds one round to the ledger.
func (rp *recPrivacy) record(segment string) error {
	if err := rp.ledger.Record(segment, accountant.Event{SampleRate: 1, NoiseMultiplier: rp.z, Steps: 1}); err != nil {
		return err
	}
	rp.done++
	return nil
}

// budget returns the BudgetEvent after step rounds.
func (rp *recPrivacy) budget(step int) core.BudgetEvent {
	opts := accountant.LedgerOptions{SkipPLD: true}
	ev := core.BudgetEvent{Step: step, Delta: rp.delta, Target: rp.target, Sigma: rp.z, Orders: accountant.OrdersDPAccounting.String()}
	left := max(0, rp.planned-rp.done)
	ev.Spent = []core.EpsilonValue{{Accountant: LabelRecordGDP, Epsilon: rp.epsAfter(rp.done)}}
	ev.Projected = []core.EpsilonValue{{Accountant: LabelRecordGDP, Epsilon: rp.epsAfter(rp.planned)}}
	if r, err := rp.ledger.Report(rp.delta, opts); err == nil {
		ev.Spent = append(ev.Spent, core.EpsilonValue{Accountant: LabelRecordRDP, Epsilon: r.Total.EpsilonRDP})
		for _, c := range r.Components {
			ev.Components = append(ev.Components, core.NamedValue{Name: c.Component, Value: c.EpsilonRDP})
		}
	}
	if left > 0 {
		if s, err := rp.ledger.Project(rp.delta, []accountant.Event{{SampleRate: 1, NoiseMultiplier: rp.z, Steps: left}}, opts); err == nil {
			ev.Projected = append(ev.Projected, core.EpsilonValue{Accountant: LabelRecordRDP, Epsilon: s.EpsilonRDP})
		}
	}
	ev.Spent, ev.Projected = labelled(ev.Spent), labelled(ev.Projected)
	return ev
}

// RecordReasons returns the guarantee of UnitRecord in plain words.
func RecordReasons(v Variant) []string {
	r := []string{
		"privacy unit: one cell added or removed (record level), not one client's data: dpscope's sound-mode design, not the paper's mechanism (which clips and noises each client's whole update)",
		"each client trains by DP-SGD on its own cells: full batch (q = 1), every cell's gradient clipped to C, N(0, σ²C²) added to the sum, one step per round; its upload is a function of those noisy steps only",
		"a cell is held by one client, so its privacy loss is its client's R steps, exactly μ-GDP with μ = √R/σ, whatever the number of clients; the server, the aggregate and every later round are post-processing",
		"rounds that would take the audited ε past the target are not run",
	}
	if v == PPMLOmics {
		r = append(r, "the size weights φ_k = n_k/n and the decentralized randomization act on already-private uploads: they neither add nor remove privacy (no shuffle credit)")
	}
	return append(r, "live utility metrics use the true labels of private data, and k-means on the server model's embedding of every cell is computed without noise: both are outside the guarantee")
}

// guarantee returns the GuaranteeEvent of UnitRecord: planned or final.
func (rp *recPrivacy) guarantee(v Variant, final bool) core.GuaranteeEvent {
	ev := core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: append(RecordReasons(v), core.NoiseSourceReason(rp.secure))}
	n, suffix := rp.planned, " (planned)"
	if final {
		n, suffix = rp.done, ""
	}
	ev.Audited = []core.EpsilonValue{{Accountant: LabelRecordGDP + suffix, Epsilon: rp.epsAfter(n)}}
	if final && rp.done > 0 {
		if s, err := accountant.Summarize(rp.ledger.All(), rp.delta, accountant.LedgerOptions{}); err == nil {
			ev.Audited = append(ev.Audited, core.EpsilonValue{Accountant: LabelRecordPLD, Epsilon: s.EpsilonPLD})
		}
	}
	return ev
}
