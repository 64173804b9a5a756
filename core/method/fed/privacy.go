package fed

import (
	"fmt"
	"math"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
)

// Accountant labels of the ε values a federated run reports.
const (
	LabelPaperPPML    = "as published (PPML-Omics ε_c/ε_b split)"
	LabelPaperFLDP    = "as published (PPML-Omics FL-DP ε_l split)"
	LabelLocalGDP     = "audited: each update, Δ = 2C (GDP, exact)"
	LabelLocalRDP     = "audited: each update, Δ = 2C (RDP)"
	LabelLocalPLD     = "audited: each update, Δ = 2C (PLD)"
	LabelCentralGDP   = "audited: aggregate under secure aggregation, Δ = C (GDP, exact)"
	LabelCentralRDP   = "audited: aggregate under secure aggregation, Δ = C (RDP)"
	LabelCentralPLD   = "audited: aggregate under secure aggregation, Δ = C (PLD)"
	LabelShuffleFMT21 = "audited: shuffle model (FMT21 + advanced composition)"
	LabelFedSCGDP     = "extension: DP-FedAvg, unit = one client's data, Δ = C, trusted aggregator (GDP, exact; every client every round)"
	LabelFedSCRDP     = "extension: DP-FedAvg, unit = one client's data, Δ = C, trusted aggregator (RDP of the Poisson-subsampled Gaussian, client rate q)"
)

// shortLabels name the accountants in a few words for chart legends
// (core.EpsilonValue.Label).
var shortLabels = map[string]string{
	LabelPaperPPML: "published", LabelPaperFLDP: "published",
	LabelLocalGDP: "local GDP", LabelLocalRDP: "local RDP", LabelLocalPLD: "local PLD",
	LabelCentralGDP: "secagg GDP", LabelCentralRDP: "secagg RDP", LabelCentralPLD: "secagg PLD",
	LabelShuffleFMT21: "shuffle", LabelFedSCGDP: "DP-FedAvg GDP", LabelFedSCRDP: "DP-FedAvg RDP",
}

// labelled sets the short Label of every value whose accountant has one.
func labelled(vs []core.EpsilonValue) []core.EpsilonValue {
	for i := range vs {
		vs[i].Label = shortLabels[vs[i].Accountant]
	}
	return vs
}

// privacy is a private run's bookkeeping: the noise in force, the ledgers
// of the local (per-update) and central (aggregate) views, and the paper's
// own accounting.
type privacy struct {
	v       Variant
	mode    core.Mode
	p       Params
	delta   float64
	target  float64 // ε target, 0 when none
	clip    float64 // C
	z       float64 // noise multiplier: noise std over C
	fromEps bool    // z is solved from target
	planned int     // rounds planned (E of the paper's split)
	local   *accountant.Ledger
	central *accountant.Ledger
	mu2Loc  float64 // Σ μ² of the local view
	mu2Cen  float64 // Σ μ² of the central view
	pub2    float64 // Σ ε_{c,r}² of the paper's composition
	done    int
	shuffle float64 // largest per-round FMT21 ε credited, 0 when none
	shufWhy string  // why FMT21 is or is not credited
	shufDlt float64 // per-round δ of the credited shuffle bound
	segment string
	secure  bool   // Config.SecureNoise: noise from crypto/rand, not the seed
	noiseBy string // sound mode: which accounting set σ, and why (for the guarantee)
}

