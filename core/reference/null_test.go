package reference

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// nullCalls counts runs of the fake null, to see the cache work.
var nullCalls int

// seeded reports ARI = seed/100 and NMI = ARI + 0.1.
type seeded struct{ seed uint64 }

func (s seeded) Run(ctx context.Context, ctl *core.Control) error {
	if _, err := ctl.Checkpoint(ctx); err != nil {
		return err
	}
	nullCalls++
	a := float64(s.seed) / 100
	ctl.Emit(core.MetricsEvent{Values: []core.NamedValue{{Name: "ARI", Value: a}, {Name: "NMI", Value: a + 0.1}}})
	return nil
}

var nullMethod = core.Method{
	Name: "reference-test-null", Family: core.FamilyDPSGD,
	New: func(cfg core.Config) (core.Engine, error) { return seeded{cfg.Seed}, nil },
	Null: func(cfg core.Config) core.Config {
		cfg.Mode, cfg.Epsilon = core.ModeNonPrivate, 0
		return cfg
	},
}

func init() { core.Register(nullMethod) }

func TestNull(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 0.1, Seed: 9}
	c := Cache{Dir: t.TempDir()}
	nullCalls = 0
	l, err := c.Null(context.Background(), nullMethod, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Seeds 0–4: ARI 0, 0.01, …, 0.04; mean 0.02, sd 0.0158.
	if math.Abs(l.ARI-0.02) > 1e-12 || math.Abs(l.ARISD-math.Sqrt(0.00025)) > 1e-12 || math.Abs(l.NMI-0.12) > 1e-12 || l.Seeds != 5 {
		t.Errorf("null %+v", l)
	}
	if _, err := c.Null(context.Background(), nullMethod, cfg); err != nil || nullCalls != 5 {
		t.Errorf("second call ran %d null runs in all (err %v), want the 5 of the first", nullCalls, err)
	}
	other := cfg
	other.Data = "builtin:large"
	if _, err := c.Null(context.Background(), nullMethod, other); err != nil || nullCalls != 10 {
		t.Errorf("other data: %d null runs in all (err %v), want 10", nullCalls, err)
	}
	if _, err := c.Null(context.Background(), core.Method{Name: "x"}, cfg); err != ErrNoNull {
		t.Errorf("no Null: err %v, want ErrNoNull", err)
	}
}

// TestNullKeyedByBuild: a null cached by one build is not read back by
// another (it depends on the method's code, and `go run` stamps no VCS
// revision), and without a build id nothing is cached.
func TestNullKeyedByBuild(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 0.1}
	c := Cache{Dir: t.TempDir()}
	defer func(old func() string) { buildID = old }(buildID)
	nullCalls = 0
	for i, b := range []string{"build-a", "build-a", "build-b", "", ""} {
		buildID = func() string { return b }
		if _, err := c.Null(context.Background(), nullMethod, cfg); err != nil {
			t.Fatal(err)
		}
		if want := []int{5, 5, 10, 15, 20}[i]; nullCalls != want {
			t.Errorf("call %d (build %q): %d null runs in all, want %d", i+1, b, nullCalls, want)
		}
	}
}

func TestNoBetter(t *testing.T) {
	null := Line{ARI: 0.002, ARISD: 0.002, Seeds: 5}
	for _, tc := range []struct {
		mean, sd float64
		n        int
		want     bool
	}{
		{0.007, 0, 1, true},    // 0.005 above: below the 0.02 floor
		{0.5, 0, 1, false},     // clearly learnt
		{0.10, 0.20, 5, true},  // 0.098 above, but 2 se = 0.179
		{0.10, 0.01, 5, false}, // 0.098 above, 2 se = 0.0092
		{0.0, 0.0, 0, false},   // nothing to judge
	} {
		if got := NoBetter(tc.mean, tc.sd, tc.n, null); got != tc.want {
			t.Errorf("NoBetter(%v, %v, %d) = %v, want %v", tc.mean, tc.sd, tc.n, got, tc.want)
		}
	}
}

// TestNullStartsThroughCacheStart: a Cache with Start starts every null
// run through it (a server's queue), and a refusal is Null's error.
func TestNullStartsThroughCacheStart(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 0.1}
	var seeds []uint64
	c := Cache{Dir: t.TempDir(), Start: func(ctx context.Context, rc core.Config) (*core.Run, error) {
		seeds = append(seeds, rc.Seed)
		return core.Start(ctx, rc)
	}}
	if _, err := c.Null(context.Background(), nullMethod, cfg); err != nil {
		t.Fatal(err)
	}
	if len(seeds) != B1Seeds || seeds[0] != 0 || seeds[B1Seeds-1] != B1Seeds-1 {
		t.Errorf("Start saw seeds %v, want 0 … %d", seeds, B1Seeds-1)
	}
	refused := errors.New("queue full")
	c = Cache{Start: func(context.Context, core.Config) (*core.Run, error) { return nil, refused }}
	if _, err := c.Null(context.Background(), nullMethod, cfg); !errors.Is(err, refused) {
		t.Errorf("refused start: err %v, want the refusal", err)
	}
}

