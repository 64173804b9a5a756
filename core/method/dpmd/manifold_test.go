package dpmd

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

func sample(t testing.TB, kind datasets.ManifoldKind, D, n int, sigma float64, seed uint64) (*datasets.Manifold, *datasets.ManifoldSample) {
	t.Helper()
	m, err := datasets.NewManifold(datasets.ManifoldConfig{Kind: kind, D: D, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Sample(datasets.SampleConfig{N: n, Scale: sigma, Seed: seed + 1})
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestLocalPCARecoversTangent: on noiseless points the local PCA basis at x
// must span the true tangent: orthogonal to the normal x, inside the
// embedding subspace. The neighbourhood of a circle or sphere point is
// symmetric about it, so only sampling tilts the basis.
func TestLocalPCARecoversTangent(t *testing.T) {
	for _, tc := range []struct {
		desc string
		kind datasets.ManifoldKind
		D    int
		h    float64
	}{
		{"circle R2", datasets.Circle, 0, 0.3},
		{"sphere R3", datasets.Sphere, 0, 0.7},
		{"sphere R20 (subspace iteration)", datasets.Sphere, 20, 0.7},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m, s := sample(t, tc.kind, tc.D, 2000, 0, 3)
			d := m.Dim()
			tg, err := LocalPCA(context.Background(), s.Clean, s.N, s.D, tc.h, d)
			if err != nil {
				t.Fatal(err)
			}
			q := m.Embedding()
			D := s.D
			worst, rms := 0.0, 0.0
			for i := range s.N {
				x := s.Clean[i*D : (i+1)*D]
				// The normal of the circle/sphere at x is x itself (embedded);
				// the tangent plane is orthogonal to x within the embedding.
				V := tg.Basis(i)
				for l := range d {
					var dotN, inEmb float64
					for c := range D {
						dotN += V[c*d+l] * x[c]
					}
					if q != nil {
						nat := len(q) / D
						for a := range nat {
							var pc float64
							for c := range D {
								pc += q[c*nat+a] * V[c*d+l]
							}
							inEmb += pc * pc
						}
					} else {
						inEmb = 1
					}
					worst = max(worst, math.Abs(1-inEmb))
					rms += dotN * dotN / float64(s.N*d)
				}
			}
			// Sampling tilts a cap's principal plane by about
			// cov(u, z)/(λ_t − λ_n) ≈ 0.02 rad with ~250 neighbours.
			if rms = math.Sqrt(rms); rms > 0.03 {
				t.Errorf("rms normal component of the tangent vectors = %.3g, want ≤ 0.03", rms)
			}
			if worst > 1e-9 {
				t.Errorf("largest component outside the embedding = %.3g, want 0 (noiseless data)", worst)
			}
		})
	}
}

func TestNonPrivateDenoisingReducesDistance(t *testing.T) {
	for _, tc := range []struct {
		desc string
		kind datasets.ManifoldKind
		D    int
	}{
		{"circle", datasets.Circle, 0},
		{"sphere R10", datasets.Sphere, 10},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for _, kind := range []StepKind{StepPx, StepEigProj} {
				e := runEngine(t, core.ModeNonPrivate, "manifold:"+tc.kind.String()+"?n=1500&queries=60&sigma=0.1&D="+itoa(tc.D)+"&nonprivate="+string(map[StepKind]NonPrivateVariant{StepPx: NonPrivatePx, StepEigProj: NonPrivateEigProj}[kind]), 1)
				tr := e.Outcome().Tracks
				before, after := tr[0].MeanDist, tr[1].MeanDist
				// The peer (DPMD_RESULTS.md §3) cuts the distance 3–6× on the
				// circle and sphere; ask for at least 2×.
				if !(after < before/2) {
					t.Errorf("%v: mean distance to M %.4g → %.4g, want at most half", kind, before, after)
				}
			}
		})
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	return string(rune('0'+v/10)) + string(rune('0'+v%10))
}

const testMethod = "dpmd-test"

var lastEngine struct {
	sync.Mutex
	e *Engine
}

func init() {
	core.Register(core.Method{Name: testMethod, Family: core.FamilyDenoising, Options: optionSpecs, New: func(cfg core.Config) (core.Engine, error) {
		e, err := New(cfg, Params{})
		lastEngine.Lock()
		lastEngine.e = e
		lastEngine.Unlock()
		return e, err
	}})
}

// runEngine runs the method through core.Start and returns the engine and
// the events it emitted.
func runEngine(t *testing.T, mode core.Mode, data string, seed uint64) *Engine {
	t.Helper()
	e, _ := runEvents(t, context.Background(), mode, data, seed, nil)
	return e
}

func runEvents(t *testing.T, ctx context.Context, mode core.Mode, data string, seed uint64, onStart func(*core.Run)) (*Engine, []core.Event) {
	t.Helper()
	cfg := core.Config{Data: data, Method: testMethod, Mode: mode, Epsilon: 1, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: seed}
	if mode == core.ModeNonPrivate {
		cfg.Epsilon = 0
	}
	run, err := core.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lastEngine.Lock()
	e := lastEngine.e
	lastEngine.Unlock()
	if onStart != nil {
		onStart(run)
	}
	var evs []core.Event
	for ev := range run.Events() {
		evs = append(evs, ev)
		if er, ok := ev.(core.ErrorEvent); ok && ctx.Err() == nil {
			t.Fatalf("run failed: %v", er.Err)
		}
	}
	return e, evs
}

// TestDataSetRunReportsItsMetrics runs dpmd on the embedded data set and
// checks that the final metrics carry the mode's own track under the plain
// names (the summary's ari/nmi/acc) and that clustering the 90 queries
// before denoising does better than chance (ARI 0.18 at seed 1).
func TestDataSetRunReportsItsMetrics(t *testing.T) {
	e, evs := runEvents(t, context.Background(), core.ModeNonPrivate, "builtin:default", 1, nil)
	var last core.MetricsEvent
	for _, ev := range evs {
		if m, ok := ev.(core.MetricsEvent); ok {
			last = m
		}
	}
	got := map[string]float64{}
	for _, v := range last.Values {
		got[v.Name] = v.Value
	}
	tracks := e.Outcome().Tracks
	own := tracks[len(tracks)-1].Name
	for _, name := range []string{"ARI", "NMI", "ACC"} {
		v, ok := got[name]
		if !ok || v != got[own+": "+name] {
			t.Errorf("%s = %v (present %v), want the %q track's %v", name, v, ok, own, got[own+": "+name])
		}
	}
	if ari := got["before: ARI"]; !(ari > 0.05 && ari <= 1) {
		t.Errorf("ARI of the queries before denoising = %v, want in (0.05, 1]", ari)
	}
}
