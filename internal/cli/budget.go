package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/accountant"
)

// budgetFlags are the flags of `dpscope budget`.
type budgetFlags struct {
	q, sigma, delta, targetEps float64
	steps                      int
	phases                     string
	mechanism                  string
	epsilon, sensitivity       float64
	rho                        float64
	method                     string
	clients, epochs            int
	clip                       float64
	tradeoff                   bool
	points                     int
	orders                     string
	interval                   float64
	asJSON                     bool
}

// budgetOutput is the --json object. Embedded nil pointers are left out, so
// each mode prints only the fields that apply; their names are documented in
// the README.
type budgetOutput struct {
	Mode        string    `json:"mode"`
	Delta       float64   `json:"delta"`
	Orders      string    `json:"orders,omitempty"`
	PLDInterval float64   `json:"pld_interval,omitempty"`
	Phases      []phaseJS `json:"phases,omitempty"`
	*accountant.Spent
	*accountant.SigmaSummary
	*accountant.GaussianSummary
	*accountant.ZCDPSummary
	*accountant.PPMLOmicsBudget
	Tradeoff []accountant.TradeoffPoint `json:"tradeoff,omitempty"`
}

type phaseJS struct {
	SampleRate float64 `json:"q"`
	Sigma      float64 `json:"sigma"`
	Steps      int     `json:"steps"`
}

var orderSets = map[string]accountant.OrderSet{
	"dp-accounting": accountant.OrdersDPAccounting,
	"opacus":        accountant.OrdersOpacus,
	"dpdcan":        accountant.OrdersDPDCAN,
	"tf-privacy":    accountant.OrdersTFPrivacy,
}

func newBudgetCmd(env Env) *cobra.Command {
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Privacy budget calculator: ε for a schedule, σ for a target, and the papers' own formulas",
		Long: `budget computes privacy budgets without training. Every ε names the
accountant that produced it: RDP (Mironov et al.; improved conversion of
Balle et al. 2020 and the classic one, with the optimal order) and PLD
(privacy loss distribution, pessimistic discretisation: an upper bound).

Modes, chosen by the flags given:
  --q Q --sigma S --steps T             ε of T DP-SGD steps (sampling rate Q, noise multiplier S)
  --phases Q:S:T,Q:S:T,...              ε of a schedule whose q and σ change
  --target-epsilon E --q Q --steps T    the smallest σ meeting (E, δ), by RDP and by PLD
  --mechanism gaussian --epsilon E      σ of the Gaussian mechanism: analytic (Balle & Wang 2018)
                                        and classic (valid only for ε < 1)
  --rho R                               ρ-zCDP to (ε, δ): classic and Canonne–Kamath–Steinke
  --method ppml-omics --clients K --epochs E --target-epsilon E --clip C
                                        PPML-Omics' own budget split and σ, beside the audited
                                        client-level ε
Add --tradeoff to a schedule to print the trade-off curve: the smallest
false-negative rate any attacker can reach at each false-positive rate.`,
		Example: `  dpscope budget --q 0.1 --sigma 2 --steps 1000 --delta 1e-5
  dpscope budget --target-epsilon 8 --q 0.1 --steps 842 --delta 1e-5
  dpscope budget --phases 0.05:1.0:100,0.05:2.0:100 --json
  dpscope budget --mechanism gaussian --epsilon 1 --delta 1e-5
  dpscope budget --rho 0.1 --delta 1e-5
  dpscope budget --method ppml-omics --clients 30 --epochs 5 --target-epsilon 5 --delta 1e-5 --clip 5`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			out, err := bf.compute(cmd)
			if err != nil {
				return budgetInputError(err)
			}
			if bf.asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			writeBudget(env.Stdout, out)
			return nil
		}),
	}
	f := cmd.Flags()
	f.Float64Var(&bf.q, "q", 0, "Poisson sampling rate of one step, in (0, 1]")
	f.Float64Var(&bf.sigma, "sigma", 0, "noise multiplier σ (noise standard deviation / sensitivity)")
	f.IntVar(&bf.steps, "steps", 0, "number of steps")
	f.Float64Var(&bf.delta, "delta", 1e-5, "δ of every (ε, δ)")
	f.Float64Var(&bf.targetEps, "target-epsilon", 0, "target ε: print the σ that meets it")
	f.StringVar(&bf.phases, "phases", "", "schedule of q:σ:steps phases, comma-separated")
	f.StringVar(&bf.mechanism, "mechanism", "", "single mechanism: gaussian")
	f.Float64Var(&bf.epsilon, "epsilon", 0, "ε of a single mechanism")
	f.Float64Var(&bf.sensitivity, "sensitivity", 1, "ℓ2 sensitivity Δ of a single mechanism")
	f.Float64Var(&bf.rho, "rho", 0, "ρ of ρ-zCDP to convert")
	f.StringVar(&bf.method, "method", "", "a paper's own accounting: ppml-omics")
	f.IntVar(&bf.clients, "clients", 0, "number of federated clients")
	f.IntVar(&bf.epochs, "epochs", 0, "number of federated epochs (rounds)")
	f.Float64Var(&bf.clip, "clip", 0, "clipping bound C")
	f.BoolVar(&bf.tradeoff, "tradeoff", false, "print the hypothesis-testing trade-off curve of the schedule")
	f.IntVar(&bf.points, "points", 21, "number of points of the trade-off curve")
	f.StringVar(&bf.orders, "orders", "dp-accounting", "RDP orders: dp-accounting, opacus, dpdcan or tf-privacy")
	f.Float64Var(&bf.interval, "interval", accountant.DefaultPLDInterval, "PLD discretisation interval")
	f.BoolVar(&bf.asJSON, "json", false, "print one JSON object")
	return cmd
}

