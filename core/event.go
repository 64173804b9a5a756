package core

import (
	"errors"
	"strings"
	"time"

	"github.com/dpscope/dpscope/datasets"
)

// Event is one report from a run. The concrete types are the XxxEvent
// structs of this package; use a type switch. Events are values: an engine
// copies out of its buffers before emitting.
type Event interface {
	// coalesces reports whether a newer event of the same kind may replace
	// this one while the watcher is behind.
	coalesces() bool
}

// NamedValue is a number with a name, e.g. a part of a loss.
type NamedValue struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Group and Measure place a value in a table, when it has one: its
	// column (e.g. DP-MD's track "before", "nonprivate", "paper") and its
	// row ("mean distance to M"). Name stays unique on its own.
	Group   string `json:"group,omitempty"`
	Measure string `json:"measure,omitempty"`
}

// StepEvent reports the loss of one optimisation step. It coalesces.
type StepEvent struct {
	Stage int          `json:"stage"` // 1-based
	Epoch int          `json:"epoch"` // 1-based, within the stage
	Step  int          `json:"step"`  // 1-based, counted over the whole run
	Loss  float64      `json:"loss"`
	Parts []NamedValue `json:"parts,omitempty"` // the loss's weighted terms
}

// EpsilonValue is an ε with the accountant that produced it.
type EpsilonValue struct {
	Accountant string  `json:"accountant"` // e.g. "RDP", "PLD", "paper (Theorem 1)"
	Epsilon    float64 `json:"epsilon"`
	// Label names the accountant in a few words for a chart legend
	// ("RDP", "secagg GDP", "published"); empty: Accountant is short.
	Label string `json:"label,omitempty"`
}

// Short returns Label, or Accountant when Label is empty.
func (v EpsilonValue) Short() string {
	if v.Label != "" {
		return v.Label
	}
	return v.Accountant
}

// BudgetEvent reports the privacy budget spent so far. It coalesces.
type BudgetEvent struct {
	Step      int            `json:"step"`
	Delta     float64        `json:"delta"`
	Spent     []EpsilonValue `json:"spent"`     // total so far, per accountant
	Projected []EpsilonValue `json:"projected"` // at the end of the planned schedule
	Target    float64        `json:"target"`    // the target ε; 0 when none
	// Sigma is the noise multiplier σ the engine uses for the steps to
	// come, as it calibrated it for every mechanism of its plan; 0 when the
	// method reports none.
	Sigma float64 `json:"sigma,omitempty"`
	// Components holds ε per ledger component ("stage 1", "centroids", …),
	// under the first accountant of Spent.
	Components []NamedValue `json:"components,omitempty"`
	// Orders names the RDP order list the RDP figures use (e.g.
	// "dpaccounting_default_156"); empty when no RDP figure is reported.
	Orders string `json:"orders,omitempty"`
	// Ledger lists every release the run's ledger holds (its audited
	// view), and Planned what its plan still makes at Sigma: with them a
	// face composes the whole run (every mechanism, at any accountant)
	// without rebuilding the schedule. Empty when the method reports none.
	Ledger  []Mechanism `json:"ledger,omitempty"`
	Planned []Mechanism `json:"planned,omitempty"`
}

// Mechanism is Steps releases of the Poisson-subsampled Gaussian mechanism
// at sampling rate SampleRate and noise multiplier NoiseMultiplier (noise
// standard deviation over the ℓ2 sensitivity), as a ledger component
// records them: accountant.Event with the component's name.
type Mechanism struct {
	Component       string  `json:"component,omitempty"`
	SampleRate      float64 `json:"q"`
	NoiseMultiplier float64 `json:"z"`
	Steps           int     `json:"steps"`
}

// MetricsEvent reports clustering quality against the true labels. Every one
// is delivered (one per epoch or round at most). The values use the labels of
// private data: they are for exploration and no guarantee covers them.
type MetricsEvent struct {
	Stage      int          `json:"stage"`
	Epoch      int          `json:"epoch"`
	Step       int          `json:"step"`
	Values     []NamedValue `json:"values"` // ARI, NMI, ACC, silhouette, …
	Unreleased bool         `json:"unreleased"`
}

// EmbeddingEvent carries a 2-D projection of the current embedding for a
// scatter chart. It coalesces.
type EmbeddingEvent struct {
	Step    int       `json:"step"`
	X, Y    []float64 `json:"-"`
	Cluster []int     `json:"-"` // assigned cluster per point
	Truth   []int     `json:"-"` // true label per point, −1 when unknown
}

// StageEvent marks the start of a stage (e.g. DP-DCAN's instance and cluster
// stages).
type StageEvent struct {
	Stage int    `json:"stage"`
	Name  string `json:"name"`
	Steps int    `json:"steps"` // planned steps in this stage
}

// Guarantee is the kind of privacy guarantee a run carries.
type Guarantee string

// The guarantee statuses, from strongest to none.
const (
	GuaranteeFormal      Guarantee = "formal"      // (ε, δ)-DP holds, under the listed assumptions
	GuaranteeConditional Guarantee = "conditional" // holds only if stated conditions do
	GuaranteePaperOnly   Guarantee = "paper-only"  // only the paper's own accounting says so
	GuaranteeNone        Guarantee = "none"        // no privacy claim
)

