package tui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/tui/session"
)

// exportedMsg reports an export: the files written, or the error.
type exportedMsg struct {
	paths []string
	err   error
}

// The export file names, in the export folder.
const (
	runsFile     = "dpscope-runs.csv"
	runsJSONFile = "dpscope-runs.json"
	frontierFile = "dpscope-frontier.csv"
)

// exportSchema numbers the layout of the export files (their columns and
// JSON fields); it grows when one changes meaning (DECISIONS, "Schema
// stamps"). Every row and the JSON document carry it with the version.
const exportSchema = 1

// runDetail is everything else that made a run, beyond what the Compare
// table shows: its configuration and what its events reported.
type runDetail struct {
	cfg     core.Config
	reasons []string // the guarantee's
	target  float64  // the ε target in force at the end (a live change moves it)
	delta   float64
	sigma   float64 // the noise multiplier the engine reported last; else the configured one
	acc     float64 // NaN when none
	steps   int     // the last step reported
	cells   int
	genes   int
	classes int
}

func newRunDetail(cfg core.Config) runDetail {
	return runDetail{cfg: cfg, target: cfg.Epsilon, delta: cfg.Delta, sigma: cfg.Sigma, acc: math.NaN()}
}

// observe takes what an event says about the run.
func (d *runDetail) observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.DataEvent:
		d.cells, d.genes, d.classes = ev.Cells, ev.Genes, ev.Classes
	case core.StepEvent:
		d.steps = max(d.steps, ev.Step)
	case core.BudgetEvent:
		d.steps = max(d.steps, ev.Step)
		if ev.Target > 0 {
			d.target = ev.Target
		}
		if ev.Delta > 0 {
			d.delta = ev.Delta
		}
		if ev.Sigma > 0 {
			d.sigma = ev.Sigma
		}
	case core.GuaranteeEvent:
		d.reasons = ev.Reasons
	case core.MetricsEvent:
		for _, v := range ev.Values {
			if strings.EqualFold(v.Name, "acc") {
				d.acc = v.Value
			}
		}
	}
}

// summary is the run's outcome as a session file states it.
func (r runRecord) summary() session.Summary {
	d := r.detail
	return session.Summary{
		Outcome: r.Outcome, Guarantee: r.Guarantee, Reasons: d.reasons, Epsilon: r.Epsilon,
		Delta: d.delta, Sigma: d.sigma, Steps: d.steps, Cells: d.cells, Genes: d.genes,
		ARI: r.ARI, NMI: r.NMI, ACC: d.acc, Seconds: r.Elapsed.Seconds(),
	}
}

// exportCmd writes the runs table (CSV and JSON) and the frontier (CSV)
// in dir, in a command, from a copy of the records; version stamps them.
func exportCmd(dir, version string, recs []runRecord) tea.Cmd {
	return func() tea.Msg {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs // the status line says where, whatever the working folder
		}
		js, err := runsJSON(recs, version)
		if err != nil {
			return exportedMsg{err: fmt.Errorf("export: %w", err)}
		}
		var paths []string
		for _, f := range []struct {
			name string
			data []byte
		}{{runsFile, runsCSV(recs, version)}, {runsJSONFile, js}, {frontierFile, frontierCSV(recs)}} {
			p := filepath.Join(dir, f.name)
			if err := writeAtomic(p, f.data); err != nil {
				return exportedMsg{err: fmt.Errorf("export: %w", err)}
			}
			paths = append(paths, p)
		}
		return exportedMsg{paths: paths}
	}
}

func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.6g", v)
}

// accountants are the ε accountants any of recs reported, in the order
// first seen: one column each.
func accountants(recs []runRecord) []string {
	var names []string
	for _, r := range recs {
		for _, e := range r.Epsilon {
			if !slices.Contains(names, e.Accountant) {
				names = append(names, e.Accountant)
			}
		}
	}
	return names
}

