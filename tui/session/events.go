package session

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dpscope/dpscope/core"
)

// Event is one engine event as a session stores it: its kind and its
// fields (the event's own JSON names).
type Event struct {
	Type string `json:"type"`
	Data any    `json:"data"` // a core event value when encoding; a tree when read
}

// embedding is core.EmbeddingEvent with the points its JSON form leaves
// out: the scatter chart redraws from them.
type embedding struct {
	Step    int       `json:"step"`
	X       []float64 `json:"x"`
	Y       []float64 `json:"y"`
	Cluster []int     `json:"cluster,omitempty"`
	Truth   []int     `json:"truth,omitempty"`
}

// failure is core.ErrorEvent with its error as text.
type failure struct {
	Error string `json:"error"`
}

// eventTypes maps a stored kind to a zero value of its Go type.
var eventTypes = map[string]any{
	"data": core.DataEvent{}, "stage": core.StageEvent{}, "clients": core.ClientsEvent{},
	"step": core.StepEvent{}, "budget": core.BudgetEvent{}, "metrics": core.MetricsEvent{},
	"embedding": embedding{}, "guarantee": core.GuaranteeEvent{}, "patch": core.PatchEvent{},
	"warning": core.WarningEvent{}, "done": core.DoneEvent{}, "error": failure{},
	"audit": core.AuditEvent{},
}

// EncodeEvent returns ev as stored, and false for an event a session does
// not keep: a run's final result (the embedding of every cell, which the
// charts do not draw and which `dpscope run --out` writes instead).
func EncodeEvent(ev core.Event) (Event, bool) {
	switch ev := ev.(type) {
	case core.DataEvent:
		return Event{"data", ev}, true
	case core.StageEvent:
		return Event{"stage", ev}, true
	case core.ClientsEvent:
		return Event{"clients", ev}, true
	case core.StepEvent:
		return Event{"step", ev}, true
	case core.BudgetEvent:
		return Event{"budget", ev}, true
	case core.MetricsEvent:
		return Event{"metrics", ev}, true
	case core.EmbeddingEvent:
		return Event{"embedding", embedding{Step: ev.Step, X: ev.X, Y: ev.Y, Cluster: ev.Cluster, Truth: ev.Truth}}, true
	case core.GuaranteeEvent:
		return Event{"guarantee", ev}, true
	case core.PatchEvent:
		return Event{"patch", ev}, true
	case core.WarningEvent:
		return Event{"warning", ev}, true
	case core.DoneEvent:
		return Event{"done", ev}, true
	case core.AuditEvent:
		// An audited run's result: the Budget bars and the Audit screen
		// redraw it when the session is reopened.
		return Event{"audit", ev}, true
	case core.ErrorEvent:
		msg := "unknown error"
		if ev.Err != nil {
			msg = ev.Err.Error()
		}
		return Event{"error", failure{msg}}, true
	}
	return Event{}, false
}

// decode returns the core event a stored one holds.
func (e Event) decode(path string) (core.Event, error) {
	zero, ok := eventTypes[e.Type]
	if !ok {
		return nil, fmt.Errorf("%s: unknown event type %q", path, e.Type)
	}
	v := reflect.New(reflect.TypeOf(zero))
	if err := fill(e.Data, v.Elem(), path+".data"); err != nil {
		return nil, err
	}
	switch d := v.Elem().Interface().(type) {
	case embedding:
		// The scatter pairs X[i] with Y[i] and colours by Cluster[i] or
		// Truth[i]: lists of other lengths are not an embedding.
		if len(d.Y) != len(d.X) || (d.Cluster != nil && len(d.Cluster) != len(d.X)) || (d.Truth != nil && len(d.Truth) != len(d.X)) {
			return nil, fmt.Errorf("%s: embedding lists of different lengths (x %d, y %d, cluster %d, truth %d)", path, len(d.X), len(d.Y), len(d.Cluster), len(d.Truth))
		}
		return core.EmbeddingEvent{Step: d.Step, X: d.X, Y: d.Y, Cluster: d.Cluster, Truth: d.Truth}, nil
	case failure:
		return core.ErrorEvent{Err: errors.New(d.Error)}, nil
	case core.Event:
		return d, nil
	}
	return nil, fmt.Errorf("%s: event type %q holds no event", path, e.Type)
}
