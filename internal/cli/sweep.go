package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/datasets"
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
}

func newSweepCmd(env Env) *cobra.Command {
	sf := &sweepFlags{base: defaultRunConfig()}
	cmd := &cobra.Command{
		Use:   "sweep",
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

--json prints one line per run (its summary and seed) as runs finish, then one
line {"sweep": [...], "reference": {...}, "exploration": {...}}.

Every private run touches the same data: an ε picked from the curve is covered
only by the total over all the runs made, which sweep reports (basic
composition, the sum of the runs' ε and δ).`,
		Example: `  dpscope sweep --method dppca --mode sound --epsilon 0.5,1,2,4,8,16 --seeds 0-4
  dpscope sweep --data ../shared/data/pbmc_4k --method dppca,dcan --mode sound,nonprivate \
      --epsilon 1,8 --seeds 0-4 --jobs 2 --out sweeps/pbmc --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			grid, err := sf.grid(cmd)
			if err != nil {
				return err
			}
			return executeSweep(cmd.Context(), grid, sf.jobs, sf.out, sf.asJSON, env)
		}),
	}
	f := cmd.Flags()
	c := &sf.base
	f.StringVar(&sf.configFile, "config", "", "TOML file with the base settings of every run (as for run --config)")
	f.StringVar(&c.Data, "data", c.Data, "data set: builtin:NAME, a 10x MatrixMarket folder or a dense CSV/TSV file")
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
	f.BoolVar(&sf.asJSON, "json", false, "one JSON line per run, then a summary line")
	return cmd
}

// grid builds the sweep grid from the defaults, --config and the flags.
func (sf *sweepFlags) grid(cmd *cobra.Command) (sweepGrid, error) {
	base := defaultRunConfig()
	if sf.configFile != "" {
		md, err := toml.DecodeFile(sf.configFile, &base)
		if err != nil {
			return sweepGrid{}, usagef("config %s: %v", sf.configFile, err)
		}
		if undec := md.Undecoded(); len(undec) > 0 {
			return sweepGrid{}, usagef("config %s: unknown key %q", sf.configFile, undec[0].String())
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
	if set("layers") {
		r, err := core.ParseLayerRange(sf.layers)
		if err != nil {
			return sweepGrid{}, usageError{err}
		}
		base.Layers = r
	}
	if set("epochs") {
		e, err := parseEpochs(sf.epochs)
		if err != nil {
			return sweepGrid{}, err
		}
		base.Epochs = e
	}
	if sf.jobs < 1 || sf.jobs > 256 {
		return sweepGrid{}, usagef("--jobs is %d, must be 1 … 256", sf.jobs)
	}
	g := sweepGrid{Base: base}
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
}

// UnmarshalJSON reads a saved record back, summary included.
func (r *sweepRecord) UnmarshalJSON(b []byte) error {
	type plain struct {
		Schema        int               `json:"schema"`
		Seed          uint64            `json:"seed"`
		EpsilonTarget float64           `json:"epsilon_target"`
		Options       map[string]string `json:"options,omitempty"`
	}
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var s runSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*r = sweepRecord{Schema: p.Schema, runSummary: &s, Seed: p.Seed, EpsilonTarget: p.EpsilonTarget, Options: p.Options}
	return nil
}

func newRecord(cfg core.Config, s *runSummary) sweepRecord {
	return sweepRecord{Schema: sweepSchema, runSummary: s, Seed: cfg.Seed, EpsilonTarget: cfg.Epsilon, Options: cfg.Options}
}

// executeSweep runs the grid with jobs runs at a time and reports.
func executeSweep(ctx context.Context, g sweepGrid, jobs int, outDir string, asJSON bool, env Env) error {
	points, err := g.points()
	if err != nil {
		return err
	}
	var dir *sweepDir
	if outDir != "" {
		if dir, err = openSweepDir(outDir, sweepManifest{Schema: sweepSchema, Version: version(), Hash: g.hash(), Grid: g}); err != nil {
			return err
		}
	}
	out := &stickyWriter{w: env.Stdout}
	bar := newSweepBar(env.Stderr, len(points))
	records := make([]*sweepRecord, len(points))
	var todo []int
	for i, p := range points {
		if dir != nil {
			if r, ok := dir.load(p.name); ok {
				records[i] = &r
				bar.skip()
				continue
			}
		}
		todo = append(todo, i)
	}
	var (
		mu       sync.Mutex
		failures []string
	)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(todo), 1)) {
		wg.Go(func() {
			for i := range work {
				p := points[i]
				s := runOnce(ctx, p.cfg)
				mu.Lock()
				switch {
				case s.err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", p.name, s.err))
				case s.Stopped:
					// Interrupted: not saved, so a rerun does it again.
				default:
					r := newRecord(p.cfg, s)
					records[i] = &r
					if dir != nil {
						if err := dir.save(p.name, r); err != nil {
							failures = append(failures, err.Error())
						}
					}
					if asJSON {
						if b, err := json.Marshal(r); err == nil {
							out.line(b)
						}
					}
				}
				bar.finished()
				mu.Unlock()
			}
		})
	}
feed:
	for _, i := range todo {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	bar.finish()

	res := summariseSweep(g, points, records)
	res.Reference = sweepReference(ctx, g.Base.Data)
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

// runOnce runs one config to its end and returns its summary; an interrupt
// of ctx stops the run, which then reports Stopped.
func runOnce(ctx context.Context, cfg core.Config) *runSummary {
	s := newSummary(cfg)
	run, err := core.Start(context.WithoutCancel(ctx), cfg)
	if err != nil {
		s.err, s.Error = err, err.Error()
		return s
	}
	go func() {
		select {
		case <-ctx.Done():
			run.Stop()
		case <-run.Done():
		}
	}()
	for ev := range run.Events() {
		s.observe(ev)
	}
	s.finish()
	return s
}

// sweepReference is B1 on the data as the methods preprocess it by
// default, from the reference cache; nil when the data have no labels or
// cannot be read (the runs then said why).
func sweepReference(ctx context.Context, data string) *sweepReferences {
	raw, _, err := datasets.Load(data, datasets.OpenOptions{})
	if err != nil {
		return nil
	}
	p, err := datasets.Preprocess(raw, datasets.DefaultPreprocessConfig())
	if err != nil {
		return nil
	}
	l, err := reference.DefaultCache().B1(ctx, p)
	if err != nil {
		return nil
	}
	return &sweepReferences{PCAKMeans: &l}
}

// sweepReferences are the reference lines of a sweep's data set. They are
// computed without noise from the private data: not releases, not covered
// by any guarantee.
type sweepReferences struct {
	PCAKMeans *reference.Line `json:"pca_kmeans,omitempty"`
}

// sweepGroup is one point of the trade-off curve: a method, mode, ε and
// option values, over seeds.
type sweepGroup struct {
	Method     string            `json:"method"`
	Mode       string            `json:"mode"`
	Epsilon    float64           `json:"epsilon"` // the target; 0 for nonprivate
	Options    map[string]string `json:"options,omitempty"`
	N          int               `json:"n"`
	ARIMean    *float64          `json:"ari_mean"`
	ARISD      *float64          `json:"ari_sd"`
	NMIMean    *float64          `json:"nmi_mean"`
	NMISD      *float64          `json:"nmi_sd"`
	SpentMax   float64           `json:"epsilon_spent_max"` // largest ε any accountant certified for one run
	Guarantees []string          `json:"guarantees"`        // the statuses the runs reported
}

// exploration is what the whole sweep cost in privacy.
type exploration struct {
	PrivateRuns  int     `json:"private_runs"`
	EpsilonTotal float64 `json:"epsilon_total"`
	DeltaTotal   float64 `json:"delta_total"`
	Composition  string  `json:"composition"`
}

// sweepResult is the last line of `sweep --json`.
type sweepResult struct {
	Groups      []sweepGroup     `json:"sweep"`
	Reference   *sweepReferences `json:"reference"`
	Exploration exploration      `json:"exploration"`
	done        int
}

// summariseSweep groups the finished runs by method, mode, options and ε,
// in grid order.
func summariseSweep(g sweepGrid, points []sweepPoint, records []*sweepRecord) *sweepResult {
	res := &sweepResult{Exploration: exploration{Composition: "basic: the sum of every private run's ε and δ on this data (an upper bound; a tighter composition needs the runs' RDP curves)"}}
	index := map[string]int{}
	var ari, nmi [][]float64
	for i, p := range points {
		cfg := p.cfg
		key := fmt.Sprintf("%s\x00%s\x00%v\x00%v", cfg.Method, cfg.Mode, cfg.Epsilon, cfg.Options)
		gi, ok := index[key]
		if !ok {
			gi = len(res.Groups)
			index[key] = gi
			res.Groups = append(res.Groups, sweepGroup{Method: cfg.Method, Mode: string(cfg.Mode), Epsilon: cfg.Epsilon, Options: cfg.Options, Guarantees: []string{}})
			ari, nmi = append(ari, nil), append(nmi, nil)
		}
		r := records[i]
		if r == nil {
			continue
		}
		res.done++
		grp := &res.Groups[gi]
		grp.N++
		if r.ARI != nil {
			ari[gi] = append(ari[gi], *r.ARI)
		}
		if r.NMI != nil {
			nmi[gi] = append(nmi[gi], *r.NMI)
		}
		spent := 0.0
		for _, e := range r.Epsilon {
			spent = max(spent, e)
		}
		grp.SpentMax = max(grp.SpentMax, spent)
		if !slices.Contains(grp.Guarantees, r.Guarantee) {
			grp.Guarantees = append(grp.Guarantees, r.Guarantee)
		}
		if cfg.Mode != core.ModeNonPrivate {
			res.Exploration.PrivateRuns++
			res.Exploration.EpsilonTotal += spent
			res.Exploration.DeltaTotal += r.Delta
		}
	}
	for gi := range res.Groups {
		res.Groups[gi].ARIMean, res.Groups[gi].ARISD = meanSD(ari[gi])
		res.Groups[gi].NMIMean, res.Groups[gi].NMISD = meanSD(nmi[gi])
	}
	return res
}

// meanSD returns the mean and sample standard deviation, nil when there
// are no values (and a zero sd for one).
func meanSD(v []float64) (mean, sd *float64) {
	if len(v) == 0 {
		return nil, nil
	}
	var m, s float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	if len(v) > 1 {
		s = math.Sqrt(s / float64(len(v)-1))
	}
	return &m, &s
}

// write prints the sweep table for people.
func (r *sweepResult) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tmode\tε target\toptions\truns\tARI mean ± sd\tNMI mean ± sd\tmax ε spent\t")
	pm := func(m, s *float64) string {
		if m == nil {
			return "—"
		}
		return fmt.Sprintf("%.3f ± %.3f", *m, *s)
	}
	for _, g := range r.Groups {
		eps, spent := fmt.Sprintf("%g", g.Epsilon), fmt.Sprintf("%.3g", g.SpentMax)
		if g.Mode == string(core.ModeNonPrivate) {
			eps, spent = "∞", "—"
		}
		opts := "—"
		if len(g.Options) > 0 {
			opts = fmt.Sprint(g.Options)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", g.Method, g.Mode, eps, opts, g.N, pm(g.ARIMean, g.ARISD), pm(g.NMIMean, g.NMISD), spent)
	}
	tw.Flush()
	if ref := r.Reference; ref != nil && ref.PCAKMeans != nil {
		l := ref.PCAKMeans
		fmt.Fprintf(w, "reference B1 (PCA(50) + k-means, non-private, not a release): ARI %.3f ± %.3f, NMI %.3f ± %.3f over %d seeds\n", l.ARI, l.ARISD, l.NMI, l.NMISD, l.Seeds)
	}
	if e := r.Exploration; e.PrivateRuns > 0 {
		fmt.Fprintf(w, "privacy of the whole sweep: %d private runs on the same data, ε ≤ %.4g, δ ≤ %.3g by basic composition; an ε picked from this table is covered only by that total\n", e.PrivateRuns, e.EpsilonTotal, e.DeltaTotal)
	}
	fmt.Fprintln(w, "(ARI and NMI use the true labels of the data: exploration only, not covered by any guarantee)")
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
