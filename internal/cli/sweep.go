package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
)

// sweepFlags are the flags of `dpscope sweep`.
type sweepFlags struct {
	base       core.Config
	configFile string
	methods    string
	modes      string
	epsilons   string
	seeds      string
	epochs     string
	layers     string
	opts       []string
	jobs       int
	out        string
	asJSON     bool
	load       loadFlags // labels, orientation and preprocessing, as for run
	shard      string    // --shard INDEX/COUNT
	merge      bool      // --merge DIR…
	emit       string    // --emit snakemake DIR
	gridFile   string    // --grid FILE: the grid of a sweep manifest
}

func newSweepCmd(env Env) *cobra.Command {
	sf := &sweepFlags{base: defaultRunConfig()}
	cmd := &cobra.Command{
		Use:   "sweep [--merge DIR… | --emit snakemake DIR]",
		Short: "Run a grid of methods × modes × ε × seeds and summarise the trade-off",
		Long: `sweep runs every combination of --method, --mode, --epsilon, --opt values
and --seeds on one data set, headless, and prints for each method, mode and ε
the mean and standard deviation of ARI and NMI over the seeds, beside the
non-private reference B1 (PCA(50) + k-means on the same preprocessed matrix).

Nonprivate modes ignore --epsilon and run once per seed. --opt KEY=V1,V2 makes
a method option one more axis of the grid. With --out DIR every finished run
is saved in DIR/runs/, and running the same command again skips them: an
interrupted sweep resumes where it stopped. DIR must be new, empty, or a
folder of the same sweep.

--shard 2/4 runs the second of four disjoint parts of the grid: run k (from
0, in the grid's order: method, mode, option values, ε rising, seed, as the
flags list them) goes to part k mod 4 + 1. --merge DIR… --out OUT joins the
parts' folders into one sweep folder and prints what a plain sweep of the
grid prints. --grid FILE takes the grid from a sweep folder's manifest.
--emit snakemake DIR writes a Snakemake workflow (one job per run, then the
merge and the report) with profiles for Slurm and for one machine.

--json prints one line per run (its summary and seed) as runs finish, then one
line {"sweep": [...], "reference": {...}, "exploration": {...}}.

Every private run touches the same data: an ε picked from the curve is covered
only by the total over all the runs made, which sweep reports (basic
composition, the sum of the runs' ε and δ).`,
		Example: `  dpscope sweep --method dppca --mode sound --epsilon 0.5,1,2,4,8,16 --seeds 0-4
  dpscope sweep --data ../shared/data/pbmc_4k --method dppca,dcan --mode sound,nonprivate \
      --epsilon 1,8 --seeds 0-4 --jobs 2 --out sweeps/pbmc --json
  dpscope sweep --method dppca --epsilon 1,8 --seeds 0-4 --shard 1/2 --out part1
  dpscope sweep --merge part1 part2 --out whole
  dpscope sweep --method dppca --epsilon 1,8 --seeds 0-4 --emit snakemake wf`,
		RunE: runE(func(cmd *cobra.Command, args []string) error { return sf.execute(cmd, args, env) }),
	}
	f := cmd.Flags()
	c := &sf.base
	f.StringVar(&sf.configFile, "config", "", "TOML file with the base settings of every run (as for run --config)")
	f.StringVar(&c.Data, "data", c.Data, dataFlagUsage)
	f.StringVar(&sf.methods, "method", c.Method, "methods, comma-separated")
	f.StringVar(&sf.modes, "mode", string(c.Mode), "modes, comma-separated: nonprivate, paper, sound")
	f.StringVar(&sf.epsilons, "epsilon", "0.5,1,2,4,8,16", "target ε values, comma-separated (private modes)")
	f.StringVar(&sf.seeds, "seeds", "0-4", "seeds: FIRST-LAST ranges and single seeds, comma-separated")
	f.Float64Var(&c.Delta, "delta", c.Delta, "δ")
	f.Float64Var(&c.Clip, "clip", c.Clip, "per-sample clipping bound C")
	f.Float64Var(&c.SampleRate, "q", c.SampleRate, "Poisson sampling rate of a step")
	f.StringVar(&sf.layers, "layers", c.Layers.String(), "autoencoder layers that get noise, FIRST-LAST")
	f.StringVar(&sf.epochs, "epochs", "", "epochs per stage, comma-separated (default: the method's)")
	f.StringVar(&c.Accountant, "accountant", c.Accountant, "accountant that enforces each target: rdp or pld")
	f.IntVar(&c.Clients, "clients", 0, "number of federated clients (federated methods)")
	f.BoolVar(&c.SecureNoise, "secure-noise", false, "draw DP noise from a cryptographically seeded generator")
	f.StringArrayVar(&sf.opts, "opt", nil, "a method's setting KEY=VALUE, or KEY=V1,V2 to sweep it (repeatable)")
	f.IntVar(&sf.jobs, "jobs", 1, "runs at once (each run may use several BLAS threads)")
	f.StringVar(&sf.out, "out", "", "save every finished run in this folder and resume from it")
	sf.load.registerPrep(f)
	f.BoolVar(&sf.asJSON, "json", false, "one JSON line per run, then a summary line")
	f.StringVar(&sf.shard, "shard", "", "run only part INDEX/COUNT of the grid (1-based; run k goes to part k mod COUNT + 1)")
	f.BoolVar(&sf.merge, "merge", false, "join the shard folders given as arguments into the --out folder and report the whole grid")
	f.StringVar(&sf.emit, "emit", "", "write a workflow for the grid instead of running it: snakemake (the folder is the argument)")
	f.StringVar(&sf.gridFile, "grid", "", "take the grid from a sweep manifest (a sweep folder or its manifest.json) instead of the grid flags")
	return cmd
}

