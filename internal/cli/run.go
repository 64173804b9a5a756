package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/datasets"
)

// runFlags are the flags of `dpscope run`; every core.Config field has one.
type runFlags struct {
	cfg        core.Config
	configFile string
	layers     string
	epochs     string
	opts       []string
	manifold   manifoldFlags
	asJSON     bool
	outDir     string
	outFormat  string
	force      bool
	noRef      bool
	load       loadFlags // labels, orientation and preprocessing
	audit      auditFlags
}

// manifoldFlags are shorthands for the options of the denoising method
// (`dpscope methods`); each becomes an entry of Config.Options and applies
// to a method that declares the option.
type manifoldFlags struct {
	kind, noise      string
	dim, n, queries  int
	d, t             int
	h, theta, cp, cm float64
}

// DefaultRunConfig is the run `dpscope run` starts from when neither a
// config file nor a flag sets a field (see defaultRunConfig).
func DefaultRunConfig() core.Config { return defaultRunConfig() }

// defaultRunConfig is what `dpscope run` uses for what neither a config
// file nor a flag sets: the defaults every face shares (core.DefaultConfig:
// the registered default entry, ε, δ, C, q, seed; epochs the method's own),
// with the whole network noised. A build that registers no default entry
// (some tests) must name --method.
func defaultRunConfig() core.Config {
	cfg := core.DefaultConfig("builtin:default")
	cfg.Layers = core.LayerRange{First: 1, Last: 6}
	return cfg
}

func newRunCmd(env Env) *cobra.Command {
	rf := &runFlags{cfg: defaultRunConfig()}
	return rf.command(env)
}

