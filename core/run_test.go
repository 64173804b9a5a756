package core

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// counter is a fake engine: Steps steps, each emitting a StepEvent whose
// Loss is the current sigma, with a MetricsEvent every tenth step.
type counter struct {
	steps int
	sigma float64
	delay time.Duration
	fail  error
	ended chan struct{} // closed when Run returns, if not nil
}

func (c *counter) Run(ctx context.Context, ctl *Control) error {
	if c.ended != nil {
		defer close(c.ended)
	}
	ctl.Emit(StageEvent{Stage: 1, Name: "counting", Steps: c.steps})
	for step := 1; step <= c.steps; step++ {
		patches, err := ctl.Checkpoint(ctx)
		if err != nil {
			return err
		}
		for _, p := range patches {
			if p.Sigma != nil {
				c.sigma = *p.Sigma
			}
			ctl.Applied(p, step)
		}
		if c.fail != nil && step == c.steps/2 {
			return c.fail
		}
		ctl.Emit(StepEvent{Stage: 1, Step: step, Loss: c.sigma})
		if step%10 == 0 {
			ctl.Emit(MetricsEvent{Step: step})
		}
		if c.delay > 0 {
			select {
			case <-time.After(c.delay):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// engines hands each test its own fake engine through one registration.
var engines = make(chan *counter, 1)

func init() {
	Register(Method{Name: "test-counter", Family: FamilyDPSGD, New: func(cfg Config) (Engine, error) {
		select {
		case c := <-engines:
			return c, nil
		default:
			return nil, errors.New("no engine queued")
		}
	}})
}

func testConfig() Config {
	return Config{Data: "builtin:default", Method: "test-counter", Mode: ModeNonPrivate, SampleRate: 0.1}
}

func start(t *testing.T, ctx context.Context, c *counter) *Run {
	t.Helper()
	engines <- c
	r, err := Start(ctx, testConfig())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return r
}

// collect drains a run's events.
func collect(r *Run) []Event {
	var evs []Event
	for ev := range r.Events() {
		evs = append(evs, ev)
	}
	return evs
}

// checkNoLeak fails if goroutines started after before outlive the run.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want ≤ %d:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunEndsWithOneDone(t *testing.T) {
	before := runtime.NumGoroutine()
	r := start(t, context.Background(), &counter{steps: 100})
	evs := collect(r)
	r.Wait()
	last := evs[len(evs)-1]
	if d, ok := last.(DoneEvent); !ok || d.Stopped {
		t.Fatalf("last event = %#v, want a DoneEvent not stopped", last)
	}
	metrics := 0
	for _, ev := range evs[:len(evs)-1] {
		switch ev.(type) {
		case DoneEvent, ErrorEvent:
			t.Errorf("terminal event %T before the end", ev)
		case MetricsEvent:
			metrics++
		}
	}
	if metrics != 10 {
		t.Errorf("got %d metrics events, want all 10 (they never coalesce)", metrics)
	}
	checkNoLeak(t, before)
}

func TestPatchTakesEffectAtNextStep(t *testing.T) {
	r := start(t, context.Background(), &counter{steps: 1000, sigma: 1, delay: time.Millisecond})
	var applied PatchEvent
	var rejected PatchEvent
	sent := false
	for ev := range r.Events() {
		switch ev := ev.(type) {
		case StepEvent:
			if !sent && ev.Step >= 5 {
				bad, good := -1.0, 2.5
				r.Apply(Patch{Sigma: &bad})
				r.Apply(Patch{Sigma: &good})
				sent = true
			}
			if applied.Applied && ev.Step >= applied.Step && ev.Loss != 2.5 {
				t.Fatalf("step %d after the patch took effect at %d has σ %v, want 2.5", ev.Step, applied.Step, ev.Loss)
			}
			if applied.Applied && ev.Step > applied.Step+5 {
				r.Stop()
			}
		case PatchEvent:
			if ev.Applied {
				applied = ev
			} else {
				rejected = ev
			}
		}
	}
	if !applied.Applied || *applied.Patch.Sigma != 2.5 {
		t.Errorf("applied patch = %+v, want σ=2.5 applied", applied)
	}
	if rejected.Err == "" {
		t.Error("negative σ patch was not rejected")
	}
}

func TestPauseHoldsAndResumeContinues(t *testing.T) {
	r := start(t, context.Background(), &counter{steps: 1 << 30})
	// Stop, then drain: with the watcher gone and more than the channel's
	// buffer of metrics events queued, the forwarder (and so Wait) would
	// block forever on delivering them — the flake that hung this test
	// about once in a few hundred runs.
	defer func() {
		r.Stop()
		for range r.Events() {
		}
		r.Wait()
	}()
	// Wait for progress, pause, drain what was in flight.
	waitStep := func() int {
		for ev := range r.Events() {
			if s, ok := ev.(StepEvent); ok {
				return s.Step
			}
		}
		return -1
	}
	waitStep()
	r.Pause()
	if !r.Paused() {
		t.Fatal("Paused() = false after Pause")
	}
	time.Sleep(20 * time.Millisecond) // let the engine reach its checkpoint
	last := 0
	drain := time.After(50 * time.Millisecond)
loop:
	for {
		select {
		case ev := <-r.Events():
			if s, ok := ev.(StepEvent); ok {
				last = s.Step
			}
		case <-drain:
			break loop
		}
	}
	select {
	case ev := <-r.Events():
		t.Fatalf("event %#v while paused (last step %d)", ev, last)
	case <-time.After(50 * time.Millisecond):
	}
	r.Resume()
	if s := waitStep(); s <= last {
		t.Errorf("after Resume, step %d, want > %d", s, last)
	}
}

func TestStopEndsPromptlyWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	r := start(t, context.Background(), &counter{steps: 1 << 30, delay: time.Second})
	<-r.Events() // the stage event
	t0 := time.Now()
	r.Stop()
	evs := collect(r)
	if d := time.Since(t0); d > 100*time.Millisecond {
		t.Errorf("Stop took %v to close the events, want ≤ 100ms", d)
	}
	if d, ok := evs[len(evs)-1].(DoneEvent); !ok || !d.Stopped {
		t.Errorf("last event = %#v, want DoneEvent{Stopped: true}", evs[len(evs)-1])
	}
	r.Wait()
	checkNoLeak(t, before)
}

func TestAbandonedRunLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	r := start(t, ctx, &counter{steps: 1 << 30})
	<-r.Events()
	cancel() // the watcher goes away without draining
	r.Wait()
	for range r.Events() {
	}
	checkNoLeak(t, before)
}

func TestEngineErrorEndsWithErrorEvent(t *testing.T) {
	boom := errors.New("boom")
	r := start(t, context.Background(), &counter{steps: 10, fail: boom})
	evs := collect(r)
	e, ok := evs[len(evs)-1].(ErrorEvent)
	if !ok || !errors.Is(e.Err, boom) {
		t.Fatalf("last event = %#v, want ErrorEvent wrapping boom", evs[len(evs)-1])
	}
}

func TestSlowWatcherCoalescesButKeepsEssentials(t *testing.T) {
	const steps = 20000
	ended := make(chan struct{})
	r := start(t, context.Background(), &counter{steps: steps, ended: ended})
	<-ended // the engine finishes before anything is read
	var stepEvents, metrics int
	lastStep := 0
	for ev := range r.Events() {
		switch ev := ev.(type) {
		case StepEvent:
			stepEvents++
			if ev.Step <= lastStep {
				t.Fatalf("step %d after %d: out of order", ev.Step, lastStep)
			}
			lastStep = ev.Step
		case MetricsEvent:
			metrics++
		}
	}
	if metrics != steps/10 {
		t.Errorf("got %d metrics events, want %d", metrics, steps/10)
	}
	if stepEvents >= steps || lastStep != steps {
		t.Errorf("got %d step events ending at %d, want fewer than %d (coalesced) ending at %d", stepEvents, lastStep, steps, steps)
	}
}

func TestKeepAllDeliversEveryStep(t *testing.T) {
	const steps = 5000
	ended := make(chan struct{})
	engines <- &counter{steps: steps, ended: ended}
	r, err := StartWith(context.Background(), testConfig(), Options{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	n := 0
	for ev := range r.Events() {
		if _, ok := ev.(StepEvent); ok {
			n++
		}
	}
	if n != steps {
		t.Errorf("KeepAll delivered %d step events, want %d", n, steps)
	}
}

// optionCounter is a counter that takes the live option "rate" and records
// the options it was given.
type optionCounter struct {
	counter
	gate chan struct{}
	got  []map[string]string
}

func (c *optionCounter) Run(ctx context.Context, ctl *Control) error {
	<-c.gate
	for step := 1; step <= c.steps; step++ {
		ps, err := ctl.Checkpoint(ctx)
		if err != nil {
			return err
		}
		for _, p := range ps {
			c.got = append(c.got, p.Options)
			ctl.Applied(p, step)
		}
		ctl.Emit(StepEvent{Stage: 1, Step: step})
	}
	return nil
}

var optionEngines = make(chan Engine, 1)

func init() {
	Register(Method{Name: "test-options", Family: FamilyDPSGD, Options: []OptionSpec{
		{Key: "rate", Kind: KindFloat, Default: 1.0, Min: 0, Max: 10, Live: true, Doc: "a live rate"},
		{Key: "size", Kind: KindInt, Default: 1, Doc: "fixed at the start"}}, New: func(Config) (Engine, error) { return <-optionEngines, nil }})
}

// gated runs an engine once gate is closed.
type gated struct {
	Engine
	gate chan struct{}
}

func (g gated) Run(ctx context.Context, ctl *Control) error {
	<-g.gate
	return g.Engine.Run(ctx, ctl)
}

// patchAnswers queues ps before the first checkpoint of eng (which waits
// for gate) and returns the PatchEvents of the run.
func patchAnswers(t *testing.T, method string, eng Engine, gate chan struct{}, ps ...Patch) []PatchEvent {
	t.Helper()
	optionEngines <- eng
	cfg := testConfig()
	cfg.Method = method
	r, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		r.Apply(p)
	}
	close(gate)
	var out []PatchEvent
	for ev := range r.Events() {
		if pe, ok := ev.(PatchEvent); ok {
			out = append(out, pe)
		}
	}
	r.Wait()
	return out
}

func init() {
	Register(Method{Name: "test-plain", Family: FamilyDPSGD, New: func(Config) (Engine, error) { return <-optionEngines, nil }})
}

func TestPatchOptionsReachOnlyLiveSpecs(t *testing.T) {
	oc := &optionCounter{counter: counter{steps: 3}, gate: make(chan struct{})}
	evs := patchAnswers(t, "test-options", oc, oc.gate,
		Patch{Options: map[string]string{"rate": "2"}},
		Patch{Options: map[string]string{"speed": "2"}},
		Patch{Options: map[string]string{"rate": ""}},
		Patch{Options: map[string]string{"rate": "11"}},
		Patch{Options: map[string]string{"size": "2"}})
	var applied, rejected int
	for _, ev := range evs {
		if ev.Applied {
			applied++
		} else {
			rejected++
			if ev.Err == "" {
				t.Errorf("rejected patch %v without a reason", ev.Patch)
			}
		}
	}
	if applied != 1 || rejected != 4 || len(oc.got) != 1 || oc.got[0]["rate"] != "2" {
		t.Errorf("applied %d, rejected %d, engine got %v; want 1, 4 and rate=2 only", applied, rejected, oc.got)
	}
	// A method that declares no live option never sees options.
	plain := gated{Engine: &counter{steps: 3}, gate: make(chan struct{})}
	evs = patchAnswers(t, "test-plain", plain, plain.gate, Patch{Options: map[string]string{"rate": "2"}})
	if len(evs) != 1 || evs[0].Applied || evs[0].Err == "" {
		t.Errorf("options patch to a plain engine answered %+v, want one rejection", evs)
	}
	if s := (Patch{Options: map[string]string{"h": "0.5", "T": "3"}}).String(); s != "T=3 h=0.5" {
		t.Errorf("String = %q, want %q", s, "T=3 h=0.5")
	}
}