// exportRow is one run as the export states it: the column names and
// their values, in order, with numbers as numbers (NaN: none).
func exportRow(r runRecord, accs []string, version string) (names []string, values []any) {
	d, c := r.detail, r.detail.cfg
	add := func(n string, v any) { names, values = append(names, n), append(values, v) }
	nz := func(v int) any {
		if v == 0 {
			return math.NaN()
		}
		return float64(v)
	}
	add("run", float64(r.ID))
	add("variant", r.Variant)
	add("method", r.Method)
	add("mode", string(r.Mode))
	add("data", c.Data)
	add("cells", nz(d.cells))
	add("genes", nz(d.genes))
	add("classes", nz(d.classes))
	add("epsilon_target", d.target)
	for _, a := range accs {
		add("epsilon_"+a, r.epsilon(a))
	}
	add("delta", d.delta)
	add("sigma", d.sigma)
	add("clip", c.Clip)
	add("q", c.SampleRate)
	add("layers", r.Layers)
	add("accountant", c.Accountant)
	add("clients", nz(c.Clients))
	var rounds, epochs string
	if r.family() == familyFederated && len(c.Epochs) > 0 {
		rounds = strconv.Itoa(c.Epochs[0])
	}
	for i, e := range c.Epochs {
		if i > 0 {
			epochs += "+"
		}
		epochs += strconv.Itoa(e)
	}
	add("rounds", rounds)
	add("epochs", epochs)
	add("steps", nz(d.steps))
	add("seed", strconv.FormatUint(c.Seed, 10)) // beyond 2⁵³: as text, exactly
	add("secure_noise", c.SecureNoise)
	add("options", optionsText(c.Options))
	add("guarantee", string(r.Guarantee))
	add("guarantee_reasons", strings.Join(d.reasons, "; "))
	add("ari", r.ARI)
	add("nmi", r.NMI)
	add("acc", d.acc)
	line := func(name string, l *reference.Line) {
		a, n := math.NaN(), math.NaN()
		if l != nil {
			a, n = l.ARI, l.NMI
		}
		add(name+"_ari", a)
		add(name+"_nmi", n)
	}
	line("b1", r.refs.b1)
	line("null", r.refs.null)
	line("baseline", r.refs.baseline) // the private baseline at the run's ε
	add("baseline_method", r.refs.baselineOf)
	add("verdict", r.verdict())
	add("seconds", r.Elapsed.Seconds())
	add("outcome", r.Outcome)
	add("dpscope_version", version)
	add("schema", float64(exportSchema))
	return names, values
}

// family is the engine family of the record's method.
func (r runRecord) family() Family {
	if m, err := core.LookupMethod(r.detail.cfg.Method); err == nil {
		return m.Family
	}
	return ""
}

// optionsText writes a method's own options as k=v pairs, sorted.
func optionsText(o map[string]string) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range o {
			if !yield(k) {
				return
			}
		}
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + o[k]
	}
	return strings.Join(parts, " ")
}

// runsCSV is every run with every parameter that made it, as CSV.
func runsCSV(recs []runRecord, version string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	accs := accountants(recs)
	for i, r := range recs {
		names, values := exportRow(r, accs, version)
		if i == 0 {
			w.Write(names)
		}
		row := make([]string, len(values))
		for j, v := range values {
			switch v := v.(type) {
			case float64:
				row[j] = csvNum(v)
			case bool:
				row[j] = strconv.FormatBool(v)
			case string:
				row[j] = v
			}
		}
		w.Write(row)
	}
	w.Flush()
	return buf.Bytes()
}

// runsJSON is the runs as one JSON document stamped with dpscope's version
// and the export schema. A number that is not (no ARI yet) is null; an
// unbounded ε is the string "+Inf".
func runsJSON(recs []runRecord, version string) ([]byte, error) {
	accs := accountants(recs)
	runs := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		names, values := exportRow(r, accs, version)
		row := map[string]any{}
		for i, n := range names {
			v := values[i]
			if f, ok := v.(float64); ok {
				switch {
				case math.IsNaN(f):
					v = nil
				case math.IsInf(f, 1):
					v = "+Inf"
				case math.IsInf(f, -1):
					v = "-Inf"
				}
			}
			row[n] = v
		}
		delete(row, "dpscope_version") // said once, at the top
		delete(row, "schema")
		runs = append(runs, row)
	}
	doc := map[string]any{"format": "dpscope-export", "schema": exportSchema, "version": version,
		"written": time.Now().UTC().Format(time.RFC3339), "runs": runs}
	b, err := json.MarshalIndent(doc, "", " ")
	return append(b, '\n'), err
}

// frontierCSV is every private run's (ε, ARI) with whether it is on the
// Pareto front.
func frontierCSV(recs []runRecord) []byte {
	on := map[int]bool{}
	for _, r := range pareto(recs) {
		on[r.ID] = true
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"run", "variant", "epsilon", "ari", "pareto"})
	for _, r := range recs {
		if math.IsNaN(r.frontierEps()) || math.IsNaN(r.ARI) {
			continue
		}
		w.Write([]string{fmt.Sprint(r.ID), r.Variant, csvNum(r.frontierEps()), csvNum(r.ARI), fmt.Sprint(on[r.ID])})
	}
	w.Flush()
	return buf.Bytes()
}

// writeAtomic writes data to a temporary file in path's folder and renames
// it over path, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
