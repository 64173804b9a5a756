package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
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

// variantSeed is the seed the variant tests plan and fit with.
const variantSeed = 7

// variant is an option set under test beside the default it must plan
// like: the same options without one key (TestAvg, TestStartMerge).
type variant struct {
	t       *testing.T
	d       *datasets.Dataset
	eps     float64
	opts    map[string]string // the variant's options
	defVals map[string]string // opts without the key: the default compared
	o, def  Options
	src     *dppca.Source
}

// newVariant parses opts and opts without key on d at eps, and builds the
// variant's source.
func newVariant(t *testing.T, d *datasets.Dataset, opts map[string]string, key string, eps float64) *variant {
	t.Helper()
	v := &variant{t: t, d: d, eps: eps, opts: opts, defVals: map[string]string{}}
	for k, val := range opts {
		if k != key {
			v.defVals[k] = val
		}
	}
	v.o, v.def = mustParse(t, opts), mustParse(t, v.defVals)
	var err error
	if v.src, err = dppca.NewSourceTarget(d, 0, v.o.fixedTarget()); err != nil {
		t.Fatal(err)
	}
	return v
}

// plan returns o's plan at the variant's ε from variantSeed, and the
// generator a Fit goes on with.
func (v *variant) plan(o Options) (Plan, *rand.Rand) {
	v.t.Helper()
	rng := rand.New(rand.NewPCG(variantSeed, 0))
	pl, err := NewPlan(v.src, true, v.eps, 1e-5, o, rng)
	if err != nil {
		v.t.Fatal(err)
	}
	return pl, rng
}

// samePlan plans the variant and its default, fails unless they are the
// same plan, and returns the variant's plan and its generator.
func (v *variant) samePlan() (Plan, *rand.Rand) {
	v.t.Helper()
	pl, rng := v.plan(v.o)
	if dpl, _ := v.plan(v.def); !reflect.DeepEqual(pl, dpl) {
		v.t.Fatalf("%v ε %g: the plan differs from the default's:\n%+v\n%+v", v.opts, v.eps, pl, dpl)
	}
	return pl, rng
}

// heldRelease replays a start planned with o through dppca's held release
// on a k-centre source, with o's dppca options changed by edit, and
// returns its released centres.
func (v *variant) heldRelease(o Options, pl Plan, k int, edit func(*dppca.Options)) []float64 {
	v.t.Helper()
	_, rng := v.plan(o)
	do, err := o.dppcaOptions()
	if err != nil {
		v.t.Fatal(err)
	}
	edit(&do)
	ksrc, err := dppca.NewSourceTarget(v.d, k, pl.Target)
	if err != nil {
		v.t.Fatal(err)
	}
	st, err := dppca.ReleaseHeldFirst(context.Background(), ksrc, pl.DPPCA, do, minCountSigmas, rng)
	if err != nil {
		v.t.Fatal(err)
	}
	return st.Centres
}

// checkLedger runs the variant and its default through the engine and
// checks the variant's ledger holds exactly the default's mechanisms,
// composing to at most the target and within 1 % of it (the staged
// split's unused sliver of the count's share is not spent, as in the
// default's runs). It returns the variant's engine.
func (v *variant) checkLedger() *Engine {
	v.t.Helper()
	e, _ := runTest(v.t, v.d, fixture.SoundConfig(v.eps, variantSeed, v.opts))
	ed, _ := runTest(v.t, v.d, fixture.SoundConfig(v.eps, variantSeed, v.defVals))
	mu, eps := ledgerBudget(v.t, e)
	muDef, _ := ledgerBudget(v.t, ed)
	if math.Abs(mu-muDef) > 1e-12*muDef || len(e.Ledger().All()) != len(ed.Ledger().All()) {
		v.t.Errorf("%v ε %g: ledger μ %.15g in %d events, the default's %.15g in %d", v.opts, v.eps, mu, len(e.Ledger().All()), muDef, len(ed.Ledger().All()))
	}
	if eps > v.eps || eps < 0.99*v.eps {
		v.t.Errorf("%v: the ledger composes to ε %.9g, want at most the target %g and within 1 %%", v.opts, eps, v.eps)
	}
	return e
}

// diagDatasets reads a label-free diagnosis's data from its environment
// value: "data:PATH", one data set on disk, or else development draws as
// drawSources names them.
func diagDatasets(t *testing.T, env string) []*datasets.Dataset {
	t.Helper()
	if path, ok := strings.CutPrefix(env, "data:"); ok {
		d, err := datasets.Open(path, datasets.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return []*datasets.Dataset{d}
	}
	ds, _ := drawSources(t, env)
	return ds
}

// checkSameReleases checks that option values cand, which only
// post-process released values, leave a run's plan (every σ) and its
// ledger (event for event) as the default's, composing to at most the
// target within 1 %, on four separated populations at ε 4 and 8. around,
// when not nil, wraps the candidate's run (run) to observe it.
func checkSameReleases(t *testing.T, cand map[string]string, around func(eps float64, run func())) {
	t.Helper()
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{4, 8} {
		pa, err := NewPlan(src, true, eps, 1e-5, mustParse(t, cand), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		pd, err := NewPlan(src, true, eps, 1e-5, mustParse(t, nil), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pa, pd) {
			t.Errorf("ε %g: %v's plan\n%+v\nwant the default's\n%+v", eps, cand, pa, pd)
		}
		var ea *Engine
		run := func() { ea, _ = runTest(t, d, fixture.SoundConfig(eps, variantSeed, cand)) }
		if around != nil {
			around(eps, run)
		} else {
			run()
		}
		ed, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, nil))
		if !reflect.DeepEqual(ea.Ledger().All(), ed.Ledger().All()) || !slices.Equal(ea.Ledger().Components(), ed.Ledger().Components()) {
			t.Errorf("ε %g: %v's ledger %v\nwant the default's %v", eps, cand, ea.Ledger().Components(), ed.Ledger().Components())
		}
		if _, got := ledgerBudget(t, ea); got > eps || got < 0.99*eps {
			t.Errorf("ε %g: the ledger composes to ε %.9g, want at most the target and within 1 %%", eps, got)
		}
	}
}