// command builds `dpscope run` with its flags bound to rf.
func (rf *runFlags) command(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a method headless and print its privacy and utility",
		Long: `run trains (or denoises) without the interface and reports what the
dashboard would show: the privacy budget spent by each accountant, beside the
paper's own figure; the guarantee status with its reasons; and the clustering
quality (ARI, NMI, ACC, silhouette — computed with the true labels of private
data, so for exploration only, never covered by the guarantee).

Settings come from the defaults, then --config FILE.toml, then the flags.
--json streams every event as one JSON line and ends with a line of
"type":"summary". --out DIR writes config.toml, events.jsonl, summary.json,
and, for methods that cluster, embedding.tsv and assignments.tsv: all of
them or none, into a new or empty folder (--force replaces an earlier run's
results). --out-format csv,mtx,h5ad also writes the embedding and clusters
as result_csv/, result_mtx/ and result.h5ad (obsm["X_dpscope"] and
obs["dpscope_cluster"] for scanpy), in the layouts of 'dpscope data export'.
A run that ends before its first step writes nothing; a stopped run's folder
says so in summary.json.` + optHelp(),
		Example: `  dpscope run --method dcan --mode paper --layers 1-3 --epsilon 8
  dpscope run --data ../shared/data/pbmc_4k --mode sound --epsilon 4 --json
  dpscope run --config run.toml --out results/`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			// Checked first: a missing libhdf5 must not wait for the run.
			formats, err := parseOutFormats(rf.outFormat)
			if err != nil {
				return err
			}
			if len(formats) > 0 && rf.outDir == "" {
				return usagef("--out-format needs --out DIR, the run folder the result is written to")
			}
			cfg, err := rf.config(cmd)
			if err != nil {
				return err
			}
			if unread := unreadFlags(cfg, cmd.Flags().Changed); len(unread) > 0 {
				fmt.Fprintf(env.Stderr, "dpscope: warning: method %s does not read %s (no effect; 'dpscope methods %s' lists what it reads and its options)\n",
					cfg.Method, strings.Join(unread, ", "), cfg.Method)
			}
			return executeRun(cmd.Context(), cfg, runRequest{asJSON: rf.asJSON, outDir: rf.outDir, force: rf.force, references: !rf.noRef, formats: formats}, env)
		}),
	}
	f := cmd.Flags()
	c := &rf.cfg
	f.StringVar(&rf.configFile, "config", "", "TOML file with the run's settings (the keys are the JSON field names)")
	f.StringVar(&c.Data, "data", c.Data, dataFlagUsage)
	f.StringVar(&c.Method, "method", c.Method, "method: "+strings.Join(core.MethodNames(), ", ")+" ('dpscope methods' describes them)")
	f.StringVar((*string)(&c.Mode), "mode", string(c.Mode), "nonprivate, paper or sound")
	f.StringVar(&rf.layers, "layers", c.Layers.String(), "autoencoder layers that get noise, FIRST-LAST within 1-6 (encoder 1-3, decoder 4-6)")
	f.Float64Var(&c.Epsilon, "epsilon", c.Epsilon, "target ε for the whole run (0: use --sigma as given)")
	f.Float64Var(&c.Delta, "delta", c.Delta, "δ")
	f.Float64Var(&c.Sigma, "sigma", 0, "noise multiplier σ (0: solved from --epsilon)")
	f.Float64Var(&c.Clip, "clip", c.Clip, "per-sample clipping bound C")
	f.Float64Var(&c.SampleRate, "q", c.SampleRate, "Poisson sampling rate of a step")
	f.StringVar(&rf.epochs, "epochs", "", "epochs per stage, comma-separated, e.g. 50,40 (default: the method's)")
	f.StringVar(&c.Accountant, "accountant", c.Accountant, "accountant that enforces the target: rdp or pld")
	f.Float64Var(&c.LearningRate, "lr", 0, "learning rate (0: the method's default)")
	f.IntVar(&c.Clients, "clients", 0, "number of federated clients (federated methods)")
	f.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	f.BoolVar(&c.SecureNoise, "secure-noise", false, "draw DP noise from a cryptographically seeded generator")
	f.StringArrayVar(&rf.opts, "opt", nil, "a method's own setting KEY=VALUE (repeatable); the keys are listed below")
	mf := &rf.manifold
	f.StringVar(&mf.kind, "manifold", "", "denoising: synthetic manifold circle|sphere|torus|swissroll (with --sigma as its noise level)")
	f.IntVar(&mf.dim, "D", 0, "denoising: ambient dimension")
	f.IntVar(&mf.n, "n", 0, "denoising: number of reference points")
	f.IntVar(&mf.queries, "queries", 0, "denoising: number of query points")
	f.StringVar(&mf.noise, "noise", "", "denoising: noise of the synthetic points, ball or gauss")
	f.Float64Var(&mf.h, "h", 0, "denoising: bandwidth h (0: the default rule)")
	f.IntVar(&mf.d, "d", 0, "denoising: intrinsic dimension d (0: the manifold's, or estimated on data)")
	f.IntVar(&mf.t, "T", 0, "denoising: denoising iterations")
	f.Float64Var(&mf.theta, "theta", 0, "denoising: share θ of each query's budget spent on the projector")
	f.Float64Var(&mf.cp, "CP", 0, "denoising: sensitivity constant C_P of the projector (paper mode)")
	f.Float64Var(&mf.cm, "Cm", 0, "denoising: sensitivity constant C_m of the mean (paper mode)")
	rf.load.registerPrep(f)
	rf.audit.register(f)
	f.BoolVar(&rf.asJSON, "json", false, "stream events as JSON lines, then a summary line")
	f.StringVar(&rf.outDir, "out", "", "write config, events, summary, embedding and assignments to this new or empty folder")
	f.StringVar(&rf.outFormat, "out-format", "", "also write the embedding and clusters as csv, mtx and/or h5ad (comma-separated) into --out")
	f.BoolVar(&rf.force, "force", false, "let --out replace the results of an earlier run in its folder")
	f.BoolVar(&rf.noRef, "no-reference", false, "skip the reference lines (B1: PCA + k-means; the method's null run), computed once per data set and cached")
	return cmd
}