// newPrivacy returns the bookkeeping of a private run with k clients, or
// nil in nonprivate mode.
func newPrivacy(cfg core.Config, v Variant, p Params, rounds, k int) (*privacy, error) {
	if cfg.Mode == core.ModeNonPrivate {
		return nil, nil
	}
	pr := &privacy{v: v, mode: cfg.Mode, p: p, delta: cfg.Delta, target: cfg.Epsilon, clip: cfg.Clip,
		z: cfg.Sigma, fromEps: cfg.Sigma == 0, planned: rounds, secure: cfg.SecureNoise,
		local: accountant.NewLedger(), central: accountant.NewLedger()}
	if pr.fromEps {
		if err := pr.solve(k); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// solve sets the noise multiplier from the ε target: the paper's split for
// fl-dp (σ_l) and ppml-omics (σ at ε_b, δ_b), RDP calibration
// (accountant.CalibrateAfter, as every re-solve) of R rounds of the
// Gaussian mechanism on the sum for FedSC's DP extension.
func (pr *privacy) solve(k int) error {
	if pr.v == FedSC {
		return pr.calibrateCentral(k)
	}
	b, err := accountant.PPMLOmics(pr.target, pr.delta, pr.planned, k, 1)
	if err != nil {
		return fmt.Errorf("fed: PPML-Omics budget split: %w", err)
	}
	pr.z = b.Sigma // at C = 1, σ is the multiplier
	if pr.v == FLDP {
		pr.z = b.SigmaL
	}
	if pr.mode == core.ModeSound {
		return pr.auditedFloor()
	}
	return nil
}

// auditedFloor raises the noise multiplier of sound mode to what the
// audited accounting asks for: the smallest z whose local view (each
// client's update, replace-one sensitivity 2C, exact Gaussian composition
// over the planned rounds, μ = 2√E/z) meets the target. Sound mode runs
// with max(z of the paper's split, that z): more noise than paper mode
// wherever the audit asks for more, the same noise (and the same numbers)
// where the paper's split already meets the target by the audit, since
// then the paper's noise is itself sound and nothing is gained by
// changing it. It records which case applies in noiseBy.
func (pr *privacy) auditedFloor() error {
	rounds := float64(pr.planned)
	cost := func(z float64) (float64, error) { return accountant.GDPEpsilon(2*math.Sqrt(rounds)/z, pr.delta) }
	za, err := accountant.SolveSigma(pr.target, cost, 1e-3, 1e6, 1e-9)
	if err != nil {
		return fmt.Errorf("fed: noise for audited ε = %g over %d rounds: %w", pr.target, pr.planned, err)
	}
	paper := pr.z
	if za > paper {
		pr.z = za
		pr.noiseBy = fmt.Sprintf("sound mode adds more noise than paper mode: σ = %.4g·C, not the paper split's %.4g·C, because the audited local ε of the paper's noise over %d rounds would be %.4g > the target %g",
			za, paper, pr.planned, mustEps(cost(paper)), pr.target)
		return nil
	}
	pr.noiseBy = fmt.Sprintf("sound mode keeps the paper split's noise σ = %.4g·C (the same numbers as paper mode): its audited local ε over %d rounds is %.4g ≤ the target %g, so the audit asks for no more (it would allow σ = %.4g·C)",
		paper, pr.planned, mustEps(cost(paper)), pr.target, za)
	return nil
}

// mustEps returns e, or +Inf when err is set.
func mustEps(e float64, err error) float64 {
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// solveRemaining sets the noise multiplier from the ε target for the rounds
// still to come with k clients. Before any round it is solve. After some,
// the paper's variants keep the paper's split over the whole schedule (as
// the paper accounts), and FedSC's extension solves z for the rounds left
// given what its ledger has spent, by accountant's CalibrateAfter on the
// central ledger's running tally (RDP at accountant.DefaultOrders, improved
// conversion): the smallest z, to a relative 1e-6, whose projection meets
// the target. It returns an error wrapping accountant.ErrUnreachable when
// no z up to 10⁴ does.
func (pr *privacy) solveRemaining(k int) error {
	if pr.done == 0 || pr.v != FedSC || pr.planned-pr.done <= 0 {
		return pr.solve(k)
	}
	return pr.calibrateCentral(k)
}

// calibrateCentral sets FedSC's noise multiplier for the rounds still to
// come given what the central ledger has spent (none before the first
// round): accountant's CalibrateAfter on the ledger's running tally, each
// round a Gaussian on the sum subsampled at the client rate.
func (pr *privacy) calibrateCentral(k int) error {
	left := pr.planned - pr.done
	q := pr.p.ClientRate
	if q == 0 { // Params not through withDefaults (a preview): every client
		q = DefaultClientRate
	}
	c, err := pr.central.CalibrateAfter(accountant.Budget{Epsilon: pr.target, Delta: pr.delta}, accountant.Plan{{SampleRate: q, NoiseRatio: 1, Steps: left}})
	if err != nil {
		return fmt.Errorf("fed: ε = %g at δ = %g with %d rounds left after spending ε = %.4g (audited): %w",
			pr.target, pr.delta, left, pr.audited(0, k), err)
	}
	pr.z = c.Sigma
	return nil
}

// reachable returns why the target cannot hold any more, or nil: in sound
// mode when the audited ε already spent (at the current δ) reaches it, in
// paper mode when the paper's own ε_T does. Core's Patch.Validate has
// already checked that the target is finite and > 0.
func (pr *privacy) reachable(k int) error {
	if pr.target == 0 || pr.done == 0 {
		return nil
	}
	spent, how := pr.audited(0, k), "audited"
	if pr.mode == core.ModePaper && pr.v != FedSC {
		spent, how = pr.published(pr.pub2), "as the paper accounts it"
	}
	if spent >= pr.target {
		return fmt.Errorf("fed: ε = %g cannot be met: ε = %.4g is already spent (%s, δ = %g) after %d rounds: %w",
			pr.target, spent, how, pr.delta, pr.done, accountant.ErrUnreachable)
	}
	return nil
}

// localStd is the standard deviation of the noise each client adds to its
// clipped update (fl-dp, ppml-omics): z·C.
func (pr *privacy) localStd() float64 {
	if pr == nil || pr.v == FedSC {
		return 0
	}
	return pr.z * pr.clip
}

// centralStd is the standard deviation of the noise the aggregator adds to
// the sum of clipped deltas (FedSC's DP extension): z·C.
func (pr *privacy) centralStd() float64 {
	if pr == nil || pr.v != FedSC {
		return 0
	}
	return pr.z * pr.clip
}

// roundEvents returns the local and central accountant events of one round
// with k clients: each client's update N(0, (zC)²) at replace-one
// sensitivity 2C (z/2), and the aggregate's noise (zC√K on the sum) at
// add/remove sensitivity C (z√K); FedSC's extension has the central one
// only: z at the client rate q (one client's data added or removed changes
// the sum of clipped deltas by at most C, and it takes part with
// probability q).
func (pr *privacy) roundEvents(k int) (loc, cen accountant.Event, hasLocal bool) {
	if pr.v == FedSC {
		return accountant.Event{}, accountant.Event{SampleRate: pr.p.ClientRate, NoiseMultiplier: pr.z, Steps: 1}, false
	}
	return accountant.Event{SampleRate: 1, NoiseMultiplier: pr.z / 2, Steps: 1},
		accountant.Event{SampleRate: 1, NoiseMultiplier: pr.z * math.Sqrt(float64(k)), Steps: 1}, true
}

// audited returns the always-valid audited ε after the recorded rounds plus
// extra more rounds with k clients (GDP, exact): the local view for the
// autoencoder variants, the central one for FedSC. FedSC with client
// sampling (q < 1) has no exact GDP composition (the subsampled Gaussian
// is not μ-GDP for a finite μ worth quoting): its RDP bound, improved
// conversion.
func (pr *privacy) audited(extra, k int) float64 {
	loc, cen, hasLocal := pr.roundEvents(k)
	if pr.sampled() {
		return pr.rdpCentral(extra, cen)
	}
	mu2 := pr.mu2Cen + float64(extra)/(cen.NoiseMultiplier*cen.NoiseMultiplier)
	if hasLocal {
		mu2 = pr.mu2Loc + float64(extra)/(loc.NoiseMultiplier*loc.NoiseMultiplier)
	}
	if mu2 == 0 {
		return 0
	}
	e, err := accountant.GDPEpsilon(math.Sqrt(mu2), pr.delta)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// sampled reports whether FedSC's sound mode samples clients (q < 1).
func (pr *privacy) sampled() bool { return pr.v == FedSC && pr.p.ClientRate < 1 }

// rdpCentral returns the RDP ε (improved conversion) of the central ledger
// plus extra more rounds of ev; +Inf when it cannot be computed.
func (pr *privacy) rdpCentral(extra int, ev accountant.Event) float64 {
	ev.Steps = extra
	var planned []accountant.Event
	if extra > 0 {
		planned = []accountant.Event{ev}
	}
	sp, err := pr.central.Project(pr.delta, planned, accountant.LedgerOptions{SkipPLD: true, Orders: accountant.DefaultOrders.Orders()})
	if err != nil {
		return math.Inf(1)
	}
	return sp.EpsilonRDP
}

// fits reports whether one more round stays within the target in sound
// mode (by the audited accountant); paper mode follows the paper's split
// and never stops.
func (pr *privacy) fits(k int) bool {
	if pr == nil || pr.mode != core.ModeSound || pr.target == 0 {
		return true
	}
	return pr.audited(1, k) <= pr.target*(1+1e-9)
}

// record adds one round with k clients to the ledgers under the current
// segment and to the paper's composition.
func (pr *privacy) record(k int) error {
	loc, cen, hasLocal := pr.roundEvents(k)
	if hasLocal {
		if err := pr.local.Record(pr.segment, loc); err != nil {
			return err
		}
		pr.mu2Loc += 1 / (loc.NoiseMultiplier * loc.NoiseMultiplier)
	}
	if err := pr.central.Record(pr.segment, cen); err != nil {
		return err
	}
	pr.mu2Cen += 1 / (cen.NoiseMultiplier * cen.NoiseMultiplier)
	if ec, err := pr.paperPerRound(k); err == nil {
		pr.pub2 += ec * ec
	}
	if hasLocal {
		pr.creditShuffle(k)
	}
	pr.done++
	return nil
}

// paperPerRound inverts the paper's split for the noise in force: the ε_c
// (ppml-omics) or ε_l (fl-dp) of one round, from ε_b = ε(σ at δ_b) for
// ppml-omics (ε_c = ε_b·√(ln(2/δ_c))/√K) and ε_l = ε(σ at δ_l), with
// δ_c = δ_l = δ_T/(2E) and δ_b = δ_c/K.
func (pr *privacy) paperPerRound(k int) (float64, error) {
	if pr.v == FedSC {
		return 0, fmt.Errorf("fed: FedSC has no published accounting")
	}
	dc := pr.delta / (2 * float64(pr.planned))
	if pr.v == FLDP {
		return accountant.GDPEpsilon(1/pr.z, dc)
	}
	eb, err := accountant.GDPEpsilon(1/pr.z, dc/float64(k))
	if err != nil {
		return 0, err
	}
	return eb * math.Sqrt(math.Log(2/dc)) / math.Sqrt(float64(k)), nil
}

// published returns the paper's ε_T after rounds rounds of per-round ε_c
// whose squares sum to sum2: ε_T = 2√(2 ln(2/δ_T)·Σ_r ε_{c,r}²), which for
// E equal rounds is the paper's ε_T = 2ε_c√(2E ln(2/δ_T)).
func (pr *privacy) published(sum2 float64) float64 {
	return 2 * math.Sqrt(2*math.Log(2/pr.delta)*sum2)
}

// label names the budget of a variant's published figure.
func (pr *privacy) paperLabel() string {
	if pr.v == FLDP {
		return LabelPaperFLDP
	}
	return LabelPaperPPML
}

// gdpEpsilon is the GDP ε at pr.delta of the rounds composed so far (μ² =
// mu2) and extra more at noise multiplier z; 0 before any round.
func (pr *privacy) gdpEpsilon(mu2, z float64, extra int) float64 {
	m := mu2 + float64(extra)/(z*z)
	if m == 0 {
		return 0
	}
	e, _ := accountant.GDPEpsilon(math.Sqrt(m), pr.delta)
	return e
}

// budget returns the BudgetEvent after step rounds with k clients.
func (pr *privacy) budget(step, k int) core.BudgetEvent {
	opts := accountant.LedgerOptions{SkipPLD: true}
	left := max(0, pr.planned-pr.done)
	ev := core.BudgetEvent{Step: step, Delta: pr.delta, Target: pr.target, Sigma: pr.z, Orders: accountant.DefaultOrders.String()}
	loc, cen, hasLocal := pr.roundEvents(k)
	var spent, proj []core.EpsilonValue
	add := func(label string, l *accountant.Ledger, ev accountant.Event, gdpNow, gdpEnd float64) {
		spent = append(spent, core.EpsilonValue{Accountant: label, Epsilon: gdpNow})
		proj = append(proj, core.EpsilonValue{Accountant: label, Epsilon: gdpEnd})
		rlabel := map[string]string{LabelLocalGDP: LabelLocalRDP, LabelCentralGDP: LabelCentralRDP, LabelFedSCGDP: LabelFedSCRDP}[label]
		if r, err := l.Report(pr.delta, opts); err == nil {
			spent = append(spent, core.EpsilonValue{Accountant: rlabel, Epsilon: r.Total.EpsilonRDP})
		}
		if left > 0 {
			if evs, err := ev.Repeat(left); err == nil {
				if s, err := l.Project(pr.delta, []accountant.Event{evs}, opts); err == nil {
					proj = append(proj, core.EpsilonValue{Accountant: rlabel, Epsilon: s.EpsilonRDP})
				}
			}
		}
	}
	if pr.sampled() {
		spent = append(spent, core.EpsilonValue{Accountant: LabelFedSCRDP, Epsilon: pr.rdpCentral(0, cen)})
		proj = append(proj, core.EpsilonValue{Accountant: LabelFedSCRDP, Epsilon: pr.rdpCentral(left, cen)})
	} else if pr.v == FedSC {
		add(LabelFedSCGDP, pr.central, cen, pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, 0), pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, left))
	} else {
		pub := core.EpsilonValue{Accountant: pr.paperLabel(), Epsilon: pr.published(pr.pub2)}
		pubEnd := pub
		if ec, err := pr.paperPerRound(k); err == nil {
			pubEnd.Epsilon = pr.published(pr.pub2 + float64(left)*ec*ec)
		}
		if pr.mode == core.ModePaper {
			spent, proj = append(spent, pub), append(proj, pubEnd)
		}
		if hasLocal {
			add(LabelLocalGDP, pr.local, loc, pr.gdpEpsilon(pr.mu2Loc, loc.NoiseMultiplier, 0), pr.gdpEpsilon(pr.mu2Loc, loc.NoiseMultiplier, left))
		}
		add(LabelCentralGDP, pr.central, cen, pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, 0), pr.gdpEpsilon(pr.mu2Cen, cen.NoiseMultiplier, left))
		if pr.mode == core.ModeSound {
			spent, proj = append(spent, pub), append(proj, pubEnd)
		}
	}
	ev.Spent, ev.Projected = labelled(spent), labelled(proj)
	if r, err := pr.ledgerFor().Report(pr.delta, opts); err == nil {
		for _, c := range r.Components {
			ev.Components = append(ev.Components, core.NamedValue{Name: c.Component, Value: c.EpsilonRDP})
		}
	}
	return ev
}

// ledgerFor returns the ledger of the run's always-valid view.
func (pr *privacy) ledgerFor() *accountant.Ledger {
	if pr.v == FedSC {
		return pr.central
	}
	return pr.local
}

// Calibrate is variant v's preview of a config's noise (core.Method's
// Calibrate): the noise multiplier the engine starts with (cfg.Sigma, or
// the one its solve sets from the target: the paper's split, the audited
// floor of sound mode, RDP for FedSC's extension) and the ε its accountants
// project over the planned rounds, from the same code the engine runs. It
// needs no data.
func (v Variant) Calibrate(cfg core.Config) (core.Calibration, error) {
	if cfg.Mode == core.ModeNonPrivate {
		return core.Calibration{}, configErr("mode", cfg.Mode, "paper or sound: nonprivate mode adds no noise")
	}
	p, err := paramsFrom(v.optionSpecs(), cfg.Options)
	if err != nil {
		return core.Calibration{}, err
	}
	e, err := New(cfg, v, p)
	if err != nil {
		return core.Calibration{}, err
	}
	pr, err := newPrivacy(e.cfg, v, e.p, e.rounds, e.clients)
	if err != nil {
		return core.Calibration{}, err
	}
	b := pr.budget(0, e.clients)
	return core.Calibration{Sigma: pr.z, Projected: b.Projected, Orders: b.Orders, Steps: e.rounds}, nil
}
