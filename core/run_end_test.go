package core

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/dpscope/dpscope/core/safe"
)

// breaker is a fake engine that takes a few steps and then panics in its own
// goroutine, panics in a worker goroutine, or ends early by EndEarly.
type breaker struct {
	how  string        // "engine", "worker", "early" or "late"
	hold chan struct{} // "late": released by the test
}

func (b *breaker) Run(ctx context.Context, ctl *Control) error {
	for step := 1; step <= 3; step++ {
		if _, err := ctl.Checkpoint(ctx); err != nil {
			return err
		}
		ctl.Emit(StepEvent{Stage: 1, Step: step})
	}
	switch b.how {
	case "engine":
		var m map[string]int
		//lint:ignore SA5000 the panic is the point: an engine that panics must end its run
		m["boom"]++ // assignment to entry in nil map
	case "worker":
		g, _ := errgroup.WithContext(ctx)
		for w := range 3 {
			g.Go(safe.Func(func() error {
				if w == 1 {
					s := make([]float64, 15)
					_ = s[w+14] // index out of range [15] with length 15
				}
				return nil
			}))
		}
		return g.Wait()
	case "late":
		<-b.hold // the test queues a patch after the last checkpoint
	case "early":
		ctl.EndEarly(OutcomeBudgetExhausted, "ε = 8 of the target 8 spent at step 3 of 10")
		ctl.EndEarly(OutcomeDiverged, "a later call is ignored")
	}
	return nil
}

// lateHold holds the next "late" breaker after its last checkpoint; a test
// sets it before starting one.
var lateHold chan struct{}

func init() {
	Register(Method{Name: "test-breaker", Family: FamilyDPSGD,
		Options: []OptionSpec{{Key: "how", Kind: KindString, Doc: "where the breaker breaks"}},
		New: func(cfg Config) (Engine, error) {
			if cfg.Options["how"] == "factory" {
				panic("factory broke")
			}
			return &breaker{how: cfg.Options["how"], hold: lateHold}, nil
		}})
}

func startBreaker(t *testing.T, how string) (*Run, error) {
	t.Helper()
	cfg := testConfig()
	cfg.Method, cfg.Options = "test-breaker", map[string]string{"how": how}
	return Start(context.Background(), cfg)
}

func TestPanicEndsOnlyItsRunWithAnErrorEvent(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, tc := range []struct{ how, want string }{
		{"engine", "assignment to entry in nil map"},
		{"worker", "index out of range [15] with length 15"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			// A healthy run alongside must finish as if nothing happened.
			healthy := start(t, context.Background(), &counter{steps: 50})
			r, err := startBreaker(t, tc.how)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			evs := collect(r)
			r.Wait()
			last, ok := evs[len(evs)-1].(ErrorEvent)
			if !ok {
				t.Fatalf("last event = %#v, want an ErrorEvent", evs[len(evs)-1])
			}
			if !safe.IsPanic(last.Err) || !strings.Contains(last.Err.Error(), tc.want) || !strings.Contains(last.Err.Error(), "test-breaker") {
				t.Errorf("ErrorEvent.Err = %v, want the recovered panic %q, named by the method", last.Err, tc.want)
			}
			hevs := collect(healthy)
			if d, ok := hevs[len(hevs)-1].(DoneEvent); !ok || d.Outcome != OutcomeFinished {
				t.Errorf("the other run ended with %#v, want DoneEvent finished", hevs[len(hevs)-1])
			}
		})
	}
	checkNoLeak(t, before)
}

func TestPanicInFactoryIsAStartError(t *testing.T) {
	r, err := startBreaker(t, "factory")
	if r != nil || !safe.IsPanic(err) || !strings.Contains(err.Error(), "factory broke") {
		t.Errorf("Start with a panicking factory = (%v, %v), want (nil, the recovered panic)", r, err)
	}
}

func TestDoneEventCarriesOutcome(t *testing.T) {
	r, err := startBreaker(t, "early")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(r)
	d, ok := evs[len(evs)-1].(DoneEvent)
	if !ok {
		t.Fatalf("last event = %#v, want DoneEvent", evs[len(evs)-1])
	}
	if d.Outcome != OutcomeBudgetExhausted || d.Stopped || !d.Early() || !strings.Contains(d.Reason, "step 3 of 10") {
		t.Errorf("DoneEvent = %+v, want outcome budget-exhausted with the first reason, not stopped", d)
	}
	if got, want := d.Status(), "budget exhausted: ε = 8 of the target 8 spent at step 3 of 10"; got != want {
		t.Errorf("Status() = %q, want %q", got, want)
	}

	fin := start(t, context.Background(), &counter{steps: 5})
	evs = collect(fin)
	if d := evs[len(evs)-1].(DoneEvent); d.Outcome != OutcomeFinished || d.Early() || d.Status() != "finished" {
		t.Errorf("a full run's DoneEvent = %+v (status %q), want finished", d, d.Status())
	}

	stop := start(t, context.Background(), &counter{steps: 100000, delay: 1})
	<-stop.Events()
	stop.Stop()
	evs = collect(stop)
	if d, ok := evs[len(evs)-1].(DoneEvent); !ok || d.Outcome != OutcomeStopped || !d.Stopped || d.Status() != "stopped: stopped by the user" {
		t.Errorf("a stopped run ends with %#v, want outcome stopped", evs[len(evs)-1])
	}
}

func TestPatchAfterTheLastCheckpointIsAnswered(t *testing.T) {
	hold := make(chan struct{})
	lateHold = hold
	r, err := startBreaker(t, "late")
	if err != nil {
		t.Fatal(err)
	}
	sigma := 2.0
	var answers []PatchEvent
	for ev := range r.Events() {
		if s, ok := ev.(StepEvent); ok && s.Step == 3 {
			r.Apply(Patch{Sigma: &sigma}) // after the third and last checkpoint
			close(hold)
		}
		if p, ok := ev.(PatchEvent); ok {
			answers = append(answers, p)
		}
	}
	if len(answers) != 1 || answers[0].Applied || !strings.Contains(answers[0].Err, "ended before") {
		t.Errorf("answers to a patch after the last checkpoint = %+v, want one saying the run ended first", answers)
	}
}