// grid builds the sweep grid from the defaults, --config and the flags.
func (sf *sweepFlags) grid(cmd *cobra.Command) (sweep.Grid, error) {
	base := defaultRunConfig()
	if sf.configFile != "" {
		md, err := toml.DecodeFile(sf.configFile, &base)
		if err != nil {
			return sweep.Grid{}, usagef("config %s: %v", sf.configFile, err)
		}
		if undec := md.Undecoded(); len(undec) > 0 {
			return sweep.Grid{}, usagef("config %s: unknown key %q", sf.configFile, undec[0].String())
		}
	}
	set := cmd.Flags().Changed
	for name, apply := range map[string]func(){
		"data": func() { base.Data = sf.base.Data }, "delta": func() { base.Delta = sf.base.Delta },
		"clip": func() { base.Clip = sf.base.Clip }, "q": func() { base.SampleRate = sf.base.SampleRate },
		"accountant": func() { base.Accountant = sf.base.Accountant }, "clients": func() { base.Clients = sf.base.Clients },
		"secure-noise": func() { base.SecureNoise = sf.base.SecureNoise },
	} {
		if set(name) {
			apply()
		}
	}
	// The data settings reach every run and the B1 line, as run's do.
	if err := sf.load.applyTo(&base, set); err != nil {
		return sweep.Grid{}, err
	}
	if set("layers") {
		r, err := core.ParseLayerRange(sf.layers)
		if err != nil {
			return sweep.Grid{}, usageError{err}
		}
		base.Layers = r
	}
	if set("epochs") {
		e, err := parseEpochs(sf.epochs)
		if err != nil {
			return sweep.Grid{}, err
		}
		base.Epochs = e
	}
	if sf.jobs < 1 || sf.jobs > 256 {
		return sweep.Grid{}, usagef("--jobs is %d, must be 1 … 256", sf.jobs)
	}
	g := sweep.Grid{Base: base}
	var err error
	if g.Methods, err = parseCSV("method", sf.methods); err != nil {
		return g, err
	}
	modes, err := parseCSV("mode", sf.modes)
	if err != nil {
		return g, err
	}
	for _, m := range modes {
		g.Modes = append(g.Modes, core.Mode(m))
	}
	if g.Epsilons, err = parseEpsilons(sf.epsilons); err != nil {
		return g, err
	}
	if g.Seeds, err = parseSeeds(sf.seeds); err != nil {
		return g, err
	}
	if g.Options, err = parseOptionAxes(sf.opts); err != nil {
		return g, err
	}
	return g, nil
}

// newSweepManifest is the manifest of a folder of g (or of its shard).
func newSweepManifest(g sweep.Grid, shard *sweep.Shard) sweepManifest {
	return sweepManifest{Schema: sweepSchema, Version: version(), Hash: g.Hash(), Grid: g, Shard: shard}
}

