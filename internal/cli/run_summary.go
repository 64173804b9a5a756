package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/reference"
)

// runSummary is the last JSON line of `dpscope run --json` and summary.json
// of --out. Metrics are nil when the run reported none.
type runSummary struct {
	Type    string `json:"type"` // "summary"
	Schema  int    `json:"schema"`
	Version string `json:"dpscope_version"`
	// BLAS names the arithmetic the run's products used (backend, its
	// build and core, dpscope's sgemm kernel): a seed's figures repeat
	// to the digit on the same arithmetic, while another backend's
	// rounding can tip a near-tied k-means partition (docs/RESULTS.md).
	BLAS             string             `json:"blas"`
	Data             runData            `json:"data"`
	Method           string             `json:"method"`
	Mode             string             `json:"mode"`
	Delta            float64            `json:"delta"`
	Epsilon          map[string]float64 `json:"epsilon"`           // spent, per accountant
	EpsilonPublished map[string]float64 `json:"epsilon_published"` // the paper's own accounting
	Guarantee        string             `json:"guarantee"`         // formal | conditional | paper-only | none
	GuaranteeReasons []string           `json:"guarantee_reasons"`
	ARI              *float64           `json:"ari"`
	NMI              *float64           `json:"nmi"`
	ACC              *float64           `json:"acc"`
	Silhouette       *float64           `json:"silhouette"`
	Metrics          map[string]float64 `json:"metrics"` // every metric reported, by name (e.g. distances to a manifold)
	Steps            int                `json:"steps"`
	Seconds          float64            `json:"seconds"`
	Stopped          bool               `json:"stopped"`
	// Status is how the run ended: finished, stopped, budget-exhausted,
	// diverged (core.Outcome) or failed; Reason says why for all but
	// finished.
	Status   string   `json:"status"`
	Reason   string   `json:"reason,omitempty"`
	Warnings []string `json:"warnings"`
	// Notes are the run's descriptions of what it does (WarningEvents
	// marked Note: a method's plan, a decision its rules took).
	Notes []string `json:"notes,omitempty"`
	Error string   `json:"error,omitempty"`
	// Reference holds the reference lines (absent with --no-reference);
	// Verdict is "no better than no learning" when a private result is not
	// above the null beyond seed noise; Learning is the paired comparison
	// it rests on, for a method whose runs are cheap enough to repeat at
	// the null's seeds (core.Method.SeedCheck; absent otherwise, and the
	// verdict is the one-run approximation).
	Reference *references         `json:"reference,omitempty"`
	Verdict   string              `json:"verdict,omitempty"`
	Learning  *reference.Learning `json:"learning,omitempty"`
	// Audit is the empirical lower bound on ε of a run with --audit
	// (absent otherwise).
	Audit *core.AuditEvent `json:"audit,omitempty"`

	start     time.Time
	err       error
	sawResult bool
}

// summarySchema numbers the layout of runSummary; it grows when a field
// changes meaning or goes away, so that readers can refuse a newer one.
const summarySchema = 2

// runData is the data a run used: its spec and the shape of the matrix the
// model trained on (zero until the engine reports it).
type runData struct {
	Spec    string `json:"spec"`
	Cells   int    `json:"cells"`
	Genes   int    `json:"genes"`
	Classes int    `json:"classes"`
}

// Status values of a summary beyond core's outcomes.
const (
	statusFailed     = "failed"
	statusIncomplete = "incomplete" // the event stream ended without a DoneEvent or ErrorEvent
)

func newSummary(cfg core.Config) *runSummary {
	return &runSummary{
		Type: "summary", Schema: summarySchema, Version: version(), BLAS: blasArithmetic(), Data: runData{Spec: cfg.Data}, Status: statusIncomplete, Method: cfg.Method, Mode: string(cfg.Mode), Delta: cfg.Delta,
		Epsilon: map[string]float64{}, EpsilonPublished: map[string]float64{}, Metrics: map[string]float64{},
		Guarantee: string(core.GuaranteeNone), GuaranteeReasons: []string{}, Warnings: []string{},
		start: time.Now(),
	}
}