// compute picks the mode from the flags given and runs it.
func (bf *budgetFlags) compute(cmd *cobra.Command) (*budgetOutput, error) {
	set := cmd.Flags().Changed
	orderSet, ok := orderSets[bf.orders]
	if !ok {
		return nil, usagef("--orders is %q, must be one of dp-accounting, opacus, dpdcan, tf-privacy", bf.orders)
	}
	// RDP figures are printed even where the PLD refuses (it says why).
	opts := accountant.LedgerOptions{Orders: orderSet.Orders(), PLDInterval: bf.interval, KeepRDPIfPLDRefuses: true}
	out := &budgetOutput{Delta: bf.delta}
	if bf.tradeoff && (set("mechanism") || set("rho") || set("method") || set("target-epsilon")) {
		return nil, usagef("--tradeoff applies to a schedule (--q/--sigma/--steps or --phases)")
	}
	switch {
	case set("method"):
		if bf.method != "ppml-omics" {
			return nil, usagef("--method is %q, must be ppml-omics", bf.method)
		}
		if err := require(set, "clients", "epochs", "target-epsilon", "clip"); err != nil {
			return nil, err
		}
		b, err := accountant.PPMLOmics(bf.targetEps, bf.delta, bf.epochs, bf.clients, bf.clip)
		if err != nil {
			return nil, err
		}
		out.Mode, out.PPMLOmicsBudget = "ppml-omics", &b
	case set("mechanism"):
		if bf.mechanism != "gaussian" {
			return nil, usagef("--mechanism is %q, must be gaussian", bf.mechanism)
		}
		if err := require(set, "epsilon"); err != nil {
			return nil, err
		}
		g, err := accountant.GaussianMechanismSummary(bf.epsilon, bf.delta, bf.sensitivity)
		if err != nil {
			return nil, err
		}
		out.Mode, out.GaussianSummary = "gaussian", &g
	case set("rho"):
		z, err := accountant.ZCDPConversionSummary(bf.rho, bf.delta)
		if err != nil {
			return nil, err
		}
		out.Mode, out.ZCDPSummary = "zcdp", &z
	case set("target-epsilon"):
		if err := require(set, "q", "steps"); err != nil {
			return nil, err
		}
		s, err := accountant.CalibrateSummary(accountant.Budget{Epsilon: bf.targetEps, Delta: bf.delta}, bf.q, bf.steps, opts)
		if err != nil {
			return nil, err
		}
		out.Mode, out.SigmaSummary, out.Orders, out.PLDInterval = "calibrate", &s, bf.orders, bf.interval
		out.Phases = []phaseJS{{SampleRate: bf.q, Steps: bf.steps}}
	case set("phases") || set("q") || set("sigma") || set("steps"):
		events, err := bf.schedule(set)
		if err != nil {
			return nil, err
		}
		spent, err := accountant.Summarize(events, bf.delta, opts)
		if err != nil {
			return nil, err
		}
		out.Mode, out.Spent, out.Orders, out.PLDInterval = "schedule", &spent, bf.orders, bf.interval
		for _, e := range events {
			out.Phases = append(out.Phases, phaseJS{e.SampleRate, e.NoiseMultiplier, e.Steps})
		}
		if bf.tradeoff {
			pld, err := accountant.NewPLDSequence(events, bf.interval)
			if err != nil {
				return nil, err
			}
			if out.Tradeoff, err = pld.Tradeoff(bf.points); err != nil {
				return nil, err
			}
		}
	default:
		return nil, usagef("say what to compute: a schedule (--q --sigma --steps, or --phases), --target-epsilon, --mechanism, --rho or --method; see --help")
	}
	return out, nil
}