// parseEpochs reads "50,40".
func parseEpochs(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(part), "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != strings.TrimSpace(part) {
			return nil, usagef("--epochs is %q, must be non-negative integers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// sweepRecord is one run of a sweep: its JSON line and its saved file.
type sweepRecord struct {
	Schema int `json:"schema"`
	*runSummary
	Seed          uint64            `json:"seed"`
	EpsilonTarget float64           `json:"epsilon_target"`
	Options       map[string]string `json:"options,omitempty"`
	Spent         float64           `json:"epsilon_spent"`     // the largest finite ε reported
	Unbounded     bool              `json:"epsilon_unbounded"` // an accountant reported ε = ∞
}

// UnmarshalJSON reads a saved record back, summary included.
func (r *sweepRecord) UnmarshalJSON(b []byte) error {
	type plain struct {
		Schema        int               `json:"schema"`
		Seed          uint64            `json:"seed"`
		EpsilonTarget float64           `json:"epsilon_target"`
		Options       map[string]string `json:"options,omitempty"`
		Spent         float64           `json:"epsilon_spent"`
		Unbounded     bool              `json:"epsilon_unbounded"`
	}
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var s runSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*r = sweepRecord{Schema: p.Schema, runSummary: &s, Seed: p.Seed, EpsilonTarget: p.EpsilonTarget, Options: p.Options,
		Spent: p.Spent, Unbounded: p.Unbounded}
	return nil
}

// outcome is what the sweep's summary needs of a saved run.
func (r sweepRecord) outcome() *sweep.Outcome {
	return &sweep.Outcome{ARI: r.ARI, NMI: r.NMI, Delta: r.Delta, Spent: r.Spent, Unbounded: r.Unbounded,
		Guarantee: core.Guarantee(r.Guarantee), Stopped: r.Stopped}
}

// newRecord pairs a finished run's summary with its outcome. ε values
// that are not finite (∞: no bound holds) cannot be written as JSON: they
// leave the per-accountant map and set epsilon_unbounded instead.
func newRecord(cfg core.Config, s *runSummary, o sweep.Outcome) sweepRecord {
	c := *s
	c.Epsilon = map[string]float64{}
	for k, v := range s.Epsilon {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			c.Epsilon[k] = v
		}
	}
	return sweepRecord{Schema: sweepSchema, runSummary: &c, Seed: cfg.Seed, EpsilonTarget: cfg.Epsilon, Options: cfg.Options,
		Spent: o.Spent, Unbounded: o.Unbounded}
}

// sweepRun is how a grid is run: jobs at a time, saved in out (when not
// empty), as JSON lines or a table, the whole grid or one shard.
type sweepRun struct {
	jobs   int
	out    string
	asJSON bool
	shard  *sweep.Shard
}

// executeSweep runs the grid (or its shard) and reports. A shard reports
// its own runs without the reference lines: they are computed once, by the
// merge, not once per shard.
func executeSweep(ctx context.Context, g sweep.Grid, sr sweepRun, env Env) error {
	points, err := g.Points()
	if err != nil {
		return usageError{err}
	}
	if err := checkGrid(points); err != nil {
		return err
	}
	if err := checkData(points); err != nil {
		return err
	}
	gridRuns := len(points)
	if sr.shard != nil {
		var part []sweep.Point
		for _, k := range sr.shard.Select(len(points)) {
			part = append(part, points[k])
		}
		points = part
	}
	jobs, outDir, asJSON := sr.jobs, sr.out, sr.asJSON
	var dir *sweepDir
	if outDir != "" {
		if dir, err = openSweepDir(outDir, newSweepManifest(g, sr.shard)); err != nil {
			return err
		}
	}
	out := &stickyWriter{w: env.Stdout}
	bar := newSweepBar(env.Stderr, len(points))
	outcomes := make([]*sweep.Outcome, len(points))
	summaries := make([]*runSummary, len(points))
	var todo []int
	for i, p := range points {
		if dir != nil {
			if r, ok := dir.load(p.Name); ok {
				outcomes[i] = r.outcome()
				bar.skip()
				continue
			}
		}
		summaries[i] = newSummary(p.Config)
		todo = append(todo, i)
	}
	var failures []string
	observe := func(i int) func(core.Event) { return summaries[i].observe }
	sweep.Execute(ctx, points, todo, jobs, observe, func(i int, o sweep.Outcome) {
		defer bar.finished()
		p := points[i]
		switch {
		case o.Err != nil:
			failures = append(failures, fmt.Sprintf("%s: %v", p.Name, o.Err))
			return
		case o.Stopped:
			return // interrupted or ended early: not saved, so a rerun does it again
		}
		summaries[i].finish()
		outcomes[i] = &o
		r := newRecord(p.Config, summaries[i], o)
		if dir != nil {
			if err := dir.save(p.Name, r); err != nil {
				failures = append(failures, err.Error())
			}
		}
		if asJSON {
			if b, err := json.Marshal(r); err == nil {
				out.line(b)
			}
		}
	})
	bar.finish()

	res := &sweepResult{Shard: sr.shard, gridRuns: gridRuns}
	groups, cost := sweep.Summarise(points, outcomes)
	res.Groups, res.Exploration = groupsOf(groups), cost
	// An interrupted sweep reports what finished at once, without the
	// reference lines (which may take seconds).
	if ctx.Err() == nil && sr.shard == nil {
		res.Reference = &references{}
		if l, err := b1Line(ctx, g.Base); err != nil {
			res.Reference.Missing = append(res.Reference.Missing, "B1: "+err.Error())
		} else {
			res.Reference.PCAKMeans = l
		}
		var missing []string
		res.Groups, missing = judge(ctx, points, groups)
		res.Reference.Missing = append(res.Reference.Missing, missing...)
	}
	for _, o := range outcomes {
		if o != nil {
			res.done++
		}
	}
	if asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		out.line(b)
	} else {
		res.write(out)
	}
	if err := out.err; err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("sweep interrupted with %d of %d runs done; run the same command again to resume (with --out)", res.done, len(points))
	}
	if len(failures) > 0 {
		slices.Sort(failures)
		return fmt.Errorf("%d of %d runs failed:\n  %s", len(failures), len(points), strings.Join(failures, "\n  "))
	}
	return nil
}

