package core

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dpscope/dpscope/core/safe"
)

// Run is one started run: a goroutine tree owned by it. Its methods are safe
// for concurrent use and never block for long.
type Run struct {
	cfg    Config
	bus    *bus
	ctl    *Control
	cancel context.CancelFunc
	done   chan struct{} // closed when the engine and the forwarder have ended
}

// Start validates cfg, builds the method's engine and starts it. The
// returned run reports on Events. Cancelling ctx abandons the run: the
// engine stops, undelivered events are dropped and Events is closed; use
// Stop to end a run and still receive its DoneEvent.
func Start(ctx context.Context, cfg Config) (*Run, error) {
	return StartWith(ctx, cfg, Options{})
}

// Options changes how a run delivers its events.
type Options struct {
	// KeepAll turns coalescing off: every event is delivered, however far
	// behind the watcher is (the engine still never blocks; undelivered
	// events wait in memory). For headless runs that record every step.
	KeepAll bool
}

// StartWith is Start with delivery options.
func StartWith(ctx context.Context, cfg Config, opts Options) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := LookupMethod(cfg.Method)
	if err != nil {
		return nil, err
	}
	if cfg.Audit != nil && m.Audit == "" {
		return nil, badf("audit is set, but method %s cannot be audited (methods with an audit: %v)", cfg.Method, AuditableMethods())
	}
	if cfg.Audit != nil && cfg.Audit.Input() && m.InputAudit == "" {
		return nil, badf("audit kind is input, but method %s has no input canaries (methods with them: %v)", cfg.Method, InputAuditableMethods())
	}
	// A factory may load data: a panic there is a failed start, not a
	// crash of the program holding other runs.
	var eng Engine
	err = safe.Call(func() error {
		var ferr error
		eng, ferr = m.New(cfg)
		return ferr
	})
	if err != nil {
		return nil, errorf(cfg.Method, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	r := &Run{cfg: cfg, bus: newBus(opts.KeepAll), cancel: cancel, done: make(chan struct{})}
	r.ctl = newControl(r.bus)
	r.ctl.specs = m.Options
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		r.bus.forward(ctx)
	}()
	go func() {
		defer wg.Done()
		start := time.Now()
		// A panic in the engine ends this run with an ErrorEvent; the
		// goroutines the engine starts recover their own (core/safe).
		err := safe.Call(func() error { return eng.Run(runCtx, r.ctl) })
		stopped := r.ctl.stopRequested()
		// A patch queued after the engine's last checkpoint is answered
		// too: every Apply gets a PatchEvent.
		for _, p := range r.ctl.takeQueued() {
			r.bus.emit(PatchEvent{Patch: p, Err: "the run ended before this change could take effect"})
		}
		switch {
		case err == nil:
			done := DoneEvent{Outcome: OutcomeFinished, Elapsed: time.Since(start)}
			if o, why := r.ctl.endedEarly(); o != "" {
				done.Outcome, done.Reason = o, why
				done.Stopped = o == OutcomeStopped
			}
			r.bus.emit(done)
		case stopped && errors.Is(err, context.Canceled):
			r.bus.emit(DoneEvent{Outcome: OutcomeStopped, Stopped: true, Reason: "stopped by the user", Elapsed: time.Since(start)})
		default:
			r.bus.emit(ErrorEvent{Err: errorf(cfg.Method, err)})
		}
		r.bus.close()
	}()
	go func() {
		wg.Wait()
		cancel()
		close(r.done)
	}()
	return r, nil
}

// Config returns the configuration the run started with.
func (r *Run) Config() Config { return r.cfg }

// Events returns the channel of the run's events. It is closed after exactly
// one DoneEvent or ErrorEvent, or when the context given to Start is
// cancelled.
func (r *Run) Events() <-chan Event { return r.bus.out }

// Apply queues a live change for the next step boundary. Invalid patches are
// answered by a PatchEvent with Err set; Apply itself never blocks.
func (r *Run) Apply(p Patch) { r.ctl.queue(p) }

// Pause holds the engine at its next step boundary.
func (r *Run) Pause() { r.ctl.setPaused(true) }

// Resume lets a paused engine go on.
func (r *Run) Resume() { r.ctl.setPaused(false) }

// Paused reports whether the run is paused.
func (r *Run) Paused() bool { return r.ctl.isPaused() }

// Stop ends the run at its next step boundary; a DoneEvent with Stopped set
// follows. Calling it more than once is harmless.
func (r *Run) Stop() {
	r.ctl.requestStop()
	r.cancel()
}

// Wait blocks until every goroutine of the run has ended.
func (r *Run) Wait() { <-r.done }

// Done returns a channel closed when every goroutine of the run has ended.
func (r *Run) Done() <-chan struct{} { return r.done }