// schedule returns the events of --phases, or of --q --sigma --steps.
func (bf *budgetFlags) schedule(set func(string) bool) ([]accountant.Event, error) {
	if set("phases") {
		if set("q") || set("sigma") || set("steps") {
			return nil, usagef("give either --phases or --q/--sigma/--steps, not both")
		}
		return parsePhases(bf.phases)
	}
	if err := require(set, "q", "sigma", "steps"); err != nil {
		return nil, err
	}
	ev, err := accountant.SampledGaussianEvent(bf.q, bf.sigma, bf.steps)
	if err != nil {
		return nil, err
	}
	return []accountant.Event{ev}, nil
}

// parsePhases reads "q:σ:steps,q:σ:steps,…".
func parsePhases(s string) ([]accountant.Event, error) {
	var events []accountant.Event
	for i, part := range strings.Split(s, ",") {
		fields := strings.Split(strings.TrimSpace(part), ":")
		if len(fields) != 3 {
			return nil, usagef("--phases item %d is %q, must be q:sigma:steps", i+1, part)
		}
		q, err1 := strconv.ParseFloat(fields[0], 64)
		z, err2 := strconv.ParseFloat(fields[1], 64)
		n, err3 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, usagef("--phases item %d is %q, must be numbers q:sigma:steps", i+1, part)
		}
		ev, err := accountant.SampledGaussianEvent(q, z, n)
		if err != nil {
			return nil, fmt.Errorf("--phases item %d: %w", i+1, err)
		}
		events = append(events, ev)
	}
	return events, nil
}

// require returns a usage error naming the first flag not given.
func require(set func(string) bool, names ...string) error {
	for _, n := range names {
		if !set(n) {
			return usagef("this mode needs --%s", n)
		}
	}
	return nil
}

// writeBudget prints out for people: every ε with its accountant.
func writeBudget(w io.Writer, o *budgetOutput) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	switch o.Mode {
	case "schedule":
		for _, ph := range o.Phases {
			p("phase: %d steps of the sampled Gaussian mechanism, q = %g, σ = %g", ph.Steps, ph.SampleRate, ph.Sigma)
		}
		s := o.Spent
		p("δ = %g", o.Delta)
		p("ε = %-10.6g RDP, improved conversion (Balle et al. 2020), best order %g, %s orders", s.EpsilonRDP, s.BestOrder, o.Orders)
		p("ε = %-10.6g RDP, classic conversion, best order %g", s.EpsilonRDPClassic, s.BestOrderClassic)
		writePLDEpsilon(p, s, o.PLDInterval)
		if len(o.Tradeoff) > 0 {
			p("\ntrade-off curve (PLD): the best attacker's false-negative rate β at false-positive rate α")
			p("%10s  %10s  %10s", "α", "β", "1−α (no privacy: 0)")
			for _, t := range o.Tradeoff {
				p("%10.4g  %10.4g  %10.4g", t.Alpha, t.Beta, 1-t.Alpha)
			}
		}
	case "calibrate":
		ph := o.Phases[0]
		p("smallest σ for %d steps at q = %g meeting ε target at δ = %g:", ph.Steps, ph.SampleRate, o.Delta)
		p("σ = %-10.6g RDP, improved conversion, %s orders", o.SigmaRDP, o.Orders)
		if o.SigmaSummary.PLDRefused != "" {
			p("σ by PLD: none (%s); the RDP σ above stands", o.SigmaSummary.PLDRefused)
		} else {
			p("σ = %-10.6g PLD, pessimistic discretisation (interval %g)", o.SigmaPLD, o.PLDInterval)
		}
	case "gaussian":
		g := o.GaussianSummary
		p("Gaussian mechanism at δ = %g:", o.Delta)
		p("σ = %-10.6g analytic Gaussian mechanism (Balle & Wang 2018): exact", g.SigmaAnalytic)
		valid := "valid: ε < 1"
		if !g.ClassicValid {
			valid = "NOT valid: the classic theorem needs ε < 1"
		}
		p("σ = %-10.6g classic Δ√(2 ln(1.25/δ))/ε (%s)", g.SigmaClassic, valid)
	case "zcdp":
		z := o.ZCDPSummary
		p("ρ-zCDP at δ = %g:", o.Delta)
		p("ε = %-10.6g classic ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016)", z.EpsilonZCDPClassic)
		p("ε = %-10.6g Canonne, Kamath & Steinke 2020 (tighter)", z.EpsilonZCDPCKS)
	case "ppml-omics":
		b := o.PPMLOmicsBudget
		p("PPML-Omics, as published (the paper's own formulas):")
		p("  per epoch at the server   ε_c = %-10.6g δ_c = %.6g", b.EpsilonC, b.DeltaC)
		p("  per client per epoch      ε_b = %-10.6g δ_b = %.6g", b.EpsilonB, b.DeltaB)
		p("  prescribed noise          σ   = %.6g (analytic Gaussian at ε_b, δ_b, Δ = C)", b.Sigma)
		p("  FL-DP                     ε_l = %-10.6g δ_l = %.6g, σ = %.6g", b.EpsilonL, b.DeltaL, b.SigmaL)
		p("audited: client-level ε = %.6g at δ = %g (sensitivity 2C, μ-GDP composition over epochs, no shuffle credit)", b.EpsilonAudited, o.Delta)
	}
}