// sweepGroup is one point of the curve as `sweep` prints it: the group
// and, for a method with a null run, that line and the verdict against it.
type sweepGroup struct {
	sweep.Group
	Null    *reference.Line `json:"null,omitempty"`
	Verdict string          `json:"verdict,omitempty"`
	// Test names how a private group was judged against Null: "paired"
	// (seed by seed over the seeds both share, at least 2; Learning holds
	// the figures) or "unpaired" (the group's mean and sd against the
	// null's, reference.NoBetter). Empty when it was not judged.
	Test     string              `json:"test,omitempty"`
	Learning *reference.Learning `json:"learning,omitempty"`
	// nullFollows is set when Null is itself a private run at the group's
	// ε (core.Method.NullFollowsEpsilon): figures draw such nulls as a
	// curve over ε, never as one line across it.
	nullFollows bool
}

// checkGrid refuses, before anything runs or loads, a grid none of whose
// runs can start: an unknown --method, an --opt key or value the method
// refuses, a mode it does not offer. Each would fail alone at its turn, so
// a mistyped flag gave a table of failed runs (after the data and B1 were
// computed) instead of one usage error. A grid some of whose runs are
// valid (two methods, an option only one takes) runs as before: its
// invalid runs are listed as failed.
func checkGrid(points []sweep.Point) error {
	var first error
	for _, p := range points {
		_, err := checkMethod(p.Config)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// checkData refuses, before any run, a sweep whose data is not there or
// whose grid holds an option value the data cannot take (core.CheckData:
// k larger than the cells): every such run would fail alone with the same
// error and the sweep would print a table of failed runs. CheckData's
// loads are the runs' own (the data cache keeps them); other load errors
// are left to the runs, since preprocessing options may differ between
// them.
func checkData(points []sweep.Point) error {
	if len(points) == 0 {
		return nil
	}
	cfg := points[0].Config
	if err := dataMissing("--data "+cfg.Data, cfg.Data); err != nil {
		return err
	}
	checked := map[string]bool{}
	for _, p := range points {
		c := p.Config
		key := fmt.Sprint(c.Method, c.Mode, c.Clients, c.Options)
		if checked[key] {
			continue
		}
		checked[key] = true
		var oe *core.OptionError
		if errors.As(core.CheckData(c), &oe) {
			return optionUsage(oe)
		}
	}
	return nil
}

// groupsOf wraps groups without reference lines (an interrupted sweep,
// a shard, figures made with --no-reference).
func groupsOf(groups []sweep.Group) []sweepGroup {
	out := make([]sweepGroup, len(groups))
	for i, g := range groups {
		out[i].Group = g
	}
	return out
}

// The tests a sweep group is judged by (sweepGroup.Test).
const (
	testPaired   = "paired"
	testUnpaired = "unpaired"
)

// judge adds each group's null line and, for private groups not above it
// beyond seed noise, the verdict: paired over the seeds the group shares
// with the null when there are two or more (reference.Judge), else
// unpaired. Nulls come from the reference cache, one
// per method, mode, ε and options (a null that does not follow ε is the
// same cached line at every ε). missing says, once per method, why a null
// could not be had.
func judge(ctx context.Context, points []sweep.Point, groups []sweep.Group) (out []sweepGroup, missing []string) {
	out = groupsOf(groups)
	said := map[string]bool{}
	for i, g := range groups {
		var cfg core.Config
		for _, p := range points {
			if p.Config.Method == g.Method && p.Config.Mode == g.Mode && p.Config.Epsilon == g.Epsilon && maps.Equal(p.Config.Options, g.Options) {
				cfg = p.Config
				break
			}
		}
		if cfg.Method == "" {
			continue
		}
		l, err := nullLine(ctx, cfg)
		if err != nil {
			if !said[g.Method] {
				said[g.Method] = true
				missing = append(missing, "null of "+g.Method+": "+err.Error())
			}
			continue
		}
		out[i].Null = l
		if m, err := core.LookupMethod(cfg.Method); err == nil {
			out[i].nullFollows = m.NullFollowsEpsilon(cfg)
		}
		if g.Mode == core.ModeNonPrivate || g.ARIMean == nil {
			continue
		}
		// The null's runs are at seeds 0–4: a group at the same seeds is
		// judged seed by seed (DECISIONS: "beyond seed noise"), which sees
		// through the seed-to-seed spread both share.
		noBetter, learning := reference.Judge(g.SeedARI(), *g.ARIMean, *g.ARISD, g.N, *l, l.BySeed())
		out[i].Test, out[i].Learning = testUnpaired, learning
		if learning != nil {
			out[i].Test = testPaired
		}
		if noBetter {
			out[i].Verdict = reference.NoLearning
		}
	}
	return out, missing
}

// verdictNote is the footnote of a table whose starred rows are no
// better than no learning, saying which test judged them; "" when no row
// is starred.
func verdictNote(groups []sweepGroup) string {
	tests := map[string]bool{}
	for _, g := range groups {
		if g.Verdict != "" {
			tests[g.Test] = true
		}
	}
	if len(tests) == 0 {
		return ""
	}
	how := "paired seed by seed over the seeds a row shares with the null's seeds 0–4 where it shares two or more, else its mean and sd against the null's (unpaired)"
	switch {
	case len(tests) > 1:
	case tests[testPaired]:
		how = "paired seed by seed over the seeds each row shares with the null's seeds 0–4"
	case tests[testUnpaired]:
		how = "each row's mean and sd against the null's (unpaired: fewer than two of its seeds are among the null's seeds 0–4)"
	}
	return fmt.Sprintf("* %s: not above the method's null run (what it gives without learning: its untrained model, the record unit's pipeline on noise alone, or dcan-sound's start alone at the same ε) beyond seed noise, tested %s", reference.NoLearning, how)
}

// sweepResult is the last line of `sweep --json`.
type sweepResult struct {
	Groups      []sweepGroup `json:"sweep"`
	Reference   *references  `json:"reference"`
	Exploration sweep.Cost   `json:"exploration"`
	// Shard is set when the result is one shard's: its groups hold only
	// the shard's runs and there are no reference lines.
	Shard    *sweep.Shard `json:"shard,omitempty"`
	done     int
	gridRuns int // runs in the whole grid
}

// write prints the sweep table for people.
func (r *sweepResult) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tmode\tε target\toptions\truns\tARI mean ± sd\tNMI mean ± sd\tmax ε spent\tnull ARI\t")
	pm := func(m, s *float64) string {
		if m == nil {
			return "—"
		}
		return fmt.Sprintf("%.3f ± %.3f", *m, *s)
	}
	for _, g := range r.Groups {
		eps, spent := fmt.Sprintf("%g", g.Epsilon), fmt.Sprintf("%.3g", g.SpentMax)
		if g.Mode == core.ModeNonPrivate {
			eps, spent = "∞", "—"
		}
		opts := "—"
		if len(g.Options) > 0 {
			opts = optionsText(g.Options)
		}
		null := "—"
		if g.Null != nil {
			null = fmt.Sprintf("%.3f", g.Null.ARI)
		}
		ari := pm(g.ARIMean, g.ARISD)
		if g.Verdict != "" {
			ari = "*" + ari // a bare number would read as learning
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", g.Method, g.Mode, eps, opts, g.N, ari, pm(g.NMIMean, g.NMISD), spent, null)
	}
	tw.Flush()
	if note := verdictNote(r.Groups); note != "" {
		fmt.Fprintln(w, note)
	}
	if ref := r.Reference; ref != nil && ref.PCAKMeans != nil {
		l := ref.PCAKMeans
		fmt.Fprintf(w, "reference B1 (PCA(50) + k-means, non-private, not a release): ARI %.3f ± %.3f, NMI %.3f ± %.3f over %d seeds\n", l.ARI, l.ARISD, l.NMI, l.NMISD, l.Seeds)
	}
	whole := "the whole sweep"
	if r.Shard != nil {
		whole = "this shard"
	}
	if e := r.Exploration; e.Unbounded > 0 {
		fmt.Fprintf(w, "privacy of %s: %d private runs on the same data, %d of them with no finite ε (no formal guarantee): together they have no privacy bound\n", whole, e.PrivateRuns, e.Unbounded)
	} else if e.PrivateRuns > 0 {
		fmt.Fprintf(w, "privacy of %s: %d private runs on the same data, ε ≤ %.4g, δ ≤ %.3g by basic composition; an ε picked from this table is covered only by that total\n", whole, e.PrivateRuns, e.EpsilonTotal, e.DeltaTotal)
	}
	fmt.Fprintln(w, "(ARI and NMI use the true labels of the data: exploration only, not covered by any guarantee)")
	if r.Shard != nil {
		fmt.Fprintf(w, "shard %s: %d of the grid's %d runs, without reference lines; join every shard's folder with dpscope sweep --merge\n", r.Shard, r.done, r.gridRuns)
	}
}

// stickyWriter writes lines and keeps the first write error, so a full disk
// or a closed pipe is reported once at the end instead of lost.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	s.err = err
	return n, err
}

func (s *stickyWriter) line(b []byte) { s.Write(append(b, '\n')) }

// sweepBar draws "sweep ███░░ 12/30 runs" on a terminal; it is silent
// otherwise.
type sweepBar struct {
	w            io.Writer
	on           bool
	total, count int
}

func newSweepBar(w io.Writer, total int) *sweepBar {
	on := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	b := &sweepBar{w: w, on: on, total: total}
	b.draw()
	return b
}

// skip counts a run found in the sweep folder; finished one just run.
func (b *sweepBar) skip()     { b.count++; b.draw() }
func (b *sweepBar) finished() { b.count++; b.draw() }

func (b *sweepBar) draw() {
	if !b.on || b.total == 0 {
		return
	}
	const width = 30
	n := width * b.count / b.total
	fmt.Fprintf(b.w, "\rsweep %s%s %d/%d runs ", strings.Repeat("█", n), strings.Repeat("░", width-n), b.count, b.total)
}

func (b *sweepBar) finish() {
	if b.on {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// optionsText writes a group's options as the user types them, key=value
// pairs sorted by key and separated by spaces (fmt's map form, map[k:v],
// reads as Go, not as a flag).
func optionsText(opts map[string]string) string {
	keys := slices.Sorted(maps.Keys(opts))
	for i, k := range keys {
		keys[i] = k + "=" + opts[k]
	}
	return strings.Join(keys, " ")
}
