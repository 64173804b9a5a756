package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpscope/dpscope/core"
)

// auditFlags are the flags that ask a run for an empirical privacy audit
// (core.Config.Audit).
type auditFlags struct {
	on         bool
	canaries   int
	confidence float64
	kind       string
	forced     bool // `dpscope audit`: always on
}

func (a *auditFlags) register(f *pflag.FlagSet) {
	if !a.forced {
		f.BoolVar(&a.on, "audit", false, "also run an empirical privacy audit (canaries; docs/AUDIT.md) and add its lower bound on ε to the summary")
	}
	f.IntVar(&a.canaries, "audit-canaries", 0, fmt.Sprintf("number of audit canaries (0: %d)", core.DefaultAuditCanaries))
	f.Float64Var(&a.confidence, "audit-confidence", 0, fmt.Sprintf("confidence of the audit's lower bound, in (0, 1) (0: %g)", core.DefaultAuditConfidence))
	f.StringVar(&a.kind, "audit-kind", "", fmt.Sprintf("canaries: %q (white-box, the default) or %q (black-box: synthetic cells, at most 10 %% of the cells)", core.AuditGradient, core.AuditInput))
}

// apply sets cfg.Audit when the audit is asked for; the canary count or
// confidence without --audit is a usage error rather than ignored.
func (a *auditFlags) apply(set func(string) bool, cfg *core.Config) error {
	if !a.on && !a.forced {
		if set("audit-canaries") || set("audit-confidence") || set("audit-kind") {
			return usagef("--audit-canaries, --audit-confidence and --audit-kind need --audit")
		}
		return nil
	}
	kind := core.AuditKind(a.kind)
	if kind != "" && kind != core.AuditGradient && kind != core.AuditInput {
		return usagef("--audit-kind is %q, must be %q or %q", a.kind, core.AuditGradient, core.AuditInput)
	}
	spec := core.AuditSpec{Canaries: a.canaries, Confidence: a.confidence, Kind: kind}
	if cfg.Audit != nil { // a config file's [audit] table: flags given override it
		spec = *cfg.Audit
		if set("audit-canaries") {
			spec.Canaries = a.canaries
		}
		if set("audit-confidence") {
			spec.Confidence = a.confidence
		}
		if set("audit-kind") {
			spec.Kind = kind
		}
	}
	cfg.Audit = &spec
	return nil
}

// newAuditCmd is `dpscope audit`: `dpscope run` with the audit always on,
// its cost announced first and its result printed as the summary's first
// lines.
func newAuditCmd(env Env) *cobra.Command {
	rf := &runFlags{cfg: defaultRunConfig()}
	rf.audit.forced = true
	cmd := rf.command(env)
	cmd.Use = "audit"
	cmd.Short = "Run a method once with canaries and print an empirical lower bound on ε"
	cmd.Long = `audit trains once, as run does, with m canaries inserted (Dirac gradient
canaries for the DP-SGD methods, Dirac canaries in the released sums for
dppca, the federated methods and DP-MD's queries, each included with
probability ½; with --audit-kind input, synthetic cells — at most 10 % of
the cells — in the training data instead, for dcan, dcan-sound and dppca), then
scores every canary as an attacker would and turns the guesses into a lower
bound on ε at the stated confidence: the one-run audit of Steinke, Nasr and
Jagielski (NeurIPS 2023). The bound is printed beside its ceiling, the most
any outcome of the audit could show (≈ ln(r / ln(1/β)) for r guesses), and
beside the certified ε. In paper mode the attacker sees what the paper
releases (for DP-DCAN: the final encoder). See docs/AUDIT.md.

Cost: the canaries ride in the run's own steps (O(m) work per step), so an
audit takes about as long as the run itself (1×, never more than 2×).` + optHelp()
	cmd.Example = `  dpscope audit --method dcan --mode sound --epsilon 4
  dpscope audit --method dcan --mode paper --layers 1-3 --epsilon 8 --json
  dpscope audit --method dppca --data pbmc_4k --epsilon 8 --audit-kind input`
	inner := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !rf.asJSON {
			fmt.Fprintln(env.Stderr, "dpscope: audit: one training run with canaries inserted; expected duration about that of the same `dpscope run` (1×)")
		}
		return inner(c, args)
	}
	return cmd
}

// writeAudit prints an audit's lines of the summary.
// An ε (certified or published) below the bound is named as refuted,
// unless the attacker lies outside its threat model (AuditEvent.Outside).
func writeAudit(w io.Writer, a *core.AuditEvent, certified, published map[string]float64) {
	if a == nil {
		return
	}
	fmt.Fprintf(w, "ε empirical ≥\t%.4g  (an attack on canaries: %d of %d guesses correct on %d canaries, %.0f%% confidence, δ = %g)\n",
		a.EpsilonLower, a.Correct, a.Guesses, a.Canaries, 100*a.Confidence, a.Delta)
	fmt.Fprintf(w, "\t  ceiling %.4g: no outcome of this audit could show more\n", a.Ceiling)
	var over []string
	for _, m := range []map[string]float64{certified, published} {
		for _, name := range sortedKeys(m) {
			if a.EpsilonLower > m[name] && !slices.Contains(a.Outside, name) {
				over = append(over, fmt.Sprintf("%.4g (%s)", m[name], name))
			}
		}
	}
	if len(over) > 0 {
		fmt.Fprintf(w, "\t  the attacker refutes ε = %s at this confidence\n", strings.Join(over, ", "))
	}
	if a.Kind != "" || a.View != "" {
		kind := a.Kind
		if kind == "" {
			kind = core.AuditGradient
		}
		fmt.Fprintf(w, "\t  canaries: %s; the attacker sees: %s\n", kind, a.View)
	}
	fmt.Fprintf(w, "\t  %s\n", a.Setting)
}