// config merges the defaults, the config file and the flags set, in that
// order, and validates the result.
func (rf *runFlags) config(cmd *cobra.Command) (core.Config, error) {
	cfg := defaultRunConfig()
	if rf.configFile != "" {
		if err := readConfigFile(rf.configFile, &cfg); err != nil {
			return cfg, err
		}
	}
	set := cmd.Flags().Changed
	flagValue := map[string]func(){
		"data": func() { cfg.Data = rf.cfg.Data }, "method": func() { cfg.Method = rf.cfg.Method },
		"mode": func() { cfg.Mode = rf.cfg.Mode }, "epsilon": func() { cfg.Epsilon = rf.cfg.Epsilon },
		"delta": func() { cfg.Delta = rf.cfg.Delta }, "sigma": func() { cfg.Sigma = rf.cfg.Sigma },
		"clip": func() { cfg.Clip = rf.cfg.Clip }, "q": func() { cfg.SampleRate = rf.cfg.SampleRate },
		"accountant": func() { cfg.Accountant = rf.cfg.Accountant }, "lr": func() { cfg.LearningRate = rf.cfg.LearningRate },
		"clients": func() { cfg.Clients = rf.cfg.Clients }, "seed": func() { cfg.Seed = rf.cfg.Seed },
		"secure-noise": func() { cfg.SecureNoise = rf.cfg.SecureNoise },
	}
	for name, apply := range flagValue {
		if set(name) {
			apply()
		}
	}
	if set("layers") {
		r, err := core.ParseLayerRange(rf.layers)
		if err != nil {
			return cfg, usageError{err}
		}
		cfg.Layers = r
	}
	if set("epochs") {
		cfg.Epochs = nil
		for _, part := range strings.Split(rf.epochs, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil || n < 0 {
				return cfg, usagef("--epochs is %q, must be non-negative integers separated by commas", rf.epochs)
			}
			cfg.Epochs = append(cfg.Epochs, n)
		}
	}
	// A bad value may come from the config file: then name it.
	from := func(err error) error {
		if rf.configFile != "" && !set("method") && !set("mode") {
			return usagef("%w (settings from --config %s and the flags)", err, rf.configFile)
		}
		return err
	}
	m, err := core.LookupMethod(cfg.Method)
	if err != nil {
		return cfg, from(usageError{fmt.Errorf("--method: %w", err)})
	}
	if err := rf.options(set, m, &cfg); err != nil {
		return cfg, err
	}
	if _, err := checkMethod(cfg); err != nil {
		return cfg, from(err)
	}
	if cfg.Layers.First < 1 {
		// Layer 0 does not exist, and a range of zeros would read as
		// "unset" (the method's default) further on: refuse it here.
		return cfg, usagef("--layers is %s, layers are numbered from 1 (encoder 1-3, decoder 4-6)", cfg.Layers)
	}
	if cfg.Seed > maxSeed {
		return cfg, usagef("--seed is %d, must be in 0 … %d (2⁶³−1), so that every config file can hold it", cfg.Seed, uint64(maxSeed))
	}
	if err := rf.load.applyTo(&cfg, set); err != nil {
		return cfg, err
	}
	if err := rf.audit.apply(set, &cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		if name := culprit(cfg, set, err); name != "" {
			err = fmt.Errorf("--%s: %w", name, err)
		}
		if rf.configFile != "" {
			// The bad value may come from the file: name it.
			return cfg, usagef("%w (settings from --config %s and the flags)", err, rf.configFile)
		}
		return cfg, usageError{err}
	}
	return cfg, nil
}

// unreadFlags are the shared-setting flags set on the command line that
// cfg's method does not read (core.Method.Needs): --clip or --layers on
// dcan-sound, whose options set its clip and schedule, ran silently as if
// they had been taken.
func unreadFlags(cfg core.Config, set func(string) bool) []string {
	m, err := core.LookupMethod(cfg.Method)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range []struct {
		name string
		need core.Needs
	}{
		{"clip", core.NeedsClip}, {"q", core.NeedsSampleRate}, {"layers", core.NeedsLayers}, {"clients", core.NeedsClients},
		{"sigma", core.NeedsSigma}, {"epochs", core.NeedsEpochs}, {"lr", core.NeedsLearningRate}, {"accountant", core.NeedsAccountant},
	} {
		if !set(f.name) || m.Needs.Has(f.need) {
			continue
		}
		if _, ok := m.Option(f.name); ok && f.name == "sigma" {
			continue // --sigma sets the method's own option sigma (options)
		}
		out = append(out, "--"+f.name)
	}
	return out
}

