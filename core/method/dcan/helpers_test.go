package dcan

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// queued hands each test its own trainer through one registration.
var queued = make(chan *Trainer, 1)

const testMethod = "dcan-test"

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyDPSGD, Options: optionSpecs, Audit: auditDoc, InputAudit: inputAuditDoc, New: func(cfg core.Config) (core.Engine, error) {
		select {
		case t := <-queued:
			return t, nil
		default:
			return nil, errors.New("no trainer queued")
		}
	}})
}

// simData returns a small simulated, preprocessed data set: cells × genes,
// groups cell types with 20% DE genes. It is cached per shape.
func simData(t testing.TB, cells, genes, groups int) *datasets.Preprocessed {
	return simDataDE(t, cells, genes, groups, 0.2)
}

// simDataDE is simData with a fraction de of DE genes per type.
func simDataDE(t testing.TB, cells, genes, groups int, de float64) *datasets.Preprocessed {
	t.Helper()
	key := simKey{cells, genes, groups, de}
	simMu.Lock()
	defer simMu.Unlock()
	if d, ok := simCache[key]; ok {
		return d
	}
	sc := datasets.DefaultSimConfig(cells, genes, groups)
	for i := range sc.Groups {
		sc.Groups[i].DEProb = de
	}
	d := fixture.Simulated(t, sc)
	simCache[key] = d
	return d
}

var (
	simMu    sync.Mutex
	simCache = map[simKey]*datasets.Preprocessed{}
)

type simKey struct {
	cells, genes, groups int
	de                   float64
}

// baseConfig is a private test configuration.
func baseConfig(mode core.Mode) core.Config {
	return core.Config{Data: "test:sim", Method: testMethod, Mode: mode, Epsilon: 8, Delta: 1e-5, Clip: 0.1,
		SampleRate: 0.1, Epochs: []int{2, 2}, Seed: 1}
}

// start builds a trainer for cfg and opt and starts it under core.Start.
func start(t testing.TB, ctx context.Context, cfg core.Config, opt Options) (*core.Run, *Trainer) {
	t.Helper()
	tr, err := New(cfg, opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	queued <- tr
	r, err := core.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return r, tr
}

// collect drains a run's events.
func collect(r *core.Run) []core.Event {
	var evs []core.Event
	for ev := range r.Events() {
		evs = append(evs, ev)
	}
	return evs
}

// lastErr returns the error of a final ErrorEvent, or nil.
func lastErr(evs []core.Event) error {
	if len(evs) == 0 {
		return errors.New("no events")
	}
	if e, ok := evs[len(evs)-1].(core.ErrorEvent); ok {
		return e.Err
	}
	return nil
}

// metrics returns the metric values of every MetricsEvent by name.
func metrics(evs []core.Event, name string) []float64 {
	var out []float64
	for _, ev := range evs {
		if m, ok := ev.(core.MetricsEvent); ok {
			for _, v := range m.Values {
				if v.Name == name {
					out = append(out, v.Value)
				}
			}
		}
	}
	return out
}

func nan() float64 { var z float64; return z / z }
