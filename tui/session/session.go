// Package session is the file a dpscope session is saved to and reopened
// from (`dpscope --session FILE`): every run's configuration, the events
// that redraw its charts, its summary and reference lines, and the
// session's privacy tally, as versioned JSON (DECISIONS, "Schema stamps").
//
// It knows the format only: the interface builds a File from its runs and
// replays one into its screens. Non-finite numbers (an ARI not measured,
// an unbounded ε) are written as the strings "NaN", "+Inf" and "-Inf".
package session

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
)

// Format is the value of every session file's "format" field.
const Format = "dpscope-session"

// Schema numbers the layout of File. It grows when a field changes
// meaning or a reader would misread a newer file; readers refuse a newer
// schema rather than guess.
const Schema = 1

// File is a saved session.
type File struct {
	Format  string `json:"format"`
	Schema  int    `json:"schema"`
	Version string `json:"version"` // the dpscope that wrote it
	Saved   string `json:"saved"`   // RFC 3339, UTC
	// Named: the user saved this file (ctrl+s, or a session reopened with
	// --session), so it is theirs: the autosave folder's pruning never
	// removes it, whatever its name. Near the start of the file, where the
	// pruning reads it without decoding the runs.
	Named bool `json:"named,omitempty"`
	// Data is the data set the session's runs read, with the settings
	// that shaped it.
	Data DataSettings `json:"data"`
	// Params are the Run screen's settings when saved, in the
	// interface's own layout (a tree of plain values when read).
	Params any `json:"params,omitempty"`
	// Runs are the session's finished runs, oldest first.
	Runs []Run `json:"runs"`
	// Tally is every private release of the session by data set, runs and
	// Trade-off sweeps alike (basic composition).
	Tally map[string]sweep.Cost `json:"tally,omitempty"`
	// TallyClients is the same for releases whose privacy unit is one
	// client's data (federated methods): never composed with Tally's.
	TallyClients map[string]sweep.Cost `json:"tally_clients,omitempty"`
}

// DataSettings are core.Config's data fields.
type DataSettings struct {
	Spec         string                     `json:"spec"`
	Labels       string                     `json:"labels,omitempty"`
	LabelsColumn string                     `json:"labels_column,omitempty"`
	UseRaw       bool                       `json:"use_raw,omitempty"`
	Orientation  string                     `json:"orientation,omitempty"`
	Preprocess   *datasets.PreprocessConfig `json:"preprocess,omitempty"`
}

// Run is one finished run.
type Run struct {
	ID      int         `json:"id"`      // the session's run number, from 1
	Variant string      `json:"variant"` // the method control's label, e.g. "DP-DCAN paper"
	Config  core.Config `json:"config"`
	// Params are the Run screen's settings the run started from.
	Params     any        `json:"params,omitempty"`
	Summary    Summary    `json:"summary"`
	References References `json:"references"`
	// Clock is the run's time in seconds as the interface clocked it
	// (pauses left out); 0 when not known.
	Clock float64 `json:"clock,omitempty"`
	// Events are the run's events in order, but its final result.
	Events []Event `json:"events"`
	// Decoded are Events as core events, filled by Decode.
	Decoded []core.Event `json:"-"`
}

// References are a run's reference lines, when computed: B1 and the null
// (non-private), and the private baseline at the run's ε (BaselineMethod,
// its ARI and NMI only).
type References struct {
	B1             *reference.Line `json:"b1,omitempty"`
	Null           *reference.Line `json:"null,omitempty"`
	Baseline       *reference.Line `json:"baseline,omitempty"`
	BaselineMethod string          `json:"baseline_method,omitempty"`
	// Self is the run's settings at the null's seeds (reference.Cache.Self),
	// for a method whose runs are cheap (core.Method.SeedCheck).
	Self *reference.Line `json:"self,omitempty"`
}

// Summary is what a run ended with, for a reader of the file; the
// interface redraws its screens from the events.
type Summary struct {
	Outcome   string              `json:"outcome"` // finished, stopped, budget-exhausted, diverged or failed
	Guarantee core.Guarantee      `json:"guarantee"`
	Reasons   []string            `json:"reasons,omitempty"`
	Epsilon   []core.EpsilonValue `json:"epsilon,omitempty"` // spent, per accountant
	Delta     float64             `json:"delta"`
	Sigma     float64             `json:"sigma"`
	Steps     int                 `json:"steps"`
	Cells     int                 `json:"cells"`
	Genes     int                 `json:"genes"`
	ARI       float64             `json:"ari"`
	NMI       float64             `json:"nmi"`
	ACC       float64             `json:"acc"`
	Seconds   float64             `json:"seconds"`
}

// Encode writes f as JSON, stamped with Format and Schema.
func Encode(f File) ([]byte, error) {
	f.Format, f.Schema = Format, Schema
	for i, r := range f.Runs {
		if r.Events == nil {
			f.Runs[i].Events = []Event{}
		}
	}
	b, err := marshalTree(f)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return append(b, '\n'), nil
}

// ErrNewer is wrapped by Decode's error for a file of a newer schema.
var ErrNewer = errors.New("newer session schema")

// Decode reads a session file's bytes, refusing a file of a newer schema
// (ErrNewer) and any that is not a whole session, with what is wrong and
// where. It never changes b.
func Decode(b []byte) (File, error) {
	var head struct {
		Format  string `json:"format"`
		Schema  int    `json:"schema"`
		Version string `json:"version"`
	}
	if err := unmarshalTree(b, &head); err != nil {
		return File{}, fmt.Errorf("not a dpscope session file (%v)", err)
	}
	switch {
	case head.Format != Format:
		return File{}, fmt.Errorf("not a dpscope session file (format %q, want %q)", head.Format, Format)
	case head.Schema > Schema:
		return File{}, fmt.Errorf("%w: the file has schema %d (written by dpscope %s), this dpscope reads schema %d or older; upgrade dpscope to open it", ErrNewer, head.Schema, head.Version, Schema)
	case head.Schema < 1:
		return File{}, fmt.Errorf("session schema %d: must be 1 or more", head.Schema)
	}
	var f File
	if err := unmarshalTree(b, &f); err != nil {
		return File{}, fmt.Errorf("damaged session file: %w", err)
	}
	last := 0
	for i := range f.Runs {
		r := &f.Runs[i]
		path := fmt.Sprintf("runs[%d]", i)
		if r.ID <= last {
			return File{}, fmt.Errorf("damaged session file: %s: run id %d after %d (ids grow from 1)", path, r.ID, last)
		}
		last = r.ID
		r.Decoded = make([]core.Event, 0, len(r.Events))
		for j, e := range r.Events {
			ev, err := e.decode(fmt.Sprintf("%s.events[%d]", path, j))
			if err != nil {
				return File{}, fmt.Errorf("damaged session file: %w", err)
			}
			r.Decoded = append(r.Decoded, ev)
		}
	}
	return f, nil
}

// DecodeParams fills dst (a pointer) from a Params tree as Decode left it.
func DecodeParams(t any, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return errors.New("session: DecodeParams needs a pointer")
	}
	return fill(t, v.Elem(), "params")
}