// observe folds one event into the summary: the newest value of each kind
// wins.
func (s *runSummary) observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.StepEvent:
		s.Steps = ev.Step
	case core.BudgetEvent:
		for _, e := range ev.Spent {
			s.Epsilon[e.Accountant] = e.Epsilon
		}
		s.Delta = ev.Delta
	case core.GuaranteeEvent:
		s.Guarantee, s.GuaranteeReasons = string(ev.Status), ev.Reasons
		clear(s.EpsilonPublished)
		for _, e := range ev.Published {
			s.EpsilonPublished[e.Accountant] = e.Epsilon
		}
		for _, e := range ev.Audited {
			s.Epsilon[e.Accountant] = e.Epsilon
		}
	case core.MetricsEvent:
		for _, v := range ev.Values {
			val := v.Value
			s.Metrics[v.Name] = val
			switch strings.ToLower(v.Name) {
			case "ari":
				s.ARI = &val
			case "nmi":
				s.NMI = &val
			case "acc":
				s.ACC = &val
			case "silhouette":
				s.Silhouette = &val
			}
		}
	case core.ResultEvent, core.EmbeddingEvent:
		s.sawResult = true
	case core.WarningEvent:
		if ev.Note {
			s.Notes = append(s.Notes, ev.Message)
		} else {
			s.Warnings = append(s.Warnings, ev.Message)
		}
	case core.AuditEvent:
		s.Audit = &ev
	case core.DataEvent:
		s.Data.Cells, s.Data.Genes, s.Data.Classes = ev.Cells, ev.Genes, ev.Classes
	case core.DoneEvent:
		s.Stopped = ev.Stopped
		s.Status, s.Reason = string(ev.Outcome), ev.Reason
		if s.Status == "" {
			s.Status = string(core.OutcomeFinished)
		}
	case core.ErrorEvent:
		s.err = ev.Err
		s.Error = ev.Err.Error()
		s.Status, s.Reason = statusFailed, ev.Err.Error()
		if errors.Is(ev.Err, core.ErrDiverged) {
			s.Status = string(core.OutcomeDiverged)
		}
	}
}

// progressed reports whether the run got anywhere: a step, a metric or a
// result. A run that did not is not worth a result folder.
func (s *runSummary) progressed() bool { return s.Steps > 0 || s.sawResult }

func (s *runSummary) finish() { s.Seconds = time.Since(s.start).Seconds() }

// write prints the summary for people.
func (s *runSummary) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s (%s) on %s, %d steps in %.1fs\n", s.Method, s.Mode, s.Data.Spec, s.Steps, s.Seconds)
	if d := s.Data; d.Cells > 0 {
		fmt.Fprintf(tw, "data\t%d cells × %d genes, %d classes (the matrix the model trained on)\n", d.Cells, d.Genes, d.Classes)
	}
	if s.Error != "" {
		fmt.Fprintf(tw, "error\t%s\n", s.Error)
	}
	switch {
	case s.Status == string(core.OutcomeFinished):
		fmt.Fprintf(tw, "status\tfinished\n")
	case s.Reason != "" && s.Status != statusFailed:
		fmt.Fprintf(tw, "status\t%s before the end of its schedule: %s\n", strings.ReplaceAll(s.Status, "-", " "), s.Reason)
	default:
		fmt.Fprintf(tw, "status\t%s\n", s.Status)
	}
	fmt.Fprintf(tw, "guarantee\t%s\n", s.Guarantee)
	for _, r := range s.GuaranteeReasons {
		fmt.Fprintf(tw, "\t• %s\n", r)
	}
	for _, name := range sortedKeys(s.Epsilon) {
		// Without a valid guarantee the ledger's ε is arithmetic on the
		// paper's assumptions, not a bound: say so on the line itself.
		label, caveat := "ε audited", ""
		if s.Guarantee == string(core.GuaranteeNone) || s.Guarantee == string(core.GuaranteePaperOnly) {
			label, caveat = "ε by the ledger", ", not a guarantee: see the reasons above"
		}
		fmt.Fprintf(tw, "%s\t%.4g  (%s, δ = %g%s)\n", label, s.Epsilon[name], name, s.Delta, caveat)
	}
	for _, name := range sortedKeys(s.EpsilonPublished) {
		fmt.Fprintf(tw, "ε as published\t%.4g  (%s)\n", s.EpsilonPublished[name], name)
	}
	writeAudit(tw, s.Audit, s.Epsilon, s.EpsilonPublished)
	metric := func(name string, v *float64) {
		if v == nil {
			return
		}
		fmt.Fprintf(tw, "%s\t%.4f", name, *v)
		if name == "ARI" && s.Verdict != "" {
			// A bare number would read as learning: say it is not.
			fmt.Fprintf(tw, "  — %s (the null line below)", s.Verdict)
		}
		if name == "ARI" && s.Learning != nil {
			fmt.Fprintf(tw, "  — these settings: %s", s.Learning)
		}
		fmt.Fprintln(tw)
	}
	for _, name := range sortedKeys(s.Metrics) {
		v := s.Metrics[name]
		metric(name, &v)
	}
	if s.ARI != nil || s.NMI != nil || s.ACC != nil || s.Silhouette != nil {
		fmt.Fprintf(tw, "\t(metrics use the true labels of the data: exploration only, not covered by any guarantee)\n")
	}
	s.Reference.write(tw)
	for _, m := range s.Notes {
		fmt.Fprintf(tw, "note\t%s\n", m)
	}
	for _, m := range s.Warnings {
		fmt.Fprintf(tw, "warning\t%s\n", m)
	}
	tw.Flush()
}

func sortedKeys(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }

// blasArithmetic is the summary's blas field: the backend's name and
// configuration, without the library's path and thread count, which do
// not change a product's value.
func blasArithmetic() string {
	b, _ := compute.Init() // an error is reported at start-up; b is then gonum
	return b.Name + " (" + b.Config + ")"
}