// culprit names the flag whose value cfg.Validate refused with err: the
// first flag set whose reverting to its default makes that error go, or ""
// (the value came from --config, or several flags together are wrong).
// core's message names the field ("epsilon is -1"); the flag's name says
// what to change on the command line.
func culprit(cfg core.Config, set func(string) bool, err error) string {
	def := defaultRunConfig()
	for _, f := range []struct {
		name   string
		revert func(*core.Config)
	}{
		{"epsilon", func(c *core.Config) { c.Epsilon = def.Epsilon }},
		{"sigma", func(c *core.Config) { c.Sigma = def.Sigma }},
		{"delta", func(c *core.Config) { c.Delta = def.Delta }},
		{"clip", func(c *core.Config) { c.Clip = def.Clip }},
		{"q", func(c *core.Config) { c.SampleRate = def.SampleRate }},
		{"accountant", func(c *core.Config) { c.Accountant = def.Accountant }},
		{"lr", func(c *core.Config) { c.LearningRate = def.LearningRate }},
		{"clients", func(c *core.Config) { c.Clients = def.Clients }},
	} {
		if !set(f.name) {
			continue
		}
		c := cfg
		f.revert(&c)
		if e := c.Validate(); e == nil || e.Error() != err.Error() {
			return f.name
		}
	}
	return ""
}

// options adds --opt and the option shorthands to cfg.Options. For a
// method that reads no noise multiplier but has an option "sigma" (the
// denoising method's noise level of the data), --sigma sets that option:
// the method's noise follows from ε, δ and its sensitivities.
func (rf *runFlags) options(set func(string) bool, m core.Method, cfg *core.Config) error {
	put := func(k, v string) {
		if cfg.Options == nil {
			cfg.Options = map[string]string{}
		}
		cfg.Options[k] = v
	}
	for _, kv := range rf.opts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usagef("--opt is %q, must be KEY=VALUE", kv)
		}
		put(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	mf := rf.manifold
	shorthands := []struct {
		flag, key, value string
	}{
		{"manifold", "manifold", mf.kind}, {"D", "D", strconv.Itoa(mf.dim)}, {"n", "n", strconv.Itoa(mf.n)},
		{"queries", "queries", strconv.Itoa(mf.queries)}, {"noise", "noise", mf.noise},
		{"h", "h", fmtFloat(mf.h)}, {"d", "d", strconv.Itoa(mf.d)}, {"T", "T", strconv.Itoa(mf.t)},
		{"theta", "theta", fmtFloat(mf.theta)}, {"CP", "C_P", fmtFloat(mf.cp)}, {"Cm", "C_m", fmtFloat(mf.cm)},
	}
	for _, f := range shorthands {
		if set(f.flag) {
			if _, ok := m.Option(f.key); !ok {
				return usagef("--%s sets option %s, which method %s does not take", f.flag, f.key, m.Name)
			}
			put(f.key, f.value)
		}
	}
	// A synthetic manifold is also named in Data, so that the summary says
	// what was denoised.
	if set("manifold") && !set("data") {
		cfg.Data = manifoldPrefix + mf.kind
	}
	if _, ok := m.Option("sigma"); ok && !m.Needs.Has(core.NeedsSigma) && cfg.Sigma != 0 {
		put("sigma", fmtFloat(cfg.Sigma))
		cfg.Sigma = 0
	}
	return nil
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// runGrace is how long a stopped run may take to reach a step boundary
// before the command gives up on it (an engine still loading or
// preprocessing its data does not look at Stop) and saves what it has.
const runGrace = 500 * time.Millisecond

// manifoldPrefix starts the Data of a dpmd run on a synthetic manifold
// ("manifold:circle?n=2000"): a spec dpmd reads itself, not a data set to
// load or a path to find.
const manifoldPrefix = "manifold:"

// executeRun starts the run, follows its events to the end and reports.
// An interrupt (the command's context) or a failed write (standard output
// closed or full, the --out disk full) stops the run gracefully: the summary
// of what was done is still printed where possible and the --out folder is
// committed, marked as stopped. A run that ends before its first step, by
// failure or stop, commits nothing.
// runRequest is how `dpscope run` reports a run.
type runRequest struct {
	asJSON     bool
	outDir     string
	force      bool     // --out may replace an earlier run's results
	references bool     // compute the reference lines after the run
	formats    []string // extra formats of the result in outDir (--out-format)
}

// dataMissing returns an error naming data as label says (e.g. "--data
// /nope") when the data set is not there: a built-in name that does not
// exist, or a path that is not there. It reads nothing (a built-in set is
// not generated, a file not parsed), so it costs no time before a run: what
// is wrong inside a data set stays the loader's to report, with its line.
func dataMissing(label, data string) error {
	if strings.HasPrefix(data, manifoldPrefix) {
		return nil // dpmd's synthetic manifold: no data set to find
	}
	if name, ok := strings.CutPrefix(data, datasets.BuiltinPrefix); ok {
		_, err := datasets.GetBuiltinSpec(name)
		base, _, _ := strings.Cut(name, ":")
		if _, berr := datasets.GetBuiltinSpec(base); berr != nil {
			return fmt.Errorf("%s: no such built-in data set; there are %s", label, strings.Join(datasets.BuiltinNames(), ", "))
		} else if err != nil {
			return fmt.Errorf("%s: %w", label, err) // a bad seed: the loader's words
		}
		return nil
	}
	if _, err := os.Stat(data); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file or directory", label)
	}
	return nil
}

