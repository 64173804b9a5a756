package sounddcan

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// testMethod is registered with a factory that keeps the engine and loads
// testHooks.data instead of cfg.Data.
const testMethod = "dcan-sound-test"

var testHooks struct {
	sync.Mutex
	data   *datasets.Dataset
	engine *Engine
}

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyDPSGD, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate}, Options: optionSpecs, Audit: auditDoc, InputAudit: inputAuditDoc, New: func(cfg core.Config) (core.Engine, error) {
		e, err := New(cfg)
		if err != nil {
			return nil, err
		}
		testHooks.Lock()
		defer testHooks.Unlock()
		d := testHooks.data
		e.load = func() (*datasets.Dataset, error) { return d, nil }
		testHooks.engine = e
		return e, nil
	}})
}

// runTest runs the test method on d and returns its engine and every
// event; it fails on an error event.
func runTest(t *testing.T, d *datasets.Dataset, cfg core.Config) (*Engine, []core.Event) {
	t.Helper()
	cfg.Method = testMethod
	testHooks.Lock()
	testHooks.data = d
	testHooks.Unlock()
	r, err := core.StartWith(context.Background(), cfg, core.Options{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	testHooks.Lock()
	e := testHooks.engine
	testHooks.Unlock()
	return e, fixture.Events(t, r)
}

func mustParse(t testing.TB, vals map[string]string) Options {
	t.Helper()
	o, err := Parse(vals)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// envOptions parses the options in the environment variable key
// (key=value;…, e.g. gate=off), the defaults when it is unset.
func envOptions(t *testing.T, key string) Options {
	vals := map[string]string{}
	if e := os.Getenv(key); e != "" {
		for _, kv := range strings.Split(e, ";") {
			k, v, _ := strings.Cut(kv, "=")
			vals[k] = v
		}
	}
	o, err := Parse(vals)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return o
}

// ledgerBudget composes the engine's whole ledger exactly in GDP and
// returns its μ and the ε it certifies at δ = 1e-5, the figures the
// ledger tests compare with their targets.
func ledgerBudget(t *testing.T, e *Engine) (mu, eps float64) {
	t.Helper()
	mu, err := accountant.GDPMu(e.Ledger().All())
	if err != nil {
		t.Fatal(err)
	}
	if eps, err = accountant.GDPEpsilon(mu, 1e-5); err != nil {
		t.Fatal(err)
	}
	return mu, eps
}
