package fed

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// queued hands each test its own engine through one registration.
var queued = make(chan *Engine, 1)

const testMethod = "fed-test"

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyFederated, Options: allSpecs, New: func(cfg core.Config) (core.Engine, error) {
		select {
		case e := <-queued:
			return e, nil
		default:
			return nil, errors.New("no engine queued")
		}
	}})
}

// simData returns a small simulated, preprocessed data set with
// well-separated cell types, cached per shape.
func simData(t testing.TB, cells, genes, groups int) *datasets.Preprocessed {
	t.Helper()
	key := [3]int{cells, genes, groups}
	simMu.Lock()
	defer simMu.Unlock()
	if d, ok := simCache[key]; ok {
		return d
	}
	sc := datasets.DefaultSimConfig(cells, genes, groups)
	for i := range sc.Groups {
		sc.Groups[i].DEProb = 0.2
	}
	d := fixture.Simulated(t, sc)
	simCache[key] = d
	return d
}

var (
	simMu    sync.Mutex
	simCache = map[[3]int]*datasets.Preprocessed{}
)

// baseConfig is a config for variant v in mode m with small settings.
func baseConfig(v Variant, m core.Mode) core.Config {
	cfg := core.Config{Data: "test", Method: testMethod, Mode: m, SampleRate: 1, Seed: 7,
		Epochs: []int{3}, Clients: 4}
	if m != core.ModeNonPrivate {
		cfg.Delta, cfg.Clip, cfg.Epsilon = 1e-5, 5, 5
		if v != FedSC {
			// the paper's noise (σ·C ≈ 70 per entry, times η) blows the
			// autoencoder up within a few rounds at η = 1e-3
			cfg.LearningRate = 1e-5
		}
	}
	return cfg
}

// smallParams keeps the networks tiny for tests.
func smallParams(d *datasets.Preprocessed) Params {
	return Params{Data: d, Hidden: []int{32}, Latent: 8, Encoder: []int{32, 16, 8}, PredictorHidden: 16, Batch: 16}
}

// patchRound is the round at whose checkpoint runEngine's patches are
// taken: after one full round, so a patch changes a run under way.
const patchRound = 2

// runEngine starts e under cfg and returns every event. With patches, it
// holds the engine before round patchRound's checkpoint (Engine.
// beforeRound) until they are queued, so they take effect at that round
// however the scheduler runs the engine and the test (on one core the
// engine could finish every round before the test read its first event,
// and the patch came too late). It fails the test on an ErrorEvent.
func runEngine(t *testing.T, cfg core.Config, e *Engine, patches ...core.Patch) []core.Event {
	t.Helper()
	at, queuedPatches := make(chan struct{}), make(chan struct{})
	if len(patches) > 0 {
		e.beforeRound = func(r int) {
			if r == patchRound {
				close(at)
				<-queuedPatches
			}
		}
	}
	queued <- e
	run, err := core.StartWith(context.Background(), cfg, core.Options{KeepAll: true})
	if err != nil {
		<-queued
		t.Fatal(err)
	}
	if len(patches) > 0 {
		go func() {
			defer close(queuedPatches)
			select {
			case <-at:
			case <-run.Done(): // ended before that round: the patches are answered as too late
			}
			for _, p := range patches {
				run.Apply(p)
			}
		}()
	}
	var evs []core.Event
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-run.Events():
			if !ok {
				run.Wait()
				return evs
			}
			evs = append(evs, ev)
			if e, isErr := ev.(core.ErrorEvent); isErr {
				t.Errorf("run failed: %v", e.Err)
			}
		case <-timeout:
			run.Stop()
			t.Fatal("run did not finish within 2 minutes")
		}
	}
}

// newEngine builds an engine or fails the test.
func newEngine(t *testing.T, cfg core.Config, v Variant, p Params) *Engine {
	t.Helper()
	e, err := New(cfg, v, p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// lastMetric returns the value of the named metric in the last
// MetricsEvent.
func lastMetric(evs []core.Event, name string) (float64, bool) {
	v, ok := 0.0, false
	for _, ev := range evs {
		if m, isM := ev.(core.MetricsEvent); isM {
			for _, nv := range m.Values {
				if nv.Name == name {
					v, ok = nv.Value, true
				}
			}
		}
	}
	return v, ok
}

// result returns the ResultEvent of a run.
func result(t *testing.T, evs []core.Event) core.ResultEvent {
	t.Helper()
	for _, ev := range evs {
		if r, ok := ev.(core.ResultEvent); ok {
			return r
		}
	}
	t.Fatal("no ResultEvent")
	return core.ResultEvent{}
}

// normalMatrix returns an r×c matrix of N(0, 1) draws from rng.
func normalMatrix(rng *rand.Rand, r, c int) compute.Matrix {
	m := compute.NewMatrix(r, c, nil)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	return m
}
