package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// separated returns a count data set of k well-separated populations of
// perClass cells over genes genes: every gene is Poisson(2), and population
// c's 40 marker genes are Poisson(30) instead.
func separated(k, perClass, genes int, seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := k * perClass
	x := &datasets.CSR{Rows: n, Cols: genes, Indptr: make([]int64, 1, n+1)}
	d := &datasets.Dataset{Name: "separated", Source: "test", X: x, ValueType: datasets.Counts}
	for c := range k {
		d.Classes = append(d.Classes, "type "+strconv.Itoa(c))
	}
	for i := range n {
		c := i / perClass
		for g := range genes {
			lambda := 2.0
			if g >= c*40 && g < c*40+40 {
				lambda = 30
			}
			if v := poisson(lambda, rng); v > 0 {
				x.Indices = append(x.Indices, int32(g))
				x.Data = append(x.Data, float32(v))
			}
		}
		x.Indptr = append(x.Indptr, int64(len(x.Data)))
		d.Labels = append(d.Labels, c)
		d.Barcodes = append(d.Barcodes, "cell_"+strconv.Itoa(i))
	}
	for g := range genes {
		d.GeneIDs = append(d.GeneIDs, "gene_"+strconv.Itoa(g))
	}
	d.GeneNames = d.GeneIDs
	return d
}

// poisson draws from Poisson(λ) by Knuth's product of uniforms (λ ≤ 30).
func poisson(lambda float64, rng *rand.Rand) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// testMethod is registered with a factory that keeps the engine and loads
// testHooks.data instead of cfg.Data.
const testMethod = "dcan-sound-test"

var testHooks struct {
	sync.Mutex
	data   *datasets.Dataset
	engine *Engine
}

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyDPSGD, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate}, Options: optionSpecs, New: func(cfg core.Config) (core.Engine, error) {
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
	var evs []core.Event
	for ev := range r.Events() {
		evs = append(evs, ev)
		if er, ok := ev.(core.ErrorEvent); ok {
			t.Fatalf("run failed: %v", er.Err)
		}
	}
	r.Wait()
	return e, evs
}

// soundConfig is a sound-mode configuration at ε with seed.
func soundConfig(eps float64, seed uint64, opts map[string]string) core.Config {
	return core.Config{Data: "test", Mode: core.ModeSound, Epsilon: eps, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: seed, Options: opts}
}

// lastOf returns the last event of type T in evs.
func lastOf[T core.Event](evs []core.Event) (T, bool) {
	var out T
	found := false
	for _, ev := range evs {
		if v, ok := ev.(T); ok {
			out, found = v, true
		}
	}
	return out, found
}

func mustParse(t testing.TB, vals map[string]string) Options {
	t.Helper()
	o, err := Parse(vals)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