// GuaranteeEvent states a run's guarantee with its reasons in plain words,
// beside the paper's own figure and the audited one.
type GuaranteeEvent struct {
	Status    Guarantee      `json:"status"`
	Reasons   []string       `json:"reasons"`
	Published []EpsilonValue `json:"published,omitempty"` // as the paper accounts it
	Audited   []EpsilonValue `json:"audited,omitempty"`   // what the accountant certifies
}

// PatchEvent answers a Patch: applied from Step on, or rejected with Err.
type PatchEvent struct {
	Patch   Patch  `json:"patch"`
	Step    int    `json:"step"`
	Applied bool   `json:"applied"`
	Err     string `json:"error,omitempty"`
	// Effective is the change as it took effect, when it differs from
	// Patch: a new ε target with the σ solved for it, for instance.
	Effective *Patch `json:"effective,omitempty"`
}

// WarningEvent is something the user should know that does not stop the run.
type WarningEvent struct {
	Message string `json:"message"`
	// Note marks a description of what the run does (its plan, or a
	// decision its rules took) rather than a problem: front ends show it
	// as a note, so that a warning is not lost among routine messages.
	Note bool `json:"note,omitempty"`
}

// Outcome is how a run that did not fail ended.
type Outcome string

// The outcomes of a DoneEvent. Every one but OutcomeFinished is an early
// end: the run did not take every step it planned, and says why in Reason.
const (
	OutcomeFinished Outcome = "finished" // the whole schedule ran
	OutcomeStopped  Outcome = "stopped"  // ended by Stop (the user)
	// OutcomeBudgetExhausted: the privacy filter refused a step before the
	// end of the schedule (the target ε was reached early).
	OutcomeBudgetExhausted Outcome = "budget-exhausted"
	// OutcomeDiverged: training blew up (a non-finite loss) and the engine
	// kept the last sound model.
	OutcomeDiverged Outcome = "diverged"
)

// DoneEvent is the last event of a run that ended by itself or by Stop.
// Outcome says how; Reason says why in words for every early end.
type DoneEvent struct {
	Outcome Outcome       `json:"outcome"`
	Stopped bool          `json:"stopped"` // Outcome is OutcomeStopped
	Reason  string        `json:"reason,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
}

// Early reports whether the run ended before its schedule's end.
func (d DoneEvent) Early() bool { return d.Outcome != OutcomeFinished && d.Outcome != "" }

// Status is the outcome in words for a status line: "finished", or e.g.
// "budget exhausted: ε = 8 spent at step 115 of 200".
func (d DoneEvent) Status() string {
	word := strings.ReplaceAll(string(d.Outcome), "-", " ")
	if word == "" {
		word = string(OutcomeFinished)
	}
	if d.Reason == "" {
		return word
	}
	return word + ": " + d.Reason
}

// ErrDiverged is wrapped (or matched by errors.Is) by an engine's error when
// the run failed because its training diverged, e.g. a non-finite loss
// with no sound model to keep.
var ErrDiverged = errors.New("training diverged")

// ErrorEvent is the last event of a run that failed.
type ErrorEvent struct {
	Err error `json:"-"`
}

// DataEvent reports, once, the shape of the matrix a run trains on (or
// denoises), after loading and preprocessing: what the run really used.
type DataEvent struct {
	Cells int `json:"cells"`
	// Genes is the number of features: the selected genes, or the ambient
	// dimension of a synthetic point cloud.
	Genes   int `json:"genes"`
	Classes int `json:"classes"` // label classes; 0 when unlabelled
}

// DataEventOf describes a preprocessed data set.
func DataEventOf(d *datasets.Preprocessed) DataEvent {
	ev := DataEvent{Cells: d.Cells, Genes: d.Genes}
	if d.Labels != nil {
		ev.Classes = len(d.Classes)
	}
	return ev
}

func (DataEvent) coalesces() bool { return false }

func (StepEvent) coalesces() bool      { return true }
func (BudgetEvent) coalesces() bool    { return true }
func (EmbeddingEvent) coalesces() bool { return true }
func (MetricsEvent) coalesces() bool   { return false }
func (StageEvent) coalesces() bool     { return false }
func (GuaranteeEvent) coalesces() bool { return false }
func (PatchEvent) coalesces() bool     { return false }
func (WarningEvent) coalesces() bool   { return false }
func (DoneEvent) coalesces() bool      { return false }
func (ErrorEvent) coalesces() bool     { return false }

// ResultEvent carries a run's final output, once, just before its DoneEvent:
// the embedding of every cell and the cluster it was assigned to. It is what
// `dpscope run --out` writes. It is never dropped.
type ResultEvent struct {
	Cells, Dim int
	Embedding  []float32 `json:"-"` // Cells × Dim, row-major
	Cluster    []int     `json:"-"`
	Barcodes   []string  `json:"-"`
}

func (ResultEvent) coalesces() bool { return false }