// budgetFlagOf names the flag behind each accountant input.
var budgetFlagOf = map[string]string{
	"sample rate q": "--q", "noise multiplier": "--sigma", "steps": "--steps", "delta": "--delta",
	"epsilon": "--epsilon or --target-epsilon", "rho": "--rho", "sensitivity": "--sensitivity",
	"PLD discretisation interval": "--interval", "number of points": "--points",
	"clients": "--clients", "epochs": "--epochs", "clip": "--clip",
}

// budgetInputError names the flag behind an input the accountant refused.
// It stays a runtime error (exit 1), as budget has always reported them.
func budgetInputError(err error) error {
	var ie *accountant.InputError
	if errors.As(err, &ie) {
		if flag, ok := budgetFlagOf[ie.Name]; ok {
			return fmt.Errorf("%s: %w", flag, err)
		}
	}
	return err
}

// writePLDEpsilon prints the PLD line of a schedule. It never prints 0 as
// an upper bound without saying why it is one, names the grid the PLD ran
// on when it differs from the requested one, and where the PLD refused it
// says why and how to get a PLD figure; the RDP lines above it stand.
func writePLDEpsilon(p func(string, ...any), s *accountant.Spent, requested float64) {
	switch {
	case s.PLDRefused != "":
		p("ε: no PLD figure (%s); the RDP figures above stand", s.PLDRefused)
	case s.EpsilonPLD == 0:
		p("ε = 0          PLD: δ(0) ≤ δ already (the total variation between the neighbouring runs is below δ)")
	case s.PLDIntervalUsed > requested:
		p("ε = %-10.6g PLD, pessimistic discretisation (interval %g, coarsened from %g to hold the loss): an upper bound", s.EpsilonPLD, s.PLDIntervalUsed, requested)
	case s.PLDIntervalUsed > 0 && s.PLDIntervalUsed < requested:
		p("ε = %-10.6g PLD, pessimistic discretisation (interval %g, refined from %g for the step's small spread): an upper bound", s.EpsilonPLD, s.PLDIntervalUsed, requested)
	default:
		p("ε = %-10.6g PLD, pessimistic discretisation (interval %g): an upper bound", s.EpsilonPLD, requested)
	}
	if s.PLDRefused == "" && s.EpsilonPLD > s.EpsilonRDP {
		// Both are upper bounds; a uniform grid cannot resolve a loss whose
		// bulk is far narrower than its tail (tiny q, small σ, many steps).
		p("  the PLD is looser than RDP here (its grid cannot resolve the narrow bulk of the loss beside its long tail); both are upper bounds: ε ≤ %.6g", s.EpsilonRDP)
	}
}