// checkRunData refuses, before anything of the run is shown or written, an
// option the data cannot take (core.CheckData: k larger than the cells),
// naming the input as the user typed it. The engine found it only after
// loading the data, and the message then said the method three times
// ("core: dppca: dppca: k is …: dppca: invalid input") after a failed
// run's summary.
func checkRunData(cfg core.Config) error {
	// A data set that is not there: say so before a run is shown that
	// fails at once. Not a usage error: exit 1, as when the run itself
	// fails to read its data.
	if err := dataMissing("--data "+cfg.Data, cfg.Data); err != nil {
		return err
	}
	err := core.CheckData(cfg)
	var oe *core.OptionError
	if errors.As(err, &oe) {
		return optionUsage(oe)
	}
	return err
}

// optionUsage is the usage error of an input the data refused, named as
// the user typed it: "--opt k=100000: …", or "--clients 9000: …" for a
// Config field with its own flag.
func optionUsage(oe *core.OptionError) error {
	if oe.Flag {
		return usagef("--%s %s: %s", oe.Key, oe.Value, oe.Reason)
	}
	return usagef("--opt %s=%s: %s", oe.Key, oe.Value, oe.Reason)
}

func executeRun(ctx context.Context, cfg core.Config, req runRequest, env Env) error {
	asJSON, outDir, force := req.asJSON, req.outDir, req.force
	if err := checkRunData(cfg); err != nil {
		return err
	}
	var out *runOutput
	if outDir != "" {
		temps := env.temps
		if temps == nil {
			temps = newTempDirs()
		}
		var err error
		if out, err = newRunOutput(temps, outDir, force, cfg); err != nil {
			return err
		}
		out.formats = req.formats
		defer out.discard()
	}
	// The run gets its own context so that an interrupt lets it finish its
	// bookkeeping and report, through Stop, instead of being abandoned.
	run, err := core.StartWith(context.WithoutCancel(ctx), cfg, core.Options{KeepAll: asJSON || outDir != ""})
	if err != nil {
		return err
	}
	// The speed hint comes once the run has started: a refused
	// configuration's error is then the first line the user reads.
	if b, err := compute.Init(); err == nil && b.Hint() != "" {
		fmt.Fprintln(env.Stderr, "dpscope: "+b.Hint())
	}
	sum := newSummary(cfg)
	prog := newProgress(env.Stderr, !asJSON)
	var (
		stopCause error            // why the command stopped the run
		giveUp    <-chan time.Time // set once the run is asked to stop
		interrupt = ctx.Done()
		ended     bool // the engine sent its last event
	)
	stop := func(cause error) {
		stopCause, interrupt = cause, nil
		run.Stop()
		giveUp = time.After(runGrace)
	}
loop:
	for {
		select {
		case ev, ok := <-run.Events():
			if !ok {
				ended = true
				break loop
			}
			if err := followEvent(ev, sum, prog, asJSON, out, env); err != nil {
				return err
			}
			if stopCause != nil {
				continue
			}
			if err := outputFailed(env.Stdout); err != nil {
				stop(outputError(err))
			} else if err := out.failedOrNil(); err != nil {
				stop(err)
			}
		case <-interrupt:
			stop(fmt.Errorf("interrupted (%v)", context.Cause(ctx)))
		case <-giveUp:
			// The engine is in something it cannot leave at once (loading,
			// preprocessing): it is abandoned and ends with the process.
			break loop
		}
	}
	prog.finish()
	sum.finish()
	if stopCause != nil && !ended {
		sum.Stopped = true
	}
	if stopCause != nil && sum.Stopped {
		sum.Status, sum.Reason = string(core.OutcomeStopped), stopCause.Error()
	}
	if req.references && stopCause == nil && sum.err == nil && sum.ARI != nil {
		sum.addReferences(ctx, cfg)
	}
	if out != nil {
		if !sum.progressed() {
			fmt.Fprintf(env.Stderr, "dpscope: --out %s: nothing written, the run ended before its first step\n", out.dir)
		} else if err := out.commit(sum); err != nil {
			return errors.Join(stopCause, err)
		}
	}
	if outputFailed(env.Stdout) == nil {
		if asJSON {
			b, err := json.Marshal(sum)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, string(b))
		} else {
			sum.write(env.Stdout)
		}
	}
	switch {
	case stopCause != nil && sum.Stopped:
		return fmt.Errorf("run stopped before the end of its schedule: %w", stopCause)
	case stopCause != nil:
		return stopCause
	case sum.err != nil:
		return sum.err
	case sum.Stopped:
		return errors.New("run stopped before the end of its schedule")
	}
	if err := outputFailed(env.Stdout); err != nil {
		return outputError(err)
	}
	return nil
}

