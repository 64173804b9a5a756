package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
)

// methodJSON is one method as `dpscope methods --json` prints it: the
// descriptor, with its guarantee reading for each mode.
type methodJSON struct {
	core.Method
	// Needs are the shared Config fields it reads (JSON names).
	Needs []string `json:"needs"`
	// Guarantee is what Expect says of each mode with the run defaults
	// and the method's declared dependencies.
	Guarantee []modeGuarantee `json:"guarantee"`
}

type modeGuarantee struct {
	Mode    core.Mode      `json:"mode"`
	Status  core.Guarantee `json:"status"`
	Reasons []string       `json:"reasons"`
}

func newMethodsCmd(env Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "methods [NAME…]",
		Short: "List every method with its modes, options and what its guarantee depends on",
		Long: `methods lists the registered methods: their modes, the shared settings
each reads, their own options (key, kind, default, range, whether a run takes
it live, and what it does), and the guarantee each mode expects before a run
(the engine states the final one, with the run's circumstances). With
names, only those methods (dpscope methods dppca).`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(func(_ *cobra.Command, args []string) error {
			ms, err := methodsNamed(args)
			if err != nil {
				return err
			}
			if asJSON {
				return writeMethodsJSON(env.Stdout, ms)
			}
			writeMethods(env.Stdout, ms)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the descriptors as one JSON array")
	return cmd
}

// describe returns m with its needs and expected guarantees.
func describe(m core.Method) methodJSON {
	d := methodJSON{Method: m, Needs: m.Needs.Names()}
	if d.Needs == nil {
		d.Needs = []string{}
	}
	if d.Options == nil {
		d.Options = []core.OptionSpec{}
	}
	for _, mode := range m.Modes {
		g := modeGuarantee{Mode: mode, Reasons: []string{}}
		if m.Expect != nil {
			cfg := defaultRunConfig()
			cfg.Method, cfg.Mode = m.Name, mode
			g.Status, g.Reasons = m.Expect(cfg)
		}
		d.Guarantee = append(d.Guarantee, g)
	}
	return d
}

// methodsNamed is the methods of names, in their order, or every
// registered method when there are none; an unknown name is a usage error
// listing the known ones (it read "unknown command" for `methods dppca`).
func methodsNamed(names []string) ([]core.Method, error) {
	if len(names) == 0 {
		return core.Methods(), nil
	}
	var out []core.Method
	for _, n := range names {
		m, err := core.LookupMethod(n)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, m)
	}
	return out, nil
}

func writeMethodsJSON(w io.Writer, ms []core.Method) error {
	var out []methodJSON
	for _, m := range ms {
		out = append(out, describe(m))
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

func writeMethods(w io.Writer, ms []core.Method) {
	for i, m := range ms {
		if i > 0 {
			fmt.Fprintln(w)
		}
		d := describe(m)
		modes := make([]string, len(m.Modes))
		for i, mode := range m.Modes {
			modes[i] = string(mode)
		}
		fmt.Fprintf(w, "%s (%s, %s): %s\n", m.Name, m.Label(), m.Family, m.Doc)
		fmt.Fprintf(w, "  modes: %s\n", strings.Join(modes, ", "))
		fmt.Fprintf(w, "  reads: %s\n", orNone(strings.Join(d.Needs, ", ")))
		if len(m.DependsOn) > 0 {
			fmt.Fprintf(w, "  guarantee depends on: mode, %s\n", strings.Join(m.DependsOn, "; "))
		}
		for _, g := range d.Guarantee {
			if g.Status != "" {
				fmt.Fprintf(w, "  %s: guarantee %s — %s\n", g.Mode, g.Status, strings.Join(g.Reasons, "; "))
			}
		}
		if len(m.Options) > 0 {
			fmt.Fprintln(w, "  options (--opt KEY=VALUE):")
			writeOptions(w, m.Options, "    ")
		}
	}
}

// writeOptions prints one line per option spec.
func writeOptions(w io.Writer, specs []core.OptionSpec, indent string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range specs {
		live := ""
		if s.Live {
			live = "live"
		}
		def := s.DefaultText()
		if def == "" {
			def = "—"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", indent, s.Key, s.Kind, def, s.RangeText(), live, s.Doc)
	}
	tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// optHelp is the --opt part of `run --help`: every method's options, from
// their specs.
func optHelp() string {
	var b strings.Builder
	b.WriteString("\n\nMethod options (--opt KEY=VALUE; key, kind, default, range, live, doc):")
	for _, m := range core.Methods() {
		if len(m.Options) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n  %s:\n", m.Name)
		writeOptions(&b, m.Options, "    ")
	}
	return strings.TrimRight(b.String(), "\n")
}

// checkMethod returns the descriptor of cfg's method after checking that
// it is registered, takes cfg's mode and cfg's options, or a usage error
// naming what is wrong.
func checkMethod(cfg core.Config) (core.Method, error) {
	m, err := core.LookupMethod(cfg.Method)
	if err != nil {
		return m, usageError{fmt.Errorf("--method: %w", err)}
	}
	if !m.AcceptsMode(cfg.Mode) {
		modes := make([]string, len(m.Modes))
		for i, mode := range m.Modes {
			modes[i] = string(mode)
		}
		return m, usagef("--mode is %q, method %s takes %s", cfg.Mode, m.Name, strings.Join(modes, ", "))
	}
	if _, err := core.ParseOptions(m.Options, cfg.Options); err != nil {
		return m, usageError{fmt.Errorf("--opt for method %s: %w", m.Name, err)}
	}
	return m, nil
}
