package dppca

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// testMethod is registered with a factory that keeps the engine and loads
// the data set given by testData instead of cfg.Data.
const testMethod = "dppca-test"

var testHooks struct {
	sync.Mutex
	data    *datasets.Dataset
	engine  *Engine
	onStage func(rel, stage int)
}

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyClustering, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate}, Options: optionSpecs, Audit: auditDoc, InputAudit: inputAuditDoc, New: func(cfg core.Config) (core.Engine, error) {
		e, err := New(cfg)
		if err != nil {
			return nil, err
		}
		testHooks.Lock()
		defer testHooks.Unlock()
		d := testHooks.data
		e.load = func() (*datasets.Dataset, error) { return d, nil }
		e.onStage = testHooks.onStage
		testHooks.engine = e
		return e, nil
	}})
}

// runTest runs the test method on d and returns its engine and every event.
// onStage, when set, is called before each stage's first checkpoint with
// the run (published once Start returns).
func runTest(t *testing.T, d *datasets.Dataset, cfg core.Config, onStage func(r *core.Run, rel, stage int)) (*Engine, []core.Event) {
	t.Helper()
	cfg.Method = testMethod
	var run atomic.Pointer[core.Run]
	ready := make(chan struct{})
	testHooks.Lock()
	testHooks.data = d
	testHooks.onStage = nil
	if onStage != nil {
		testHooks.onStage = func(rel, stage int) {
			<-ready
			onStage(run.Load(), rel, stage)
		}
	}
	testHooks.Unlock()
	r, err := core.StartWith(context.Background(), cfg, core.Options{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	run.Store(r)
	close(ready)
	testHooks.Lock()
	e := testHooks.engine
	testHooks.Unlock()
	return e, fixture.Events(t, r)
}

// background is a context for tests.
var background = context.Background()