// followEvent folds one event into the summary and the progress bar and
// writes it where --json and --out say.
func followEvent(ev core.Event, sum *runSummary, prog *progress, asJSON bool, out *runOutput, env Env) error {
	sum.observe(ev)
	prog.observe(ev)
	if asJSON || out != nil {
		line, err := eventJSON(ev)
		if err != nil {
			return err
		}
		if asJSON {
			fmt.Fprintln(env.Stdout, string(line))
		}
		if out != nil {
			out.event(line)
		}
	}
	if out != nil {
		switch ev := ev.(type) {
		case core.ResultEvent:
			out.result(ev)
		case core.EmbeddingEvent:
			out.embedding(ev)
		}
	}
	return nil
}

// eventJSON renders an event as one JSON object with a "type" field.
func eventJSON(ev core.Event) ([]byte, error) {
	name := eventName(ev)
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", name, err)
	}
	head := `{"type":` + strconv.Quote(name)
	if e, ok := ev.(core.ErrorEvent); ok {
		head += `,"error":` + strconv.Quote(e.Err.Error())
	}
	if len(b) <= 2 {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), b[1:]...), nil
}

// eventName is the "type" of an event in JSON lines.
func eventName(ev core.Event) string {
	switch ev.(type) {
	case core.StepEvent:
		return "step"
	case core.BudgetEvent:
		return "budget"
	case core.MetricsEvent:
		return "metrics"
	case core.EmbeddingEvent:
		return "embedding"
	case core.StageEvent:
		return "stage"
	case core.GuaranteeEvent:
		return "guarantee"
	case core.PatchEvent:
		return "patch"
	case core.WarningEvent:
		return "warning"
	case core.ResultEvent:
		return "result"
	case core.ClientsEvent:
		return "clients"
	case core.DoneEvent:
		return "done"
	case core.ErrorEvent:
		return "error"
	case core.DataEvent:
		return "data"
	case core.AuditEvent:
		return "audit"
	}
	return fmt.Sprintf("%T", ev)
}

// progress draws a one-line progress bar on a terminal, at most ten times a
// second; it is silent when w is not a terminal or when disabled.
type progress struct {
	w         io.Writer
	on        bool
	stage     core.StageEvent
	stepStart int
	last      time.Time
}

func newProgress(w io.Writer, enabled bool) *progress {
	f, ok := w.(*os.File)
	on := false
	if ok && enabled {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progress{w: w, on: on}
}

func (p *progress) observe(ev core.Event) {
	if !p.on {
		return
	}
	switch ev := ev.(type) {
	case core.StageEvent:
		p.stage = ev
		p.stepStart = -1
	case core.StepEvent:
		if p.stepStart < 0 {
			p.stepStart = ev.Step - 1
		}
		if time.Since(p.last) < 100*time.Millisecond {
			return
		}
		p.last = time.Now()
		done := ev.Step - p.stepStart
		frac := 0.0
		if p.stage.Steps > 0 {
			frac = min(float64(done)/float64(p.stage.Steps), 1)
		}
		const width = 30
		bar := strings.Repeat("█", int(frac*width)) + strings.Repeat("░", width-int(frac*width))
		fmt.Fprintf(p.w, "\r%-18.18s %s %5.1f%%  loss %.4g ", p.stage.Name, bar, 100*frac, ev.Loss)
	}
}

func (p *progress) finish() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
