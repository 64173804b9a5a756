package dpmd

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestLivePatches: h, d, T and θ (with ε) patches are applied between
// iterations and acknowledged with the iteration they took effect at; bad
// values are rejected with a reason and change nothing; the budget still
// ends at the target ε.
func TestLivePatches(t *testing.T) {
	opt := func(kv ...string) core.Patch {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return core.Patch{Options: m}
	}
	bad := []core.Patch{
		opt("h", "-1"), opt("h", "NaN"), opt("d", "0"), opt("d", "3"), opt("T", "0"), opt("theta", "1"),
		opt("sigma", "2"), opt("h", "0.5", "d", "9"), // all or nothing: h must not change either
	}
	eps := 2.0
	good := []core.Patch{opt("T", "4", "theta", "0.3"), opt("h", "0.5", "d", "1"), {Epsilon: &eps}}
	e, evs := runEvents(t, context.Background(), core.ModePaper, "manifold:sphere?D=3&n=800&queries=20&sigma=0.1&T=2", 4, func(r *core.Run) {
		r.Pause()
		for _, p := range append(bad, good...) {
			r.Apply(p)
		}
		r.Resume()
	})
	var applied, rejected, steps int
	var at int
	var last *core.BudgetEvent
	for _, ev := range evs {
		switch v := ev.(type) {
		case core.PatchEvent:
			if v.Applied {
				applied++
				if at != 0 && v.Step != at {
					t.Errorf("patches queued together took effect at iterations %d and %d", at, v.Step)
				}
				at = v.Step
			} else {
				rejected++
				if v.Err == "" {
					t.Errorf("patch %s rejected without a reason", v.Patch)
				}
			}
		case core.StepEvent:
			steps = v.Step // step events coalesce: count by the last one's number
		case core.BudgetEvent:
			last = &v
		}
	}
	if applied != len(good) || rejected != len(bad) {
		t.Errorf("applied %d, rejected %d; want %d and %d", applied, rejected, len(good), len(bad))
	}
	if at < 1 || at > 2 {
		t.Errorf("patches took effect at iteration %d, want 1 or 2", at)
	}
	p, pr := e.Outcome().Params, e.Outcome().Problem
	if steps != 4 || p.T != 4 || p.Theta != 0.3 || pr.H != 0.5 || pr.Dim != 1 {
		t.Errorf("after the patches: %d iterations, T %d, θ %v, h %v, d %d; want 4, 4, 0.3, 0.5, 1", steps, p.T, p.Theta, pr.H, pr.Dim)
	}
	if last == nil || last.Target != 2 || math.Abs(last.Spent[0].Epsilon-2) > 1e-9 {
		t.Errorf("final budget %+v, want the new target ε = 2 spent exactly", last)
	}
	// Nonprivate: geometry and T change, the budget cannot.
	_, evs = runEvents(t, context.Background(), core.ModeNonPrivate, "manifold:circle?n=500&queries=10&sigma=0.1", 1, func(r *core.Run) {
		r.Pause()
		r.Apply(opt("theta", "0.2"))
		r.Apply(opt("h", "0.4"))
		r.Resume()
	})
	applied, rejected = 0, 0
	for _, ev := range evs {
		if v, ok := ev.(core.PatchEvent); ok {
			if v.Applied {
				applied++
			} else {
				rejected++
			}
		}
	}
	if applied != 1 || rejected != 1 {
		t.Errorf("nonprivate: applied %d, rejected %d; want 1 and 1", applied, rejected)
	}
}