// baselineMethod stands for dppca: a sound-mode baseline reporting ARI =
// seed/100 + 0.5.
var baselineMethod = core.Method{
	Name: "reference-test-baseline", Family: core.FamilyDPSGD, Baseline: true,
	Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate},
	New: func(cfg core.Config) (core.Engine, error) {
		if cfg.Mode != core.ModeSound || cfg.Epsilon != 4 || cfg.Options != nil {
			return nil, errors.New("the baseline runs in sound mode at the run's ε with its own defaults")
		}
		return seeded{cfg.Seed + 50}, nil
	},
}

func init() { core.Register(baselineMethod) }

func TestBaseline(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1, SampleRate: 0.1, Seed: 9, Options: map[string]string{"steps": "3"}}
	bc, ok := BaselineConfig(baselineMethod, cfg)
	if !ok || bc.Method != baselineMethod.Name || bc.Options != nil || bc.Epsilon != 4 || bc.Delta != 1e-5 || bc.Data != cfg.Data {
		t.Fatalf("BaselineConfig = %+v, %v", bc, ok)
	}
	c := Cache{Dir: t.TempDir()}
	nullCalls = 0
	l, err := c.Baseline(context.Background(), baselineMethod, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Seeds 0–4 as seeds 50–54: ARI 0.50 … 0.54, mean 0.52.
	if math.Abs(l.ARI-0.52) > 1e-12 || math.Abs(l.NMI-0.62) > 1e-12 || l.Seeds != 5 || nullCalls != 5 {
		t.Errorf("baseline %+v after %d runs", l, nullCalls)
	}
	if _, err := c.Baseline(context.Background(), baselineMethod, cfg); err != nil || nullCalls != 5 {
		t.Errorf("second call: %d runs in all (err %v), want the 5 of the first", nullCalls, err)
	}
	for name, bad := range map[string]func(*core.Config){
		"nonprivate":   func(c *core.Config) { c.Mode = core.ModeNonPrivate },
		"paper":        func(c *core.Config) { c.Mode = core.ModePaper },
		"σ, no target": func(c *core.Config) { c.Epsilon, c.Sigma = 0, 1 },
		"the baseline": func(c *core.Config) { c.Method = baselineMethod.Name },
	} {
		c2 := cfg
		bad(&c2)
		if _, err := c.Baseline(context.Background(), baselineMethod, c2); !errors.Is(err, ErrNoBaseline) {
			t.Errorf("%s: err %v, want ErrNoBaseline", name, err)
		}
	}
}

// fedMethod is a federated method: one client's data is its unit unless a
// run asks for unit=record.
var fedMethod = core.Method{
	Name: "reference-test-fed", Family: core.FamilyFederated, Modes: []core.Mode{core.ModeSound},
	New: func(cfg core.Config) (core.Engine, error) { return seeded{cfg.Seed}, nil },
}

func init() { core.Register(fedMethod) }

// TestBaselineOf: a sound run at a target ε is drawn against the baseline
// at its ε when both count one cell; the baseline's own runs, non-private
// runs, runs given σ and client-level federated runs get none.
func TestBaselineOf(t *testing.T) {
	sound := core.Config{Data: "builtin:default", Method: nullMethod.Name, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5}
	for _, tc := range []struct {
		name string
		edit func(*core.Config)
		want bool
	}{
		{"a sound run", func(*core.Config) {}, true},
		{"no noise", func(c *core.Config) { c.Mode, c.Epsilon = core.ModeNonPrivate, 0 }, false},
		{"σ without a target", func(c *core.Config) { c.Epsilon, c.Sigma = 0, 1.1 }, false},
		{"the baseline itself", func(c *core.Config) { c.Method = baselineMethod.Name }, false},
		{"federated, one client", func(c *core.Config) { c.Method = fedMethod.Name }, false},
		{"federated, one cell", func(c *core.Config) {
			c.Method, c.Options = fedMethod.Name, map[string]string{"unit": "record"}
		}, true},
	} {
		cfg := sound
		tc.edit(&cfg)
		b, ok := BaselineOf(cfg, []core.Method{baselineMethod})
		if ok != tc.want || (ok && b.Name != baselineMethod.Name) {
			t.Errorf("%s: baseline %q, %v; want one: %v", tc.name, b.Name, ok, tc.want)
		}
	}
}
