package sweep

import (
	"context"
	"errors"
	"maps"
	"math"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/core"
)

func base() core.Config {
	return core.Config{Data: "builtin:default", Delta: 1e-5, Clip: 1, SampleRate: 0.1, Layers: core.LayerRange{First: 1, Last: 6}}
}

// TestPoints: nonprivate runs once per seed and option value, every name
// is unique, and a bad base config fails before any run.
func TestPoints(t *testing.T) {
	g := Grid{Base: base(), Methods: []string{"a", "b"}, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate},
		Epsilons: []float64{1, 2, 4}, Seeds: []uint64{0, 1}, Options: map[string][]string{"p": {"5", "10"}, "x/y": {"z"}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	// per method: sound 2 opts × 3 ε × 2 seeds + nonprivate 2 opts × 2 seeds
	if want := 2 * (12 + 4); len(pts) != want {
		t.Fatalf("%d points, want %d", len(pts), want)
	}
	names := map[string]bool{}
	for _, p := range pts {
		if names[p.Name] {
			t.Errorf("name %s twice", p.Name)
		}
		names[p.Name] = true
		if p.Config.Mode == core.ModeNonPrivate && p.Config.Epsilon != 0 {
			t.Errorf("%s: nonprivate with ε %v", p.Name, p.Config.Epsilon)
		}
		if p.Config.Options["x/y"] != "z" {
			t.Errorf("%s: options %v", p.Name, p.Config.Options)
		}
	}
	if !names["a_sound_eps2_p=10_x-y=z_seed1"] {
		t.Errorf("names: %v", names)
	}
	bad := g
	bad.Base.Delta = 2
	if _, err := bad.Points(); !errors.Is(err, core.ErrBadConfig) {
		t.Errorf("δ = 2: err = %v, want ErrBadConfig", err)
	}
	if g.Hash() == bad.Hash() {
		t.Error("different grids, same hash")
	}
}

func f(v float64) *float64 { return &v }

// TestSummarise: stopped and failed runs are left out; means, sds and the
// privacy cost are those of the finished runs.
func TestSummarise(t *testing.T) {
	g := Grid{Base: base(), Methods: []string{"m"}, Modes: []core.Mode{core.ModeSound, core.ModeNonPrivate},
		Epsilons: []float64{1}, Seeds: []uint64{0, 1, 2}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	outs := []*Outcome{
		{ARI: f(0.2), NMI: f(0.3), Spent: 0.9, Delta: 1e-5, Guarantee: core.GuaranteeFormal},
		{ARI: f(0.4), NMI: f(0.5), Spent: 1.0, Delta: 1e-5, Guarantee: core.GuaranteeFormal},
		{ARI: f(0.9), Stopped: true},
		{ARI: f(0.8), Guarantee: core.GuaranteeNone},
		{Err: errors.New("boom")},
		nil,
	}
	groups, cost := Summarise(pts, outs)
	if len(groups) != 2 {
		t.Fatalf("%d groups", len(groups))
	}
	s := groups[0]
	if s.N != 2 || math.Abs(*s.ARIMean-0.3) > 1e-12 || math.Abs(*s.ARISD-math.Sqrt(0.02)) > 1e-12 || s.SpentMax != 1.0 {
		t.Errorf("sound group %+v", s)
	}
	if np := groups[1]; np.N != 1 || *np.ARIMean != 0.8 || *np.ARISD != 0 || np.NMIMean != nil {
		t.Errorf("nonprivate group %+v", np)
	}
	// Each finished run's ARI under its own seed; the stopped seed 2 is out.
	if got := s.SeedARI(); !maps.Equal(got, map[uint64]float64{0: 0.2, 1: 0.4}) {
		t.Errorf("sound group's ARI by seed %v, want seeds 0 and 1", got)
	}
	if got := groups[1].SeedARI(); !maps.Equal(got, map[uint64]float64{0: 0.8}) {
		t.Errorf("nonprivate group's ARI by seed %v", got)
	}
	if cost.PrivateRuns != 2 || math.Abs(cost.EpsilonTotal-1.9) > 1e-12 || cost.DeltaTotal != 2e-5 {
		t.Errorf("cost %+v", cost)
	}
}

// quick is an engine that reports a fixed ARI after one checkpoint.
type quick struct{}

func (quick) Run(ctx context.Context, ctl *core.Control) error {
	if _, err := ctl.Checkpoint(ctx); err != nil {
		return err
	}
	ctl.Emit(core.MetricsEvent{Values: []core.NamedValue{{Name: "ARI", Value: 0.5}}})
	return nil
}

func init() {
	core.Register(core.Method{Name: "sweep-test-quick", Family: core.FamilyDPSGD, New: func(core.Config) (core.Engine, error) { return quick{}, nil }})
}

// TestExecute runs every listed point once, serialises done, and starts
// nothing after cancellation.
func TestExecute(t *testing.T) {
	g := Grid{Base: base(), Methods: []string{"sweep-test-quick"}, Modes: []core.Mode{core.ModeNonPrivate}, Seeds: []uint64{0, 1, 2, 3, 4}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	Execute(context.Background(), pts, []int{0, 2, 4}, 2, nil, func(i int, o Outcome) {
		seen[i]++ // done calls are serialised: no lock needed
		if o.ARI == nil || *o.ARI != 0.5 || o.Err != nil {
			t.Errorf("run %d: %+v", i, o)
		}
	})
	if len(seen) != 3 || seen[0] != 1 || seen[2] != 1 || seen[4] != 1 {
		t.Errorf("runs done: %v", seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	Execute(ctx, pts, []int{0, 1, 2, 3, 4}, 1, nil, func(int, Outcome) { n++ })
	if n != 0 {
		t.Errorf("%d runs after cancellation", n)
	}
}

// TestOutcomeSpent: the tightest accountant's ε is the run's cost; a run
// without a valid guarantee, or with ε = ∞, has no bound.
func TestOutcomeSpent(t *testing.T) {
	var o Outcome
	o.Observe(core.BudgetEvent{Delta: 1e-5, Spent: []core.EpsilonValue{{Accountant: "GDP", Epsilon: 8}, {Accountant: "RDP", Epsilon: 8.6}}})
	o.Observe(core.GuaranteeEvent{Status: core.GuaranteeFormal})
	if o.Spent != 8 || o.Unbounded {
		t.Errorf("formal: spent %v unbounded %v, want 8, false", o.Spent, o.Unbounded)
	}
	o.Observe(core.BudgetEvent{Delta: 1e-5, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 7.9}}})
	if o.Spent != 7.9 {
		t.Errorf("newest RDP 7.9 below GDP 8: spent %v", o.Spent)
	}
	o.Observe(core.GuaranteeEvent{Status: core.GuaranteePaperOnly})
	o.note(nil)
	if !o.Unbounded {
		t.Error("paper-only guarantee: bounded")
	}
	var inf Outcome
	inf.Observe(core.GuaranteeEvent{Status: core.GuaranteeFormal, Audited: []core.EpsilonValue{{Accountant: "RDP", Epsilon: math.Inf(1)}}})
	if !inf.Unbounded || inf.Spent != 0 {
		t.Errorf("ε = ∞: %+v", inf)
	}
}

// TestExecuteWithStartsThroughStartRun: every run goes through the given
// start function (a server's queue), and a refusal becomes that point's
// error, not a run by core.Start behind the queue's back.
func TestExecuteWithStartsThroughStartRun(t *testing.T) {
	g := Grid{Base: base(), Methods: []string{"sweep-test-quick"}, Modes: []core.Mode{core.ModeNonPrivate}, Seeds: []uint64{0, 1, 2}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var started []uint64
	refused := errors.New("queue full")
	startRun := func(ctx context.Context, cfg core.Config) (*core.Run, error) {
		mu.Lock()
		started = append(started, cfg.Seed)
		mu.Unlock()
		if cfg.Seed == 1 {
			return nil, refused
		}
		return core.Start(ctx, cfg)
	}
	got := map[int]Outcome{}
	ExecuteWith(context.Background(), startRun, pts, []int{0, 1, 2}, 2, nil, func(i int, o Outcome) { got[i] = o })
	if len(started) != 3 {
		t.Errorf("start function called for seeds %v, want all 3 runs", started)
	}
	for i, o := range got {
		refusedHere := pts[i].Config.Seed == 1
		switch {
		case refusedHere && !errors.Is(o.Err, refused):
			t.Errorf("run %d (seed 1): err %v, want the refusal", i, o.Err)
		case !refusedHere && (o.Err != nil || o.ARI == nil || *o.ARI != 0.5):
			t.Errorf("run %d: %+v, want a finished run", i, o)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d outcomes, want 3", len(got))
	}
}