// TestBadInputThroughEngine: bad h, d, an empty reference set and NaN
// coordinates reach the user as errors (from New or an ErrorEvent), never
// a panic.
func TestBadInputThroughEngine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	genes := []string{"cell"}
	for g := range 300 {
		genes = append(genes, "gene"+strconv.Itoa(g))
	}
	row := func(name string, bad bool) string {
		f := []string{name}
		for g := range 300 {
			v := strconv.Itoa(1 + (g*7+len(name))%5)
			if bad && g == 3 {
				v = "NaN"
			}
			f = append(f, v)
		}
		return strings.Join(f, ",")
	}
	tiny := strings.Join([]string{strings.Join(genes, ","), row("cell1", false), row("cell2", false)}, "\n") + "\n"
	nan := strings.Join([]string{strings.Join(genes, ","), row("cell1", false), row("cell2", true), row("cell3", false)}, "\n") + "\n"
	for _, tc := range []struct {
		desc, data string
		opts       map[string]string
	}{
		{"h < 0", "manifold:circle?n=200&queries=5", map[string]string{"h": "-0.5"}},
		{"h NaN", "manifold:circle?n=200&queries=5", map[string]string{"h": "NaN"}},
		{"d = D", "manifold:circle?n=200&queries=5", map[string]string{"d": "2"}},
		{"d > D", "manifold:sphere?D=5&n=200&queries=5", map[string]string{"d": "7"}},
		{"d < 1", "manifold:circle?n=200&queries=5", map[string]string{"d": "-1"}},
		{"no references", "manifold:circle?queries=5", map[string]string{"n": "-3"}},
		{"data set too small", write("tiny.csv", tiny), nil},
		{"NaN coordinate in a file", write("nan.csv", nan), nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := core.Config{Data: tc.data, Method: testMethod, Mode: core.ModePaper, Epsilon: 1, Delta: 1e-5, Clip: 1, SampleRate: 1, Seed: 1, Options: tc.opts}
			if _, err := New(cfg, Params{}); err != nil {
				if !errors.Is(err, ErrParams) && !errors.Is(err, core.ErrBadConfig) {
					t.Errorf("New error %v, want ErrParams", err)
				}
				return
			}
			run, err := core.Start(context.Background(), cfg)
			if err != nil {
				return
			}
			var last core.Event
			for ev := range run.Events() {
				last = ev
			}
			er, ok := last.(core.ErrorEvent)
			if !ok || er.Err == nil || er.Err.Error() == "" {
				t.Fatalf("run ended with %#v, want an ErrorEvent with a reason", last)
			}
			t.Log(er.Err)
		})
	}
}

// TestSplitDataBadInput: the data-set split refuses too few cells (no
// references), non-finite coordinates and d ≥ D with ErrInput or ErrParams.
func TestSplitDataBadInput(t *testing.T) {
	p, _ := Params{}.Resolve()
	grid := func(n, k int) []float64 {
		x := make([]float64, n*k)
		for i := range x {
			x[i] = float64(i%7) + float64(i)/float64(len(x))
		}
		return x
	}
	if _, err := splitData(grid(3, 2), 3, 2, nil, nil, 0, p, 1); !errors.Is(err, ErrInput) {
		t.Errorf("3 cells: %v, want ErrInput (no references left)", err)
	}
	if _, err := splitData(nil, 0, 2, nil, nil, 0, p, 1); !errors.Is(err, ErrInput) {
		t.Errorf("no cells: %v, want ErrInput", err)
	}
	x := grid(40, 3)
	x[17] = math.NaN()
	if _, err := splitData(x, 40, 3, nil, nil, 0, p, 1); !errors.Is(err, ErrInput) {
		t.Errorf("NaN: %v, want ErrInput", err)
	}
	q := p
	q.Dim = 3
	if _, err := splitData(grid(40, 3), 40, 3, nil, nil, 0, q, 1); !errors.Is(err, ErrParams) {
		t.Errorf("d = D: %v, want ErrParams", err)
	}
	// One principal component: d would be 0, an error rather than a panic.
	if _, err := splitData(grid(40, 1), 40, 1, nil, nil, 0, p, 1); !errors.Is(err, ErrInput) {
		t.Errorf("k = 1: %v, want ErrInput (d must be < D = 1)", err)
	}
	pr, err := splitData(grid(40, 3), 40, 3, nil, nil, 0, p, 1)
	if err != nil || pr.M != 13 || pr.N != 27 || pr.H <= 0 || pr.Dim < 1 || pr.Dim >= 3 {
		t.Fatalf("40 cells: %+v, %v; want 13 queries (⌈2√40⌉), 27 references, h > 0, 1 ≤ d < 3", pr, err)
	}
}
